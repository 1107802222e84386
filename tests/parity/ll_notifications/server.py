"""Client notifications and subscriptions on a low-level server (mcp 1.x).

- ``@server.progress_notification()`` and ``server.notification_handlers[...]`` hear the client's
  ``notifications/progress`` and ``notifications/roots/list_changed``;
- a roots-confined reader caches the client's roots and asks again only after the client says they
  changed (a security boundary: a stale cache would serve files outside the new roots);
- ``@server.subscribe_resource()`` keeps who subscribed, and a write tells the subscribed client with
  ``notifications/resources/updated``.
"""

import json
import os
from pathlib import Path
from urllib.parse import unquote, urlparse

import anyio

import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.lowlevel.helper_types import ReadResourceContents

server = Server("notes-watch")

NOTES = {"note://a": "alpha", "note://b": "beta"}
progress_seen: list[dict] = []
roots_changes = 0
cached_roots: list[Path] | None = None
subscribed: set[str] = set()


@server.progress_notification()
async def on_progress(token, progress, total, message) -> None:
    progress_seen.append({"token": token, "progress": progress, "total": total, "message": message})


async def on_roots_changed(notification: types.RootsListChangedNotification) -> None:
    global cached_roots, roots_changes
    roots_changes += 1
    cached_roots = None  # stale: ask the client again on the next call


server.notification_handlers[types.RootsListChangedNotification] = on_roots_changed


@server.list_resources()
async def list_resources() -> list[types.Resource]:
    return [types.Resource(uri=u, name=u.split("//")[1], mimeType="text/plain") for u in NOTES]


@server.read_resource()
async def read_resource(uri) -> list[ReadResourceContents]:
    return [ReadResourceContents(content=NOTES[str(uri)], mime_type="text/plain")]


@server.subscribe_resource()
async def subscribe(uri) -> None:
    subscribed.add(str(uri))


@server.unsubscribe_resource()
async def unsubscribe(uri) -> None:
    subscribed.discard(str(uri))


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    obj = {"type": "object"}
    return [
        types.Tool(name="seen", description="What the server has heard from the client", inputSchema=obj),
        types.Tool(name="write_note", description="Change a note; subscribers hear of it",
                   inputSchema={"type": "object", "properties": {"uri": {"type": "string"}, "text": {"type": "string"}},
                                "required": ["uri", "text"]}),
        types.Tool(name="read_file", description="Read a file inside the client's roots",
                   inputSchema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    ]


async def _roots() -> list[Path]:
    global cached_roots
    if cached_roots is None:
        roots = (await server.request_context.session.list_roots()).roots
        cached_roots = [Path(unquote(urlparse(str(r.uri)).path)).resolve() for r in roots]
    return cached_roots


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    if name == "seen":
        body = {"progress": progress_seen, "roots_changes": roots_changes, "subscribed": sorted(subscribed)}
        return [types.TextContent(type="text", text=json.dumps(body))]
    if name == "write_note":
        NOTES[arguments["uri"]] = arguments["text"]
        if arguments["uri"] in subscribed:
            await server.request_context.session.send_resource_updated(arguments["uri"])
        return [types.TextContent(type="text", text="written")]
    target = (Path(os.environ["PARITY_DATA"]) / arguments["path"]).resolve()
    if not any(target == r or r in target.parents for r in await _roots()):
        raise ValueError(f"access denied: {arguments['path']} is outside the client's roots")
    return [types.TextContent(type="text", text=target.read_text())]


async def main() -> None:
    if os.environ.get("PARITY_TRANSPORT") == "http":
        import contextlib

        import uvicorn
        from starlette.applications import Starlette
        from starlette.routing import Mount

        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

        manager = StreamableHTTPSessionManager(app=server)

        async def handle(scope, receive, send):
            await manager.handle_request(scope, receive, send)

        @contextlib.asynccontextmanager
        async def lifespan(app):
            async with manager.run():
                yield

        app = Starlette(routes=[Mount("/mcp", app=handle)], lifespan=lifespan)
        config = uvicorn.Config(app, host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), log_level="warning")
        await uvicorn.Server(config).serve()
    else:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream,
                             server.create_initialization_options(notification_options=NotificationOptions()))


if __name__ == "__main__":
    anyio.run(main)
