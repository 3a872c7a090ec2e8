"""Per-round statistics over finished runs: deal rate, the game's measure with a bootstrap CI,
lengths.

A round counts for a run once the run reached it. A round ended by an error (a failed model call)
is counted (``errors``) but left out of the deal rate and the exchanges: it neither dealt nor
failed to deal. So is a round that ended because a side made no valid move within its tries
(``no_moves``, :func:`~icl_aif.records.schema.failed_to_move`): nobody agreed or refused, the
model did not play. A round the exchange cap ended is a no deal, counted apart as a truncation too.
The measure (:class:`~icl_aif.games.base.Measure`: the price game's deal price, the pie split's
payoff) is over deals only; deal rates are given over the rounds that finished and over all runs
(failed ones counted as no deal), so survivor bias stays visible.

Every function reads the measure of a round with ``measure.of(record)`` and names its keys after
``measure.name`` (``mean_<name>``, ``<name>_ci95``, ...); none names a field of a game, and none
reads a transcript: the flags counted are those the records carry (the game's silent flag, the
lines that state no terms, included: recorded at play time, :class:`~icl_aif.games.base.Measure`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from icl_aif.core.seeds import derive_seed
from icl_aif.records.schema import failed_to_move, is_truncated

if TYPE_CHECKING:
    from icl_aif.games.base import Measure

BOOTSTRAP_RESAMPLES = 2000
EXAMPLE_CHARS = 200
"""Longest error message kept as a kind's ``example`` in ``summary.json``."""


def bootstrap_ci(
    values: Sequence[float], seed: int, resamples: int = BOOTSTRAP_RESAMPLES, level: float = 0.95
) -> list[float] | None:
    """Percentile bootstrap CI of the mean; None for fewer than two values."""
    if len(values) < 2:
        return None
    rng = np.random.default_rng(seed)
    data = np.asarray(values, dtype=float)
    means = rng.choice(data, size=(resamples, data.size), replace=True).mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return [round(float(low), 4), round(float(high), 4)]


def _mean(values: Sequence[float]) -> float | None:
    return round(float(np.mean(values)), 4) if values else None


def _median(values: Sequence[float]) -> float | None:
    return round(float(np.median(values)), 4) if values else None


def deal_value(record: dict[str, Any], measure: Measure) -> float | None:
    """The measure of a round that ended in a deal, None for any other round or a deal whose
    terms hold none."""
    if record["outcome"] != "deal":
        return None
    value = measure.of(record)
    return float(value) if value is not None else None


def deal_values(
    games: Sequence[dict[str, Any]], number: int, measure: Measure
) -> tuple[float, ...]:
    """The measure of every deal of round ``number`` over ``games`` (deals without one left
    out)."""
    return tuple(
        v
        for g in games
        for r in g["rounds"]
        if r["round"] == number and (v := deal_value(r, measure)) is not None
    )


def round_metrics(
    games: Sequence[dict[str, Any]],
    number: int,
    *,
    total_runs: int,
    improve: str,
    openers: int,
    seed: int,
    measure: Measure,
) -> dict[str, Any]:
    """Metrics of round ``number`` over ``games`` (the finished runs); ``deal_rate`` and
    ``mean_exchanges`` are over the rounds that ended in a deal or no deal (not in an error, nor
    for want of a valid move: ``errors`` and ``no_moves`` count those apart).
    ``truncations`` counts the no-deal rounds the exchange cap ended (:func:`is_truncated`: a
    record of format 0 says so with reason ``cap`` only). ``mean_<name>``, ``<name>_ci95``
    and ``median_<name>`` are the ``measure``'s over the deals that have one,
    ``deals_without_<name>`` counts the others."""
    name = measure.name
    records = [r for g in games for r in g["rounds"] if r["round"] == number]
    unmoved = sum(failed_to_move(r) for r in records)
    decided = [r for r in records if _decided(r)]
    deals = [r for r in records if r["outcome"] == "deal"]
    values = [v for r in deals if (v := deal_value(r, measure)) is not None]
    improved_lines = [  # a line that said nothing counts 0, not its placeholder
        0 if "empty" in t.get("flags", ()) else len(t["text"])
        for r in records
        for t in r["turns"][openers:]
        if t["speaker"] == improve
    ]
    reasons = Counter(r.get("reason") or "unknown" for r in decided if r["outcome"] == "no_deal")
    flagged = [(t["speaker"], t.get("flags", ())) for r in records for t in r["turns"][openers:]]
    flags = Counter(f for _, fs in flagged for f in fs)
    improved_flags = Counter(f for side, fs in flagged if side == improve for f in fs)
    n = len(records)
    return {
        "round": number,
        "games": n,
        "deals": len(deals),
        "no_deals": sum(r["outcome"] == "no_deal" for r in decided),
        "truncations": sum(is_truncated(r) for r in records),
        "errors": n - len(decided) - unmoved,
        "no_moves": unmoved,
        "deal_rate": round(len(deals) / len(decided), 4) if decided else None,
        "deal_rate_all_runs": (
            round(len(deals) / (total_runs - unmoved), 4) if total_runs > unmoved else None
        ),
        f"mean_{name}": _mean(values),
        f"{name}_ci95": bootstrap_ci(values, derive_seed(seed, "bootstrap", number)),
        f"median_{name}": _median(values),
        f"deals_without_{name}": len(deals) - len(values),
        "mean_response_chars": _mean(improved_lines),
        "mean_exchanges": _mean([len(r["turns"]) / 2 for r in decided]),
        "no_deal_reasons": dict(sorted(reasons.items())),
        "flags": dict(sorted(flags.items())),
        "flags_improved": dict(sorted(improved_flags.items())),
        **_moves_counts(records),
    }


