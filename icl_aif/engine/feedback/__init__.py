"""Feedback: where the improved player's feedback comes from between rounds.

:mod:`~icl_aif.engine.feedback.registry` holds how a source registers (the :func:`feedback_source`
decorator, the ``icl_aif.feedback_sources`` entry point group, the lookup by name);
:mod:`~icl_aif.engine.feedback.sources` holds ours (``ai``, ``human``, ``human_pool``,
``constant``, ``none``) and :func:`give_feedback`, which calls the configured one. Importing this
package registers ours."""

from icl_aif.engine.feedback.registry import (
    ENTRY_POINT_GROUP,
    Feedback,
    FeedbackSource,
    feedback_source,
    find_source,
    source_problem,
)
from icl_aif.engine.feedback.sources import give_feedback, load_pool

__all__ = [
    "ENTRY_POINT_GROUP",
    "Feedback",
    "FeedbackSource",
    "feedback_source",
    "find_source",
    "give_feedback",
    "load_pool",
    "source_problem",
]
