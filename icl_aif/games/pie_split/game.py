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

from pydantic import BaseModel

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Seat, Turn
from icl_aif.games.base import Judge, ModelFor, Setup
from icl_aif.games.pie_split import binding
from icl_aif.games.pie_split.binding import PieSplitOffer
from icl_aif.games.pie_split.critic import PieSplitCritic
from icl_aif.games.pie_split.judge import PieSplitJudge
from icl_aif.games.pie_split.offers import read_split
from icl_aif.games.pie_split.scenario import (
    ROLE_NAMES,
    SEATS,
    PieSplitScenario,
    PieSplitTerms,
    format_amount,
    scenario_values,
    share_step,
)
from icl_aif.games.registry import register_game
from icl_aif.games.simulation import ConcessionPlayer
from icl_aif.games.skeleton import GameSkeleton

__all__ = ["PieSplitGame", "side_payoff"]


def side_payoff(terms: PieSplitTerms, side: Seat, discount: float) -> float:
    """``side``'s share of the pie times ``discount ** exchanges``."""
    return float(terms.share(side) * discount**terms.exchanges)


def _exchanges_text(exchanges: int) -> str:
    if exchanges == 0:
        return "no turned-down offer"
    return f"{exchanges} turned-down offer{'s' if exchanges != 1 else ''}"


@register_game
class PieSplitGame(GameSkeleton[PieSplitScenario, PieSplitTerms]):
    """Two players divide a pie that shrinks by a discount factor with every turned-down offer
    (seed 003: an RL-tuned negotiator's pie split)."""

    name = "pie_split"
    seats = SEATS
    title = "Pie split with a shrinking pie"
    source = "seed 003 (fine-tuning LLM negotiators with RL: the pie split game)"
    scenario_model = PieSplitScenario
    terms_model = PieSplitTerms
    simulators = ("boulware", "linear", "conceder", "fair", "critic")
    offer_model = PieSplitOffer
    measure_label = "improved side's payoff (share x discount^t)"
    silent_flag = "no_offer"
    unread = "a split"

    # --- what each side is told ----------------------------------------------------------

    def opener_values(self, scenario: PieSplitScenario) -> dict[str, Any]:
        """``pie``, ``discount``, ``shrink`` (``10%``), ``max_exchanges``, ``max_lines``."""
        return scenario_values(scenario)

    def brief(self, prompts: PromptLibrary, scenario: PieSplitScenario, side: Seat) -> str:
        """``pie_split/players/<side>.txt``: the proposer's (proposer seat) or the responder's."""
        return prompts.render(f"{self.name}/players/{side}.txt", **scenario_values(scenario))

    def deal_sentence(self, scenario: PieSplitScenario, terms: PieSplitTerms) -> str:
        """``deal on offer 3 after 2 exchanges: proposer 60, responder 40 of the pie of 100
        (payoffs 0.486 and 0.324)``."""
        s, t = scenario, terms.exchanges
        return (
            f"deal on offer {t + 1} after {t} exchange{'s' if t != 1 else ''}: "
            f"proposer {format_amount(terms.proposer_share * s.pie)}, "
            f"responder {format_amount(terms.responder_share * s.pie)} of the pie of "
            f"{format_amount(s.pie)} (payoffs "
            f"{self.payoff_text(side_payoff(terms, 'proposer', s.discount))} and "
            f"{self.payoff_text(side_payoff(terms, 'responder', s.discount))})"
        )

    def payoff_text(self, value: float) -> str:
        """``0.486``."""
        return f"{value:.3f}"

    def deal_result(self, setup: Setup[PieSplitScenario], terms: PieSplitTerms) -> dict[str, Any]:
        """The offer, each side's amount, the pie, the exchanges, the share, the discount and
        the payoff."""
        s, side = setup.scenario, setup.improve
        return {
            "offer": terms.exchanges + 1,
            "own": format_amount(terms.share(side) * s.pie),
            "other": format_amount(terms.share(SEATS.other(side)) * s.pie),
            "rival": ROLE_NAMES[SEATS.other(side)],
            "pie": format_amount(s.pie),
            "exchanges": terms.exchanges,
            "exchanges_text": _exchanges_text(terms.exchanges),
            "share": f"{terms.share(side):g}",
            "discount": f"{s.discount:g}",
            "payoff": self.payoff_text(side_payoff(terms, side, s.discount)),
        }

    def critic_values(
        self, prompts: PromptLibrary, setup: Setup[PieSplitScenario]
    ) -> dict[str, Any]:
        """The improved role and seat, the pie, the discount and the no-deal payoff."""
        s = setup.scenario
        return {
            "role": ROLE_NAMES[setup.improve],
            "seat": setup.improve,
            "pie": format_amount(s.pie),
            "discount": f"{s.discount:g}",
            "no_deal_payoff": f"{s.no_deal_payoff:g}",
            "suggestions": setup.suggestions,
        }

    def sample_terms(self, scenario: PieSplitScenario) -> dict[str, Any]:
        """60 and 40 of the pie after two exchanges."""
        return PieSplitTerms(proposer_share=0.6, responder_share=0.4, exchanges=2).model_dump()

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

    def deal_payoff(self, scenario: PieSplitScenario, side: Seat, terms: PieSplitTerms) -> float:
        """``side``'s share of the pie times ``discount ** exchanges``; without a deal both get
        ``scenario.no_deal_payoff``."""
        return side_payoff(terms, side, scenario.discount)

    def walk_away(self, scenario: PieSplitScenario, side: Seat) -> float:
        """``scenario.no_deal_payoff`` for either side (seed 003: -0.5)."""
        return scenario.no_deal_payoff

    def payoff_bounds(self, scenario: PieSplitScenario, side: Seat) -> tuple[float, float]:
        """From nothing to the whole pie at once: (0, 1)."""
        return (0.0, 1.0)

    def states(self, scenario: PieSplitScenario, text: str) -> bool:
        """Whether a line states an offer."""
        return read_split(text, scenario.pie) is not None

    # --- simulators ----------------------------------------------------------------------

    def simulator_types(self) -> tuple[type[ConcessionPlayer], type[PieSplitCritic]]:
        """``scripted:boulware|linear|conceder|fair`` players and ``scripted:critic``."""
        from icl_aif.games.pie_split.simulators import PieSplitPlayer

        return PieSplitPlayer, PieSplitCritic
