"""``icl-aif optimize``: the critic as a prompt optimiser (issue 27; docs/optimize.md).

The loop follows GEPA (Agrawal et al., 2025, "GEPA: Reflective Prompt Evolution Can Outperform
Reinforcement Learning"), written here for our records and model layer:

- a pool of candidate **standing instructions** for the improved seat (``instructions:``, added
  to its brief), the first the empty one (the brief alone);
- each kept candidate is scored on every **validation** scenario (the improved seat's mean
  payoff over ``games`` games of it, one round each, no feedback in context); the **Pareto
  front** holds the candidates that are best on at least one scenario;
- a proposal picks a parent from the front (with a probability in proportion to the scenarios it
  is best on), plays it on a **minibatch** of training scenarios, asks the configured feedback
  source (the AI critic, a human pool, a constant) about each game, and has the **reflection
  model** rewrite the instruction from that feedback; the child is played on the same minibatch
  and kept only when it scores higher than its parent there (then it is scored on validation);
- every ``merge_every``-th proposal merges two front candidates instead, kept when it beats both
  on a minibatch;
- the search stops after ``iterations`` proposals, or before a step the budget (``max_calls``,
  ``max_usd``) cannot pay for; the best candidate has the highest mean validation score.

Every game of the search is recorded in ``OUT/search/`` (``games.jsonl``, ``calls.jsonl``; the
cell names the candidate, the set, the scenario and the repeat), every candidate played in
``OUT/instructions/<id>.txt``, every proposal, kept or not, with its parent, its scores, the
feedback that made it and the reflection call in ``OUT/candidates.jsonl``. All model calls go
through a response cache (``OUT/cache.jsonl`` unless the config names one), so the search is a
deterministic function of the config and the cache: ``--resume`` plays it again from the start,
every call paid before a kill coming back from the cache.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.seeds import derive_seed
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.context import GameContext, build_model
from icl_aif.engine.feedback.registry import find_source
from icl_aif.games.reflector import instruction_in
from icl_aif.games.registry import game_of
from icl_aif.games.simulators import REFLECTION
from icl_aif.models import cache as response_cache
from icl_aif.models.calls import ModelCallError, call_model
from icl_aif.models.pricing import total_cost
from icl_aif.records.writer import RunWriter, base_manifest, encode_game
from icl_aif.run.play import play_game

__all__ = [
    "Candidate",
    "OptimizeError",
    "OptimizeResult",
    "Proposal",
    "SearchResult",
    "check_optimizable",
    "optimize",
    "optimizer_config",
    "planned_games",
    "run_search",
    "set_seed",
]

SEARCH = "search"
INSTRUCTIONS = "instructions"
CANDIDATES = "candidates.jsonl"
BEST = "best_instruction.txt"
CACHE = "cache.jsonl"


class OptimizeError(Exception):
    """The search cannot go on (games that failed): one line, the records kept."""


@dataclass
class Candidate:
    """A standing instruction in the pool: where it came from and its validation scores."""

    id: str
    instruction: str
    parents: list[str]
    origin: str
    iteration: int
    scores: dict[int, float] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        """Its mean validation score."""
        return fmean(self.scores.values()) if self.scores else float("-inf")


@dataclass
class Proposal:
    """One step of the search, kept or not (a line of ``candidates.jsonl``)."""

    iteration: int
    id: str
    origin: str
    parents: list[str]
    instruction: str
    minibatch: list[int]
    parent_scores: list[float | None]
    score: float | None
    kept: bool
    why: str
    feedback: list[str] = field(default_factory=list)
    validation: dict[int, float] = field(default_factory=dict)
    reflection: dict[str, Any] | None = None


@dataclass
class SearchResult:
    """What the search found: the pool, every proposal, the best candidate, what it spent and
    why it stopped."""

    pool: list[Candidate]
    proposals: list[Proposal]
    best: Candidate
    calls: int
    cost_usd: float
    stopped: str


def set_seed(config: ExperimentConfig, name: str) -> int:
    """The seed of one scenario set (``train``, ``validation``, ``heldout``)."""
    return derive_seed(config.seed, "optimize", name) % 2**31


def optimizer_config(config: ExperimentConfig, out: Path) -> ExperimentConfig:
    """``config`` with a response cache (``OUT/cache.jsonl`` unless it names one)."""
    if config.cache is not None:
        return config
    return config.cell_config({"cache": {"path": str(out / CACHE)}})


Progress = Callable[[int], None]


def check_optimizable(config: ExperimentConfig) -> None:
    """One UsageError line unless ``config`` has an ``optimize:`` section and plays without a
    person (every game of the search asks its feedback at once)."""
    if config.optimize is None:
        raise UsageError(f"{config.name}: no optimize: section; see docs/optimize.md")
    if config.needs_person:
        raise UsageError(
            f"optimize: feedback.source {config.feedback.source} or person needs someone at the "
            "terminal for every game; use ai, human_pool or constant, and no person"
        )


class Search:
    """The optimiser of one run directory (module doc)."""

    def __init__(
        self,
        config: ExperimentConfig,
        out: Path,
        prompts: PromptLibrary | None = None,
        progress: Progress | None = None,
    ) -> None:
        check_optimizable(config)
        assert config.optimize is not None
        self.config = config
        self.settings = config.optimize
        self.out = out
        self.prompts = prompts or PromptLibrary()
        self.progress = progress or (lambda n: None)
        self.seat = config.improve
        self.game = game_of(config)
        self.rng = random.Random(derive_seed(config.seed, "optimize", "search"))
        self.calls = 0
        self.cost = 0.0
        self.games = 0
        self.failed = 0
        self.tried: set[str] = {""}  # instructions proposed so far: none is played twice
        self.writer = RunWriter(out / SEARCH)
        self.reflector = build_model(
            config,
            REFLECTION,
            self.settings.reflection,
            seed=derive_seed(config.seed, "optimize", REFLECTION),
        )

    # --- configs of candidates --------------------------------------------------------------

    def instruction_file(self, candidate: Candidate) -> Path | None:
        """``OUT/instructions/<id>.txt`` (written once); None for the empty instruction."""
        if not candidate.instruction:
            return None
        path = self.out / INSTRUCTIONS / f"{candidate.id}.txt"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(candidate.instruction + "\n", encoding="utf-8")
        return path

    def played_config(
        self, candidate: Candidate, seed: int, *, feedback: bool = False
    ) -> ExperimentConfig:
        """One round per game, no feedback in context, the candidate's instruction; with
        ``feedback`` the configured source stays (its critic is built, the round asks nothing
        of it: the search asks after the round)."""
        path = self.instruction_file(candidate)
        settings: dict[str, Any] = {
            "seed": seed,
            "rounds": 1,
            "arms": None,
            "instructions": {self.seat: str(path)} if path else {},
            "optimize": None,
        }
        if not feedback:
            settings["feedback.source"] = "none"
        return self.config.cell_config(settings)

    # --- playing ------------------------------------------------------------------------------

    async def score(
        self, candidate: Candidate, name: str, scenarios: Sequence[int], *, feedback: bool = False
    ) -> tuple[dict[int, float], list[str]]:
        """The candidate's mean payoff per scenario of set ``name`` (``games`` games each), and,
        with ``feedback``, what the configured source said about each game."""
        config = self.played_config(candidate, set_seed(self.config, name), feedback=feedback)
        limit = asyncio.Semaphore(self.config.concurrency)
        source = find_source(self.config.feedback.source) if feedback else None

        async def one(index: int, repeat: int) -> tuple[int, float | None, str | None]:
            async with limit:
                cell = f"{candidate.id}.{name}.{index}.r{repeat}"
                ctx = GameContext(
                    config=config,
                    index=index,
                    arm=None if repeat == 0 else f"r{repeat}",
                    prompts=self.prompts,
                    cell=cell,
                )
                record = await play_game(ctx)
                said = None
                rounds = record.get("rounds") or []
                if source is not None and rounds and record.get("status") == "complete":
                    try:
                        with ctx.cache_scope():
                            given = await source.give(ctx, rounds)
                    except ModelCallError as exc:  # the game stands; it has no feedback
                        record.update(status="error", error=f"feedback: {exc}")
                    else:
                        rounds[-1]["feedback"] = given.text
                        rounds[-1]["feedback_source"] = given.source
                        said = given.text
                self.writer.append_lines(
                    [encode_game([record], ctx.calls, cell, total_cost(ctx.calls))]
                )
                self.calls += len(ctx.calls)
                self.cost += total_cost(ctx.calls) or 0.0
                self.games += 1
                self.progress(1)
                payoff = None
                if record.get("status") == "complete" and rounds:
                    scenario = self.game.game_scenario(config.scenario, record)
                    payoff = self.game.payoff(scenario, self.seat, rounds[0])
                if payoff is None:
                    self.failed += 1
                return index, payoff, said

        games = self.settings.games
        played = await asyncio.gather(*(one(i, k) for i in scenarios for k in range(games)))
        if self.failed:
            raise OptimizeError(
                f"{self.failed} game(s) of the search failed (a model call failed for good, or "
                f"no terms were bound): see {self.out / SEARCH / 'games.jsonl'}"
            )
        scores = {
            i: round(fmean(p for j, p, _ in played if j == i and p is not None), 6)
            for i in scenarios
        }
        return scores, [text for _, _, text in played if text]

    async def reflect(self, iteration: int, prompt: str) -> tuple[str, dict[str, Any]]:
        """The reflection model's instruction for ``prompt`` (cut to ``max_chars``) and the call's
        record."""
        calls: list[dict[str, Any]] = []
        labels = {"game_id": f"reflect-{iteration:03d}", "round": 0, "role": REFLECTION}
        settings = {REFLECTION: response_cache.decoding(self.settings.reflection)}
        identity = {
            "game": self.config.game,
            "scenario": "optimize",
            "game_id": labels["game_id"],
            "seed": self.config.seed,
            "cell": "reflection",
            "arm": None,
        }
        try:
            with response_cache.bind(self.config.cache, identity, settings):
                text = await call_model(
                    self.reflector,
                    self.settings.reflection.model,
                    [{"role": "user", "content": prompt}],
                    self.config,
                    role=REFLECTION,
                    calls=calls,
                    labels=labels,
                )
        except ModelCallError as exc:
            raise OptimizeError(f"proposal {iteration}: {exc}") from None
        self.calls += len(calls)
        self.cost += total_cost(calls) or 0.0
        instruction = instruction_in(text)[: self.settings.max_chars].strip()
        return instruction, calls[-1]

    # --- the search -------------------------------------------------------------------------

    def front(self, pool: Sequence[Candidate]) -> dict[str, int]:
        """The Pareto front: each candidate best on some validation scenario, with how many."""
        wins: dict[str, int] = {}
        for scenario in range(self.settings.validation):
            best = max(c.scores.get(scenario, float("-inf")) for c in pool)
            for c in pool:
                if c.scores.get(scenario) == best:
                    wins[c.id] = wins.get(c.id, 0) + 1
        return wins

    def pick(self, pool: Sequence[Candidate]) -> Candidate:
        """A parent from the front, in proportion to the scenarios it is best on."""
        wins = self.front(pool)
        ids = sorted(wins)
        chosen = self.rng.choices(ids, weights=[wins[i] for i in ids])[0]
        return next(c for c in pool if c.id == chosen)

    def affordable(self, games: int) -> bool:
        """Whether the budget pays for ``games`` more games and one reflection, at the mean
        calls and cost of the games so far."""
        played = max(1, self.games)
        calls = self.calls / played * games + 1
        cost = self.cost / played * games
        s = self.settings
        return (s.max_calls is None or self.calls + calls <= s.max_calls) and (
            s.max_usd is None or self.cost + cost <= s.max_usd
        )

    async def run(self) -> SearchResult:
        """The whole search (module doc)."""
        s = self.settings
        validation = list(range(s.validation))
        train = list(range(s.train))
        seed = Candidate(id="c00", instruction="", parents=[], origin="seed", iteration=0)
        seed.scores, _ = await self.score(seed, "validation", validation)
        pool = [seed]
        proposals = [
            Proposal(
                0,
                "c00",
                "seed",
                [],
                "",
                [],
                [],
                seed.mean,
                True,
                "the brief alone",
                validation=dict(seed.scores),
            )
        ]
        self._log(proposals[-1])
        stopped = f"{s.iterations} proposals made"
        for iteration in range(1, s.iterations + 1):
            merge = s.merge_every is not None and iteration % s.merge_every == 0
            pair = self.merge_pair(pool) if merge else None
            merging = pair is not None
            games = s.games * s.minibatch * (3 if merging else 2) + s.games * s.validation
            if not self.affordable(games):
                stopped = f"the budget stopped the search before proposal {iteration}"
                break
            minibatch = sorted(self.rng.sample(train, s.minibatch))
            child_id = f"c{len(proposals):02d}"
            if pair is not None:
                proposal = await self._merge(iteration, child_id, pair, minibatch)
            else:
                proposal = await self._reflect(iteration, child_id, pool, minibatch)
            if proposal.kept:
                child = Candidate(
                    proposal.id, proposal.instruction, proposal.parents, proposal.origin, iteration
                )
                child.scores, _ = await self.score(child, "validation", validation)
                proposal.validation = dict(child.scores)
                pool.append(child)
            proposals.append(proposal)
            self._log(proposal)
        best = max(pool, key=lambda c: (c.mean, -pool.index(c)))
        (self.out / BEST).write_text((best.instruction or "") + "\n", encoding="utf-8")
        return SearchResult(pool, proposals, best, self.calls, round(self.cost, 6), stopped)

    async def _reflect(
        self, iteration: int, child_id: str, pool: Sequence[Candidate], minibatch: list[int]
    ) -> Proposal:
        parent = self.pick(pool)
        before, feedback = await self.score(parent, "train", minibatch, feedback=True)
        parent_score = fmean(before.values())
        prompt = self.prompts.render(
            "optimize/reflect.txt",
            seat=self.game.seat_name(self.seat),
            game=self.game.title,
            instruction=parent.instruction,
            games=self.settings.games * len(minibatch),
            score=f"{parent_score:.3f}",
            source=self.config.feedback.source,
            feedback="\n\n".join(feedback) or "(none)",
            max_chars=self.settings.max_chars,
        )
        instruction, call = await self.reflect(iteration, prompt)
        proposal = Proposal(
            iteration,
            child_id,
            "reflection",
            [parent.id],
            instruction,
            minibatch,
            [round(parent_score, 6)],
            None,
            False,
            "",
            feedback=feedback,
            reflection=call,
        )
        if instruction == parent.instruction:
            proposal.why = "the reflection changed nothing"
            return proposal
        if instruction in self.tried:  # the empty one included: the brief alone, c00
            proposal.why = "tried before"
            return proposal
        self.tried.add(instruction)
        child = Candidate(child_id, instruction, [parent.id], "reflection", iteration)
        after, _ = await self.score(child, "train", minibatch)
        proposal.score = round(fmean(after.values()), 6)
        proposal.kept = proposal.score > parent_score
        proposal.why = (
            "beat its parent on the minibatch" if proposal.kept else "no better than its parent"
        )
        return proposal

    def merge_pair(self, pool: Sequence[Candidate]) -> tuple[Candidate, Candidate] | None:
        """Two front candidates of different lines (neither an ancestor of the other, neither
        the empty instruction), those best on the most scenarios first; None without such."""
        by_id = {c.id: c for c in pool}

        def ancestors(candidate: Candidate) -> set[str]:
            found: set[str] = set()
            todo = list(candidate.parents)
            while todo:
                parent = todo.pop()
                if parent not in found:
                    found.add(parent)
                    todo += by_id[parent].parents if parent in by_id else []
            return found

        wins = self.front(pool)
        ranked = [
            by_id[i] for i in sorted(wins, key=lambda i: (-wins[i], i)) if by_id[i].instruction
        ]
        for n, first in enumerate(ranked):
            for second in ranked[n + 1 :]:
                if first.id not in ancestors(second) and second.id not in ancestors(first):
                    return first, second
        return None

    async def _merge(
        self,
        iteration: int,
        child_id: str,
        pair: tuple[Candidate, Candidate],
        minibatch: list[int],
    ) -> Proposal:
        first, second = pair
        prompt = self.prompts.render(
            "optimize/merge.txt",
            seat=self.game.seat_name(self.seat),
            game=self.game.title,
            first=first.instruction,
            second=second.instruction,
            max_chars=self.settings.max_chars,
        )
        instruction, call = await self.reflect(iteration, prompt)
        parents = [first.id, second.id]
        scores = []
        for parent in (first, second):
            found, _ = await self.score(parent, "train", minibatch)
            scores.append(round(fmean(found.values()), 6))
        proposal = Proposal(
            iteration,
            child_id,
            "merge",
            parents,
            instruction,
            minibatch,
            list(scores),
            None,
            False,
            "",
            reflection=call,
        )
        if instruction in (first.instruction, second.instruction):
            proposal.why = "the merge changed nothing"
            return proposal
        if instruction in self.tried:
            proposal.why = "tried before"
            return proposal
        self.tried.add(instruction)
        child = Candidate(child_id, instruction, parents, "merge", iteration)
        found, _ = await self.score(child, "train", minibatch)
        proposal.score = round(fmean(found.values()), 6)
        proposal.kept = proposal.score > max(scores)
        proposal.why = "beat both parents on the minibatch" if proposal.kept else "no better"
        return proposal

    def _log(self, proposal: Proposal) -> None:
        """Append the proposal to ``candidates.jsonl`` (its instruction file was written when
        it was first played)."""
        with (self.out / CANDIDATES).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(asdict(proposal)) + "\n")


def run_search(
    config: ExperimentConfig,
    out: Path,
    *,
    prompts: PromptLibrary | None = None,
    progress: Progress | None = None,
) -> SearchResult:
    """Search from a fresh start into ``out`` (a resume replays it: the cache answers the calls
    already paid); the records of an earlier try in ``out`` are replaced."""
    for stale in (out / CANDIDATES, out / SEARCH / "games.jsonl", out / SEARCH / "calls.jsonl"):
        stale.unlink(missing_ok=True)
    search = Search(config, out, prompts, progress)
    writer = search.writer
    try:
        writer.create(config, base_manifest(config, search.prompts.root, [], None))
        result = asyncio.run(search.run())
        writer.manifest["status"] = "complete"
        writer.write_manifest()
        return result
    finally:
        writer.release()


@dataclass
class OptimizeResult:
    """A finished ``icl-aif optimize``: the search, the held-out comparison, where it is."""

    search: SearchResult
    comparison: dict[str, Any]
    directory: Path


def planned_games(config: ExperimentConfig) -> tuple[int, int]:
    """The most games the search plays (every proposal kept, every merge made) and the games of
    the comparison's three runs."""
    s = config.optimize
    assert s is not None
    step = s.games * (3 * s.minibatch + s.validation)
    return s.games * s.validation + s.iterations * step, 3 * s.heldout


