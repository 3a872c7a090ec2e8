"""The web side of ``icl-aif serve``: server-rendered pages and a small JSON API over the board.

Pages (plain HTML from Jinja2 templates with autoescaping on: transcripts are model output):

- ``GET /`` the open tasks and the run's progress; ``?token=...`` (the link printed at start)
  stores the token in an HttpOnly, SameSite=Strict cookie and redirects without it;
- ``POST /annotator`` remembers the annotator id in a cookie;
- ``GET /tasks/{id}`` claims the task for the annotator and shows the transcript and the form;
- ``POST /tasks/{id}`` submits the suggestions (blank boxes left out; a refused submission shows
  the form again with what was typed and why).

API (JSON): ``GET /api/tasks`` (open tasks), ``GET /api/tasks/{id}`` (``?annotator=`` claims it),
``POST /api/tasks/{id}`` with ``{"suggestions": [...], "annotator": "..."}``, ``GET /api/status``.

Every route needs the token: ``Authorization: Bearer <token>`` or the cookie; without it the
answer is 401. A task is answered only by the annotator who opened it (409 otherwise), with 1 to
the task's ``suggestions`` suggestions of at most
:data:`~icl_aif.serve.tasks.MAX_SUGGESTION_CHARS` characters (422 otherwise). A body over
:data:`~icl_aif.serve.guards.MAX_BODY_BYTES` gets 413 and a POST from another origin 403
(:mod:`icl_aif.serve.guards`).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi import Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from icl_aif.serve.guards import MAX_BODY_BYTES, BodyLimit, origin_problem
from icl_aif.serve.tasks import MAX_SUGGESTION_CHARS, TaskBoard, TaskProblem, clean_annotator

logger = logging.getLogger(__name__)

__all__ = ["ANNOTATOR_COOKIE", "TOKEN_COOKIE", "build_app"]

TOKEN_COOKIE = "icl_aif_token"
ANNOTATOR_COOKIE = "icl_aif_annotator"
TEMPLATES = Path(__file__).parent / "templates"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

HEADERS = {
    # no script, no outside resource, forms only to this server, no framing; a Referer only to
    # this server (its forms carry their Origin; the first request's URL, which holds the token,
    # is answered with a redirect)
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

Status = Callable[[], dict[str, Any]]


def build_app(board: TaskBoard, token: str, status: Status, *, title: str, mode: str) -> FastAPI:
    """The app serving ``board``: ``status`` gives ``GET /api/status`` (and the page's summary);
    ``mode`` is ``run`` (feedback for a run in play) or ``pool`` (pool building)."""
    site = _Site(token, title=title, mode=mode)

    async def same_origin(request: Request) -> None:
        """A POST from another origin, or a cookie's POST that does not say where it comes
        from, is refused (403) before its body is read."""
        if request.method in SAFE_METHODS:
            return
        problem = origin_problem(
            str(request.url),
            request.headers.get("origin"),
            request.headers.get("referer"),
            cookie_only=TOKEN_COOKIE in request.cookies and _bearer(request) is None,
        )
        if problem is not None:
            logger.warning("%s %s %s", request.method, request.url.path, problem)
            raise TaskProblem(403, problem)

    app = FastAPI(
        title="icl-aif serve",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        dependencies=[Depends(same_origin)],
    )
    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES, refusal=site.too_large)

    @app.exception_handler(TaskProblem)
    async def problem_answer(request: Request, problem: TaskProblem) -> Response:
        if request.url.path.startswith("/api/"):
            return site.api_problem(problem.status, problem.message)
        return site.page(
            "message.html", problem.status, heading="Not done", message=problem.message
        )

    _add_pages(app, site, board, status)
    _add_task_pages(app, site, board)
    _add_api(app, site, board, status)
    return app


class _Site:
    """What every answer of the app shares: the token it checks, its pages (Jinja templates,
    escaped) with the run's ``title`` and ``mode``, its error answers and cookies."""

    def __init__(self, token: str, *, title: str, mode: str) -> None:
        self.pages = Environment(
            loader=FileSystemLoader(TEMPLATES),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.expected = token.encode("utf-8")
        self.title = title
        self.mode = mode

    def authorized(self, request: Request) -> bool:
        """The request carries the token: a bearer header, else the cookie the link set."""
        given = _bearer(request)
        if given is None:
            given = request.cookies.get(TOKEN_COOKIE, "")
        return hmac.compare_digest(given.strip().encode("utf-8"), self.expected)

    def linked(self, given: str) -> bool:
        """``given`` (the ``?token=`` of the printed link) is the token."""
        return hmac.compare_digest(given.encode("utf-8"), self.expected)

    def page(self, name: str, status_code: int = 200, **values: Any) -> HTMLResponse:
        """The template ``name`` rendered with ``values``."""
        html = self.pages.get_template(name).render(
            title=self.title, mode=self.mode, max_chars=MAX_SUGGESTION_CHARS, **values
        )
        return HTMLResponse(html, status_code=status_code, headers=HEADERS)

    def unauthorized_page(self) -> HTMLResponse:
        """The page a request without the token gets."""
        return self.page(
            "message.html",
            401,
            heading="Sign-in needed",
            message=("Open the link with the token that icl-aif serve printed when it started."),
        )

    def api_problem(self, status_code: int, message: str) -> JSONResponse:
        """An API error: ``{"detail": message}``."""
        headers = {**HEADERS, "WWW-Authenticate": "Bearer"} if status_code == 401 else HEADERS
        return JSONResponse({"detail": message}, status_code=status_code, headers=headers)

    def too_large(self, path: str) -> Response:
        """The answer to a request body over :data:`MAX_BODY_BYTES` (413)."""
        message = f"the request body is over {MAX_BODY_BYTES // 1024} KiB; send less"
        if path.startswith("/api/"):
            return self.api_problem(413, message)
        return self.page(
            "message.html",
            413,
            heading="Too large",
            message="The form is too large to record: go back, shorten it and submit again.",
        )

    @staticmethod
    def annotator_of(request: Request) -> str | None:
        """The annotator id the cookie holds, None without a valid one."""
        try:
            return clean_annotator(request.cookies.get(ANNOTATOR_COOKIE))
        except TaskProblem:
            return None

    @staticmethod
    def redirect(to: str) -> RedirectResponse:
        """See other: ``to``."""
        return RedirectResponse(to, status_code=303, headers=HEADERS)

    @staticmethod
    def set_cookie(response: Response, name: str, value: str) -> None:
        """A cookie scripts cannot read, sent to this site only."""
        response.set_cookie(name, value, httponly=True, samesite="strict", path="/")


def _add_pages(app: FastAPI, site: _Site, board: TaskBoard, status: Status) -> None:
    """The pages people land on: the task list and their annotator id."""

    @app.get("/", response_class=HTMLResponse)
    async def index(request: Request) -> Response:
        linked = request.query_params.get("token")
        if linked is not None:  # the link printed at start: keep the token, drop it from the URL
            if not site.linked(linked):
                return site.unauthorized_page()
            response = site.redirect("/")
            site.set_cookie(response, TOKEN_COOKIE, linked)
            return response
        if not site.authorized(request):
            return site.unauthorized_page()
        annotator = site.annotator_of(request)
        return site.page(
            "index.html",
            annotator=annotator,
            tasks=[t.summary(board.clock()) for t in board.open_tasks(annotator)],
            status=status(),
            answered=request.query_params.get("answered"),
        )

    @app.post("/annotator", response_class=HTMLResponse)
    async def set_annotator(request: Request) -> Response:
        if not site.authorized(request):
            return site.unauthorized_page()
        form = await _form(request)
        try:
            annotator = clean_annotator((form.get("annotator") or [""])[0])
        except TaskProblem as problem:
            return site.page(
                "message.html", problem.status, heading="Annotator id", message=problem.message
            )
        response = site.redirect("/")
        site.set_cookie(response, ANNOTATOR_COOKIE, annotator)
        return response


def _add_task_pages(app: FastAPI, site: _Site, board: TaskBoard) -> None:
    """A task's page (opening it claims it for the annotator) and its submission."""

    @app.get("/tasks/{task_id}", response_class=HTMLResponse)
    async def task_page(request: Request, task_id: str) -> Response:
        if not site.authorized(request):
            return site.unauthorized_page()
        annotator = site.annotator_of(request)
        if annotator is None:
            return site.redirect("/")
        try:
            task = board.claim(task_id, annotator)
        except TaskProblem as problem:
            return site.page(
                "message.html",
                problem.status,
                heading="Task not available",
                message=problem.message,
            )
        return site.page(
            "task.html", task=task.detail(board.clock()), annotator=annotator, values=[], error=None
        )

    @app.post("/tasks/{task_id}", response_class=HTMLResponse)
    async def submit_page(request: Request, task_id: str) -> Response:
        if not site.authorized(request):
            return site.unauthorized_page()
        annotator = site.annotator_of(request)
        if annotator is None:
            return site.redirect("/")
        typed = (await _form(request)).get("suggestion", [])
        values = [v for v in typed if v.strip()]  # the page's blank boxes are left out
        try:
            task = board.get(task_id)
            await board.submit(task_id, annotator, values)
        except TaskProblem as problem:
            if problem.status not in (422, 503):  # not theirs (any more), done, or no such task
                return site.page(
                    "message.html",
                    problem.status,
                    heading="Not recorded",
                    message=problem.message,
                    kept=values,
                )
            return site.page(
                "task.html",
                problem.status,
                task=task.detail(board.clock()),
                annotator=annotator,
                values=values,
                error=problem.message,
            )
        return site.redirect(f"/?answered={task_id}")


def _add_api(app: FastAPI, site: _Site, board: TaskBoard, status: Status) -> None:
    """The JSON API: status, the open tasks, a task, a submission (bearer token)."""
    unauthorized = "send Authorization: Bearer <token>"

    @app.get("/api/status")
    async def api_status(request: Request) -> Response:
        if not site.authorized(request):
            return site.api_problem(401, unauthorized)
        return JSONResponse({"mode": site.mode, **status()}, headers=HEADERS)

    @app.get("/api/tasks")
    async def api_tasks(request: Request) -> Response:
        if not site.authorized(request):
            return site.api_problem(401, unauthorized)
        at = board.clock()
        return JSONResponse({"tasks": [t.summary(at) for t in board.open_tasks()]}, headers=HEADERS)

    @app.get("/api/tasks/{task_id}")
    async def api_task(request: Request, task_id: str) -> Response:
        if not site.authorized(request):
            return site.api_problem(401, unauthorized)
        given = request.query_params.get("annotator")
        try:
            if given is None:
                task = board.get(task_id)
            else:
                task = board.claim(task_id, clean_annotator(given))
        except TaskProblem as problem:
            return site.api_problem(problem.status, problem.message)
        return JSONResponse(task.detail(board.clock()), headers=HEADERS)

    @app.post("/api/tasks/{task_id}")
    async def api_submit(request: Request, task_id: str) -> Response:
        if not site.authorized(request):
            return site.api_problem(401, unauthorized)
        try:
            body = await request.json()
        except ValueError:
            return site.api_problem(400, 'send JSON: {"suggestions": [...], "annotator": "..."}')
        if not isinstance(body, dict):
            return site.api_problem(400, 'send JSON: {"suggestions": [...], "annotator": "..."}')
        try:
            annotator = clean_annotator(body.get("annotator"))
            submission = await board.submit(task_id, annotator, body.get("suggestions"))
        except TaskProblem as problem:
            return site.api_problem(problem.status, problem.message)
        return JSONResponse(
            {
                "id": task_id,
                "annotator": submission.annotator,
                "suggestions": submission.suggestions,
                "shown_at": submission.shown_at,
                "submitted_at": submission.submitted_at,
            },
            headers=HEADERS,
        )


def _bearer(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return given if scheme.lower() == "bearer" and given else None


async def _form(request: Request) -> dict[str, list[str]]:
    """An ``application/x-www-form-urlencoded`` body (no multipart parser needed); its size is
    capped by :class:`~icl_aif.serve.guards.BodyLimit`."""
    body = await request.body()
    return parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
