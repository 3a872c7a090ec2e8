"""No secret in any file we write or any line we print (issue 21): a password in ``base_url``'s
userinfo and a header in ``params.default_headers`` reach the server, and nowhere else.

The model is an OpenAI stub on 127.0.0.1; the run's every file is searched for the secrets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from icl_aif.core.redaction import (
    hidden_paths,
    public_override,
    public_settings,
    public_url,
    remember,
)
from icl_aif.models.keys import redact
from icl_aif.testing import FAKE_KEY
from icl_aif.testing.plugin import StartStub
from tests.conftest import QUICKSTART, cli_env

CLI = Path(sys.executable).parent / "icl-aif"
PASSWORD = "pw-s3cret-1234"
HEADER = "hdr-s3cret-5678"


def secret_sets(base_url: str) -> list[str]:
    with_userinfo = base_url.replace("http://", f"http://alice:{PASSWORD}@")
    return [
        "runs=2",
        "rounds=1",
        "feedback.source=none",
        "roles.seller.model=openai:gpt-4o-mini",
        f"roles.seller.base_url={with_userinfo}",
        f"roles.seller.params.default_headers={{X-Custom-Auth: {HEADER}}}",
        "roles.seller.timeout=2",
        "retry.attempts=1",
    ]


def cli(*args: str | Path, key: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *map(str, args)],
        capture_output=True,
        text=True,
        env=cli_env(OPENAI_API_KEY=key),
        timeout=300,
    )


def leaks(directory: Path, *texts: str) -> list[str]:
    """Where a secret appears: files under ``directory`` and the texts given."""
    found = [
        str(path)
        for path in directory.rglob("*")
        if path.is_file() and any(s.encode() in path.read_bytes() for s in (PASSWORD, HEADER))
    ]
    found += [text[:80] for text in texts if PASSWORD in text or HEADER in text]
    return found


def test_a_run_writes_and_prints_no_secret_and_its_resume_asks_for_them(
    vendor_stub: StartStub, tmp_path: Path
) -> None:
    stub = vendor_stub("openai")
    stub.reply(times=None)
    out = tmp_path / "run"
    sets = [item for s in secret_sets(stub.base_url) for item in ("--set", s)]
    done = cli("run", QUICKSTART, "--out", out, *sets, key=FAKE_KEY)
    assert done.returncode == 0, done.stderr
    # the secrets reached the server ...
    request = stub.requests[-1]
    assert request.headers["X-Custom-Auth"] == HEADER
    assert PASSWORD in request.headers["Authorization"] or request.authorization is not None
    # ... and nothing else
    assert leaks(out, done.stdout, done.stderr) == []
    config = (out / "config.yaml").read_text()
    assert "http://[redacted]@127.0.0.1" in config and "X-Custom-Auth: '[redacted]'" in config

    again = cli("run", "--resume", out, key=FAKE_KEY)
    assert again.returncode == 2
    (line,) = again.stderr.splitlines()
    assert "leaves out the secrets of roles.seller.base_url, " in line
    assert "roles.seller.params.default_headers.X-Custom-Auth" in line
    given = cli("run", QUICKSTART, "--resume", out, *sets, key=FAKE_KEY)
    assert given.returncode == 0, given.stderr
    assert leaks(out, given.stdout, given.stderr) == []


def test_a_failed_preflight_prints_no_secret(vendor_stub: StartStub, tmp_path: Path) -> None:
    stub = vendor_stub("openai")
    stub.deny()
    sets = [item for s in secret_sets(stub.base_url) for item in ("--set", s)]
    done = cli("run", QUICKSTART, "--out", tmp_path / "run", *sets, key=FAKE_KEY)
    assert done.returncode == 2
    assert "--base-url 'http://[redacted]@127.0.0.1" in done.stderr
    assert leaks(tmp_path, done.stdout, done.stderr) == []


def test_what_is_public() -> None:
    assert public_url("see http://bob:pw@host:1/v1 and https://tok@x.io") == (
        "see http://[redacted]@host:1/v1 and https://[redacted]@x.io"
    )
    params = {"api_key": "k", "default_headers": {"Authorization": "Bearer x"}, "max_tokens": 5}
    assert public_settings({"params": params}) == {
        "params": {
            "api_key": "[redacted]",
            "default_headers": {"Authorization": "[redacted]"},
            "max_tokens": 5,
        }
    }
    assert (
        public_override("roles.seller.params.api_key=k") == "roles.seller.params.api_key=[redacted]"
    )
    assert public_override("roles.seller.params={token: abc, n: 1}") == (
        'roles.seller.params={"token": "[redacted]", "n": 1}'
    )
    assert public_override("runs=5") == "runs=5"
    assert hidden_paths({"roles": {"seller": {"base_url": "http://[redacted]@h"}}}) == [
        "roles.seller.base_url"
    ]
    remember(["a-remembered-secret"])
    assert redact("failed at a-remembered-secret, http://u:p@h") == (
        "failed at [redacted], http://[redacted]@h"
    )
