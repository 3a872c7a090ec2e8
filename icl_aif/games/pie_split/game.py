"""The pie split of seed 003: two players divide a pie that shrinks with every turned-down offer.

Seats: the ``proposer`` seat is the **proposer** (it makes the first offer), the ``responder`` seat the
**responder**; both may make offers after that. Offers are numbered from 1 across both sides
(``Offer 3: 60 for me and 40 for you.``, see :mod:`icl_aif.games.pie_split.offers`).

Terms: ``{"proposer_share": p_s, "responder_share": p_b, "exchanges": t}`` with ``p_s + p_b = 1`` (the
shares of the pie as proportions) and ``t`` the number of offers made in the round before the
accepted one (an agreement on offer ``N`` has ``t = N - 1``). Payoffs: ``share * discount ** t``
for each side (the paper's ``p_A * 0.9^t``); without an agreement both get
``scenario.no_deal_payoff`` (the paper's -0.5). The per-round figure is the improved side's payoff
of a deal (``mean_payoff`` and the other ``payoff`` keys of a summary); a round without a deal
scores ``no_deal_payoff`` too. Templates: ``prompts/pie_split/``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import Anchor
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Message, Seat, Turn
from icl_aif.games.base import (
    Game,
    Judge,
    Measure,
    ModelFor,
    Round,
    Setup,
    SimulatorRequest,
    acknowledgement_text,
    anchor_label,
    anchor_round,
    critic_prompt,
    last_speaker,
    next_round_text,
    read_terms,
    reason_text,
    round_goal,
    sample_round_sets,
)
from icl_aif.games.pie_split import binding
from icl_aif.games.pie_split.binding import PieSplitOffer
from icl_aif.games.pie_split.judge import PieSplitJudge
from icl_aif.games.pie_split.offers import read_split
from icl_aif.games.pie_split.scenario import (
    ROLE_NAMES,
    SEATS,
    PieSplitScenario,
    PieSplitTerms,
    format_amount,
    opening_turns,
    scenario_values,
    share_step,
)
from icl_aif.games.registry import register_game

__all__ = ["PieSplitGame", "anchor_payoff", "deal_terms", "side_payoff"]

PROMPTS = "pie_split"


def deal_terms(record: Round) -> PieSplitTerms | None:
    """The terms of a round that ended in a deal; None without a deal or readable terms."""
    return read_terms(record, PieSplitTerms)


def side_payoff(terms: PieSplitTerms, side: Seat, discount: float) -> float:
    """``side``'s share of the pie times ``discount ** exchanges``."""
    return float(terms.share(side) * discount**terms.exchanges)


def anchor_payoff(
    rounds: Sequence[Round], anchor: Anchor, side: Seat, discount: float
) -> tuple[float, int] | None:
    """The payoff the next round should beat and the round it came from (``previous``: the last
    round's, ``first``: round 1's, ``best``: the best so far, the earliest among equals); None
    when that round had no deal."""

    def value(record: Round) -> float | None:
        terms = deal_terms(record)
        return None if terms is None else side_payoff(terms, side, discount)

    return anchor_round(rounds, anchor, value)


def _payoff_text(value: float) -> str:
    return f"{value:.3f}"


def _exchanges_text(exchanges: int) -> str:
    if exchanges == 0:
        return "no turned-down offer"
    return f"{exchanges} turned-down offer{'s' if exchanges != 1 else ''}"


def _no_deal_reason(record: Round, scenario: PieSplitScenario) -> str:
    """Why a round ended without an agreement, naming the role that ended it."""
    last = last_speaker(record, ROLE_NAMES, "a side")
    texts = {
        "walk_away": f"the {last} walked away",
        "refusal": f"the {last} refused to go on",
        "cap": f"the round reached its limit of {2 * scenario.max_exchanges} lines",
    }
    return reason_text(record, texts)


