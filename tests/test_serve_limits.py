"""What icl-aif serve refuses: bodies over 64 KiB (413, memory bounded), suggestions beyond the
task's limits (422), answers to tasks the annotator did not open (409), POSTs from another origin
(403), and paths it could not write (exit 2 before it listens). Every server is a subprocess on a
free 127.0.0.1 port, as in tests/test_serve.py."""

from __future__ import annotations

import asyncio
import errno
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from icl_aif.records.reader import read_games
from icl_aif.serve.guards import MAX_BODY_BYTES, origin_problem
from icl_aif.serve.journal import read_lines, write_problem
from icl_aif.serve.pool import provenance_path
from icl_aif.serve.study import ANNOTATIONS
from icl_aif.serve.tasks import MAX_SUGGESTION_CHARS, Submission, Task, TaskBoard, TaskProblem
from icl_aif.testing.memory import memory_kib
from tests.conftest import QUICKSTART, icl_aif, quickstart, run
from tests.test_serve import HUMAN, Server, open_tasks, start

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One served run of 3 games, its 3 round-1 tasks open; each test uses its own task."""
    tmp_path = tmp_path_factory.mktemp("study")
    server = start(tmp_path, QUICKSTART, "--out", tmp_path / "run", *HUMAN)
    open_tasks(server.api, 3)
    yield server
    server.process.kill()
    server.process.wait(timeout=30)


def port_of(server: Server) -> int:
    return int(server.url.rstrip("/").rsplit(":", 1)[1])


def page_headers(server: Server, annotator: str, origin: str | None = "own") -> dict[str, str]:
    """What a browser sends with the page's form: the cookies and, by default, its Origin."""
    headers = {"Cookie": f"icl_aif_token={server.token}; icl_aif_annotator={annotator}"}
    if origin is not None:
        headers["Origin"] = server.url.rstrip("/") if origin == "own" else origin
    return headers


def form(*suggestions: str) -> dict[str, Any]:
    return {"suggestion": list(suggestions)}


def status_line(sock: socket.socket) -> str:
    """The status line of the answer on ``sock``."""
    answer = b""
    while b"\r\n" not in answer:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    return answer.split(b"\r\n", 1)[0].decode("latin-1")


def stream_chunked(server: Server, path: str, total: int) -> tuple[int, str]:
    """POST ``total`` bytes to ``path`` in 1 MiB chunks without a Content-Length, with the
    bearer token; the bytes the server let through and its status line."""
    sock = socket.create_connection(("127.0.0.1", port_of(server)), timeout=60)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port_of(server)}\r\n"
        f"Authorization: Bearer {server.token}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    sent = 0
    with sock:
        sock.sendall(head.encode("ascii"))
        chunk = f"{MIB:x}\r\n".encode("ascii") + b"x" * MIB + b"\r\n"
        try:
            while sent < total:
                sock.sendall(chunk)
                sent += MIB
            sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered and closed the connection: the rest is not read
            pass
        return sent, status_line(sock)


# --- bodies ------------------------------------------------------------------------------------


def test_a_declared_body_over_64_kib_gets_413_before_it_is_sent(study: Server) -> None:
    port = port_of(study)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(  # the headers only: an answer now means the body was never waited for
            (
                f"POST /api/tasks/g00000-r1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Authorization: Bearer {study.token}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {300 * MIB}\r\n\r\n"
            ).encode("ascii")
        )
        assert status_line(sock) == "HTTP/1.1 413 Request Entity Too Large"

    def body() -> Iterator[bytes]:  # what httpx streams: refused as it arrives
        # just over the cap, so that the client has sent it all when the answer comes (a longer
        # body is cut off mid-send: the socket tests above and below check those)
        for _ in range(2):
            yield b"x" * (40 * 1024)

    api = study.api
    streamed = api.post("/api/tasks/g00000-r1", content=body())
    assert streamed.status_code == 413
    assert streamed.json() == {"detail": "the request body is over 64 KiB; send less"}
    declared = api.post(
        "/api/tasks/g00000-r1",
        content=body(),
        headers={"Content-Length": str(80 * 1024), "Content-Type": "application/json"},
    )
    assert declared.status_code == 413 and declared.headers["connection"] == "close"
    # the page's form: a page that says so
    big = httpx.post(
        study.url + "tasks/g00000-r1",
        data=form("x" * (MAX_BODY_BYTES + 1)),
        headers=page_headers(study, "ann-big"),
    )
    assert big.status_code == 413 and "too large to record" in big.text
    assert api.get("/api/status").json()["answered"] == 0


