"""The ``oxmcp`` command (also ``python -m oxmcp``): run, dev, inspect, call, install.

The Node package ships the same command (``npx oxmcp``, bindings-node/bin/oxmcp.mjs) with the same
verbs, flags, output and error lines; tests/python/test_cli.py and tests/node/cli.test.mjs hold
both to it. Errors are one line on stderr, ``oxmcp: error: ...``, and a non-zero exit.
"""

from __future__ import annotations

import argparse
import re
import sys

from ._common import CliError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="oxmcp", description="Run, inspect, call and install MCP servers built with oxmcp.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def serve_flags(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP on HOST:PORT")
        sp.add_argument("--transport", choices=["stdio", "http", "streamable-http"],
                        help="stdio (the default for run) or http (127.0.0.1:8000 unless --http says)")
        sp.add_argument("--path", default="/mcp", help="HTTP endpoint path (default /mcp)")

    run = sub.add_parser("run", help="serve app.py[:server] (or app.mjs) over stdio or Streamable HTTP")
    run.add_argument("target", help="path/to/app.py[:server], a module[:server], or app.mjs")
    serve_flags(run)
    run.add_argument("--discover", action="append", default=[], metavar="PKG_OR_DIR",
                     help="register what @oxmcp.tool & co. mark in this package or directory (repeatable)")
    run.add_argument("--exclude", action="append", default=[], metavar="NAME",
                     help="a subpackage or directory name --discover skips (repeatable)")

    dev = sub.add_parser("dev", help="serve over HTTP and restart when a file under the app's folder changes")
    dev.add_argument("target")
    serve_flags(dev)

    def client_flags(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--json", action="store_true", help="print JSON instead of text")
        sp.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the server (default 30)")

    ins = sub.add_parser("inspect", help="list a server's tools, resources, templates and prompts")
    ins.add_argument("target", nargs="?", help="app.py[:server], app.mjs or an http(s):// URL; or -- CMD ARGS...")
    client_flags(ins)

    call = sub.add_parser("call", help="call a tool and print its result")
    call.add_argument("target", nargs="?", help="app.py[:server], app.mjs or an http(s):// URL; or -- CMD ARGS... TOOL")
    call.add_argument("tool", nargs="?")
    call.add_argument("pairs", nargs="*", metavar="KEY=VALUE", help="arguments (JSON values, or strings)")
    call.add_argument("--args", metavar="JSON", help="the arguments as one JSON object")
    client_flags(call)

    inst = sub.add_parser("install", help="add the server to an MCP client's configuration")
    inst.add_argument("client", choices=["claude-code", "claude-desktop", "cursor", "vscode"])
    inst.add_argument("target", help="app.py[:server] or app.mjs")
    inst.add_argument("--name", help="the entry's name (default: the file's stem)")
    inst.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="an environment variable (repeatable)")
    inst.add_argument("--print", action="store_true", dest="print_only", help="print the entry; write nothing")
    return p


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `inspect -- CMD ARGS...` and `call [flags] -- CMD ARGS... TOOL k=v`: the command is everything after `--`.
    command: list[str] | None = None
    if "--" in argv:
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1:]
        if not command:
            _fail("nothing after --: give the server command, e.g. -- python server.py")
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # `call app.py add --args '{...}' b=5`: pairs after a flag land here.
        if args.command == "call" and not any(a.startswith("-") for a in extra):
            args.pairs += extra
        else:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if command is not None and args.command not in ("inspect", "call"):
        _fail(f"{args.command} takes no -- CMD; only inspect and call do")
    try:
        if args.command == "run":
            from .run import run
            run(args.target, args.transport, args.http, args.path, args.discover, args.exclude)
        elif args.command == "dev":
            from .dev import dev
            sys.exit(dev(args.target, args.transport, args.http, args.path))
        elif args.command == "inspect":
            from .client import inspect_cmd, resolve_target
            if (args.target is None) == (command is None):
                raise CliError("inspect wants one of: app.py, app.mjs, a URL, or -- CMD ARGS...")
            inspect_cmd(resolve_target(args.target, command), args.json, args.timeout)
        elif args.command == "call":
            from .client import call_cmd, resolve_target
            positional = [a for a in (args.target, args.tool) if a is not None] + args.pairs
            if command is not None:
                if positional:
                    raise CliError("with --, put the tool after the server command: oxmcp call -- CMD ARGS... TOOL key=value ...")
                target_spec = None
                command, rest = _split_command(command)
            else:
                if not positional:
                    raise CliError("call wants a target and a tool: oxmcp call app.py TOOL key=value ...")
                target_spec, rest = positional[0], positional[1:]
            if not rest:
                raise CliError("call wants a tool name after the target")
            tool, pairs = rest[0], rest[1:]
            call_cmd(resolve_target(target_spec, command), tool, pairs, args.args, args.json, args.timeout)
        elif args.command == "install":
            from .install import install
            install(args.client, args.target, args.name, args.env, args.print_only)
    except CliError as e:
        _fail(str(e), e.detail)
    except KeyboardInterrupt:
        sys.exit(130)


_PAIR = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*=")


def _split_command(command: list[str]) -> tuple[list[str], list[str]]:
    """``CMD ARGS... TOOL k=v ...`` after ``--``: the tool is the last word before the first ``k=v``
    (or the last word when there is none), everything before it is the server command."""
    first_pair = next((i for i, a in enumerate(command) if _PAIR.match(a)), len(command))
    if first_pair < 2:
        raise CliError("call -- CMD ARGS... TOOL [key=value ...]: give the server command, then the tool")
    return command[: first_pair - 1], command[first_pair - 1:]


def _fail(message: str, detail: str | None = None) -> None:
    print(f"oxmcp: error: {message}", file=sys.stderr)
    if detail:
        print(detail.rstrip("\n"), file=sys.stderr)
    sys.exit(1)