@register_game
class PieSplitGame(Game[PieSplitScenario, PieSplitTerms]):
    """Two players divide a pie that shrinks by a discount factor with every turned-down offer
    (seed 003: an RL-tuned negotiator's pie split)."""

    name = "pie_split"
    seats = SEATS
    title = "Pie split with a shrinking pie"
    source = "seed 003 (fine-tuning LLM negotiators with RL: the pie split game)"
    scenario_model = PieSplitScenario
    terms_model = PieSplitTerms
    judges = ("rules",)
    simulators = ("boulware", "linear", "conceder", "fair", "critic")
    offer_model = PieSplitOffer

    # --- what each side is told ----------------------------------------------------------

    def opening_turns(self, scenario: PieSplitScenario) -> list[Turn]:
        """The openers with ``{pie}``, ``{shrink}`` and the other scenario values filled in."""
        return opening_turns(scenario)

    def opener_values(self, scenario: PieSplitScenario) -> dict[str, Any]:
        """``pie``, ``discount``, ``shrink`` (``10%``), ``max_exchanges``, ``max_lines``."""
        return scenario_values(scenario)

    def brief(self, prompts: PromptLibrary, scenario: PieSplitScenario, side: Seat) -> str:
        """``pie_split/players/<side>.txt``: the proposer's (proposer seat) or the responder's."""
        return prompts.render(f"{PROMPTS}/players/{side}.txt", **scenario_values(scenario))

    def outcome_sentence(self, record: Round, scenario: PieSplitScenario) -> str:
        """``deal on offer 3 after 2 exchanges: proposer 60, responder 40 of the pie of 100 (payoffs
        0.486 and 0.324)`` or ``no deal: the responder walked away``."""
        s = scenario
        outcome = record.get("outcome")
        if outcome == "deal":
            terms = deal_terms(record)
            if terms is None:
                return "deal on a split that could not be read"
            t = terms.exchanges
            return (
                f"deal on offer {t + 1} after {t} exchange{'s' if t != 1 else ''}: "
                f"proposer {format_amount(terms.proposer_share * s.pie)}, "
                f"responder {format_amount(terms.responder_share * s.pie)} of the pie of "
                f"{format_amount(s.pie)} (payoffs "
                f"{_payoff_text(side_payoff(terms, 'proposer', s.discount))} and "
                f"{_payoff_text(side_payoff(terms, 'responder', s.discount))})"
            )
        if outcome == "error":
            return f"stopped by an error ({record.get('reason')})"
        return f"no deal: {_no_deal_reason(record, s)}"

    def next_round_instruction(
        self,
        prompts: PromptLibrary,
        setup: Setup[PieSplitScenario],
        rounds: Sequence[Round],
        feedback: str | None,
    ) -> str:
        """The result (``round/result_*.txt``), the feedback and the payoff to beat."""
        s = setup.scenario
        side = setup.improve
        last = rounds[-1]
        terms = deal_terms(last)
        if terms is not None:
            result = prompts.render(
                f"{PROMPTS}/round/result_deal.txt",
                offer=terms.exchanges + 1,
                own=format_amount(terms.share(side) * s.pie),
                other=format_amount(terms.share(SEATS.other(side)) * s.pie),
                rival=ROLE_NAMES[SEATS.other(side)],
                pie=format_amount(s.pie),
                exchanges=terms.exchanges,
                exchanges_text=_exchanges_text(terms.exchanges),
                share=f"{terms.share(side):g}",
                discount=f"{s.discount:g}",
                payoff=_payoff_text(side_payoff(terms, side, s.discount)),
            )
        elif last.get("outcome") == "deal":
            result = prompts.render(f"{PROMPTS}/round/result_unclear.txt")
        else:
            result = prompts.render(
                f"{PROMPTS}/round/result_no_deal.txt", reason=_no_deal_reason(last, s)
            )
        anchor = anchor_payoff(rounds, setup.anchor, side, s.discount)
        anchored = None
        if anchor is not None:
            anchored = {
                "anchor": _payoff_text(anchor[0]),
                "anchor_label": anchor_label(setup.anchor, anchor[1]),
            }
        goal = round_goal(prompts, PROMPTS, last["round"] + 1, anchored)
        return next_round_text(prompts, PROMPTS, last["round"], result, feedback, goal)

    def scripted_acknowledgement(
        self, prompts: PromptLibrary, setup: Setup[PieSplitScenario], rounds: Sequence[Round]
    ) -> str:
        """``round/acknowledgement.txt`` with the aim (the payoff to beat, if any)."""
        discount = setup.scenario.discount
        anchor = anchor_payoff(rounds, setup.anchor, setup.improve, discount)
        aim = None if anchor is None else {"anchor": _payoff_text(anchor[0])}
        return acknowledgement_text(prompts, PROMPTS, rounds, aim)

    def critic_messages(
        self, prompts: PromptLibrary, setup: Setup[PieSplitScenario], transcript: str
    ) -> list[Message]:
        """``critic/system.txt`` with the constraints that are on, then ``critic/request.txt``;
        both ask for ``feedback.suggestions`` suggestions."""
        s = setup.scenario
        values = {
            "role": ROLE_NAMES[setup.improve],
            "seat": setup.improve,
            "pie": format_amount(s.pie),
            "discount": f"{s.discount:g}",
            "no_deal_payoff": f"{s.no_deal_payoff:g}",
            "suggestions": setup.suggestions,
        }
        return critic_prompt(prompts, PROMPTS, setup, values, transcript)

    def sample_rounds(self, scenario: PieSplitScenario) -> list[list[dict[str, Any]]]:
        """A deal (a payoff to beat), a no deal after it, a no deal alone (nothing to beat) and
        a deal whose terms could not be read."""
        s = scenario
        turns = [{"speaker": o.speaker, "text": o.text} for o in s.openers]
        terms = PieSplitTerms(proposer_share=0.6, responder_share=0.4, exchanges=2).model_dump()
        return sample_round_sets(turns, terms)

    # --- binding moves (moves: structured) --------------------------------------------------

    def check_offer(self, scenario: PieSplitScenario, side: Seat, offer: BaseModel) -> str | None:
        """A split whose shares do not add up to the pie is refused, naming the pie."""
        return binding.check_offer(scenario, cast(PieSplitOffer, offer))

    def agreed_terms(
        self, scenario: PieSplitScenario, offerer: Seat, offer: BaseModel, turns: Sequence[Turn]
    ) -> dict[str, Any]:
        """Each seat's share as a proportion and ``exchanges``, the offers made before the
        accepted one (the judge's :func:`~icl_aif.games.pie_split.judge.terms_of`)."""
        return binding.agreed_terms(scenario, offerer, cast(PieSplitOffer, offer), turns)

    def opening_moves(self, scenario: PieSplitScenario) -> list[Any]:
        """An opener that states a valid split offers it; the default opener is talk."""
        return binding.opening_moves(scenario)

    def seat_name(self, side: Seat) -> str:
        """``proposer`` (the proposer seat) or ``responder`` (the responder seat)."""
        return ROLE_NAMES[side]

    # --- the judge and the terms ----------------------------------------------------------

    def build_judge(
        self, config: ExperimentConfig, prompts: PromptLibrary, model_for: ModelFor
    ) -> Judge:
        """The rules judge (:class:`~icl_aif.games.pie_split.judge.PieSplitJudge`)."""
        return PieSplitJudge(pie=self.scenario_of(config).pie, window=config.roles.moderator.window)

    def judge_info(self, scenario: PieSplitScenario) -> dict[str, Any]:
        """The pie and the discount (public values)."""
        s = scenario
        return {"pie": s.pie, "discount": s.discount}

    def agreement_examples(
        self, scenario: PieSplitScenario, seed: int
    ) -> list[tuple[list[Turn], dict[str, Any]]]:
        """An offer and its acceptance, worded by the simulators, for shares and offer numbers
        drawn from ``seed`` (each side offering twice)."""
        from icl_aif.games.pie_split.judge import terms_of
        from icl_aif.games.pie_split.offers import Split
        from icl_aif.games.pie_split.simulators import spoken_agreement

        s = scenario
        step = share_step(s.pie)
        rng = random.Random(f"pie_split:agreements:{seed}")
        examples: list[tuple[list[Turn], dict[str, Any]]] = []
        offerers: tuple[Seat, ...] = ("proposer", "responder", "proposer", "responder")
        for offerer in offerers:
            mine = round(round(rng.uniform(0.3, 0.8) * s.pie / step) * step, 6)
            number = rng.randint(1, 2 * s.max_exchanges - 1)
            turns = spoken_agreement(s, offerer, mine, number, rng)
            split = Split(mine=mine, yours=round(s.pie - mine, 6), number=number)
            examples.append((turns, terms_of(split, offerer, s.pie, number - 1)))
        return examples

    # --- payoffs ------------------------------------------------------------------------

    def payoff(self, scenario: PieSplitScenario, side: Seat, record: Round) -> float | None:
        """``side``'s share of the pie times ``discount ** exchanges`` after a deal;
        ``scenario.no_deal_payoff`` without one; None for an error or a deal whose terms cannot
        be read."""
        outcome = record.get("outcome")
        if outcome == "error":
            return None
        if outcome != "deal":
            return self.walk_away(scenario, side)
        terms = deal_terms(record)
        if terms is None:
            return None
        return side_payoff(terms, side, scenario.discount)

    def walk_away(self, scenario: PieSplitScenario, side: Seat) -> float:
        """``scenario.no_deal_payoff`` for either side (seed 003: -0.5)."""
        return scenario.no_deal_payoff

    def payoff_bounds(self, scenario: PieSplitScenario, side: Seat) -> tuple[float, float]:
        """From nothing to the whole pie at once: (0, 1)."""
        return (0.0, 1.0)

    def measure(self, setup: Setup[PieSplitScenario]) -> Measure:
        """The improved side's payoff of a deal; a round without one scores
        ``setup.no_deal_value`` (``scenario.no_deal_payoff``, -0.5, by default)."""
        side = setup.improve
        discount, pie = setup.scenario.discount, setup.scenario.pie

        def of(record: Round) -> float | None:
            terms = deal_terms(record)
            return None if terms is None else side_payoff(terms, side, discount)

        return Measure(
            name="payoff",
            label="improved side's payoff (share x discount^t)",
            of=of,
            no_deal_value=setup.no_deal_value,
            money=False,
            silent_flag="no_offer",
            states=lambda text: read_split(text, pie) is not None,
        )

    # --- simulators ----------------------------------------------------------------------

    def simulator(self, request: SimulatorRequest) -> BaseChatModel:
        """``scripted:boulware|linear|conceder|fair`` players and ``scripted:critic``."""
        from icl_aif.games.pie_split.simulators import build_scripted

        return build_scripted(request)
