"""Records of earlier formats in the seats of format 3: the one upgrade step every reader uses.

Until format 3 every game's seats were written ``seller`` and ``buyer`` (the price game's
words): the first seat was the seller, the second the buyer. Format 3 writes each game's own seat
ids (Deal or No Deal's ``alice`` and ``bob``). :func:`upgrade_seats` maps an older line, manifest
or config onto a game's seats:

- a key that is a format-2 seat name, or has one as a ``_``-separated part, takes the seat's id
  (``roles.seller`` -> ``roles.alice``, ``seller_values`` -> ``alice_values``,
  ``terms.buyer_score`` -> ``terms.bob_score``, ``mean_buyer_reward`` -> ``mean_player2_reward``);
- the value of a key that holds a seat (``speaker``, ``role``, ``improve``, ``person``,
  ``offerer``, ``side``, a list of them for a sweep's ``improve``) takes the seat's id, a
  summary's game column ``key`` (``seller_score``) is mapped as a key and the words seller and
  buyer of its ``header`` (``seller reward``) take the seats' ids;
- an override as the manifest recorded it (``roles.seller.model=...``, ``improve=buyer``) is
  mapped the same way, path and value.

What a player said is never touched. For the price game and the size-price game, whose seats are
``seller`` and ``buyer``, nothing changes. The other steps between formats (``terms`` and
``truncated`` on rounds of formats 0 and 1) are :func:`icl_aif.records.schema.upgrade_game`.

:data:`FORMAT2_SEATS` also labels each seat's random streams (:meth:`icl_aif.core.transcript.Seats.stream`),
so that a seed gives the games it gave when the seats had these names.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "FORMAT2_SEATS",
    "FORMAT3_SEATS",
    "FORMAT3_TEMPLATES",
    "SEAT_VALUED_KEYS",
    "format3_seats",
    "seat_mapping",
    "upgrade_override",
    "upgrade_prompts",
    "upgrade_seats",
]

FORMAT2_SEATS: tuple[str, str] = ("seller", "buyer")
"""The seats of every game in records before format 3, first seat first."""

FORMAT3_SEATS: dict[str, tuple[str, str]] = {
    "dond": ("alice", "bob"),
    "pie_split": ("proposer", "responder"),
    "resource_split": ("player1", "player2"),
}
"""The games whose seats format 3 renamed, and their seats since (first seat first). Every other
game kept ``seller`` and ``buyer`` (the price game, the size-price game, and a plugin's game:
before format 3 every game's records named its seats so)."""

SEAT_VALUED_KEYS = frozenset({"speaker", "role", "improve", "person", "offerer", "side"})
"""The keys whose values are seats in records and configs."""


FORMAT3_TEMPLATES: dict[str, tuple[str, str, str]] = {
    "prompts/dond/critic/system.txt": (
        "prompts/dond/critic/system.txt",
        "66625d88b6883e5dd0b19ff5151d0463d6a4077743a5be14b32892eea3a1b992",
        "991e73bc8d225e319ab771363dc8c2d92578db512eb2598a3cfe1bd03e247e41",
    ),
    "prompts/dond/feedback/buyer_pool.txt": (
        "prompts/dond/feedback/bob_pool.txt",
        "6b3b5c3ca4312dd71456b8551349834c65112bf012ae4e6eb46d26a88a57cfc4",
        "a24e2b8cd777aba669c99cad10102d8cf84dae7cb86f656c1480995b411098f3",
    ),
    "prompts/dond/feedback/seller_pool.txt": (
        "prompts/dond/feedback/alice_pool.txt",
        "5c882beda912da8a44cfbbfc50d984ffc9072130b110e28b06a82d43988b757b",
        "eab948d8e4190e82d9d61ecf2fa3647ae2d9392b4a38e4a8f191c6f584f8a937",
    ),
    "prompts/pie_split/critic/system.txt": (
        "prompts/pie_split/critic/system.txt",
        "9b74f442a73826812bea606566d1fe4e003192bc45cbb659febe5680b3c9a0a2",
        "f3fd5e8119b207dfb761b8f39c8c302e3c251e0e7ac5fefd73f0c698ff20d84a",
    ),
    "prompts/pie_split/feedback/buyer_pool.txt": (
        "prompts/pie_split/feedback/responder_pool.txt",
        "fd3d35596382adc5256b4e5fb2318522d4ef5e993c6b3e63e4f5a702a2228c56",
        "f1a8fbd06dc616681d253f42bab404bf02ce80f88c951c87ca5078aa55102d16",
    ),
    "prompts/pie_split/feedback/seller_pool.txt": (
        "prompts/pie_split/feedback/proposer_pool.txt",
        "c352055083a18f9e1f81273a39b9995febadd6df942c787ea8e27dc3e348b767",
        "0a8e0ccc0fb3fc0e1188beb693e183793a642b1866ad047ab23255244c029cd6",
    ),
    "prompts/pie_split/players/buyer.txt": (
        "prompts/pie_split/players/responder.txt",
        "087913861e686e1ef5e1a5e378b220021743f768ecd88c776dc712369e7fd5be",
        "087913861e686e1ef5e1a5e378b220021743f768ecd88c776dc712369e7fd5be",
    ),
    "prompts/pie_split/players/seller.txt": (
        "prompts/pie_split/players/proposer.txt",
        "e2c18140ae68fc62fa847bb779f328aa107ef8186ae5119b8bc3512763c75ddb",
        "e2c18140ae68fc62fa847bb779f328aa107ef8186ae5119b8bc3512763c75ddb",
    ),
    "prompts/resource_split/critic/system.txt": (
        "prompts/resource_split/critic/system.txt",
        "1070982c5334c89a7122b9d8f933ae60fc75f3a8d083d469543358cc9a658e23",
        "667f4f25ba06bc09eb5bf0169cf1bcd92705b9578910051f7c024670784325d2",
    ),
    "prompts/resource_split/feedback/buyer_pool.txt": (
        "prompts/resource_split/feedback/player2_pool.txt",
        "c6a0fb9024d59abe20b3ff6da90a1e63564b0bb20b65972b216b47e5cd037b12",
        "cd730d8d14023d7b386568dbc83762fb26a7f0c9046d25f5aa06b17ccda20049",
    ),
    "prompts/resource_split/feedback/seller_pool.txt": (
        "prompts/resource_split/feedback/player1_pool.txt",
        "3d7687bf6a15aa0d0751bff2436e36c425bb6f6b7292fb4e66531aefe000d867",
        "6ef7f4cff4597633d700f34d480c125bf2348839902a59af9475a52400089c4c",
    ),
    "prompts/resource_split/players/buyer.txt": (
        "prompts/resource_split/players/player2.txt",
        "2fd2e14f2c954c4cef393f4cafae61dd221bfcfc06a325b73b2e650753a40e28",
        "2fd2e14f2c954c4cef393f4cafae61dd221bfcfc06a325b73b2e650753a40e28",
    ),
    "prompts/resource_split/players/seller.txt": (
        "prompts/resource_split/players/player1.txt",
        "39a06826d5e7f97f9bad8fe880fadcaa47586888e2f02f356e012e1412ea2729",
        "39a06826d5e7f97f9bad8fe880fadcaa47586888e2f02f356e012e1412ea2729",
    ),
}
"""The templates format 3 renamed or reworded for the games' seats: format-2 path -> (format-3
path, SHA-256 before, SHA-256 after). A run of an earlier format that used the text before
resumes with the text after (:func:`upgrade_prompts`): the same protocol, its records in the
game's seats."""


def upgrade_prompts(prompts: dict[str, str]) -> dict[str, str]:
    """A format-2 manifest's ``prompts`` (path -> SHA-256) as format 3 names them: a template of
    :data:`FORMAT3_TEMPLATES` recorded with its text before format 3 takes its path and digest
    after; anything else is kept as it is (a changed text stays changed)."""
    upgraded: dict[str, str] = {}
    for path, digest in prompts.items():
        new_path, before, after = FORMAT3_TEMPLATES.get(path, (path, digest, digest))
        upgraded[new_path] = after if digest == before else digest
    return upgraded


def format3_seats(game: str) -> tuple[str, str]:
    """The seats format 3 gives ``game``'s records of earlier formats (:data:`FORMAT3_SEATS`)."""
    return FORMAT3_SEATS.get(game, FORMAT2_SEATS)


def seat_mapping(seats: tuple[str, str]) -> dict[str, str]:
    """Format-2 seat name -> the game's seat id; empty when they are the same."""
    mapping = dict(zip(FORMAT2_SEATS, seats, strict=True))
    return {old: new for old, new in mapping.items() if old != new}


def upgrade_seats(data: Any, seats: tuple[str, str]) -> Any:
    """``data`` (a record, a manifest or a config, as plain data) with the format-2 seat names
    replaced by ``seats`` (the game's, first seat first): a new object, ``data`` unchanged; or
    ``data`` itself when the seats are ``seller`` and ``buyer``."""
    mapping = seat_mapping(seats)
    return _mapped(data, mapping, seat_valued=False) if mapping else data


def upgrade_override(text: str, seats: tuple[str, str]) -> str:
    """A ``--set`` override as a format-2 manifest recorded it (``roles.seller.model=x``,
    ``improve=buyer``) in ``seats``."""
    return _override(text, seat_mapping(seats))


def _override(text: str, mapping: dict[str, str]) -> str:
    path, sep, value = text.partition("=")
    if not mapping or not sep:
        return text
    parts = [_key(part, mapping) for part in path.split(".")]
    if parts[-1] in SEAT_VALUED_KEYS:
        value = mapping.get(value, value)
    return ".".join(parts) + sep + value


def _key(key: str, mapping: dict[str, str]) -> str:
    """``key`` with each ``_``-separated part that is a format-2 seat mapped (``seller_values``,
    ``mean_buyer_reward``)."""
    return "_".join(mapping.get(part, part) for part in key.split("_"))


def _mapped(data: Any, mapping: dict[str, str], *, seat_valued: bool) -> Any:
    if isinstance(data, dict):
        return {
            (_key(k, mapping) if isinstance(k, str) else k): _value(k, v, mapping)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_mapped(item, mapping, seat_valued=seat_valued) for item in data]
    if seat_valued and isinstance(data, str):
        return mapping.get(data, data)
    return data


def _value(key: object, value: Any, mapping: dict[str, str]) -> Any:
    if key == "key" and isinstance(value, str):  # a summary's game column names a key
        return _key(value, mapping)
    if key == "header" and isinstance(value, str):  # and heads it: "seller reward"
        return re.sub(r"\b(seller|buyer)\b", lambda found: mapping.get(found[1], found[1]), value)
    if key == "overrides" and isinstance(value, list):  # a manifest's --set overrides
        return [_override(v, mapping) if isinstance(v, str) else v for v in value]
    return _mapped(value, mapping, seat_valued=key in SEAT_VALUED_KEYS)
