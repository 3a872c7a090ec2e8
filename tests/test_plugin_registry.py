"""The one plugin registry (``icl_aif.core.plugins.Registry``) that games, providers and feedback
sources share: a taken name refused, a reload replacing its own entry, lookups, the one-line
problem. Loading real entry points is tested per kind (test_cli_games, test_provider_registry,
test_feedback_sources)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from icl_aif.core.plugins import Registry, quoted
from icl_aif.engine.feedback.registry import FEEDBACK_SOURCES
from icl_aif.games.registry import GAMES
from icl_aif.models.providers import PROVIDERS


@dataclass(frozen=True)
class Entry:
    name: str
    origin: str


def registry() -> Registry[Entry]:
    return Registry("widget", "icl_aif_tests.no_such_group")


def test_a_name_another_module_holds_is_refused_and_a_reload_replaces_its_own() -> None:
    widgets = registry()
    widgets.add("knob", Entry("first", "pkg.a"))
    widgets.add("knob", Entry("again", "pkg.a"))  # the same module, reloaded
    assert widgets["knob"].name == "again"
    with pytest.raises(ValueError, match=r"widget 'knob' is registered already by pkg\.a"):
        widgets.add("knob", Entry("other", "pkg.b"))


def test_lookups_and_the_one_line_problem() -> None:
    widgets = registry()
    widgets.add("knob", Entry("k", "pkg.a"))
    widgets.add("dial", Entry("d", "pkg.a"))
    assert widgets.find("knob") == Entry("k", "pkg.a") and widgets.find("lever") is None
    assert widgets.everything() == {"knob": Entry("k", "pkg.a"), "dial": Entry("d", "pkg.a")}
    assert widgets.problem("lever") == "got 'lever'; allowed values: 'knob' or 'dial'"
    assert widgets.problem("lever", ["dial"]) == "got 'lever'; allowed values: 'dial'"
    assert widgets.load_plugins() == []  # a group no package declares
    widgets.forget_plugins()  # forgets what plugins added: nothing here
    assert list(widgets) == ["knob", "dial"]


def test_quoted_lists_values_as_the_configs_messages_do() -> None:
    assert quoted(["a"]) == "'a'"
    assert quoted(["a", "b", "c"]) == "'a', 'b' or 'c'"


def test_games_providers_and_feedback_sources_are_such_registries() -> None:
    for kind, found in (
        ("game", GAMES),
        ("provider", PROVIDERS),
        ("feedback source", FEEDBACK_SOURCES),
    ):
        assert isinstance(found, Registry) and found.kind == kind


def test_a_registry_is_never_pickled_and_its_lookups_pickle_by_reference() -> None:
    import pickle

    from icl_aif.games.registry import find_game

    with pytest.raises(TypeError, match="the game registry is not pickled"):
        pickle.dumps(GAMES)
    assert pickle.loads(pickle.dumps(find_game)) is find_game  # a worker process uses its own