def _decided(record: Mapping[str, Any]) -> bool:
    """The round ended in a deal or no deal: not in an error, nor for want of a valid move."""
    return record["outcome"] != "error" and not failed_to_move(record)


def _moves_counts(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """With binding moves (a turn of the round carries a ``move``): ``disagreements``, the lines
    the moderator read otherwise than the moves, and ``rounds_disagreeing``, the rounds with
    one (refused lines the moderator read as an agreement or an end included); nothing for a
    text run."""
    judged = any(x.get("text_verdict") for r in records for x in r.get("refused") or ())
    if not judged and not any("move" in t for r in records for t in r["turns"]):
        return {}
    return {
        "disagreements": sum(int(r.get("disagreements", 0)) for r in records),
        "rounds_disagreeing": sum(bool(r.get("disagreements")) for r in records),
    }


_ROLE_FAILED = re.compile(r"^(\w+) model failed: ")
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*)(?:: (.*))?$", re.DOTALL)


_STATUS = re.compile(r"(?:\bHTTP|[Ee]rror code:?|status[_ ]code:?)\s*([1-5]\d\d)\b")


def error_kind(error: str) -> tuple[str, str]:
    """A game's ``error`` as (kind, message): ``"seller model failed: APIConnectionError:
    Connection error."`` -> (``"seller APIConnectionError"``, ``"Connection error."``). An HTTP
    status in the message is part of the kind (``seller APIStatusError 429``), so that rate
    limits and server errors of one exception class count apart."""
    role = _ROLE_FAILED.match(error)
    rest = (error[role.end() :] if role else error).strip()
    named = _EXCEPTION.match(rest)
    kind, message = (named.group(1), named.group(2) or "") if named else (rest[:80], "")
    status = _STATUS.search(message) if named else None
    if status is not None:
        kind = f"{kind} {status.group(1)}"
    lines = message.strip().splitlines()
    return (f"{role.group(1)} {kind}" if role else kind), lines[0][:EXAMPLE_CHARS] if lines else ""


def error_kinds(errors: Iterable[str | None]) -> list[dict[str, Any]]:
    """One ``{kind, games, example}`` per kind of the failed games' ``errors``, in order of first
    appearance: how many games failed so and the first one's message."""
    kinds: dict[str, dict[str, Any]] = {}
    for error in errors:
        kind, message = error_kind(error or "unknown error")
        entry = kinds.setdefault(kind, {"kind": kind, "games": 0, "example": message})
        entry["games"] += 1
    return list(kinds.values())