def optimize(
    config: ExperimentConfig,
    out: Path,
    *,
    prompts: PromptLibrary | None = None,
    progress: Progress | None = None,
) -> OptimizeResult:
    """The search, then the held-out comparison (three runs under ``OUT/compare/``), the
    lineage (``lineage.md``), ``comparison.json`` and ``report.html``. Called again on the same
    directory it replays both from the start with the response cache."""
    import shutil

    from icl_aif.analysis.experiment import run_experiment
    from icl_aif.analysis.optimize_compare import compare_runs, comparison_configs
    from icl_aif.analysis.optimize_report import lineage_markdown, write_report

    config = optimizer_config(config, out.resolve())
    found = run_search(config, out, prompts=prompts, progress=progress)
    proposals = [asdict(p) for p in found.proposals]
    best = {"id": found.best.id, "instruction": found.best.instruction, "mean": found.best.mean}
    (out / "lineage.md").write_text(
        lineage_markdown(config.name, proposals, best, found.stopped), encoding="utf-8"
    )
    best_file = (out / BEST) if found.best.instruction else None
    heldout = set_seed(config, "heldout")
    configs = comparison_configs(config, heldout, best_file)
    directories = {arm: out / "compare" / arm for arm in configs}
    for arm, played in configs.items():
        shutil.rmtree(directories[arm], ignore_errors=True)  # a replay plays it again, cached
        asyncio.run(
            run_experiment(
                played,
                directories[arm],
                probe_models=False,
                progress=progress or (lambda n: None),
            )
        )
    comparison = compare_runs(configs, directories, heldout)
    comparison["best"] = best
    comparison["search"] = {
        "calls": found.calls,
        "cost_usd": found.cost_usd,
        "stopped": found.stopped,
        "proposals": len(found.proposals) - 1,
        "kept": len(found.pool) - 1,
    }
    (out / "comparison.json").write_text(json.dumps(comparison, indent=2) + "\n")
    write_report(out / "report.html", config.name, proposals, best, comparison)
    return OptimizeResult(found, comparison, out)
