"""``oxmcp run app.py[:server]``: import the app, find its server, serve it, as the core's plan says
(the target, transport, address and listener options were parsed and checked by ``oxmcp::cli``)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import runpy
import subprocess
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from .._server import Server
from ._common import CliError


def _import_app(spec: str, path: Path | None) -> ModuleType:
    try:
        if path is not None:
            sys.path.insert(0, str(path.parent))
            mod_spec = importlib.util.spec_from_file_location(path.stem, path)
            if mod_spec is None or mod_spec.loader is None:
                raise CliError(f"cannot import {spec}: not a Python file")
            module = importlib.util.module_from_spec(mod_spec)
            sys.modules[path.stem] = module
            mod_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(spec)
    except CliError:
        raise
    except SystemExit:
        raise
    except BaseException as e:  # the app's own import-time error: one line, then its traceback
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise CliError(f"cannot import {spec}: {type(e).__name__}: {e}", tb if os.environ.get("OXMCP_TRACEBACK") else None) from e
    return module


def _find_server(module: ModuleType, spec: str, attr: str | None) -> Server | None:
    """The server ``attr`` names, else ``server``/``mcp``/``app``, else the only one; None when there is none."""
    if attr:
        obj: Any = getattr(module, attr, None)
        if callable(obj) and not isinstance(obj, Server):
            obj = obj()  # `app.py:create_server`: a factory, called with no arguments
        if not isinstance(obj, Server):
            raise CliError(f"{spec}: {attr!r} is not an oxmcp.Server")
        return obj
    for name in ("server", "mcp", "app"):
        obj = getattr(module, name, None)
        if isinstance(obj, Server):
            return obj
    found = [v for v in vars(module).values() if isinstance(v, Server)]
    if len(found) > 1:
        raise CliError(f"{spec}: found {len(found)} oxmcp.Server objects; name one with {spec}:NAME")
    return found[0] if found else None


def _main_blocks(path: Path) -> list[ast.stmt]:
    """The bodies of the file's top-level ``if __name__ == "__main__":`` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    body: list[ast.stmt] = []
    for node in tree.body:
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                and {ast.dump(test.left), ast.dump(test.comparators[0])}
                == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}):
            body.extend(node.body)
    return body


def _has_main_module(name: str) -> bool:
    """Whether ``python -m name`` would run something: a package with a ``__main__`` module."""
    try:
        return importlib.util.find_spec(f"{name}.__main__") is not None
    except (ImportError, ValueError):
        return False


def _console_script(name: str, mode: str) -> bool:
    """``oxmcp run mcp-server-git``: a console script of an installed package (what ``uvx NAME`` or
    the script ``NAME`` runs) that is not a module name, called as its script calls it. False when
    ``name`` is an importable module or no such script is installed."""
    from importlib.metadata import entry_points

    try:
        if importlib.util.find_spec(name) is not None:
            return False
    except (ImportError, ValueError):
        pass
    found = entry_points(group="console_scripts", name=name)
    if not found:
        return False
    if mode != "stdio":
        raise CliError(f"{name} is a console script that serves itself; run it without --http/--transport")
    (script,) = tuple(found)
    try:
        main = script.load()
    except BaseException as e:  # the package's own import-time error, as for a module
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise CliError(f"cannot import {script.value}: {type(e).__name__}: {e}",
                       tb if os.environ.get("OXMCP_TRACEBACK") else None) from e
    sys.exit(main())


def _run_main_blocks(module: ModuleType, path: Path, blocks: list[ast.stmt]) -> None:
    """Run the script's ``__main__`` blocks in its (already executed) module, as ``python file.py`` would."""
    code = compile(ast.Module(body=blocks, type_ignores=[]), str(path), "exec")
    module.__dict__["__name__"] = "__main__"
    exec(code, module.__dict__)  # noqa: S102  the user's own script, as `python file.py` runs it


