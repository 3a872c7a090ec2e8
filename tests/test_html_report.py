"""The HTML report as a reader sees it: rendered by headless Chromium (selenium + chromedriver)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.html_report import render_html, write_html_report
from icl_aif.analysis.plots import PLOT_FILES
from icl_aif.games.registry import get_game
from icl_aif.records.reader import read_games
from icl_aif.run.runner import RunResult
from tests.conftest import PRICE_MEASURE, headless_chromium
from tests.conftest import icl_aif as cli


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium (skips, saying what to install, without it)."""
    with headless_chromium(tmp_path_factory.mktemp("chromium-profile"), "1280,1000") as driver:
        yield driver


def test_html_report_shows_tables_plots_and_opens_transcripts(
    small_run: RunResult, browser: Any
) -> None:
    from selenium.webdriver.common.by import By

    page = write_html_report(small_run.directory, max_transcripts=4)
    assert page == small_run.directory / "report.html"
    text = page.read_text()
    assert "http://" not in text and "https://" not in text and "<script" not in text
    browser.get(page.as_uri())

    assert browser.title == "quickstart (seller improved)"
    run = browser.find_element(By.ID, "run").text
    assert "scripted:linear" in run and "seed" in run and "langgraph" in run
    rows = browser.find_elements(By.CSS_SELECTOR, "#table-all tbody tr")
    summary = small_run.summary["per_round"]
    assert len(rows) == len(summary) == 3
    cells = rows[0].find_elements(By.TAG_NAME, "td")
    assert [c.text for c in cells[:4]] == [
        "1",
        "6",
        str(summary[0]["deals"]),
        f"{summary[0]['deal_rate']:.1%}",
    ]
    assert f"${summary[0]['mean_price']:.2f}" in rows[0].text
    assert "seller" in browser.find_element(By.ID, "usage").text

    images = browser.find_elements(By.CSS_SELECTOR, "img.plot")
    assert len(images) == len(PLOT_FILES)
    for image in images:
        assert browser.execute_script("return arguments[0].complete", image)
        assert browser.execute_script("return arguments[0].naturalWidth", image) > 0

    games = browser.find_elements(By.CSS_SELECTOR, "details.game")
    assert len(games) == 4  # capped, with a note
    assert "The first 4 of 6 games" in browser.find_element(By.ID, "transcripts").text
    game = games[1]
    first_turn = game.find_element(By.CSS_SELECTOR, ".turn")
    assert not first_turn.is_displayed()
    game.find_element(By.TAG_NAME, "summary").click()
    assert game.get_attribute("open") is not None
    turns = game.find_elements(By.CSS_SELECTOR, ".turn")
    record = read_games(small_run.directory)[1]
    assert len(turns) == sum(len(r["turns"]) for r in record["rounds"])
    assert all(t.is_displayed() for t in turns)
    assert record["rounds"][0]["turns"][3]["text"] in turns[3].text
    before = game.find_elements(By.CSS_SELECTOR, ".before")
    assert len(before) == 2 and before[0].is_displayed()  # rounds 2 and 3
    assert record["rounds"][0]["instruction"].splitlines()[0] in before[0].text


def test_html_report_escapes_record_text(small_run: RunResult, tmp_path: Path) -> None:

    game = read_games(small_run.directory)[0]
    game["rounds"][0]["turns"][3]["text"] = "<script>alert(1)</script> & <b>bold</b>"
    price = get_game("price")
    page = render_html(
        manifest={"name": "<i>x</i>"},
        summary=small_run.summary,
        config={},
        games=[game],
        pngs={},
        game=price,
        measure=PRICE_MEASURE,
    )
    assert "<script>" not in page and "<b>bold</b>" not in page and "<i>x</i>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page


def test_report_html_cli(small_run: RunResult, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    result = cli("report", small_run.directory, "--html", "--out", out, "--transcripts", "0")
    assert result.returncode == 0, result.stderr
    assert f"HTML report written to {out}" in result.stdout
    assert out.read_text().count('<details class="game"') == 6