def test_refusing_a_300_mib_post_keeps_the_server_under_300_mb(study: Server) -> None:
    pid = study.process.pid
    before = memory_kib(pid)
    sent, status = stream_chunked(study, "/api/tasks/g00000-r1", 300 * MIB)
    after = memory_kib(pid)
    assert after["VmHWM"] < 300_000_000 // 1024, (
        before,
        after,
    )  # the peak (300 MB), startup included
    assert after["VmRSS"] - before["VmRSS"] < 50 * 1024, (before, after)
    assert status == "HTTP/1.1 413 Request Entity Too Large"
    assert sent < 300 * MIB  # the connection was closed: the rest was never read
    assert study.api.get("/api/status").status_code == 200  # and it still answers


# --- suggestions -------------------------------------------------------------------------------


def test_suggestions_beyond_the_task_are_refused_with_what_is_wrong(study: Server) -> None:
    api = study.api
    task = api.get("/api/tasks/g00001-r1", params={"annotator": "ann-s"}).json()
    assert task["suggestions"] == 3  # feedback.suggestions
    for suggestions, message in (
        (
            [f"Tip {n}." for n in range(11)],
            "11 suggestions given; this task takes at most 3",
        ),
        ([], "write at least one suggestion"),
        (["Open high.", "  "], "suggestion 2 is empty: write it or leave it out"),
        (
            ["Open high.", "z" * (MAX_SUGGESTION_CHARS + 1)],
            "suggestion 2 has 1,001 characters; at most 1,000 are allowed",
        ),
        ("Open high.", '"suggestions" must be a list of strings'),
        (  # just under the body cap: read, and the suggestion's own limit answers
            ["y" * (MAX_BODY_BYTES - 100)],
            f"suggestion 1 has {MAX_BODY_BYTES - 100:,} characters; at most 1,000 are allowed",
        ),
    ):
        refused = api.post(
            "/api/tasks/g00001-r1", json={"annotator": "ann-s", "suggestions": suggestions}
        )
        assert refused.status_code == 422, suggestions
        assert refused.json() == {"detail": message}
    # the page: the form again, with the message and what was typed; blank boxes left out
    shown = httpx.post(
        study.url + "tasks/g00001-r1",
        data=form(*[f"Tip {n}." for n in range(4)], ""),
        headers=page_headers(study, "ann-s"),
    )
    assert shown.status_code == 422
    assert "4 suggestions given; this task takes at most 3" in shown.text
    assert 'id="suggestions"' in shown.text and "Tip 2." in shown.text
    assert f'maxlength="{MAX_SUGGESTION_CHARS}"' in shown.text
    long = httpx.post(
        study.url + "tasks/g00001-r1",
        data=form("w" * 1500),
        headers=page_headers(study, "ann-s"),
    )
    assert long.status_code == 422 and "suggestion 1 has 1,500 characters" in long.text
    status = api.get("/api/status").json()
    assert (status["answered"], status["in_progress"]) == (0, 1)  # nothing recorded
    exact = ["a" * MAX_SUGGESTION_CHARS, "Concede slowly.", ""]
    kept = httpx.post(
        study.url + "tasks/g00001-r1",
        data=form(*exact),
        headers=page_headers(study, "ann-s"),
        follow_redirects=False,
    )
    assert kept.status_code == 303, kept.text
    out = study.log.parent / "run"
    (line,) = [r for r in read_lines(out / ANNOTATIONS) if r["task"] == "g00001-r1"]
    assert line["suggestions"] == exact[:2] and line["annotator"] == "ann-s"


def test_pool_tasks_take_the_played_runs_number_of_suggestions(
    tmp_path: Path, servers: list[Server]
) -> None:
    played = run(quickstart("runs=1", "rounds=2", "feedback.suggestions=2"), tmp_path / "p")
    pool = tmp_path / "pool.txt"
    server = start(tmp_path, "--pool", played.directory, "--pool-out", pool)
    servers.append(server)
    api = server.api
    (task,) = open_tasks(api, 1)
    assert task["suggestions"] == 2
    api.get(f"/api/tasks/{task['id']}", params={"annotator": "ann-p"})
    three = api.post(
        f"/api/tasks/{task['id']}", json={"annotator": "ann-p", "suggestions": ["a", "b", "c"]}
    )
    assert three.status_code == 422
    assert three.json()["detail"] == "3 suggestions given; this task takes at most 2"
    two = api.post(f"/api/tasks/{task['id']}", json={"annotator": "ann-p", "suggestions": ["a"]})
    assert two.status_code == 200
    assert server.wait() == 0, server.output()
    assert pool.read_text().splitlines()[1:] == ["a"]


