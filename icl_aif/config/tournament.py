"""A tournament: players who meet in both seats of a game (``tournament:`` in an experiment).

Each player is a name, a model's settings and, optionally, a persona it plays in either seat. Its **pairings** say who meets whom: ``all``
(every ordered pair of players, the first named in the game's first seat, self-play included
unless ``self_play: false``) or a list, each entry naming a player per seat and, optionally, its
own number of ``runs`` (an unbalanced schedule). Every pairing is one cell of the run: its games
are the experiment's game indices ``0 .. runs-1``, so every pairing plays the same drawn
scenarios and seeds. ``icl-aif rank RUN`` ranks the players (docs/tournaments.md).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from icl_aif.config.settings import RoleConfig, StrictModel

__all__ = ["Pairing", "TournamentConfig", "TournamentPlayer"]

NAME_PATTERN = r"^[A-Za-z0-9_.-]+$"


class TournamentPlayer(RoleConfig):
    """A player of a tournament: its name in the rankings and its model's settings (as a seat's
    ``roles`` entry: ``model``, ``params``, ``temperature``, ...)."""

    name: str = Field(pattern=NAME_PATTERN, description="The player's name in the rankings.")
    persona: str | None = Field(
        None,
        description="A persona it plays in either seat (prompts/personas/NAME.txt, added to its "
        "brief), or none.",
    )

    def role(self) -> dict[str, Any]:
        """The settings it plays a seat with (``roles.<seat>``): the ones written, bar its name
        and persona."""
        return self.model_dump(mode="json", exclude_unset=True, exclude={"name", "persona"})


class Pairing(StrictModel):
    """One pairing: the player in each seat (``{seat: name}``) and how many games it plays
    (``runs``; None: the experiment's ``runs``)."""

    seats: dict[str, str]
    runs: int | None = Field(None, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _from_entry(cls, data: Any) -> Any:
        """``{seller: a, buyer: b, runs: 30}`` as written in YAML."""
        if isinstance(data, dict) and "seats" not in data:
            rest = {k: v for k, v in data.items() if k != "runs"}
            return {"seats": rest, **({"runs": data["runs"]} if "runs" in data else {})}
        return data


class TournamentConfig(StrictModel):
    """Players and the pairings they play (module doc)."""

    players: tuple[TournamentPlayer, ...] = Field(min_length=2)
    pairings: Literal["all"] | tuple[Pairing, ...] = Field(
        "all",
        description="all: every ordered pair of players in the game's two seats; or a list of "
        "{<seat>: player, <seat>: player, runs: n} entries.",
    )
    self_play: bool = Field(True, description="With pairings all: a player also meets itself.")

    @field_validator("players")
    @classmethod
    def _unique_names(cls, players: tuple[TournamentPlayer, ...]) -> tuple[TournamentPlayer, ...]:
        names = [p.name for p in players]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"tournament.players: {', '.join(twice)} named twice")
        return players

    def player(self, name: str) -> TournamentPlayer:
        """The player called ``name``."""
        return next(p for p in self.players if p.name == name)

    def schedule(self, seats: tuple[str, str], runs: int) -> list[tuple[dict[str, str], int]]:
        """Every pairing as (player by seat, runs), in order; checked against the game's
        ``seats`` and the players (a ValueError names the entry)."""
        first, second = seats
        if self.pairings == "all":
            return [
                ({first: a.name, second: b.name}, runs)
                for a in self.players
                for b in self.players
                if self.self_play or a.name != b.name
            ]
        names = {p.name for p in self.players}
        found: list[tuple[dict[str, str], int]] = []
        for number, pairing in enumerate(self.pairings, start=1):
            where = f"tournament.pairings[{number}]"
            if set(pairing.seats) != {first, second}:
                raise ValueError(
                    f"{where}: name one player for each seat, {first} and {second}; got "
                    f"{', '.join(pairing.seats) or 'none'}"
                )
            for seat, name in pairing.seats.items():
                if name not in names:
                    raise ValueError(
                        f"{where}.{seat}: no player {name!r}; players: {', '.join(sorted(names))}"
                    )
            found.append(
                ({first: pairing.seats[first], second: pairing.seats[second]}, pairing.runs or runs)
            )
        if not found:
            raise ValueError("tournament.pairings: an empty list; write all or list the pairings")
        return found
