"""The single-item price game of seed 002: a seller and a buyer bargain over one item's price.

Terms: ``{"price": P}``. Payoffs: the seller gets ``P - seller_cost``, the buyer
``ceiling - P`` (its budget, else the list price); without a deal both get 0. The per-round figure
is the deal price itself (``mean_price`` and the other ``price`` keys of every summary), and a
round without a deal scores the improved side's walk-away price (the seller's cost, the buyer's
ceiling). Templates: ``prompts/price/``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import Anchor
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Message, Seat, Turn, format_money
from icl_aif.games.base import (
    Column,
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
    next_round_text,
    no_deal_reason,
    round_goal,
    sample_round_sets,
)
from icl_aif.games.price.judge.prices import names_a_price
from icl_aif.games.price.offers import PriceOffer
from icl_aif.games.price.offers import opening_moves as price_opening_moves
from icl_aif.games.price.scenario import (
    SEATS,
    PriceScenario,
    PriceTerms,
    listing_values,
    load_listings,
    opening_turns,
    price_step,
    scenario_values,
)
from icl_aif.games.registry import register_game

__all__ = ["PriceGame", "anchor_price", "deal_price", "player_brief"]

PROMPTS = "price"


def player_brief(prompts: PromptLibrary, scenario: PriceScenario, side: Seat) -> str:
    """The system prompt of the seller or the buyer."""
    values = scenario_values(scenario)
    if side == "buyer":
        budget = "budget.txt" if scenario.buyer_budget is not None else "no_budget.txt"
        values["budget"] = prompts.render(f"{PROMPTS}/players/{budget}", **values)
    return prompts.render(f"{PROMPTS}/players/{side}.txt", **values)


def deal_price(record: Round) -> float | None:
    """The price of a round that ended in a deal: its terms' price, else (a record written
    before terms) its ``price``; None without a deal or a bound price."""
    if record.get("outcome") != "deal":
        return None
    terms = record.get("terms")
    price = terms.get("price") if isinstance(terms, Mapping) else record.get("price")
    return float(price) if price is not None else None


def anchor_price(
    rounds: Sequence[Round], anchor: Anchor, improve: Seat
) -> tuple[float, int] | None:
    """The price the next round should beat and the round it came from, or None if there is none."""
    # the best price for the improved side; the earliest round among equal prices
    return anchor_round(rounds, anchor, deal_price, lower_is_better=improve != "seller")


def _trade_words(side: Seat) -> dict[str, str]:
    if side == "seller":
        return {"trade": "sell", "traded": "sold", "direction": "more"}
    return {"trade": "buy", "traded": "bought", "direction": "less"}


@register_game
class PriceGame(Game[PriceScenario, PriceTerms]):
    """A seller and a buyer bargain over the price of one item (seed 002, the core paper)."""

    name = "price"
    seats = SEATS
    _RIVAL_LABELS: ClassVar[dict[Seat, tuple[str, ...]]] = {
        "seller": ("buyer", "customer"),
        "buyer": ("seller", "vendor", "shopkeeper"),
    }
    title = "Single-item price bargaining"
    source = (
        "seed 002 (Fu et al. 2023, Improving Language Model Negotiation with Self-Play and "
        "In-Context Learning from AI Feedback)"
    )
    scenario_model = PriceScenario
    terms_model = PriceTerms
    judges = ("rules", "llm", "hybrid")
    simulators = ("boulware", "linear", "conceder", "tit_for_tat", "known", "optimal", "critic")
    typed_simulators = ("known", "optimal")
    offer_model = PriceOffer

    # --- what each side is told ----------------------------------------------------------

    def opening_turns(self, scenario: PriceScenario) -> list[Turn]:
        """The openers with ``{item}``, ``{list_price}`` and ``{buyer_open}`` filled in."""
        return opening_turns(scenario)

    def opener_values(self, scenario: PriceScenario) -> dict[str, Any]:
        """The values the openers may name."""
        return scenario_values(scenario)

    def rival_labels(self, side: Seat) -> tuple[str, ...]:
        """A seller's reply may write a ``Buyer:`` or ``Customer:`` line, a buyer's a
        ``Seller:``, ``Vendor:`` or ``Shopkeeper:`` one."""
        return self._RIVAL_LABELS[side]

    def scenario_text(self, scenario: Mapping[str, Any]) -> str:
        """``balloon: list $20, buyer opens $10, seller cost $8, buyer budget -, max exchanges 10``."""
        return (
            f"{scenario.get('item')}: list ${scenario.get('list_price')}, buyer opens "
            f"${scenario.get('buyer_open')}, seller cost ${scenario.get('seller_cost')}, "
            f"buyer budget {scenario.get('buyer_budget') or '-'}, "
            f"max exchanges {scenario.get('max_exchanges')}"
        )

    def brief(self, prompts: PromptLibrary, scenario: PriceScenario, side: Seat) -> str:
        """``price/players/<side>.txt`` with the scenario's prices (the buyer's budget if any)."""
        return player_brief(prompts, scenario, side)

    def outcome_sentence(self, record: Round, scenario: PriceScenario) -> str:
        """``deal at $15`` or ``no deal: the buyer walked away``."""
        if record.get("outcome") == "deal":
            price = deal_price(record)
            return (
                f"deal at {format_money(price)}"
                if price is not None
                else "deal at an unclear price"
            )
        if record.get("outcome") == "error":
            return f"stopped by an error ({record.get('reason')})"
        return f"no deal: {no_deal_reason(record, scenario.max_exchanges)}"

    def next_round_instruction(
        self,
        prompts: PromptLibrary,
        setup: Setup[PriceScenario],
        rounds: Sequence[Round],
        feedback: str | None,
    ) -> str:
        """The result (``price/round/result_*.txt``), the feedback and the price to beat."""
        side = setup.improve
        last = rounds[-1]
        words = {**_trade_words(side), **scenario_values(setup.scenario)}
        price = deal_price(last)
        if price is not None:
            result = prompts.render(
                f"{PROMPTS}/round/result_deal.txt", **words, price=format_money(price)
            )
        else:
            reason = no_deal_reason(last, setup.scenario.max_exchanges)
            result = prompts.render(f"{PROMPTS}/round/result_no_deal.txt", reason=reason)
        anchor = anchor_price(rounds, setup.anchor, side)
        anchored = None
        if anchor is not None:
            anchored = {
                **words,
                "anchor": format_money(anchor[0]),
                "anchor_label": anchor_label(setup.anchor, anchor[1]),
            }
        goal = round_goal(prompts, PROMPTS, last["round"] + 1, anchored)
        return next_round_text(prompts, PROMPTS, last["round"], result, feedback, goal)

    def scripted_acknowledgement(
        self, prompts: PromptLibrary, setup: Setup[PriceScenario], rounds: Sequence[Round]
    ) -> str:
        """``price/round/acknowledgement.txt`` with the aim (the price to beat, if any)."""
        words = _trade_words(setup.improve)
        anchor = anchor_price(rounds, setup.anchor, setup.improve)
        aim = None if anchor is None else {**words, "anchor": format_money(anchor[0])}
        return acknowledgement_text(prompts, PROMPTS, rounds, aim)

    def critic_messages(
        self, prompts: PromptLibrary, setup: Setup[PriceScenario], transcript: str
    ) -> list[Message]:
        """``price/critic/system.txt`` with the constraints that are on, then the request."""
        side = setup.improve
        values = {
            "role": side,
            "item": setup.scenario.item,
            "suggestions": setup.suggestions,
            "goal": "sell at a higher price" if side == "seller" else "buy at a lower price",
        }
        return critic_prompt(prompts, PROMPTS, setup, values, transcript)

    def check_templates(
        self, prompts: PromptLibrary, config: ExperimentConfig, *, critic: bool
    ) -> None:
        """The shared checks, and a model judge's prompts and few-shot examples."""
        super().check_templates(prompts, config, critic=critic)
        if config.roles.moderator.uses_model:
            from icl_aif.games.price.judge.llm import FENCED, SYSTEM, load_examples, window_text

            prompts.render(SYSTEM)
            prompts.render(FENCED)
            for example in load_examples(prompts, config.roles.moderator.examples):
                window_text(prompts, example.turns, example.scenario)
            opener = config.scenario.openers[0]
            window_text(prompts, [Turn(speaker=opener.speaker, text=opener.text)], None)

    def sample_rounds(self, scenario: PriceScenario) -> list[list[dict[str, Any]]]:
        """A deal (an anchor price), a no deal after it, and a no deal alone (no anchor)."""
        s = scenario
        turns = [{"speaker": o.speaker, "text": o.text} for o in s.openers]
        return sample_round_sets(turns, {"price": s.list_price}, unclear=False)

    # --- one game's scenario ----------------------------------------------------------------

    def sample_scenario(self, scenario: PriceScenario, seed: int) -> PriceScenario:
        """With ``listings``, the scenario of one listing of that file drawn from ``seed`` (its
        item, prices and ``source``; ``listings`` is null in the result, which plays that
        listing); with a known-type counterpart given as ranges, its type drawn from ``seed``;
        the scenario itself otherwise."""
        s = scenario
        if s.counterpart is not None and not s.counterpart.drawn:  # a known type's ranges
            rng = random.Random(f"price:counterpart:{seed}")
            drawn = s.counterpart.draw(rng, price_step(s.list_price))
            return s.model_copy(update={"counterpart": drawn})
        if s.listings is None:
            return s
        listing = random.Random(f"price:listing:{seed}").choice(load_listings(s.listings))
        return s.model_copy(update={**listing_values(listing), "listings": None})

    # --- the judge and the terms ----------------------------------------------------------

    def opening_moves(self, scenario: PriceScenario) -> list[Any]:
        """The openers that name a price offer it: the list price and the buyer's first offer."""
        return price_opening_moves(scenario)

    def build_judge(
        self, config: ExperimentConfig, prompts: PromptLibrary, model_for: ModelFor
    ) -> Judge:
        """Rules (no model), a few-shot model (``llm``), or rules with the model on ambiguous
        windows (``hybrid``); see docs/moderator.md."""
        from icl_aif.games.price.judge.rules import PriceRulesJudge

        settings = config.roles.moderator
        if settings.mode == "rules":
            return PriceRulesJudge()
        from icl_aif.games.price.judge.hybrid import HybridJudge
        from icl_aif.games.price.judge.llm import LLMJudge

        role_config = settings.role_config()
        llm = LLMJudge(model_for(role_config), role_config.model, config, prompts)
        return llm if settings.mode == "llm" else HybridJudge(llm)

    def judge_info(self, scenario: PriceScenario) -> dict[str, Any]:
        """The item, the list price and the buyer's opening offer (public values)."""
        s = scenario
        return {"item": s.item, "list_price": s.list_price, "buyer_open": s.buyer_open}

    def record_fields(self, terms: Mapping[str, Any] | None) -> dict[str, Any]:
        """``price`` beside ``terms``, as in records written before terms."""
        return {"price": terms.get("price") if terms else None}

    def agreement_examples(
        self, scenario: PriceScenario, seed: int
    ) -> list[tuple[list[Turn], dict[str, Any]]]:
        """A counter-offer and its acceptance, worded by the scripted players, for prices drawn
        from ``seed`` between the buyer's opening offer and the list price."""
        from icl_aif.games.price.simulators import spoken_agreement

        s = scenario
        rng = random.Random(f"price:agreements:{seed}")
        examples: list[tuple[list[Turn], dict[str, Any]]] = []
        for offerer in ("seller", "buyer", "seller", "buyer"):
            price = float(round(rng.uniform(s.buyer_open, s.list_price)))
            turns = spoken_agreement(s, offerer, price, rng)
            examples.append((turns, {"price": price}))
        return examples

    # --- payoffs ------------------------------------------------------------------------

    def payoff(self, scenario: PriceScenario, side: Seat, record: Round) -> float | None:
        """The seller's profit over its cost, or the buyer's saving under its ceiling."""
        outcome = record.get("outcome")
        if outcome == "error":
            return None
        if outcome != "deal":
            return self.walk_away(scenario, side)
        price = deal_price(record)
        if price is None:
            return None
        s = scenario
        return price - s.seller_cost if side == "seller" else s.buyer_ceiling - price

    def walk_away(self, scenario: PriceScenario, side: Seat) -> float:
        """Nothing gained: 0 for either side."""
        return 0.0

    def payoff_bounds(self, scenario: PriceScenario, side: Seat) -> tuple[float, float]:
        """The scripted players deal between the seller's cost and the buyer's ceiling."""
        s = scenario
        return (0.0, s.buyer_ceiling - s.seller_cost)

    def no_deal_value(self, scenario: Any, side: Seat) -> float:
        """The price a round without a deal scores: the price at which ``side`` gains nothing
        (the seller's cost; the buyer's budget, else the list price)."""
        s: PriceScenario = scenario
        return s.seller_cost if side == "seller" else s.buyer_ceiling

    def measure(self, setup: Setup[PriceScenario]) -> Measure:
        """The deal price; a round without a deal scores :meth:`no_deal_value`."""
        return Measure(
            name="price",
            label="deal price",
            of=deal_price,
            no_deal_value=setup.no_deal_value,
            money=True,
            silent_flag="no_price",
            states=names_a_price,
            span=_span(setup.scenario),
        )

    # --- known-type counterparts (docs/known_types.md) -------------------------------------

    def columns_for(self, setup: Setup[PriceScenario]) -> tuple[Column, ...]:
        """:attr:`columns` (none of the price game's own), and the known-type figures when the
        scenario declares a counterpart."""
        known = KNOWN_TYPE_COLUMNS if setup.scenario.counterpart is not None else ()
        return (*self.columns, *known)

    def round_metrics(
        self, setup: Setup[PriceScenario], games: Sequence[Mapping[str, Any]], number: int
    ) -> dict[str, Any]:
        """Round ``number``'s known-type figures for the improved side, each game's against the
        type it drew: the mean payoff of the best response (``optimal``), the mean optimality
        gap and surplus efficiency (rounds with a zone of agreement), and the share of rounds
        without one that ended in a deal (``false_agreement_rate``). Rounds that ended in an
        error, or in a deal whose price was not bound, are left out."""
        if setup.scenario.counterpart is None:
            return {}
        from icl_aif.games.price.known_type import known_type_figures

        optimal: list[float] = []
        gaps: list[float] = []
        efficiency: list[float] = []
        false_agreements: list[bool] = []
        for game in games:
            scenario = self.game_scenario(setup.scenario, game)
            for record in game.get("rounds", ()):
                if record.get("round") != number:
                    continue
                achieved = self.payoff(scenario, setup.improve, record)
                if achieved is None:
                    continue
                figures = known_type_figures(scenario, setup.improve, achieved)
                optimal.append(figures.optimal)
                if figures.gap is None or figures.efficiency is None:
                    false_agreements.append(record.get("outcome") == "deal")
                else:
                    gaps.append(figures.gap)
                    efficiency.append(figures.efficiency)
        return {
            "optimal": _mean(optimal),
            "optimality_gap": _mean(gaps),
            "surplus_efficiency": _mean(efficiency),
            "false_agreement_rate": _mean([float(f) for f in false_agreements]),
        }

    def check_config(self, config: ExperimentConfig) -> None:
        """A known-type counterpart's seat plays ``scripted:known`` and is not the improved
        seat; ``scripted:known`` and ``scripted:optimal`` play only against a declared type."""
        counterpart = self.scenario_of(config).counterpart
        for seat in self.seats:
            model = config.roles.seat(seat).model
            if model in ("scripted:known", "scripted:optimal") and counterpart is None:
                raise UsageError(
                    f"roles.{seat}.model: {model} plays against a known type; set "
                    "scenario.counterpart (seat, reservation, beta, deadline; "
                    "docs/known_types.md)"
                )
        if counterpart is None:
            return
        seat = counterpart.seat
        model = config.roles.seat(seat).model
        if model != "scripted:known" or config.person == seat:
            raise UsageError(
                f"roles.{seat}.model: scenario.counterpart makes the {seat} a known type, played "
                f"by scripted:known; got {model}"
            )
        if config.improve == seat:
            raise UsageError(
                f"improve: {seat} is the known-type counterpart; improve the other seat, whose "
                "optimality gap the tables report"
            )

    # --- the rules of bargaining (icl-aif screen) --------------------------------------------

    def rule_breaks(self, scenario: PriceScenario, side: Seat, record: Round) -> list[str]:
        """A deal outside ``side``'s range (a seller below its cost, a buyer above its
        ceiling); a deal worse for ``side`` than an offer of the other side it let pass; an
        offer of ``side`` worse for the other side than one it made before (asking more than it
        asked)."""
        from icl_aif.games.price.rule_checks import price_rule_breaks

        return price_rule_breaks(scenario, side, record)

    # --- simulators ----------------------------------------------------------------------

    def simulator(self, request: SimulatorRequest) -> BaseChatModel:
        """``scripted:STRATEGY`` players and ``scripted:critic``."""
        from icl_aif.games.price.simulators import build_scripted

        return build_scripted(request)


KNOWN_TYPE_COLUMNS = (
    Column("optimal", "Optimal payoff", "money"),
    Column("optimality_gap", "Optimality gap", "number"),
    Column("surplus_efficiency", "Surplus efficiency", "number"),
    Column("false_agreement_rate", "False agreements", "rate"),
)
"""The known-type figures per round (:meth:`PriceGame.round_metrics`)."""


def _mean(values: Sequence[float]) -> float | None:
    """The mean to four decimals; None for no values."""
    return round(fmean(values), 4) if values else None


def _span(scenario: PriceScenario) -> tuple[float, float] | None:
    """The buyer's opening offer to the list price, where deal prices lie; None when every game
    draws its own listing (``listings``)."""
    if scenario.listings is not None:
        return None
    return float(scenario.buyer_open), float(scenario.list_price)
