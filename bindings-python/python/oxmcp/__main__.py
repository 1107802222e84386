"""``python -m oxmcp run path/to/app.py[:server] [--http HOST:PORT]``"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from ._server import Server


def load_server(target: str) -> Server:
    """Import ``file.py`` (or a module name) and find the server: ``:name``, else ``server``/``mcp``/``app``, else the only one."""
    spec, _, attr = target.partition(":")
    if spec.endswith(".py") or Path(spec).exists():
        path = Path(spec).resolve()
        sys.path.insert(0, str(path.parent))
        mod_spec = importlib.util.spec_from_file_location(path.stem, path)
        if mod_spec is None or mod_spec.loader is None:
            raise SystemExit(f"cannot import {path}")
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[path.stem] = module
        mod_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(spec)
    if attr:
        obj: Any = getattr(module, attr, None)
        if not isinstance(obj, Server):
            raise SystemExit(f"{spec}: {attr!r} is not an oxmcp.Server")
        return obj
    for name in ("server", "mcp", "app"):
        obj = getattr(module, name, None)
        if isinstance(obj, Server):
            return obj
    found = [v for v in vars(module).values() if isinstance(v, Server)]
    if len(found) != 1:
        raise SystemExit(f"{spec}: found {len(found)} oxmcp.Server objects; name one with {spec}:NAME")
    return found[0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m oxmcp")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="serve an app's server")
    run.add_argument("target", help="path/to/app.py[:server] or module[:server]")
    run.add_argument("--http", metavar="HOST:PORT", help="Streamable HTTP instead of stdio")
    run.add_argument("--path", default="/mcp")
    args = parser.parse_args(argv)
    server = load_server(args.target)
    server.main((["--http", args.http] if args.http else []) + ["--path", args.path])


if __name__ == "__main__":
    main()
