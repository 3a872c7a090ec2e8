"""icl-aif serve: human critics on a web page, driven through the JSON API (httpx) and the page
(headless Chromium, as the HTML report test drives it). Every server is a subprocess on a free
127.0.0.1 port, playing the scripted quickstart offline."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from icl_aif.engine.feedback.sources import load_pool
from icl_aif.records.reader import read_games, read_jsonl
from icl_aif.run.play import Answer
from icl_aif.serve.journal import append_line, read_lines, transcript_hash
from icl_aif.serve.pool import pool_line, provenance_path
from icl_aif.serve.study import ANNOTATIONS, WebCritics
from icl_aif.serve.tasks import TaskBoard, TaskProblem
from tests.conftest import CLI, QUICKSTART, cli_env, headless_chromium, icl_aif, quickstart, run

HUMAN = ("--set", "feedback.source=human", "--set", "runs=3", "--set", "rounds=2")
SCRIPT = "<script>document.title='owned'</script>"


@dataclass
class Server:
    """A running ``icl-aif serve`` subprocess and how to reach it."""

    process: subprocess.Popen[str]
    url: str
    token: str
    log: Path

    @property
    def api(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=30
        )

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8")

    def wait(self, timeout: float = 120) -> int:
        """The exit code once the server has stopped by itself."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(f"the server did not stop:\n{self.output()}") from None


