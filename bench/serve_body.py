"""The memory of ``icl-aif serve`` while it refuses large request bodies.

Starts ``icl-aif serve`` on the quickstart (feedback.source human, 3 games) on a free
127.0.0.1 port, then POSTs ``--mib`` MiB (default 300) to ``/api/tasks/g00000-r1`` with the
bearer token, three ways: a declared ``Content-Length`` (the headers, then the body), a chunked
body, and the same as a page form (``/tasks/g00000-r1``, the token cookie, its own Origin). Each
should get 413 after at most 64 KiB of its body. Prints one figure per line: the server's
resident memory before and after (``VmRSS``), its peak (``VmHWM``, startup included), each
status line and how many MiB the client got to send before the server closed the connection.

    python bench/serve_body.py
    python bench/serve_body.py --mib 1000
"""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from icl_aif.testing.memory import memory_kib

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024


def start(directory: Path) -> tuple[subprocess.Popen[bytes], int, str]:
    """The server, its port and its token, once it has printed its link."""
    log = directory / "server.log"
    command = [str(Path(sys.executable).with_name("icl-aif")), "serve"]
    command += [str(ROOT / "experiments" / "quickstart.yaml"), "--out", str(directory / "run")]
    command += ["--set", "feedback.source=human", "--set", "runs=3", "--port", "0"]
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(r"^page: http://127\.0\.0\.1:(\d+)/\?token=(\S+)$", log.read_text(), re.M)
        if found:
            return process, int(found.group(1)), found.group(2)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the server did not start:\n{log.read_text()}")


def post(port: int, head: str, chunks: int, chunked: bool) -> tuple[str, int]:
    """Send ``head`` and ``chunks`` MiB of body; the status line and the MiB sent."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        sock.sendall(head.encode("ascii"))
        piece = b"x" * MIB
        if chunked:
            piece = f"{MIB:x}\r\n".encode("ascii") + piece + b"\r\n"
        try:
            for _ in range(chunks):
                sock.sendall(piece)
                sent += 1
        except OSError:  # closed by the server after its answer
            pass
        answer = b""
        while b"\r\n" not in answer:
            data = sock.recv(4096)
            if not data:
                break
            answer += data
    return answer.split(b"\r\n", 1)[0].decode("latin-1"), sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=300, help="MiB in each body (default 300)")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="serve-body-"))
    process, port, token = start(directory)
    try:
        time.sleep(2)  # the games reach their feedback pauses
        before = memory_kib(process.pid)
        print(f"rss_before_kib {before['VmRSS']}")
        host = f"Host: 127.0.0.1:{port}\r\n"
        api = f"POST /api/tasks/g00000-r1 HTTP/1.1\r\n{host}Authorization: Bearer {token}\r\n"
        page = (
            f"POST /tasks/g00000-r1 HTTP/1.1\r\n{host}Origin: http://127.0.0.1:{port}\r\n"
            f"Cookie: icl_aif_token={token}; icl_aif_annotator=bench\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
        )
        for name, head, chunked in (
            ("declared", f"{api}Content-Length: {args.mib * MIB}\r\n\r\n", False),
            ("chunked", f"{api}Transfer-Encoding: chunked\r\n\r\n", True),
            ("page_chunked", f"{page}Transfer-Encoding: chunked\r\n\r\n", True),
        ):
            status, sent = post(port, head, args.mib, chunked)
            print(f"{name}_status {status}")
            print(f"{name}_mib_sent {sent}")
        after = memory_kib(process.pid)
        print(f"rss_after_kib {after['VmRSS']}")
        print(f"rss_peak_kib {after['VmHWM']}")
    finally:
        process.kill()
        process.wait()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
