"""``oxmcp`` / ``python -m oxmcp``: run, dev, inspect, call, verify, install (see ``oxmcp --help``)."""

from __future__ import annotations

from ._cli import main

__all__ = ["main"]

if __name__ == "__main__":
    main()
