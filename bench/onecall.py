"""What bench/percall.py, hopstat.py, timeline.py and callgrind.py share: one server on a free
port, waited for until it answers `tools/call add` (or `tools/list`), bench/loadgen's command for
it, and their common options."""

from __future__ import annotations

import argparse
import http.client
import os
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

import run


class OneServer:
    """One server started from `cmd` (`{port}` replaced; `prefix` runs before it, e.g. taskset
    or valgrind), its message of `kind`, and the body file loadgen sends. A context manager:
    the process group is killed and the body file removed on exit."""

    def __init__(self, cmd: str, kind: str, env: list[str] | None = None, prefix: list[str] | None = None):
        self.port = run.free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.kind = kind
        self.msg = run.add_msg(run.MODERN) if kind == "add" else run.list_msg(run.MODERN)
        self.headers = run.headers(self.msg, run.MODERN, None)
        penv = dict(os.environ)
        for kv in env or []:
            k, _, v = kv.partition("=")
            penv[k] = v
        argv = [*(prefix or []), *[c.replace("{port}", str(self.port)) for c in shlex.split(cmd)]]
        self.proc = subprocess.Popen(argv, env=penv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True)
        with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as f:
            f.write(run.enc(self.msg))
            self.body = f.name

    def __enter__(self) -> "OneServer":
        return self

    def __exit__(self, *exc: object) -> None:
        os.unlink(self.body)
        try:
            os.killpg(self.proc.pid, 15)
            self.proc.wait(timeout=5)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait(timeout=5)

    def wait_answering(self, timeout: float = 60, poll: float = 0.05) -> None:
        """Until one request gets a 200; SystemExit (with the server's last stderr) otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                c.request("POST", "/mcp", body=run.enc(self.msg), headers=self.headers)
                if c.getresponse().status == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited: {self.proc.stderr.read().decode()[-600:]}")
            if time.monotonic() > deadline:
                raise SystemExit(f"server did not answer within {timeout:.0f} s")
            time.sleep(poll)

    def loadgen(self, loadgen: str, conns: int, *, duration: float = 300, warmup: float = 0,
                max_requests: int | None = None, timeout: float | None = None,
                cpus: str | None = None) -> list[str]:
        """bench/loadgen's argv against this server, checking each answer's body."""
        argv = [*(["taskset", "-c", cpus] if cpus else []), loadgen, "--url", self.url, "--body-file", self.body,
                "-c", str(conns), "-d", str(duration), "-w", str(warmup)]
        if max_requests is not None:
            argv += ["--max-requests", str(max_requests)]
        if timeout is not None:
            argv += ["--timeout", str(timeout)]
        for k, v in self.headers.items():
            argv += ["-H", f"{k}: {v}"]
        for n in run.NEEDLES[self.kind]:
            argv += ["--expect", n]
        return argv


def server_args(ap: argparse.ArgumentParser, *, duration: float | None = None) -> None:
    """The options of every one-server tool (percall.py, timeline.py, hopstat.py): the server and
    its environment, the message, the connections, the load generator, and with `duration` the
    measured window (`-d`, `-w`)."""
    ap.add_argument("--cmd", required=True, help="server command; {port} is replaced")
    ap.add_argument("--env", action="append", default=[], help="K=V for the server (repeatable)")
    ap.add_argument("--kind", choices=["add", "list"], default="add")
    ap.add_argument("-c", "--conns", type=int, default=16)
    if duration is not None:
        ap.add_argument("-d", "--duration", type=float, default=duration, help="measured seconds")
        ap.add_argument("-w", "--warmup", type=float, default=1)
    ap.add_argument("--loadgen", default=str(Path(__file__).parent / "loadgen/target/release/loadgen"))
