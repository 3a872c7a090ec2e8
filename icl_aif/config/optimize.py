"""``optimize:``: how ``icl-aif optimize`` evolves the improved seat's standing instruction
(docs/optimize.md).

The scenarios are games of the experiment drawn from seeds of their own: ``train`` games to
propose changes on, ``validation`` games to keep a candidate on, ``heldout`` games to compare
the result with in-context learning on. Each scenario is played ``games`` times (the first with
the game's own random stream, the others with streams of their own, the scenario and the rivals'
private values the same).
"""

from __future__ import annotations

from pydantic import Field, model_validator

from icl_aif.config.settings import RoleConfig, StrictModel

__all__ = ["OptimizeConfig"]


class OptimizeConfig(StrictModel):
    """The optimiser's scenario sets, its search and its budget (module doc)."""

    train: int = Field(
        6, ge=1, le=1000, description="Training scenarios: proposals are made and tested on them."
    )
    validation: int = Field(
        4,
        ge=1,
        le=1000,
        description="Validation scenarios: every kept candidate is scored on each; the Pareto front is over them.",
    )
    heldout: int = Field(
        12,
        ge=2,
        le=10000,
        description="Held-out scenarios of the comparison (optimised, ICL-AIF, none).",
    )
    games: int = Field(2, ge=1, le=20, description="Games per scenario for a candidate's score.")
    iterations: int = Field(
        8, ge=1, le=1000, description="Proposals at most (the budget may stop the search sooner)."
    )
    minibatch: int = Field(3, ge=1, description="Training scenarios per proposal.")
    merge_every: int | None = Field(
        None,
        ge=2,
        description="Every k-th proposal merges two candidates of the front (none: no merges).",
    )
    reflection: RoleConfig = Field(
        default_factory=lambda: RoleConfig(model="scripted:reflector"),
        description="The model that rewrites the instruction (any provider:model).",
    )
    max_chars: int = Field(
        600,
        ge=40,
        le=20000,
        description="The longest instruction a reflection may write (longer ones are cut).",
    )
    max_calls: int | None = Field(
        None, ge=1, description="Budget: model calls of the search, the comparison excluded."
    )
    max_usd: float | None = Field(
        None, gt=0, description="Budget: dollars of the search, the comparison excluded."
    )
    compare_rounds: int = Field(
        3, ge=1, le=50, description="Rounds of each held-out game in the comparison."
    )

    @model_validator(mode="after")
    def _check_sizes(self) -> OptimizeConfig:
        if self.minibatch > self.train:
            raise ValueError(f"minibatch {self.minibatch} is above train {self.train}")
        return self
