"""Real listings as price-game scenarios: the listings file and the CraigslistBargain import.

A *listings file* is JSONL, one scenario a line: ``item``, ``list_price``, ``buyer_open`` and
``seller_cost`` (required), ``buyer_budget`` and ``source`` (optional). ``scenario.listings``
names one; each game then plays one line, drawn from its seed
(:meth:`icl_aif.games.price.game.PriceGame.sample_scenario`).

``icl-aif scenarios import craigslist FILE`` writes one from CraigslistBargain (He, Chen,
Balakrishnan and Liang 2018), as converted in ``shared/data/craigslistbargain_dev.jsonl``: one
dialog a line with ``id`` and ``scenario: {item, list_price, buyer_open}``. The listing's title is
the item, its price the list price and the buyer's private target the buyer's opening offer. The
data set gives the seller no bottom line (its target is the list price), so the seller's cost is
``floor_ratio`` x the list price (0.7 by default; see docs/experiments.md, Real listings).
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icl_aif.core.errors import UsageError

__all__ = [
    "FLOOR_RATIO",
    "ITEM_CHARS",
    "LISTING_KEYS",
    "MAX_LISTINGS",
    "REQUIRED_KEYS",
    "ImportResult",
    "ListingsError",
    "craigslist_scenario",
    "import_craigslist",
    "listing_rows",
    "listing_title",
    "write_listings",
]

logger = logging.getLogger(__name__)

FLOOR_RATIO = 0.7
"""The seller's cost as a share of the list price when the data gives no bottom line."""

ITEM_CHARS = 60
"""The longest item name an imported listing keeps (the players and the openers say it)."""

MAX_LISTINGS = 10_000
"""The most listings a listings file may hold: each one is read and checked when the config
loads, in every process that plays games (``bench/scenario_bounds.py`` times it)."""

REQUIRED_KEYS = ("item", "list_price", "buyer_open", "seller_cost")
LISTING_KEYS = (*REQUIRED_KEYS, "buyer_budget", "source")

# Where a long title may be cut: "Sofa / like new / must go", "Bike - 21 speed", "Desk | oak".
_SEPARATOR_RE = re.compile(r"\s+[/|\-–—~]+\s+|\s*[|•]\s*|[;:!]\s+|,\s+|\s+\(")
_SPACE_RE = re.compile(r"\s+")
_LEAD_CHARS = " *~-_=/|,.;:!+&"
_TAIL_CHARS = " *~-_=/|,.;:!?+&"
# Words a cut title should not end on: "Desk w/", "Sofa and", "Lamp with".
_DANGLING = frozenset(
    {"w/", "w", "with", "and", "or", "for", "of", "in", "+", "&", "-", "a", "the"}
)


class ListingsError(ValueError):
    """A listings file or a data set that cannot be read: one line naming the file (and line)."""


# --- reading JSONL --------------------------------------------------------------------------


def _jsonl_objects(path: Path, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The objects of a JSONL file with their line numbers; blank lines are skipped."""
    if not path.is_file():
        raise ListingsError(f"{path}: no such file; give {what}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ListingsError(f"{path}: not a UTF-8 text file; give {what}") from None
    except OSError as exc:
        raise ListingsError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if text.lstrip().startswith("["):
        raise ListingsError(f"{path}: a JSON list, not JSONL; give {what}, one JSON object a line")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ListingsError(f"{path} line {number}: not valid JSON ({exc.msg})") from None
        if not isinstance(value, dict):
            raise ListingsError(f"{path} line {number}: expected a JSON object, got {value!r:.40}")
        yield number, value


def listing_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The lines of a listings file as (line number, scenario values), each with the required
    keys and no others; :class:`ListingsError` names the file and the line of a problem (also
    for a file with no listing). The values themselves are checked by the price scenario."""
    what = "a listings file (JSONL, e.g. from icl-aif scenarios import)"
    rows = []
    for number, row in _jsonl_objects(path, what):
        unknown = sorted(set(row) - set(LISTING_KEYS))
        if unknown:
            raise ListingsError(
                f"{path} line {number}: unknown key {unknown[0]!r}; allowed: "
                f"{', '.join(LISTING_KEYS)}"
            )
        missing = [key for key in REQUIRED_KEYS if key not in row]
        if missing:
            raise ListingsError(
                f"{path} line {number}: missing {', '.join(missing)} (a listing needs "
                f"{', '.join(REQUIRED_KEYS)})"
            )
        rows.append((number, row))
        if len(rows) > MAX_LISTINGS:
            raise ListingsError(
                f"{path}: more than {MAX_LISTINGS:,} listings; at most {MAX_LISTINGS:,} (a "
                "smaller file, e.g. icl-aif scenarios import --limit)"
            )
    if not rows:
        raise ListingsError(f"{path}: the file holds no listing; write one scenario a line")
    return rows


# --- CraigslistBargain ----------------------------------------------------------------------


@dataclass
class ImportResult:
    """What an import made: the scenarios, and how many records were skipped for what reason."""

    scenarios: list[dict[str, Any]] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    records: int = 0

    def summary(self, out: Path | None = None) -> str:
        """``imported 587 listing(s) to OUT; skipped 15: duplicate listing 15``."""
        where = f" to {out}" if out is not None else ""
        line = f"imported {len(self.scenarios)} listing(s){where}"
        total = sum(self.skipped.values())
        if not total:
            return f"{line}; skipped 0"
        reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(self.skipped.items()))
        return f"{line}; skipped {total}: {reasons}"