def no_move_counts(games: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``no_move_rounds``, the rounds of ``games`` that ended because a side made no valid move,
    and ``no_move_kinds``: one ``{side, kind, rounds, example}`` per side and kind of its last
    refused try (:data:`icl_aif.engine.protocol.REFUSALS`), in order of first appearance, ``example``
    what the player was told the first time."""
    kinds: dict[tuple[str, str], dict[str, Any]] = {}
    rounds = 0
    for game in games:
        for record in game.get("rounds") or ():
            if not failed_to_move(record):
                continue
            rounds += 1
            refused = record.get("refused") or [{}]
            last = refused[-1]
            side, kind = str(last.get("speaker", "unknown")), str(last.get("kind", "unknown"))
            why = str(last.get("why") or "").splitlines()
            entry = kinds.setdefault(
                (side, kind),
                {
                    "side": side,
                    "kind": kind,
                    "rounds": 0,
                    "example": why[0][:EXAMPLE_CHARS] if why else "",
                },
            )
            entry["rounds"] += 1
    return {"no_move_rounds": rounds, "no_move_kinds": list(kinds.values())}


def summarize(
    games: Sequence[dict[str, Any]],
    *,
    rounds: int,
    runs: int,
    improve: str,
    openers: int,
    seed: int,
    measure: Measure,
) -> dict[str, Any]:
    """``summary.json``: per-round metrics (of ``measure``) over all runs and over effective runs,
    and the failed games (``errored_runs``) by kind of error (``error_kinds``)."""
    effective = [
        g
        for g in games
        if len(g["rounds"]) == rounds and all(r["outcome"] == "deal" for r in g["rounds"])
    ]
    failed = [g.get("error") for g in games if g.get("status") == "error"]
    return {
        "runs": runs,
        "finished_runs": len(games),
        "errored_runs": len(failed),
        "error_kinds": error_kinds(failed),
        **no_move_counts(games),
        "effective_runs": len(effective),
        "improve": improve,
        "per_round": [
            round_metrics(
                games,
                k,
                total_runs=len(games),
                improve=improve,
                openers=openers,
                seed=seed,
                measure=measure,
            )
            for k in range(1, rounds + 1)
        ],
        "per_round_effective": [
            round_metrics(
                effective,
                k,
                total_runs=len(effective),
                improve=improve,
                openers=openers,
                seed=seed,
                measure=measure,
            )
            for k in range(1, rounds + 1)
        ],
    }


# --- survival-aware scores and paired arms ---------------------------------------------------

PERMUTATIONS = 10_000
EXACT_UP_TO = 16  # sign-flip tests enumerate every sign pattern up to this many pairs


def round_score(record: dict[str, Any], no_deal_value: float, measure: Measure) -> float | None:
    """The unconditional score of a round: its ``measure`` if a deal, ``no_deal_value`` if no
    deal; None for an error, a round without a valid move or a deal whose terms hold no measure
    (left out)."""
    if record["outcome"] == "deal":
        return deal_value(record, measure)
    if _decided(record):
        return float(no_deal_value)
    return None


def score_metrics(
    games: Sequence[dict[str, Any]],
    number: int,
    *,
    no_deal_value: float,
    seed: int,
    measure: Measure,
) -> dict[str, Any]:
    """``mean_score`` of round ``number`` over the runs whose round ended in a deal or no deal,
    with a seeded 95% bootstrap CI (``score_ci95``) and the count (``scored``)."""
    scores = [
        s
        for g in games
        for r in g["rounds"]
        if r["round"] == number and (s := round_score(r, no_deal_value, measure)) is not None
    ]
    return {
        "scored": len(scores),
        "mean_score": _mean(scores),
        "score_ci95": bootstrap_ci(scores, derive_seed(seed, "bootstrap", "score", number)),
    }


def with_scores(
    summary: dict[str, Any],
    games: Sequence[dict[str, Any]],
    *,
    no_deal_value: float,
    seed: int,
    measure: Measure,
) -> dict[str, Any]:
    """``summary`` (from :func:`summarize` over ``games``) with the unconditional score of every
    round in ``per_round`` and ``per_round_effective``."""
    effective_ids = _effective_keys(games, len(summary["per_round"]))
    effective = [g for g in games if _key(g) in effective_ids]
    for name, pool in (("per_round", games), ("per_round_effective", effective)):
        for row in summary[name]:
            row.update(
                score_metrics(
                    pool, row["round"], no_deal_value=no_deal_value, seed=seed, measure=measure
                )
            )
    return summary


def _key(game: dict[str, Any]) -> tuple[str, str]:
    return (str(game.get("cell") or ""), str(game["game_id"]))


def _effective_keys(games: Sequence[dict[str, Any]], rounds: int) -> set[tuple[str, str]]:
    return {
        _key(g)
        for g in games
        if len(g["rounds"]) == rounds and all(r["outcome"] == "deal" for r in g["rounds"])
    }


def _rounds_once(games: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every round of paired arms' ``games`` once: a shared round is in every arm's line."""
    seen: set[tuple[tuple[str, str], int]] = set()
    rounds = []
    for game in games:
        for record in game["rounds"]:
            if record.get("shared"):
                key = (_key(game), int(record["round"]))
                if key in seen:
                    continue
                seen.add(key)
            rounds.append(record)
    return rounds


def sign_flip_p(differences: Sequence[float], seed: int, resamples: int = PERMUTATIONS) -> float:
    """Two-sided p-value of a paired sign-flip permutation test of mean difference zero.

    Exact (every sign pattern) up to :data:`EXACT_UP_TO` pairs, else ``resamples`` seeded random
    patterns with the observed one counted (p = (1 + hits) / (1 + resamples)).
    """
    data = np.asarray(differences, dtype=float)
    n = data.size
    if n == 0 or not np.any(data):
        return 1.0
    observed = abs(float(data.mean())) - 1e-12
    if n <= EXACT_UP_TO:
        patterns = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2 - 1
        means = np.abs((patterns * data).mean(axis=1))
        return round(float(np.mean(means >= observed)), 6)
    rng = np.random.default_rng(seed)
    signs = rng.choice(np.array([-1.0, 1.0]), size=(resamples, n))
    hits = int(np.sum(np.abs((signs * data).mean(axis=1)) >= observed))
    return round((1 + hits) / (1 + resamples), 6)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-Bonferroni adjusted p-values (None stays None and does not count as a test)."""
    tested = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    m = len(tested)
    for rank, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = round(running, 6)
    return adjusted


def _value_in(game: dict[str, Any], number: int, measure: Measure) -> float | None:
    """The measure of round ``number`` of ``game``, None without a deal that has one."""
    for record in game["rounds"]:
        if record["round"] == number and record["outcome"] == "deal":
            return deal_value(record, measure)
    return None


def arm_row(
    arm: str,
    games: Sequence[dict[str, Any]],
    *,
    branch_after: int,
    no_deal_value: float,
    seed: int,
    measure: Measure,
) -> dict[str, Any]:
    """Table 1 for one arm: rounds ``branch_after`` (before) and ``branch_after + 1`` (after).

    ``<name>_before`` and ``<name>_after`` are the mean ``measure`` over the deals of each round;
    ``delta`` is the mean of the paired after-minus-before differences of the measure over the
    games that dealt (with a measure) in both rounds (``paired_games``), with a 95% bootstrap CI
    that resamples those games; ``score_delta`` is the same for the unconditional score over the
    games scored in both rounds.
    """
    name = measure.name
    before, after = branch_after, branch_after + 1
    diffs = [
        a - b
        for g in games
        if (b := _value_in(g, before, measure)) is not None
        and (a := _value_in(g, after, measure)) is not None
    ]

    def scores(number: int) -> dict[str, float]:
        out = {}
        for g in games:
            for r in g["rounds"]:
                if (
                    r["round"] == number
                    and (s := round_score(r, no_deal_value, measure)) is not None
                ):
                    out[g["game_id"]] = s
        return out

    s_before, s_after = scores(before), scores(after)
    score_diffs = [s_after[k] - s_before[k] for k in s_before if k in s_after]
    reached = {
        n: [r for g in games for r in g["rounds"] if r["round"] == n] for n in (before, after)
    }
    decided = {n: [r for r in rs if _decided(r)] for n, rs in reached.items()}
    unmoved = {n: sum(failed_to_move(r) for r in rs) for n, rs in reached.items()}
    deal_rate = {
        n: round(sum(r["outcome"] == "deal" for r in rs) / len(rs), 4) if rs else None
        for n, rs in decided.items()
    }
    mean = {
        n: _mean([v for r in rs if (v := deal_value(r, measure)) is not None])
        for n, rs in reached.items()
    }
    return {
        "arm": arm,
        "games": len(games),
        "games_after": len(reached[after]),
        f"{name}_before": mean[before],
        f"{name}_after": mean[after],
        "paired_games": len(diffs),
        "delta": _mean(diffs),
        "delta_ci95": bootstrap_ci(diffs, derive_seed(seed, "arm", arm, "delta")),
        "deal_rate_before": deal_rate[before],
        "deal_rate_after": deal_rate[after],
        "errors_before": len(reached[before]) - len(decided[before]) - unmoved[before],
        "errors_after": len(reached[after]) - len(decided[after]) - unmoved[after],
        "no_moves_before": unmoved[before],
        "no_moves_after": unmoved[after],
        "score_before": _mean(list(s_before.values())),
        "score_after": _mean(list(s_after.values())),
        "score_delta": _mean(score_diffs),
        "score_delta_ci95": bootstrap_ci(score_diffs, derive_seed(seed, "arm", arm, "score")),
    }


def versus_baseline(
    rows: list[dict[str, Any]],
    by_arm: dict[str, list[dict[str, Any]]],
    *,
    branch_after: int,
    seed: int,
    baseline: str = "none",
    measure: Measure,
) -> None:
    """Add to each arm's row its paired comparison with ``baseline`` (in place).

    Over the games that dealt (with a measure) in round ``branch_after + 1`` in both arms:
    ``vs_none_games``, ``vs_none_delta`` (mean difference of the round's measure, arm minus
    baseline) with a
    95% bootstrap CI, ``vs_none_p`` (two-sided paired sign-flip permutation test) and
    ``vs_none_p_holm`` (Holm-corrected across the arms tested). Null for the baseline itself and
    when there is no baseline arm.
    """
    after = branch_after + 1
    base = {g["game_id"]: _value_in(g, after, measure) for g in by_arm.get(baseline, [])}
    p_values: list[float | None] = []
    for row in rows:
        arm = row["arm"]
        fields: dict[str, Any] = dict.fromkeys(
            ("vs_none_games", "vs_none_delta", "vs_none_ci95", "vs_none_p"), None
        )
        if arm != baseline and baseline in by_arm:
            diffs = [
                a - b
                for g in by_arm[arm]
                if (a := _value_in(g, after, measure)) is not None
                and (b := base.get(g["game_id"])) is not None
            ]
            fields = {
                "vs_none_games": len(diffs),
                "vs_none_delta": _mean(diffs),
                "vs_none_ci95": bootstrap_ci(diffs, derive_seed(seed, "arm", arm, "vs", baseline)),
                "vs_none_p": (
                    sign_flip_p(diffs, derive_seed(seed, "arm", arm, "test")) if diffs else None
                ),
            }
        row.update(fields)
        p_values.append(fields["vs_none_p"])
    for row, adjusted in zip(rows, holm(p_values), strict=True):
        row["vs_none_p_holm"] = adjusted


def summarize_arms(
    games: Sequence[dict[str, Any]],
    *,
    arms: Sequence[str],
    branch_after: int,
    rounds: int,
    runs: int,
    improve: str,
    openers: int,
    seed: int,
    no_deal_value: float,
    measure: Measure,
) -> dict[str, Any]:
    """The summary of a paired-arms experiment: Table 1 rows (``arms``) and, per arm, the
    per-round metrics of :func:`summarize` (``per_arm``), all of ``measure``. ``errored_runs`` counts the games with
    a failed line in any arm (a failed shared prefix fails every arm), ``error_kinds`` their
    first failed line's error; ``no_move_rounds`` and ``no_move_kinds`` count each round once
    (a shared round is in every arm's line)."""
    by_arm = {arm: [g for g in games if g.get("arm") == arm] for arm in arms}
    rows = [
        arm_row(
            arm,
            by_arm[arm],
            branch_after=branch_after,
            no_deal_value=no_deal_value,
            seed=seed,
            measure=measure,
        )
        for arm in arms
    ]
    versus_baseline(rows, by_arm, branch_after=branch_after, seed=seed, measure=measure)
    per_arm = []
    for arm in arms:
        summary = summarize(
            by_arm[arm],
            rounds=rounds,
            runs=runs,
            improve=improve,
            openers=openers,
            seed=seed,
            measure=measure,
        )
        with_scores(summary, by_arm[arm], no_deal_value=no_deal_value, seed=seed, measure=measure)
        per_arm.append({"arm": arm, **summary})
    first = per_arm[0] if per_arm else {}
    failed: dict[tuple[str, str], str | None] = {}
    for game in games:
        if game.get("status") == "error":
            failed.setdefault(_key(game), game.get("error"))
    return {
        "runs": runs,
        "finished_runs": first.get("finished_runs", 0),
        "errored_runs": len(failed),
        "error_kinds": error_kinds(failed.values()),
        **no_move_counts([{"rounds": _rounds_once(games)}]),
        "improve": improve,
        "branch_after": branch_after,
        "arms": rows,
        "per_arm": per_arm,
    }
