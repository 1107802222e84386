"""Low-level SDK server (mcp 1.x): list_tools / call_tool, structured output, McpError, logging and progress."""

import os

import anyio

import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.shared.exceptions import McpError

server = Server("lowlevel-tools", version="1.2.3")

TOOLS = [
    types.Tool(
        name="echo",
        description="Echo the text back",
        inputSchema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
    types.Tool(
        name="stats",
        description="Sum and count of numbers",
        inputSchema={"type": "object", "properties": {"values": {"type": "array", "items": {"type": "number"}}}},
        outputSchema={"type": "object", "properties": {"sum": {"type": "number"}, "count": {"type": "integer"}},
                      "required": ["sum", "count"]},
    ),
    types.Tool(name="fail", description="Raises McpError", inputSchema={"type": "object", "properties": {}}),
    types.Tool(name="work", description="Logs and reports progress", inputSchema={"type": "object", "properties": {}}),
]


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return TOOLS


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent] | dict:
    if name == "echo":
        return [types.TextContent(type="text", text=arguments["text"])]
    if name == "stats":
        values = arguments.get("values", [])
        return {"sum": sum(values), "count": len(values)}
    if name == "fail":
        raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message="fail always fails"))
    if name == "work":
        ctx = server.request_context
        await ctx.session.send_log_message(level="info", data="working", logger="lowlevel")
        token = ctx.meta.progressToken if ctx.meta else None
        if token is not None:
            await ctx.session.send_progress_notification(token, 1.0, 2.0)
            await ctx.session.send_progress_notification(token, 2.0, 2.0)
        return [types.TextContent(type="text", text="worked")]
    raise ValueError(f"Unknown tool: {name}")


async def main() -> None:
    if os.environ.get("PARITY_TRANSPORT") == "http":
        import contextlib

        import uvicorn
        from starlette.applications import Starlette
        from starlette.routing import Mount

        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

        manager = StreamableHTTPSessionManager(app=server, json_response=False)

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
