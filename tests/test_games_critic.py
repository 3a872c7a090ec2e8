"""In every game, the critic's round-2 call receives exactly the protocol's critic messages for the
improved player's first two rounds (the game's critic prompts around the recorded transcript),
and the improved player's round-2 view starts with its round-1 transcript and feedback turn."""

from __future__ import annotations

import asyncio

import pytest

from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_run_graph
from icl_aif.engine.protocol import critic_messages, initial_history, turns_as_messages
from icl_aif.games import registered_games


@pytest.mark.parametrize("name", sorted(registered_games()))
def test_the_critic_and_the_improved_player_in_round_2(name: str) -> None:
    config = config_from_dict({"name": "critic", "game": name, "runs": 1, "rounds": 3})
    ctx = GameContext(config=config)
    state = asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    rounds = state["rounds"]
    critic = [c["messages"] for c in ctx.calls if c["role"] == "critic" and c["round"] == 2]
    after = ("feedback", "feedback_source", "suggestions", "instruction", "acknowledgement")
    seen = [rounds[0], {k: v for k, v in rounds[1].items() if k not in after}]  # as at the call
    assert critic == [critic_messages(ctx.prompts, ctx.config, seen)]
    assert critic[0][0]["role"] == "system" and f"{name}/" not in critic[0][0]["content"]
    improved = [c["messages"] for c in ctx.calls if c["role"] == config.improve and c["round"] == 2]
    first = rounds[0]
    expected_prefix = [
        *initial_history(ctx.prompts, ctx.config, config.improve),
        *turns_as_messages(config.improve, first["turns"]),
        {"role": "user", "content": first["instruction"]},
        {"role": "assistant", "content": first["acknowledgement"]},
    ]
    assert improved and improved[0][: len(expected_prefix)] == expected_prefix


@pytest.mark.parametrize("name", sorted(registered_games()))
def test_the_scripted_critic_reads_the_rounds_through_a_wrapper(name: str) -> None:
    # the rounds travel with the call, so a chaos: wrapper without faults changes no suggestion
    def feedback(critic: str) -> list[str]:
        roles = {"critic": {"model": critic}}
        config = config_from_dict(
            {"name": "critic", "game": name, "runs": 1, "rounds": 4, "roles": roles}
        )
        ctx = GameContext(config=config)
        state = asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
        return [str(r.get("feedback")) for r in state["rounds"][:-1]]

    assert feedback("chaos:scripted:critic?error_rate=0") == feedback("scripted:critic")