def start(tmp_path: Path, *args: str | Path, name: str = "server") -> Server:
    """Start ``icl-aif serve ARGS --port 0`` and wait for the lines that give the link."""
    log = tmp_path / f"{name}.log"
    process = subprocess.Popen(
        [str(CLI), "serve", *map(str, args), "--port", "0"],
        stdout=log.open("w", encoding="utf-8"),
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
        env=cli_env(),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8")
        page = re.search(r"^page: (http://127\.0\.0\.1:\d+/)\?token=(\S+)$", text, re.M)
        token = re.search(r"^token: (\S+)$", text, re.M)
        if page and token:
            assert page.group(2) == token.group(1)
            return Server(process, page.group(1), token.group(1), log)
        if process.poll() is not None:
            raise AssertionError(f"the server stopped (exit {process.returncode}):\n{text}")
        time.sleep(0.1)
    process.kill()
    raise AssertionError(f"no link printed:\n{log.read_text(encoding='utf-8')}")


def wait_for(client: httpx.Client, condition: Any, timeout: float = 60) -> dict[str, Any]:
    """``/api/status`` once ``condition(status)`` holds."""
    deadline = time.monotonic() + timeout
    while True:
        status: dict[str, Any] = client.get("/api/status").json()
        if condition(status):
            return status
        if time.monotonic() > deadline:
            raise AssertionError(f"status never reached the condition: {status}")
        time.sleep(0.1)


def open_tasks(client: httpx.Client, count: int) -> list[dict[str, Any]]:
    """The open tasks, once there are ``count`` of them."""
    wait_for(client, lambda s: s["waiting"] >= count)
    tasks: list[dict[str, Any]] = client.get("/api/tasks").json()["tasks"]
    return tasks


def answer_task(client: httpx.Client, task_id: str, annotator: str, suggestions: list[str]) -> Any:
    """Open ``task_id`` for ``annotator`` (a task is answered only by who opened it), then
    submit ``suggestions``; the answer to the submission."""
    opened = client.get(f"/api/tasks/{task_id}", params={"annotator": annotator})
    assert opened.status_code == 200, opened.text
    return client.post(
        f"/api/tasks/{task_id}", json={"annotator": annotator, "suggestions": suggestions}
    )


def typed(game_id: str) -> list[str]:
    return [f"Open higher in {game_id}.", "Concede in small steps."]


def assert_feedback_reached_round_2(directory: Path, answered: dict[str, str]) -> None:
    """Each game's round 1 carries its typed feedback and who wrote it; the improved seller's
    round-2 prompt holds it."""
    games = read_games(directory)
    assert sorted(g["game_id"] for g in games) == ["g00000", "g00001", "g00002"]
    for game in games:
        assert game["status"] == "complete"
        first = game["rounds"][0]
        assert first["feedback_source"] == "human"
        assert first["suggestions"] == typed(game["game_id"])
        assert first["feedback"] == "\n".join(typed(game["game_id"]))
        assert first["annotator"] == answered[game["game_id"]]
        assert first["submitted_at"] >= (first["shown_at"] or "")
        assert "annotator" not in game["rounds"][1]
    for call in read_jsonl(directory / "calls.jsonl"):
        if call["role"] == "seller" and call["round"] == 2:
            prompt = "\n".join(m["content"] for m in call["messages"])
            assert f"Feedback on how you negotiated:\n{typed(call['game_id'])[0]}" in prompt


# --- the API alone (no browser) ---------------------------------------------------------------


def test_a_run_answered_through_the_api_records_who_wrote_what(
    tmp_path: Path, servers: list[Server]
) -> None:
    out = tmp_path / "run"
    server = start(tmp_path, QUICKSTART, "--out", out, *HUMAN)
    servers.append(server)
    api = server.api
    # no token, a wrong one, or a token in the wrong scheme: 401
    for headers in (
        {},
        {"Authorization": "Bearer nope"},
        {"Authorization": f"Basic {server.token}"},
    ):
        for method, path in (
            ("GET", "/api/status"),
            ("GET", "/api/tasks"),
            ("POST", "/api/tasks/g00000-r1"),
        ):
            answer = httpx.request(method, server.url + path.lstrip("/"), headers=headers, json={})
            assert answer.status_code == 401, (headers, path)
            assert answer.headers["www-authenticate"] == "Bearer"
    assert httpx.get(server.url).status_code == 401  # the page too
    assert httpx.get(server.url, params={"token": "nope"}).status_code == 401
    # the printed link keeps the token in an HttpOnly, SameSite=Strict cookie
    linked = httpx.get(server.url, params={"token": server.token}, follow_redirects=False)
    assert linked.status_code == 303 and linked.headers["location"] == "/"
    cookie = linked.headers["set-cookie"]
    assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower()

    tasks = open_tasks(api, 3)
    assert sorted(t["id"] for t in tasks) == ["g00000-r1", "g00001-r1", "g00002-r1"]
    assert api.get("/api/status").json() == {
        "mode": "run",
        "games": 3,
        "done": 0,
        "waiting": 3,
        "in_progress": 0,
        "answered": 0,
        "finished": False,
    }
    # a task fetched with an annotator is theirs for the claim timeout: another one is refused
    task = api.get("/api/tasks/g00001-r1", params={"annotator": "ann-b"}).json()
    assert task["transcript"].startswith("Round 1\nbuyer: ") and task["shown_at"]
    assert task["claimed_by"] == "ann-b" and task["suggestions"] == 3
    refused = api.post("/api/tasks/g00001-r1", json={"annotator": "ann-a", "suggestions": ["x"]})
    assert refused.status_code == 409
    assert "g00001-r1" not in [t["id"] for t in api.get("/api/tasks").json()["tasks"]]
    assert api.get("/api/status").json()["in_progress"] == 1
    unopened = api.post("/api/tasks/g00000-r1", json={"annotator": "ann-a", "suggestions": ["x"]})
    assert unopened.status_code == 409  # answered only once opened
    bad = answer_task(api, "g00000-r1", "ann-a", [" "])
    assert bad.status_code == 422
    assert (
        api.post("/api/tasks/g09999-r1", json={"annotator": "a", "suggestions": ["x"]}).status_code
        == 404
    )

    answered = {"g00000": "ann-a", "g00001": "ann-b", "g00002": "ann-a"}
    for game_id, annotator in answered.items():
        done = answer_task(api, f"{game_id}-r1", annotator, typed(game_id))
        assert done.status_code == 200, done.text
        assert done.json()["suggestions"] == typed(game_id)
    again = api.post("/api/tasks/g00000-r1", json={"annotator": "ann-a", "suggestions": ["x"]})
    assert again.status_code == 409 and "answered already" in again.text
    final = wait_for(api, lambda s: s["finished"])
    assert (final["done"], final["answered"], final["waiting"]) == (3, 3, 0)
    assert server.wait() == 0, server.output()
    assert f"Run written to {out}" in server.output()
    assert_feedback_reached_round_2(out, answered)
    first = next(g for g in read_games(out) if g["game_id"] == "g00001")["rounds"][0]
    assert first["shown_at"] == task["shown_at"]  # fetched before it was answered
    assert all(g["rounds"][0]["shown_at"] for g in read_games(out))
    lines = read_lines(out / ANNOTATIONS)
    assert [(r["task"], r["annotator"]) for r in lines] == [
        (f"{g}-r1", a) for g, a in answered.items()
    ]
    for path in out.rglob("*"):  # the token is in no record
        if path.is_file() and path.suffix in (".json", ".jsonl", ".yaml", ".md"):
            assert server.token not in path.read_text(encoding="utf-8"), path


def test_killing_the_server_mid_run_loses_nothing(tmp_path: Path, servers: list[Server]) -> None:
    out = tmp_path / "run"
    first = start(tmp_path, QUICKSTART, "--out", out, *HUMAN, "--set", "concurrency=1")
    servers.append(first)
    api = first.api
    (task,) = open_tasks(api, 1)
    assert task["id"] == "g00000-r1"
    assert answer_task(api, "g00000-r1", "ann-a", typed("g00000")).status_code == 200
    wait_for(api, lambda s: s["done"] == 1 and s["waiting"] == 1)
    claimed = api.get("/api/tasks/g00001-r1", params={"annotator": "ann-b"})
    assert claimed.status_code == 200  # opened, never answered: the kill takes the claim away
    first.process.send_signal(signal.SIGKILL)
    first.process.wait(timeout=30)
    assert [g["game_id"] for g in read_games(out)] == ["g00000"]

    second = start(tmp_path, out, name="again")  # the run directory: resumed
    servers.append(second)
    api = second.api
    assert api.get("/api/status").json()["done"] == 1
    (task,) = open_tasks(api, 1)
    assert task["id"] == "g00001-r1" and task["claimed_by"] is None
    answered = {"g00000": "ann-a", "g00001": "ann-b", "g00002": "ann-c"}
    for game_id in ("g00001", "g00002"):
        wait_for(api, lambda s, g=game_id: f"{g}-r1" in str(api.get("/api/tasks").json()))
        done = answer_task(api, f"{game_id}-r1", answered[game_id], typed(game_id))
        assert done.status_code == 200, done.text
    assert second.wait() == 0, second.output()
    assert_feedback_reached_round_2(out, answered)
    assert len((out / "games.jsonl").read_text().splitlines()) == 3  # none recorded twice


def test_a_replayed_game_gets_its_submitted_feedback_back_from_the_journal(
    tmp_path: Path,
) -> None:
    """A game killed after its feedback was submitted, before it was recorded, is played again
    on resume: the same pause is answered from annotations.jsonl, no new task."""
    payload = {"kind": "feedback", "round": 1, "side": "seller", "suggestions": 3}
    payload.update(transcript="Round 1\nbuyer: hi", game_id="g00004")
    append_line(
        tmp_path / ANNOTATIONS,
        {
            "game_id": "g00004",
            "cell": None,
            "round": 1,
            "transcript_hash": transcript_hash("Round 1\nbuyer: hi"),
            "suggestions": ["Open at $19."],
            "annotator": "ann-a",
            "shown_at": "t0",
            "submitted_at": "t1",
        },
    )
    with (tmp_path / ANNOTATIONS).open("a") as file:
        file.write('{"game_id": "g0')  # a line a kill cut short
    board = TaskBoard(claim_timeout=60)
    critics = WebCritics(board, tmp_path)
    answer = asyncio.run(critics(payload))
    assert answer == Answer(
        "Open at $19.", {"annotator": "ann-a", "shown_at": "t0", "submitted_at": "t1"}
    )
    assert not board.tasks

    async def other_transcript() -> list[str]:  # another transcript: a task, as usual
        asking = asyncio.create_task(critics({**payload, "transcript": "Round 1\nbuyer: hey"}))
        await asyncio.sleep(0.05)
        ids = list(board.tasks)
        with pytest.raises(TaskProblem) as unopened:
            await board.submit(ids[0], "ann-b", ["Ask for more."])
        assert unopened.value.status == 409
        board.claim(ids[0], "ann-b")
        await board.submit(ids[0], "ann-b", ["Ask for more."])
        assert (await asking).text == "Ask for more."
        return ids

    assert asyncio.run(other_transcript()) == ["g00004-r1"]
    assert read_lines(tmp_path / ANNOTATIONS)[-1]["annotator"] == "ann-b"


def test_a_claim_returns_to_the_queue_after_the_timeout() -> None:
    clock = [100.0]
    board = TaskBoard(claim_timeout=60, clock=lambda: clock[0])
    from icl_aif.serve.tasks import Task

    board.add(
        Task(id="t1", kind="pool", game_id="g1", side="seller", suggestions=3, transcript="x")
    )
    first = board.claim("t1", "ann-a").shown_at
    assert board.open_tasks() == [] and board.counts()["in_progress"] == 1
    with pytest.raises(TaskProblem) as taken:
        board.claim("t1", "ann-b")
    assert taken.value.status == 409
    clock[0] += 61  # abandoned
    assert [t.id for t in board.open_tasks()] == ["t1"]
    time.sleep(0.002)
    assert board.claim("t1", "ann-b").shown_at != first
    with pytest.raises(TaskProblem) as taken_over:  # ann-a's lapsed claim went to ann-b
        asyncio.run(board.submit("t1", "ann-a", ["Late."]))
    assert taken_over.value.status == 409
    submission = asyncio.run(board.submit("t1", "ann-b", ["Hold firm."]))
    assert (submission.annotator, submission.shown_at) == ("ann-b", board.tasks["t1"].shown_at)
    assert board.counts() == {"waiting": 0, "in_progress": 0, "answered": 1}
    # a lapsed claim that no one took over still lets its annotator answer
    board.add(
        Task(id="t2", kind="pool", game_id="g2", side="seller", suggestions=3, transcript="y")
    )
    shown = board.claim("t2", "ann-c").shown_at
    clock[0] += 61
    late = asyncio.run(board.submit("t2", "ann-c", ["Late, but mine."]))
    assert (late.annotator, late.shown_at) == ("ann-c", shown)


def test_pool_building_collects_suggestions_with_provenance(
    tmp_path: Path, servers: list[Server]
) -> None:
    played = run(quickstart("runs=3", "rounds=2"), tmp_path / "played").directory
    pool = tmp_path / "pool.txt"
    server = start(tmp_path, "--pool", played, "--pool-out", pool)
    servers.append(server)
    api = server.api
    tasks = open_tasks(api, 3)
    assert sorted(t["id"] for t in tasks) == ["g00000", "g00001", "g00002"]
    assert api.get("/api/status").json()["mode"] == "pool"
    shown = api.get("/api/tasks/g00000", params={"annotator": "ann-a"}).json()
    assert shown["transcript"].count("Round ") == 2 and "Outcome:" in shown["transcript"]
    for task in tasks:
        done = answer_task(
            api, task["id"], "ann-a", [f"# Anchor high in {task['id']}.", "Be\npatient."]
        )
        assert done.status_code == 200, done.text
    assert server.wait() == 0, server.output()
    lines = load_pool(pool)  # the format feedback.pool reads
    assert lines == tuple(
        line
        for g in ("g00000", "g00001", "g00002")
        for line in (f"Anchor high in {g}.", "Be patient.")
    )
    provenance = read_lines(provenance_path(pool))
    assert [p["game_id"] for p in provenance] == ["g00000", "g00001", "g00002"]
    assert provenance[0]["shown_at"] == shown["shown_at"]  # opened once: the first showing
    assert all(p["shown_at"] and p["shown_at"] < p["submitted_at"] for p in provenance)
    games = {g["game_id"]: g for g in read_games(played)}
    assert provenance[0]["transcript_hash"] == transcript_hash(shown["transcript"])
    assert {p["annotator"] for p in provenance} == {"ann-a"} and provenance[0]["run"] == str(played)
    assert games.keys() == {p["game_id"] for p in provenance}
    # the pool feeds a run; started again, nothing is left to answer
    pooled = quickstart("runs=2", "rounds=2", "feedback.source=human_pool", f"feedback.pool={pool}")
    for game in read_games(run(pooled, tmp_path / "pooled").directory):
        assert set(game["rounds"][0]["suggestions"]) <= set(lines)
    again = start(tmp_path, "--pool", played, "--pool-out", pool, name="again")
    servers.append(again)
    assert again.wait() == 0 and "0 of 3 transcripts to answer" in again.output()
    assert pool_line("  ## two\nlines ") == "two lines"


def test_serve_refuses_what_it_cannot_serve(tmp_path: Path) -> None:
    def serve(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return icl_aif("serve", *args, "--port", "0", cwd=tmp_path, timeout=120)

    ai = serve(QUICKSTART, "--out", tmp_path / "a")
    assert ai.returncode == 2
    assert ai.stderr.startswith(
        "error: icl-aif serve answers the feedback of feedback.source human"
    )
    assert not (tmp_path / "a").exists()
    assert serve("--pool", tmp_path / "none", "--pool-out", tmp_path / "p.txt").returncode == 2
    assert "--pool needs --pool-out" in serve("--pool", tmp_path).stderr
    blocked = textwrap.dedent(
        """
        import importlib.abc, sys
        class NoWeb(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("fastapi", "uvicorn"):
                    raise ModuleNotFoundError(name)
        sys.meta_path.insert(0, NoWeb())
        sys.argv = ["icl-aif", *sys.argv[1:]]
        from icl_aif.cli.app import main
        main()
        """
    )
    missing = subprocess.run(
        [sys.executable, "-c", blocked, "serve", str(QUICKSTART), *HUMAN],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=cli_env(),
    )
    assert missing.returncode == 2
    assert missing.stderr == (
        "error: icl-aif serve needs the web extra: pip install 'icl-aif[web]'\n"
    )


# --- the page in headless Chromium ---------------------------------------------------------------


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium (skips, saying what to install, without it)."""
    with headless_chromium(tmp_path_factory.mktemp("chromium-profile"), "1000,1100") as driver:
        yield driver


def shown(browser: Any, by: str, value: str, seconds: float = 20.0) -> Any:
    """The element the page that a click or a submit leads to shows, once it is there: a click
    returns before the next page has loaded. On a timeout the page's source is in the message."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(browser, seconds).until(
            expected_conditions.presence_of_element_located((by, value))
        )
    except TimeoutException:
        pytest.fail(
            f"no {value!r} on {browser.current_url} after {seconds} s:\n{browser.page_source}"
        )


@contextmanager
def foreign_page(html: str) -> Iterator[str]:
    """``html`` served on another 127.0.0.1 port (another origin, the same site); its URL."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def scripted_seller_config(tmp_path: Path) -> Path:
    """The quickstart with a seller whose first line holds a script tag."""
    path = tmp_path / "script.yaml"
    data = {
        "name": "script",
        "runs": 3,
        "rounds": 2,
        "feedback": {"source": "human"},
        "roles": {
            "seller": {
                "model": "replay:seller",
                "params": {"replies": [f"{SCRIPT} How about $17? <b>bold</b> & more"] * 40},
            },
            "buyer": {"model": "scripted:linear"},
            "critic": {"model": "scripted:critic"},
        },
    }
    path.write_text(json.dumps(data), encoding="utf-8")  # JSON is YAML
    return path


def test_the_page_answers_a_task_and_shows_a_script_tag_as_text(
    tmp_path: Path, servers: list[Server], browser: Any
) -> None:
    from selenium.webdriver.common.by import By

    out = tmp_path / "run"
    server = start(tmp_path, scripted_seller_config(tmp_path), "--out", out)
    servers.append(server)
    api = server.api
    open_tasks(api, 3)
    raw = httpx.get(  # the page as served, fetched (and claimed) by the API's annotator
        server.url + "tasks/g00000-r1",
        headers=api.headers,
        cookies={"icl_aif_annotator": "ann-api"},
    ).text
    assert "<script" not in raw and "&lt;script&gt;" in raw and "&lt;b&gt;" in raw

    browser.get(f"{server.url}?token={server.token}")  # the printed link: the cookie, then /
    assert browser.current_url == server.url
    assert "Feedback tasks" in browser.find_element(By.TAG_NAME, "h1").text
    field = browser.find_element(By.ID, "annotator")
    field.send_keys("ann-page")
    field.submit()
    link = shown(browser, By.LINK_TEXT, "g00001-r1")
    link.click()
    transcript = shown(browser, By.ID, "transcript").text
    assert browser.current_url == server.url + "tasks/g00001-r1"
    assert f"seller: {SCRIPT} How about $17? <b>bold</b> & more" in transcript
    assert (
        browser.title != "owned" and browser.execute_script("return document.scripts.length") == 0
    )
    assert browser.find_elements(By.TAG_NAME, "b") == []
    # the page's claim: the API cannot take this task from the annotator
    taken = api.post("/api/tasks/g00001-r1", json={"annotator": "ann-api", "suggestions": ["x"]})
    assert taken.status_code == 409
    labels = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "form#suggestions label")]
    assert labels == ["Suggestion 1", "Suggestion 2", "Suggestion 3"]
    for number, line in enumerate(typed("g00001"), start=1):
        browser.find_element(By.ID, f"suggestion-{number}").send_keys(line)
    browser.find_element(By.CSS_SELECTOR, "form#suggestions button").click()
    assert "were recorded" in shown(browser, By.CSS_SELECTOR, "p.note").text
    assert "g00001-r1" not in [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#tasks a")]

    # a page on another port of 127.0.0.1 (same site: the SameSite cookie goes along) posts a
    # form to a task the annotator has open: refused by its Origin, nothing recorded
    browser.get(server.url + "tasks/g00002-r1")
    with foreign_page(
        f'<form method="post" action="{server.url}tasks/g00002-r1">'
        '<input name="suggestion" value="Pay what they ask."><button id="go">Go</button></form>'
    ) as foreign:
        browser.get(foreign)
        browser.find_element(By.ID, "go").click()
        refused = shown(browser, By.CSS_SELECTOR, "p[role=alert]").text
    assert refused.startswith(f"refused: the request comes from {foreign.rstrip('/')}")
    assert api.get("/api/status").json()["answered"] == 1

    answered = {"g00000": "ann-api", "g00001": "ann-page", "g00002": "ann-page"}
    for game_id, annotator in answered.items():
        if game_id != "g00001":
            assert answer_task(api, f"{game_id}-r1", annotator, typed(game_id)).status_code == 200
    assert server.wait() == 0, server.output()
    assert_feedback_reached_round_2(out, answered)
    page_round = next(g for g in read_games(out) if g["game_id"] == "g00001")["rounds"][0]
    assert (
        page_round["shown_at"] is not None and page_round["shown_at"] < page_round["submitted_at"]
    )
