"""Records: the run directory. Games, rounds and model calls as JSON lines (one finished game on
disk before the next starts), the manifest, the summary, and the readers that upgrade older
formats and report damaged lines.

- :mod:`~icl_aif.records.schema`: one pydantic model per kind of line, and the format version;
- :mod:`~icl_aif.records.layout`: the files of a run directory and the order of its games;
- :mod:`~icl_aif.records.writer`: writing them (a finished game on disk before the next starts);
- :mod:`~icl_aif.records.reader`: reading them back, older formats upgraded, damage said."""

from icl_aif.records.layout import CALLS, CONFIG, GAMES, MANIFEST, SUMMARY
from icl_aif.records.reader import (
    SkippedLines,
    read_calls,
    read_games,
    read_jsonl,
    read_manifest,
    read_records,
    read_summary,
)
from icl_aif.records.schema import (
    FORMAT_VERSION,
    CallRecord,
    GameRecord,
    ManifestRecord,
    RoundRecord,
    TurnRecord,
)
from icl_aif.records.writer import repair_records

__all__ = [
    "CALLS",
    "CONFIG",
    "FORMAT_VERSION",
    "GAMES",
    "MANIFEST",
    "SUMMARY",
    "CallRecord",
    "GameRecord",
    "ManifestRecord",
    "RoundRecord",
    "SkippedLines",
    "TurnRecord",
    "read_calls",
    "read_games",
    "read_jsonl",
    "read_manifest",
    "read_records",
    "read_summary",
    "repair_records",
]