def listing_title(title: str, limit: int = ITEM_CHARS) -> str:
    """A listing's title as the item the players name: one line, no decoration at its edges,
    and at most ``limit`` characters, cut at a separator (`` / ``, `` - ``, ``|``, a comma) or
    else at a word boundary."""
    text = _trim(_SPACE_RE.sub(" ", title))
    if len(text) <= limit:
        return text
    for match in _SEPARATOR_RE.finditer(text):  # the first part long enough to name the item
        head = _trim(text[: match.start()])
        if len(head) > limit:
            break
        if len(head) >= limit // 3:
            return head
    head = text[: limit + 1]
    words = (head.rsplit(" ", 1)[0] if " " in head else head[:limit]).split(" ")
    while len(words) > 1 and words[-1].casefold() in _DANGLING:
        words.pop()
    return _trim(" ".join(words))


def _trim(text: str) -> str:
    """``text`` without decoration at its edges (``*NEW*``, ``Sofa!!!``, ``- Desk -``)."""
    return text.lstrip(_LEAD_CHARS).rstrip(_TAIL_CHARS)


def _amount(value: Any) -> float | None:
    """A finite number (not a boolean), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _plain(value: float) -> int | float:
    """``265.0`` -> ``265``: whole amounts written as integers."""
    return int(value) if float(value).is_integer() else round(value, 2)


def craigslist_scenario(
    record: Mapping[str, Any], floor_ratio: float = FLOOR_RATIO
) -> dict[str, Any] | str:
    """The price scenario of one CraigslistBargain record, or why it makes none (the skip
    reason)."""
    scenario = record.get("scenario")
    if not isinstance(scenario, Mapping):
        return "no scenario"
    title = scenario.get("item")
    item = listing_title(title) if isinstance(title, str) else ""
    if not item:
        return "no title"
    list_price = _amount(scenario.get("list_price"))
    if list_price is None:
        return "no list price"
    if list_price <= 0:
        return "list price not above 0"
    buyer_open = _amount(scenario.get("buyer_open"))
    if buyer_open is None:
        return "no buyer target"
    if buyer_open <= 0:
        return "buyer target not above 0"
    if buyer_open >= list_price:
        return "buyer target not below list price"
    made: dict[str, Any] = {
        "item": item,
        "list_price": _plain(list_price),
        "buyer_open": _plain(buyer_open),
        "seller_cost": _plain(round(floor_ratio * list_price, 2)),
    }
    if isinstance(record.get("id"), str) and record["id"]:
        made["source"] = f"craigslistbargain:{record['id']}"
    return made


def import_craigslist(
    path: Path, *, limit: int | None = None, floor_ratio: float = FLOOR_RATIO
) -> ImportResult:
    """The scenarios of the CraigslistBargain dialogs in ``path`` (JSONL, one dialog a line), in
    file order, at most ``limit``; a record that makes no valid scenario, or repeats one already
    made (same item, list price and buyer target), is skipped and counted. A file that cannot be
    read, or of which no record makes a scenario, is a :class:`ListingsError`."""
    if not 0 < floor_ratio < 1:
        raise ListingsError(f"floor ratio {floor_ratio:g}: give a share of the list price, 0 to 1")
    what = "CraigslistBargain dialogs as JSONL (see shared/data/README.md)"
    result = ImportResult()
    seen: set[tuple[str, float, float]] = set()
    for number, record in _jsonl_objects(path, what):
        if limit is not None and len(result.scenarios) >= limit:
            break
        result.records += 1
        made = craigslist_scenario(record, floor_ratio)
        if isinstance(made, str):
            logger.debug("%s line %d skipped: %s", path, number, made)
            result.skipped[made] += 1
            continue
        key = (made["item"].casefold(), float(made["list_price"]), float(made["buyer_open"]))
        if key in seen:
            result.skipped["duplicate listing"] += 1
            continue
        seen.add(key)
        result.scenarios.append(made)
    if not result.records:
        raise ListingsError(f"{path}: the file holds no dialog; give {what}")
    if not result.scenarios:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(result.skipped.items()))
        raise ListingsError(
            f"{path}: none of its {result.records} record(s) makes a scenario ({reasons}); "
            f"give {what}"
        )
    return result


def write_listings(scenarios: list[dict[str, Any]], out: Path) -> None:
    """Write ``scenarios`` as a listings file (JSONL), creating its folder; a problem is a
    :class:`~icl_aif.core.errors.UsageError`."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as handle:
            for scenario in scenarios:
                handle.write(json.dumps(scenario, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise UsageError(f"{out}: cannot write it ({exc.strerror or exc})") from None
