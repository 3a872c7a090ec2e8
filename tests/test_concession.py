"""The concession players' shared pieces (games/simulation.py): the round's pace, the concession
curve, the strategy check and the scripted lines."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from icl_aif.games.pie_split.scenario import PieSplitScenario
from icl_aif.games.pie_split.simulators import PieSplitPlayer
from icl_aif.games.simulation import Aims, Pace, RoundView


def test_pace_counts_the_lines_left_from_the_players_seat() -> None:
    view: RoundView[None] = RoundView(
        lines=[(False, None), (True, None), (False, None)], texts=["a", "b", "c"], feedback=[]
    )
    pace = view.pace(max_exchanges=3)  # 6 lines in all, 3 said
    assert (pace.spoken, pace.left, pace.own_left) == (1, 3, 2)
    assert not pace.last_line and pace.rival_after
    last = Pace(spoken=2, left=1)
    assert last.last_line and not last.rival_after


def test_the_curve_opens_at_the_opening_and_ends_at_the_reservation() -> None:
    aims = Aims(opening=0.8, reservation=0.4, beta=1.0)
    assert Pace(spoken=0, left=6).share(aims) == pytest.approx(0.8)
    assert Pace(spoken=1, left=4).share(aims) == pytest.approx(0.6)  # half way, linear
    assert Pace(spoken=2, left=2).share(aims) == pytest.approx(0.4)
    boulware = Aims(opening=0.8, reservation=0.4, beta=0.3)
    assert Pace(spoken=1, left=4).share(boulware) > 0.75  # concedes little until the end


def test_an_unknown_strategy_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValidationError, match="unknown strategy 'stubborn'; one of boulware"):
        PieSplitPlayer(strategy="stubborn", side="proposer", scenario=PieSplitScenario())


def test_a_reminder_comes_before_counter_offers_only() -> None:
    player = PieSplitPlayer(strategy="linear", side="proposer", scenario=PieSplitScenario())
    counter = player.say("counter", {"number": 2, "mine": "60", "yours": "40"}, remind="remind")
    reminder = next(line for line in player.REPLIES["remind"] if counter.startswith(line))
    offers = [line.format(number=2, mine="60", yours="40") for line in player.REPLIES["counter"]]
    assert counter[len(reminder) + 1 :] in offers
    walk = player.say("walk", {}, remind="remind")
    assert walk in player.REPLIES["walk"]
