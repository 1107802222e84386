"""What every verb shares: the error type, the target forms, the JSON spellings both CLIs print."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JS_SUFFIXES = (".mjs", ".js", ".cjs")
# What `oxmcp dev` watches (the Node CLI watches the same).
WATCHED_SUFFIXES = (".py", ".mjs", ".js", ".cjs", ".mts", ".ts", ".json")


class CliError(Exception):
    """A one-line user-facing error; ``detail`` (e.g. a server's stderr) is printed under it."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


@dataclass
class Target:
    """How to reach a server: a URL, or a command to spawn for stdio."""

    url: str | None = None
    command: list[str] = field(default_factory=list)
    label: str = ""


def split_spec(spec: str) -> tuple[str, str]:
    """``path/app.py:server`` → (path, attr); a Windows drive letter is not an attr separator."""
    head, sep, attr = spec.rpartition(":")
    if sep and head and "/" not in attr and "\\" not in attr and len(head) > 1:
        return head, attr
    return spec, ""


def app_file(spec: str) -> Path | None:
    """The app file a spec names (absolute), None for a module name; CliError when it does not exist."""
    path, _ = split_spec(spec)
    if path.endswith((".py", *JS_SUFFIXES)) or os.sep in path or "/" in path:
        p = Path(path)
        if not p.is_file():
            raise CliError(f"no such file: {path}")
        return p.resolve()
    return None


def launch_command(spec: str) -> list[str]:
    """The stdio command that serves ``spec``: ``python -m oxmcp run app.py[:x]`` or ``node app.mjs``."""
    path = app_file(spec)
    _, attr = split_spec(spec)
    if path is not None and path.suffix in JS_SUFFIXES:
        return ["node", str(path)]
    resolved = f"{path}:{attr}" if path is not None and attr else str(path) if path is not None else spec
    return [sys.executable, "-m", "oxmcp", "run", resolved]


def dumps_pretty(value: Any) -> str:
    """Indented, keys sorted: the same bytes as the Node CLI's JSON.stringify of sorted keys."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def dumps_compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def parse_host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise CliError(f"--http wants HOST:PORT, got {value!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def serve_args(transport: str | None, http: str | None, path: str, *, default: str) -> list[str]:
    """The ``run`` flags for a transport choice (used by ``dev`` to start its child)."""
    mode = transport or ("http" if http else default)
    if mode == "stdio":
        if http:
            raise CliError("--transport stdio and --http contradict each other")
        return ["--transport", "stdio"]
    return ["--http", http or "127.0.0.1:8000", "--path", path]
