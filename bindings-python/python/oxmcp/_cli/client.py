"""``oxmcp inspect`` and ``oxmcp call``: the official ``mcp`` client against a file, a URL or a command."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from ._common import CliError, Target, dumps_compact, dumps_pretty, launch_command


def resolve_target(spec: str | None, command: list[str] | None) -> Target:
    if command is not None:
        return Target(command=command, label=" ".join(command))
    assert spec is not None
    if spec.startswith(("http://", "https://")):
        return Target(url=spec, label=spec)
    return Target(command=launch_command(spec), label=spec)


def _need_client() -> Any:
    try:
        import mcp
    except ImportError:
        raise CliError("this command needs the official MCP client: pip install 'oxmcp[cli]'") from None
    return mcp


def _check_reachable(url: str) -> None:
    """A refused connection is a one-line error, not the HTTP client's exception group."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=5).close()
    except ConnectionRefusedError:
        raise CliError(f"cannot connect to {url}: connection refused") from None
    except OSError as e:
        raise CliError(f"cannot connect to {url}: {e.strerror or e}") from None


def _stderr_tail(log: Any) -> str:
    log.flush()
    log.seek(0)
    text = log.read().decode(errors="replace") if hasattr(log, "read") else ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return "\n".join(lines[-30:])


@asynccontextmanager
async def connect(target: Target, timeout: float) -> AsyncIterator[tuple[Any, dict[str, Any]]]:
    """A ready ``ClientSession`` and the initialize result as JSON."""
    _need_client()
    from mcp import ClientSession

    if target.url is not None:
        from mcp.client.streamable_http import streamable_http_client

        _check_reachable(target.url)
        try:
            async with streamable_http_client(target.url) as (read, write), ClientSession(read, write) as session:
                init = await asyncio.wait_for(session.initialize(), timeout)
                yield session, init.model_dump(mode="json", by_alias=True, exclude_none=True)
        except (TimeoutError, asyncio.TimeoutError):
            raise CliError(f"{target.url} did not answer initialize within {timeout:g}s") from None
        return

    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=target.command[0], args=target.command[1:])
    with tempfile.TemporaryFile() as errlog:
        started = False
        try:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:  # type: ignore[arg-type]
                init = await asyncio.wait_for(session.initialize(), timeout)
                started = True
                yield session, init.model_dump(mode="json", by_alias=True, exclude_none=True)
        except CliError:
            raise
        except FileNotFoundError:
            raise CliError(f"cannot start {target.command[0]}: command not found") from None
        except (TimeoutError, asyncio.TimeoutError):
            if started:
                raise CliError(f"{target.label}: timed out after {timeout:g}s") from None
            raise CliError(f"the server did not answer initialize within {timeout:g}s", _stderr_tail(errlog)) from None
        except Exception as e:
            if started:
                raise
            leaf: BaseException = e
            while getattr(leaf, "exceptions", None):
                leaf = leaf.exceptions[0]  # type: ignore[attr-defined]
            tail = _stderr_tail(errlog)
            raise CliError("the server exited at start" + ("; its stderr:" if tail else f" ({leaf})"), tail) from None


async def _all(fetch: Callable[[Any], Any], key: str) -> list[dict[str, Any]]:
    from mcp import types

    out: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = await fetch(types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        out += [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in getattr(page, key)]
        cursor = page.next_cursor
        if not cursor:
            return out


async def listing(session: Any, init: dict[str, Any]) -> dict[str, Any]:
    caps = init.get("capabilities", {})
    tools = await _all(lambda p: session.list_tools(params=p), "tools") if "tools" in caps else []
    resources = templates = []
    if "resources" in caps:
        resources = await _all(lambda p: session.list_resources(params=p), "resources")
        templates = await _all(lambda p: session.list_resource_templates(params=p), "resource_templates")
    prompts = await _all(lambda p: session.list_prompts(params=p), "prompts") if "prompts" in caps else []
    return {"server": init.get("serverInfo", {}), "protocolVersion": init.get("protocolVersion"), "tools": tools,
            "resources": resources, "resourceTemplates": templates, "prompts": prompts}


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0].strip() if (text or "").strip() else ""


def _with_desc(head: str, item: dict[str, Any]) -> str:
    desc = _first_line(item.get("description"))
    return f"  {head}: {desc}" if desc else f"  {head}"


