"""``oxmcp`` / ``python -m oxmcp``: run, dev, inspect, call, install (see ``oxmcp --help``)."""

from __future__ import annotations

from ._cli import main
from ._cli.run import load_server

__all__ = ["load_server", "main"]

if __name__ == "__main__":
    main()