# --- claims ------------------------------------------------------------------------------------


def test_only_the_annotator_who_opened_a_task_answers_it(study: Server) -> None:
    api = study.api
    answer = {"annotator": "ann-a", "suggestions": ["Hold at $18."]}
    unopened = api.post("/api/tasks/g00002-r1", json=answer)
    assert unopened.status_code == 409
    assert unopened.json()["detail"] == (
        "task g00002-r1 has not been opened: open it first, then answer it"
    )
    page = httpx.post(  # the page keeps what was typed
        study.url + "tasks/g00002-r1",
        data=form("Hold at $18."),
        headers=page_headers(study, "ann-a"),
    )
    assert page.status_code == 409 and "has not been opened" in page.text
    assert '<ul id="kept">' in page.text and "Hold at $18." in page.text
    assert api.get("/api/tasks/g00002-r1", params={"annotator": "ann-b"}).status_code == 200
    taken = api.post("/api/tasks/g00002-r1", json=answer)
    assert taken.status_code == 409
    assert taken.json()["detail"] == (
        "task g00002-r1 was opened by another annotator: only they can answer it"
    )
    assert not any(
        r["task"] == "g00002-r1" for r in read_lines(study.log.parent / "run" / ANNOTATIONS)
    )
    mine = api.post("/api/tasks/g00002-r1", json={**answer, "annotator": "ann-b"})
    assert mine.status_code == 200 and mine.json()["shown_at"]


# --- origins -----------------------------------------------------------------------------------


def test_a_post_from_another_origin_is_refused(study: Server) -> None:
    api = study.api
    api.get("/api/tasks/g00000-r1", params={"annotator": "ann-o"})  # opened: only origin stops it
    other_port = f"http://127.0.0.1:{port_of(study) + 1}"
    for name, headers in (
        ("foreign origin", page_headers(study, "ann-o", "http://evil.example")),
        ("another port, same site", page_headers(study, "ann-o", other_port)),
        ("null origin", page_headers(study, "ann-o", "null")),
        ("no origin, cookie", page_headers(study, "ann-o", None)),
        (
            "foreign referer",
            {**page_headers(study, "ann-o", None), "Referer": "http://evil.example/x"},
        ),
    ):
        refused = httpx.post(
            study.url + "tasks/g00000-r1", data=form("Pay the asking price."), headers=headers
        )
        assert refused.status_code == 403, name
        assert "refused" in refused.text
        renamed = httpx.post(study.url + "annotator", data={"annotator": "x"}, headers=headers)
        assert renamed.status_code == 403 and "set-cookie" not in renamed.headers, name
    bearer_foreign = api.post(
        "/api/tasks/g00000-r1",
        json={"annotator": "ann-o", "suggestions": ["x"]},
        headers={"Origin": "http://evil.example"},
    )
    assert bearer_foreign.status_code == 403
    assert bearer_foreign.json()["detail"].startswith(
        "refused: the request comes from http://evil.example"
    )
    status = api.get("/api/status").json()
    assert status["in_progress"] >= 1 and "ann-o" not in str(
        read_lines(study.log.parent / "run" / ANNOTATIONS)
    )
    # the server's own page (Origin, or a Referer of its own) and a script with the token pass
    own = httpx.post(
        study.url + "annotator",
        data={"annotator": "ann-o"},
        headers=page_headers(study, "ann-o"),
        follow_redirects=False,
    )
    assert own.status_code == 303
    referred = {**page_headers(study, "ann-o", None), "Referer": study.url + "tasks/g00000-r1"}
    empty = httpx.post(study.url + "tasks/g00000-r1", data=form(""), headers=referred)
    assert empty.status_code == 422  # past the origin check: nothing typed
    scripted = api.post(
        "/api/tasks/g00000-r1", json={"annotator": "ann-o", "suggestions": ["Ask $19."]}
    )
    assert scripted.status_code == 200