def render_text(info: dict[str, Any]) -> str:
    srv = info["server"]
    lines = [f"{srv.get('name', '?')} {srv.get('version', '')}".rstrip() + f" (protocol {info['protocolVersion']})"]
    lines.append(f"tools ({len(info['tools'])})")
    for t in info["tools"]:
        lines.append(_with_desc(t["name"], t))
        lines.append(f"    input: {dumps_compact(t.get('inputSchema', {}))}")
        if "outputSchema" in t:
            lines.append(f"    output: {dumps_compact(t['outputSchema'])}")
    lines.append(f"resources ({len(info['resources'])})")
    for r in info["resources"]:
        mime = f" [{r['mimeType']}]" if r.get("mimeType") else ""
        lines.append(_with_desc(f"{r['uri']} ({r.get('name', '')}){mime}", r))
    lines.append(f"resource templates ({len(info['resourceTemplates'])})")
    for r in info["resourceTemplates"]:
        mime = f" [{r['mimeType']}]" if r.get("mimeType") else ""
        lines.append(_with_desc(f"{r['uriTemplate']} ({r.get('name', '')}){mime}", r))
    lines.append(f"prompts ({len(info['prompts'])})")
    for p in info["prompts"]:
        args = ", ".join(a["name"] + ("" if a.get("required") else "?") for a in p.get("arguments", []))
        lines.append(_with_desc(f"{p['name']}({args})", p))
    return "\n".join(lines)


def _run(coro: Any) -> Any:
    """``asyncio.run``, with the leaf of an anyio exception group raised as itself."""
    try:
        return asyncio.run(coro)
    except Exception as e:
        leaf: BaseException = e
        while getattr(leaf, "exceptions", None):
            leaf = leaf.exceptions[0]  # type: ignore[attr-defined]
        if leaf is e:
            raise
        raise leaf from None


def inspect_cmd(target: Target, as_json: bool, timeout: float) -> None:
    async def go() -> dict[str, Any]:
        async with connect(target, timeout) as (session, init):
            return await asyncio.wait_for(listing(session, init), timeout)

    info = _run(go())
    print(dumps_pretty(info) if as_json else render_text(info))


def parse_arguments(pairs: list[str], args_json: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    """``--args JSON`` then ``key=value`` pairs; a value is JSON unless the schema says the key is a string."""
    out: dict[str, Any] = {}
    if args_json is not None:
        try:
            parsed = json.loads(args_json)
        except json.JSONDecodeError as e:
            raise CliError(f"--args is not valid JSON: {e.msg} at column {e.colno}") from None
        if not isinstance(parsed, dict):
            raise CliError("--args must be a JSON object")
        out.update(parsed)
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise CliError(f"arguments are key=value, got {pair!r}")
        kind = props.get(key, {}).get("type") if isinstance(props.get(key), dict) else None
        if kind == "string":
            out[key] = raw
            continue
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


# The Node CLI draws the same line with cli-progress.
BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}"


def _num(x: float | None) -> Any:
    return int(x) if isinstance(x, float) and x.is_integer() else x


class _Bar:
    """A tqdm bar on stderr, only when stderr is a terminal (the output stays clean in pipes)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.bar: Any = None
        self.enabled = sys.stderr.isatty()

    async def update(self, progress: float, total: float | None, message: str | None) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            import shutil

            from tqdm import tqdm

            # A terminal that reports its size as 0x0 (e.g. `script` without a parent tty) makes tqdm
            # hide the bar (nrows -1); shutil falls back to 80x24 there.
            size = shutil.get_terminal_size()
            self.bar = tqdm(total=_num(total), desc=self.label, file=sys.stderr, leave=True, ncols=size.columns,
                            nrows=size.lines, bar_format=BAR_FORMAT)
        if total is not None and self.bar.total != _num(total):
            self.bar.total = _num(total)
        self.bar.n = _num(progress)
        if message:
            self.bar.set_postfix_str(message, refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def call_cmd(target: Target, tool: str, pairs: list[str], args_json: str | None, as_json: bool, timeout: float) -> None:
    bar = _Bar(tool)

    async def go() -> dict[str, Any]:
        async with connect(target, timeout) as (session, _init):
            tools = await _all(lambda p: session.list_tools(params=p), "tools")
            found = next((t for t in tools if t["name"] == tool), None)
            if found is None:
                names = ", ".join(t["name"] for t in tools) or "none"
                raise CliError(f"no tool named {tool!r} (tools: {names})")
            arguments = parse_arguments(pairs, args_json, found.get("inputSchema", {}))
            try:
                result = await session.call_tool(tool, arguments, progress_callback=bar.update)
            finally:
                bar.close()
            return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    try:
        result = _run(go())
    except CliError:
        raise
    except Exception as e:  # noqa: BLE001  whatever failed, the CLI reports it as its own error
        err = getattr(e, "error", None)
        msg = getattr(err, "message", None) or str(e)
        raise CliError(f"tools/call {tool} failed: {msg}") from None
    print_result(tool, result, as_json)


def print_result(tool: str, result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(dumps_pretty(result))
    else:
        blocks = result.get("content", [])
        for block in blocks:
            if block.get("type") == "text" and not result.get("isError"):
                print(block["text"])
            elif block.get("type") != "text":
                print(dumps_compact(block))
        if not blocks and "structuredContent" in result:
            print(dumps_pretty(result["structuredContent"]))
    if result.get("isError"):
        text = " ".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")
        raise CliError(f"tool {tool} returned an error: {text or 'no message'}")