def discover(server: Server, targets: list[str], exclude: list[str]) -> None:
    """``--discover``: register what each target marks. Then say on stderr what was discovered and
    from where, by ``--discover`` or by the app's own ``server.discover()`` (``oxmcp inspect`` shows
    these lines of a server it starts)."""
    from .._errors import DefinitionError

    said: set[tuple[str, str, str]] = set()
    for t in targets:
        try:
            found = server.discover(t, exclude=exclude)
        except DefinitionError as e:
            raise CliError(str(e)) from e
        kept = {(d["kind"], d["name"], d["module"]) for d in server.discovered()}
        for d in found:
            note = "" if (d["kind"], d["name"], d["module"]) in kept else " (registered by hand instead)"
            said.add((d["kind"], d["name"], d["module"]))
            print(f"discovered: {d['kind']} {d['name']} \u2190 {d['module']}:{d['line']}{note}", file=sys.stderr)
    for d in getattr(server, "discovered", list)():
        if (d["kind"], d["name"], d["module"]) not in said:
            print(f"discovered: {d['kind']} {d['name']} \u2190 {d['module']}:{d['line']}", file=sys.stderr)


def run(plan: dict[str, Any]) -> None:
    file = Path(plan["file"]) if plan["file"] else None
    spec, attr, mode = plan["spec"], plan["attr"], plan["mode"]
    if plan["language"] == "node":
        # A Node app serves itself with the same flags, in the zero-change mode of oxmcp's npm package
        # (`--import oxmcp/register`: the TypeScript SDK's modules are oxmcp's mirrors), as
        # `npx oxmcp run` would serve it.
        if plan["discover"]:
            raise CliError("--discover registers into a Python server; for a Node app use npx oxmcp run --discover")
        try:
            sys.exit(subprocess.call(["node", "--import", "oxmcp/register", str(file), *plan["forward"]]))
        except FileNotFoundError:
            raise CliError(f"{Path(str(file)).name} is a Node app and node is not on PATH") from None
    # Zero-change mode: `mcp` and `fastmcp` are oxmcp's mirrors in the served process.
    from .._dropin import install

    try:
        install()
    except RuntimeError as e:
        raise CliError(str(e)) from None
    # The app's own command line (`oxmcp run app.py -- ARGS`), as `python app.py ARGS` gives it; set
    # before the import, since a module may read it at import time.
    sys.argv = [str(file) if file is not None else spec, *plan.get("args", [])]
    if file is None and not attr and _console_script(spec, mode):
        return
    module = _import_app(spec, file)
    server = _find_server(module, spec, attr)
    if server is None:
        # A script or package that serves itself (a low-level server's `asyncio.run(main())`): run it
        # as `python file.py` / `python -m package` would.
        blocks = _main_blocks(file) if file is not None else []
        package_main = file is None and not attr and _has_main_module(spec)
        if not blocks and not package_main:
            raise CliError(f"{spec}: found 0 oxmcp.Server objects; name one with {spec}:NAME")
        if mode != "stdio":
            where = 'its `if __name__ == "__main__":` block' if blocks else "its __main__ module"
            raise CliError(f"{spec} has no server object to serve over HTTP: it serves itself from {where}; "
                           "run it without --http/--transport")
        if file is not None:
            _run_main_blocks(module, file, blocks)
        else:
            runpy.run_module(spec, run_name="__main__", alter_sys=True)
        return
    discover(server, plan["discover"], plan["exclude"])
    if mode == "stdio":
        server.run()
    else:
        host, port = plan["host"], plan["port"]
        where = plan["options"].get("uds") or f"{host}:{port}"
        try:
            server.run("http", host=host, port=port, path=plan["path"], **plan["options"])
        except OSError as e:
            raise CliError(f"cannot listen on {where}: {e.strerror or e}") from e
        except (TypeError, ValueError) as e:  # a listener option the core refused
            raise CliError(f"cannot listen on {where}: {e}") from e