def test_the_origin_rule() -> None:
    own = "http://127.0.0.1:8765/tasks/t1"
    assert origin_problem(own, "http://127.0.0.1:8765", None, cookie_only=True) is None
    assert origin_problem(own, None, "http://127.0.0.1:8765/", cookie_only=True) is None
    assert origin_problem("http://h/x", "http://H:80", None, cookie_only=True) is None
    assert origin_problem("http://[::1]:9/x", "http://[::1]:9", None, cookie_only=True) is None
    for origin in ("http://127.0.0.1:8766", "https://127.0.0.1:8765", "null", "", "http://x:y"):
        assert origin_problem(own, origin, None, cookie_only=False) is not None, origin
    # a foreign Origin is not excused by a Referer of our own
    assert origin_problem(own, "http://evil", "http://127.0.0.1:8765/", cookie_only=False)
    assert origin_problem(own, None, None, cookie_only=True) is not None
    assert origin_problem(own, None, None, cookie_only=False) is None  # a script; or a 401


# --- paths it cannot write -------------------------------------------------------------------


def serve(tmp_path: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``icl-aif serve ARGS --port 0`` run in ``tmp_path``, to its end."""
    return icl_aif("serve", *args, "--port", "0", cwd=tmp_path, timeout=120)


def assert_refused_before_listening(answer: subprocess.CompletedProcess[str], start: str) -> None:
    assert answer.returncode == 2, answer
    assert answer.stderr.startswith(f"error: {start}") and answer.stderr.count("\n") == 1, answer
    assert "token:" not in answer.stdout and "Traceback" not in answer.stderr


def test_paths_it_cannot_write_stop_it_before_it_listens(tmp_path: Path) -> None:
    played = run(quickstart("runs=1", "rounds=1"), tmp_path / "played").directory
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    pool = blocker / "pool.txt"
    answer = serve(tmp_path, "--pool", played, "--pool-out", pool)
    assert_refused_before_listening(
        answer, f"--pool-out {pool}: {blocker} is a file, not a directory"
    )
    taken = tmp_path / "pool.txt"
    provenance_path(taken).mkdir()  # where its provenance goes
    answer = serve(tmp_path, "--pool", played, "--pool-out", taken)
    assert_refused_before_listening(
        answer, f"--pool-out {taken}: {provenance_path(taken)} is a directory"
    )
    out = blocker / "run"
    answer = serve(tmp_path, QUICKSTART, *HUMAN, "--out", out)
    assert_refused_before_listening(answer, f"--out {out}: {blocker} is a file, not a directory")
    assert read_games(played)  # nothing else touched
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a-file",
        "played",
        "pool.provenance.jsonl",
    ]


def test_write_problem(tmp_path: Path) -> None:
    assert write_problem(tmp_path / "new" / "deeper" / "pool.txt") is None
    assert write_problem(tmp_path / "run", directory=True) is None
    existing = tmp_path / "pool.txt"
    existing.write_text("kept\n")
    assert write_problem(existing) is None and existing.read_text() == "kept\n"
    assert write_problem(existing, directory=True) == f"{existing} is not a directory"
    assert write_problem(tmp_path) == f"{tmp_path} is a directory"
    assert write_problem(existing / "x") == f"{existing} is a file, not a directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool.txt"]  # no probe left


def test_an_answer_the_server_cannot_write_is_a_503_and_the_task_stays_open() -> None:
    board = TaskBoard(claim_timeout=60)
    written: list[list[str]] = []

    async def full_disk(task: Task, submission: Submission) -> None:
        if not written:
            written.append([])
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(submission.suggestions)

    board.add(
        Task(id="t1", kind="pool", game_id="g1", side="seller", suggestions=2, transcript="x")
    )
    board.tasks["t1"].on_submit = full_disk
    board.claim("t1", "ann-a")
    with pytest.raises(TaskProblem) as refused:
        asyncio.run(board.submit("t1", "ann-a", ["Hold firm."]))
    assert refused.value.status == 503
    assert (
        refused.value.message
        == "not recorded: the server cannot write it (No space left on device)"
    )
    assert board.counts() == {"waiting": 0, "in_progress": 1, "answered": 0}
    asyncio.run(board.submit("t1", "ann-a", ["Hold firm."]))  # the annotator tries again
    assert written[-1] == ["Hold firm."] and board.counts()["answered"] == 1
