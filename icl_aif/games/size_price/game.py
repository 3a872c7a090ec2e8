"""The size-price bargaining game of seed 004: agree on a quantity and a unit price at once.

A wholesale seller (the ``seller`` seat, unit cost ``c``) and a retail buyer (the ``buyer`` seat,
the ``k``-th unit worth ``v/k`` to it) trade offers ``OFFER: 12 units at $9.50 each`` until one
side accepts the other's standing offer (see :mod:`icl_aif.games.size_price.offers` and
:mod:`icl_aif.games.size_price.judge`).

Terms: ``{"quantity": n, "unit_price": p}``. Payoffs (seed 004): seller ``(p - c) n``, buyer
``v H(n) - p n``; without an agreement both get 0.

The per-round figure (:meth:`SizePriceGame.measure`) is seed 004's: the improved side's
**bargaining power** ``alpha`` of the agreement under the generalized Nash bargaining solution
with ``d = 0``, which is its share of the joint surplus the agreement realised,
``u_side / (u_seller + u_buyer)`` (derived in
:func:`~icl_aif.games.size_price.scenario.bargaining_power`; 0.5 balanced, 1 the whole surplus).
A round without an agreement scores 0 in the unconditional score (nothing captured). The game's
extra per-round columns (:meth:`SizePriceGame.round_metrics`) are the mean quantity and unit price
of the deals, each side's mean payoff, and the improved side's normalised earnings (its payoff
over the largest joint surplus ``S*``, 0 without a deal: seed 004's normalised earnings, a total
profit over the most the game instance can pay) and the efficiency (the joint surplus realised
over ``S*``). Templates: ``prompts/size_price/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from pydantic import BaseModel

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Seat, Turn
from icl_aif.games import skeleton
from icl_aif.games.base import (
    Column,
    Judge,
    ModelFor,
    Setup,
)
from icl_aif.games.registry import register_game
from icl_aif.games.simulation import ConcessionPlayer
from icl_aif.games.size_price import binding
from icl_aif.games.size_price.binding import SizePriceOffer
from icl_aif.games.size_price.critic import SizePriceCritic
from icl_aif.games.size_price.judge import SizePriceJudge, standing_offer
from icl_aif.games.size_price.offers import Offer, read_line
from icl_aif.games.size_price.scenario import (
    ROLE_NAMES,
    SEATS,
    SizePriceScenario,
    SizePriceTerms,
    bargaining_power,
    efficient_quantity,
    format_price,
    joint_surplus,
    max_surplus,
    public_values,
    scenario_values,
    side_payoff,
)
from icl_aif.games.skeleton import GameSkeleton

__all__ = ["REASONS", "SizePriceGame"]

PROMPTS = "size_price"

REASONS = {**skeleton.REASONS, "invalid_moves": "the {last} kept making invalid moves"}
"""Why a round ended without an agreement, naming the role that ended it."""

GAIN: dict[Seat, str] = {"seller": "profit", "buyer": "expected benefit"}
"""What each side's payoff is called in the prompts."""


def _units(quantity: int) -> str:
    return f"{quantity} unit{'s' if quantity != 1 else ''}"


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


