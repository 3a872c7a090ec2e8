"""Records: the run directory. Games, rounds and model calls as JSON lines (one finished game on
disk before the next starts), the manifest, the summary, and the readers that upgrade older
formats and report damaged lines."""

from icl_aif.records.schema import (
    FORMAT_VERSION,
    CallRecord,
    GameRecord,
    ManifestRecord,
    RoundRecord,
    TurnRecord,
)
from icl_aif.records.store import (
    read_calls,
    read_games,
    read_manifest,
    read_records,
    read_summary,
    repair_records,
)

__all__ = [
    "FORMAT_VERSION",
    "CallRecord",
    "GameRecord",
    "ManifestRecord",
    "RoundRecord",
    "TurnRecord",
    "read_calls",
    "read_games",
    "read_manifest",
    "read_records",
    "read_summary",
    "repair_records",
]
