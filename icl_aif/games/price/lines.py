"""The price game's scripted players' words and binding moves: the lines every simulator of
the game says (:mod:`icl_aif.games.price.simulators`, :mod:`icl_aif.games.price.known_players`),
with every price stated with ``$``, and the move a line makes under ``moves: structured``."""

from __future__ import annotations

from typing import Any

from icl_aif.core.transcript import Seat

__all__ = ["REPLIES", "price_move"]

REPLIES: dict[Seat, dict[str, tuple[str, ...]]] = {
    "seller": {
        "counter": (
            "I can't go that low, but I could do {offer}.",
            "How about {offer}? That is a fair price for it.",
            "The best I can do right now is {offer}.",
            "I could come down to {offer}.",
        ),
        "hold": (
            "I'm staying at {offer} for now.",
            "My price is still {offer}.",
        ),
        "accept": (
            "Deal! {price} it is.",
            "Alright, {price} works for me. It's yours.",
            "You have a deal at {price}.",
        ),
        "walk": (
            "Sorry, that is too low for me, so I'll keep the {item}. No deal.",
            "We are too far apart; I'll walk away. No deal.",
        ),
        "value": (
            "This {item} is well made and will last.",
            "It is in excellent condition, far nicer than the cheap ones.",
        ),
    },
    "buyer": {
        "counter": (
            "That's more than I want to pay. Would you take {offer}?",
            "I can offer {offer}.",
            "How about {offer}?",
            "Could you do {offer}?",
        ),
        "hold": (
            "I'm staying at {offer}.",
            "{offer} is still my offer.",
        ),
        "accept": (
            "Okay, {price} works. Deal!",
            "Deal, I'll take it for {price}.",
            "Fine, {price} it is. I'll take it.",
        ),
        "walk": (
            "That is more than I can spend, so I'll pass. No deal.",
            "Thanks, but it's too expensive for me. I'll look elsewhere; no deal.",
        ),
        "value": (
            "I have seen similar ones in other shops.",
            "It is a nice {item}, but it is not new.",
        ),
    },
}


def price_move(kind: str, price: float | None = None) -> dict[str, Any]:
    """A scripted player's move as the move tool's arguments (beside ``message``): the price as
    its line states it, in cents."""
    return {"move": kind, "terms": None if price is None else {"price": round(price, 2)}}
