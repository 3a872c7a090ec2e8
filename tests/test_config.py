"""Experiment configs: defaults, overrides and one-line errors that say what to fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from icl_aif.config.files import apply_overrides
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import config_from_dict, load_config
from tests.conftest import QUICKSTART


def test_defaults_follow_the_paper() -> None:
    config = config_from_dict({})
    scenario = config.scenario
    assert (scenario.item, scenario.list_price, scenario.buyer_open, scenario.seller_cost) == (
        "balloon",
        20,
        10,
        8,
    )
    assert (config.rounds, config.runs, scenario.max_exchanges) == (5, 200, 10)
    assert (config.improve, config.rival, config.anchor) == ("seller", "buyer", "previous")
    assert (config.feedback.source, config.feedback.suggestions) == ("ai", 3)
    assert config.roles.moderator.window == 4


def test_overrides_are_typed_and_nested() -> None:
    config = load_config(
        QUICKSTART,
        [
            "runs=3",
            "roles.buyer.model=scripted:conceder",
            "scenario.buyer_budget=15.5",
            "improve=buyer",
        ],
    )
    assert config.runs == 3
    assert config.roles.buyer.model == "scripted:conceder"
    assert config.scenario.buyer_budget == 15.5
    assert config.improve == "buyer"


def test_text_that_looks_like_a_mapping_stays_text() -> None:
    config = load_config(
        QUICKSTART,
        [
            "roles.seller.model=local:",
            "roles.buyer.params={floor: 12}",
            "feedback.constant=Note: hold",
        ],
    )
    assert config.roles.seller.model == "local:"
    assert config.roles.buyer.params == {"floor": 12}
    assert config.feedback.constant == "Note: hold"


def test_overrides_do_not_touch_the_input() -> None:
    data = {"roles": {"seller": {"model": "a:b"}}}
    assert apply_overrides(data, ["roles.seller.model=c:d"])["roles"]["seller"]["model"] == "c:d"
    assert data["roles"]["seller"]["model"] == "a:b"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["runz=3"], "unknown field 'runz'; allowed keys here: acknowledgement, anchor,"),
        (
            ["roles.seller.modle=x"],
            "unknown field 'roles.seller.modle'; allowed keys here: base_url, max_tokens, model,",
        ),
        (
            ["improve=critic"],
            "improve: 'critic' is not a seat of game 'price'; allowed values: seller or buyer",
        ),
        (["anchor=last"], "allowed values: 'previous', 'first' or 'best'"),
        (
            ["feedback.source=humans"],
            "allowed values: 'ai', 'human', 'human_pool', 'constant' or 'none'",
        ),
        (["runs=0"], "field 'runs': Input should be greater than or equal to 1"),
        (["scenario.buyer_open=25"], "buyer_open must be below list_price"),
        (["runs"], "expected KEY.PATH=VALUE"),
    ],
)
def test_bad_settings_name_the_file_and_the_field(overrides: list[str], message: str) -> None:
    with pytest.raises(UsageError) as error:
        load_config(QUICKSTART, overrides)
    text = str(error.value)
    assert message in text
    assert "\n" not in text


def test_missing_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such config file"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("runs: [1, 2\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"bad.yaml: line \d+ is not valid YAML"):
        load_config(bad)
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("just a string\n", encoding="utf-8")
    with pytest.raises(UsageError, match="expected a mapping"):
        load_config(scalar)