@register_game
class SizePriceGame(GameSkeleton[SizePriceScenario, SizePriceTerms]):
    """A wholesale seller and a retail buyer agree on a quantity and a unit price (seed 004's
    size-price bargaining game)."""

    name = "size_price"
    seats = SEATS
    title = "Size-price bargaining"
    source = "seed 004 (GameTalk: the size-price bargaining game, appendix E.3)"
    scenario_model = SizePriceScenario
    terms_model = SizePriceTerms
    simulators = ("boulware", "linear", "conceder", "critic")
    offer_model = SizePriceOffer
    measure_name = "bargaining_power"
    measure_label = "improved side's bargaining power alpha (generalized Nash, d = 0)"
    silent_flag = "no_offer"
    reasons = REASONS
    anchor_key = "target"

    # --- what each side is told ----------------------------------------------------------

    def opener_values(self, scenario: SizePriceScenario) -> dict[str, Any]:
        """``product``, ``max_quantity``, ``max_exchanges``, ``max_lines`` (no private value)."""
        return public_values(scenario)

    def brief(self, prompts: PromptLibrary, scenario: SizePriceScenario, side: Seat) -> str:
        """``size_price/players/<side>.txt``: the seller's (its unit cost) or the buyer's (its
        unit value)."""
        return prompts.render(f"{PROMPTS}/players/{side}.txt", **scenario_values(scenario))

    def deal_sentence(self, scenario: SizePriceScenario, terms: SizePriceTerms) -> str:
        """``deal on 6 units at $71.04 each: seller's profit $186.24, buyer's expected benefit
        $186.26 (bargaining power: seller 0.50, buyer 0.50)``."""
        s = scenario
        seller = bargaining_power(s, "seller", terms)
        power = (
            "no surplus to share"
            if seller is None
            else f"bargaining power: seller {seller:.2f}, buyer {1 - seller:.2f}"
        )
        return (
            f"deal on {_units(terms.quantity)} at {format_price(terms.unit_price)} each: "
            f"seller's profit {format_price(side_payoff(s, 'seller', terms))}, buyer's "
            f"expected benefit {format_price(side_payoff(s, 'buyer', terms))} ({power})"
        )

    def payoff_text(self, value: float) -> str:
        """``$186.24``."""
        return format_price(value)

    def deal_result(self, setup: Setup[SizePriceScenario], terms: SizePriceTerms) -> dict[str, Any]:
        """The units, the unit price, what the improved side's payoff is called and the payoff."""
        side = setup.improve
        return {
            "units": _units(terms.quantity),
            "unit_price": format_price(terms.unit_price),
            "gain": GAIN[side],
            "payoff": format_price(side_payoff(setup.scenario, side, terms)),
        }

    def no_deal_result(self, setup: Setup[SizePriceScenario]) -> dict[str, Any]:
        """What the improved side's payoff is called."""
        return {"gain": GAIN[setup.improve]}

    def goal_values(self, setup: Setup[SizePriceScenario]) -> dict[str, Any]:
        """What the improved side's payoff is called."""
        return {"gain": GAIN[setup.improve]}

    def critic_values(
        self, prompts: PromptLibrary, setup: Setup[SizePriceScenario]
    ) -> dict[str, Any]:
        """The public values, the roles, what the payoff is called and the improved side's own
        private value only (``critic/private_<side>.txt``)."""
        s = setup.scenario
        side = setup.improve
        return {
            **public_values(s),
            "role": ROLE_NAMES[side],
            "rival": ROLE_NAMES[SEATS.other(side)],
            "seat": side,
            "gain": GAIN[side],
            "private": prompts.render(f"{PROMPTS}/critic/private_{side}.txt", **scenario_values(s)),
            "suggestions": setup.suggestions,
        }

    def sample_terms(self, scenario: SizePriceScenario) -> dict[str, Any]:
        """The efficient quantity at one and a half times the unit cost."""
        s = scenario
        return SizePriceTerms(
            quantity=efficient_quantity(s), unit_price=round(s.unit_cost * 1.5, 2)
        ).model_dump()

    # --- moves ----------------------------------------------------------------------------

    def invalid_move(
        self, scenario: SizePriceScenario, side: Seat, text: str, turns: Sequence[Turn]
    ) -> str | None:
        """Why ``side``'s line is not a valid move: a malformed offer, an impossible one (a
        quantity that is not a whole number from 1 to ``max_quantity``, a negative price), or
        an acceptance with no standing offer of the other side, of an invalid one, or that
        restates other terms than the standing offer's. None for a valid line."""
        s = scenario
        reading = read_line(text)
        syntax = 'Write an offer as "OFFER: Q units at $P each", Q a whole number of units.'
        if reading.malformed:
            return f"Your offer could not be read. {syntax}"
        if reading.proposes and reading.offer is not None:
            problem = reading.offer.problem(s.max_quantity)
            if problem is not None:
                return f"Your offer is invalid: {problem}. {syntax}"
            return None
        if not reading.accepts:
            return None
        rival = SEATS.other(side)
        readings = [read_line(t["text"]) for t in turns]
        standing = standing_offer(readings, [t["speaker"] for t in turns], rival)
        if standing is None or standing.offer is None:
            return (
                f"There is no offer of the {ROLE_NAMES[rival]} to accept yet. Make an offer "
                'instead: "OFFER: Q units at $P each".'
            )
        offer: Offer = standing.offer
        problem = offer.problem(s.max_quantity)
        if problem is not None:
            return (
                f"The {ROLE_NAMES[rival]}'s standing offer is invalid ({problem}): make an offer."
            )
        restated = reading.offer
        if restated is not None and not restated.same(offer):
            return (
                f"You accepted {restated.text()}, but the {ROLE_NAMES[rival]}'s standing offer "
                f'is {offer.text()}. Accept it with "ACCEPT" or make a new offer.'
            )
        return None

    # --- binding moves (moves: structured) --------------------------------------------------

    def check_offer(self, scenario: SizePriceScenario, side: Seat, offer: BaseModel) -> str | None:
        """An offer of more units than ``max_quantity`` is refused, naming the bound."""
        return binding.check_offer(scenario, cast(SizePriceOffer, offer))

    def agreed_terms(
        self, scenario: SizePriceScenario, offerer: Seat, offer: BaseModel, turns: Sequence[Turn]
    ) -> dict[str, Any]:
        """The offer's quantity and unit price, as the judge states them."""
        return binding.agreed_terms(cast(SizePriceOffer, offer))

    def opening_moves(self, scenario: SizePriceScenario) -> list[Any]:
        """An opener that makes a valid offer offers it; the default opener is talk."""
        return binding.opening_moves(scenario)

    # --- the judge and the terms ----------------------------------------------------------

    def build_judge(
        self, config: ExperimentConfig, prompts: PromptLibrary, model_for: ModelFor
    ) -> Judge:
        """The rules judge (:class:`~icl_aif.games.size_price.judge.SizePriceJudge`)."""
        return SizePriceJudge(
            window=config.roles.moderator.window,
            max_quantity=self.scenario_of(config).max_quantity,
        )

    def judge_info(self, scenario: SizePriceScenario) -> dict[str, Any]:
        """The quantity bound (public); the judge is told no private value."""
        return {"max_quantity": scenario.max_quantity}

    def agreement_examples(
        self, scenario: SizePriceScenario, seed: int
    ) -> list[tuple[list[Turn], dict[str, Any]]]:
        """An offer and its acceptance, worded by the simulators, for quantities and prices
        drawn from ``seed`` (each side offering twice, once as its first offer)."""
        import random

        from icl_aif.games.size_price.judge import terms_of
        from icl_aif.games.size_price.simulators import spoken_agreement

        s = scenario
        rng = random.Random(f"size_price:agreements:{seed}")
        n_star = efficient_quantity(s)
        examples: list[tuple[list[Turn], dict[str, Any]]] = []
        offerers: tuple[Seat, ...] = ("seller", "buyer", "seller", "buyer")
        for number, offerer in enumerate(offerers):
            quantity = rng.randint(1, n_star)
            price = round(rng.uniform(s.unit_cost, s.unit_cost + max_surplus(s) / n_star), 2)
            offer = Offer(quantity=float(quantity), unit_price=price)
            turns = spoken_agreement(offerer, offer, number < 2, rng)
            examples.append((turns, terms_of(offer)))
        return examples

    # --- payoffs ------------------------------------------------------------------------

    def deal_payoff(self, scenario: SizePriceScenario, side: Seat, terms: SizePriceTerms) -> float:
        """Seller ``(p - c) n``, buyer ``v H(n) - p n``."""
        return side_payoff(scenario, side, terms)

    def measure_value(
        self, scenario: SizePriceScenario, side: Seat, terms: SizePriceTerms
    ) -> float | None:
        """``side``'s bargaining power ``alpha`` of the deal (seed 004's metric; None for a deal
        without surplus); a round without a deal scores ``setup.no_deal_value`` (0 by default)."""
        alpha = bargaining_power(scenario, side, terms)
        return None if alpha is None else round(alpha, 6)

    def walk_away(self, scenario: SizePriceScenario, side: Seat) -> float:
        """0 for either side (seed 004)."""
        return 0.0

    def no_deal_value(self, scenario: Any, side: Seat) -> float:
        """A round without a deal scores a bargaining power of 0: it captured nothing."""
        return 0.0

    def payoff_bounds(self, scenario: SizePriceScenario, side: Seat) -> tuple[float, float]:
        """From 0 (the simulators accept nothing that pays them less) to ``S*``, the largest
        joint surplus (the other side accepts nothing that pays it less than 0)."""
        return (0.0, max_surplus(scenario))

    columns = (
        Column("mean_quantity", "quantity", "number"),
        Column("mean_unit_price", "unit price", "money"),
        Column("mean_seller_payoff", "seller payoff", "money"),
        Column("mean_buyer_payoff", "buyer payoff", "money"),
        Column("normalised_earnings", "norm. earnings", "number"),
        Column("efficiency", "efficiency", "number"),
    )

    def round_metrics(
        self, setup: Setup[SizePriceScenario], games: Sequence[Mapping[str, Any]], number: int
    ) -> dict[str, Any]:
        """Round ``number``'s figures over the rounds that ended in a deal or no deal:
        ``mean_quantity`` and ``mean_unit_price`` over the deals; ``mean_seller_payoff``,
        ``mean_buyer_payoff``, ``normalised_earnings`` (the improved side's payoff over ``S*``)
        and ``efficiency`` (both payoffs together over ``S*``) over all of them, a no deal
        counting 0. None where no round counts."""
        side = setup.improve
        quantities: list[float] = []
        prices: list[float] = []
        seller: list[float] = []
        buyer: list[float] = []
        normalised: list[float] = []
        efficiency: list[float] = []
        for game in games:
            s = self.game_scenario(setup.scenario, game)
            best = max_surplus(s)
            for record in game.get("rounds") or []:
                if record.get("round") != number or record.get("outcome") == "error":
                    continue
                terms = self.terms_of(record)
                if record.get("outcome") == "deal" and terms is None:
                    continue  # a deal whose terms could not be read pays nothing we can count
                if terms is None:
                    values = {"seller": 0.0, "buyer": 0.0}
                    realised = 0.0
                else:
                    quantities.append(terms.quantity)
                    prices.append(terms.unit_price)
                    values = {k: side_payoff(s, k, terms) for k in ("seller", "buyer")}
                    realised = joint_surplus(s, terms.quantity)
                seller.append(values["seller"])
                buyer.append(values["buyer"])
                normalised.append(values[side] / best)
                efficiency.append(realised / best)
        return {
            "mean_quantity": _mean(quantities),
            "mean_unit_price": _mean(prices),
            "mean_seller_payoff": _mean(seller),
            "mean_buyer_payoff": _mean(buyer),
            "normalised_earnings": _mean(normalised),
            "efficiency": _mean(efficiency),
        }

    def states(self, scenario: SizePriceScenario, text: str) -> bool:
        """Whether a line states an offer."""
        return read_line(text).offer is not None

    # --- simulators ----------------------------------------------------------------------

    # --- simulators ----------------------------------------------------------------------

    def simulator_types(self) -> tuple[type[ConcessionPlayer], type[SizePriceCritic]]:
        """``scripted:boulware|linear|conceder`` players and ``scripted:critic``."""
        from icl_aif.games.size_price.simulators import SizePricePlayer

        return SizePricePlayer, SizePriceCritic
