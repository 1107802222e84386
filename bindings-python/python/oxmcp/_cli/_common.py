"""What ``run`` and ``dev`` share: the error they raise while loading the user's app."""

from __future__ import annotations

import sys

# What `oxmcp dev` watches (the Node command watches the same).
WATCHED_SUFFIXES = (".py", ".mjs", ".js", ".cjs", ".mts", ".ts", ".json")


class CliError(Exception):
    """A one-line user-facing error; ``detail`` (e.g. a traceback) is printed under it."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


def fail(message: str, detail: str | None = None) -> None:
    print(f"oxmcp: error: {message}", file=sys.stderr)
    if detail:
        print(detail.rstrip("\n"), file=sys.stderr)
    sys.exit(1)
