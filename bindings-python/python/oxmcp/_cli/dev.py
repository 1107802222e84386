"""``oxmcp dev app.py``: serve (HTTP unless told otherwise) and restart when a watched file changes.

Polling, not inotify: no dependency, the same on every platform, and a few hundred stat calls
every 0.3 s is nothing next to a server restart.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ._common import WATCHED_SUFFIXES

SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", "target", ".cache"}


def snapshot(root: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for f in filenames:
            if f.endswith(WATCHED_SUFFIXES):
                p = os.path.join(dirpath, f)
                try:
                    out[p] = os.stat(p).st_mtime_ns
                except OSError:
                    pass
    return out


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def dev(plan: dict[str, Any], run: list[str]) -> int:
    """Serve with the host's own ``oxmcp run`` (the plan's flags) and restart it on changes."""
    file = Path(plan["file"])
    root = file.parent
    cmd = [*run, plan["target"], *plan["forward"]]
    where = "stdio" if plan["mode"] == "stdio" else f"http://{plan['forward'][1]}{plan['path']}"
    print(f"oxmcp dev: serving {file.name} on {where}; restarting on changes under {root}", file=sys.stderr, flush=True)
    stopping = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    seen = snapshot(root)
    proc: subprocess.Popen[bytes] | None = subprocess.Popen(cmd)
    reported_exit = False
    try:
        while not stopping:
            time.sleep(0.3)
            now = snapshot(root)
            changed = sorted(p for p in now.keys() | seen.keys() if now.get(p) != seen.get(p))
            seen = now
            if changed:
                print(f"oxmcp dev: {os.path.relpath(changed[0], root)} changed, restarting", file=sys.stderr, flush=True)
                if proc is not None:
                    _stop(proc)
                proc = subprocess.Popen(cmd)
                reported_exit = False
            elif proc is not None and proc.poll() is not None and not reported_exit:
                print(f"oxmcp dev: the server exited ({proc.returncode}); waiting for a change", file=sys.stderr, flush=True)
                reported_exit = True
    finally:
        if proc is not None:
            _stop(proc)
    return 0
