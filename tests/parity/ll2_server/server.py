"""mcp 2.x's low-level Server: handlers given to the constructor as ``on_*=`` with ``(ctx, params)``
signatures, returning the result models, with mcp 2.x's snake_case field names (``input_schema``,
``structured_content``, ``is_error``, ``mime_type``)."""

import json
import os

import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

NOTES = {"note://alpha": "first note", "note://beta": "second note"}


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[
        types.Tool(name="add", description="Add two numbers",
                   input_schema={"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                                 "required": ["a", "b"]},
                   output_schema={"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}),
        types.Tool(name="whoami", description="The request's method and id type",
                   input_schema={"type": "object"}),
        types.Tool(name="fail", description="An error result", input_schema={"type": "object"}),
    ])


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "add":
        total = args["a"] + args["b"]
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(total))],
                                    structured_content={"sum": total})
    if params.name == "whoami":
        body = {"method": ctx.method, "has_id": ctx.request_id is not None}
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(body))])
    if params.name == "fail":
        return types.CallToolResult(content=[types.TextContent(type="text", text="it failed")], is_error=True)
    raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")


async def list_resources(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[
        types.Resource(uri=uri, name=uri.split("//")[1], mime_type="text/plain") for uri in NOTES
    ])


async def read_resource(ctx: ServerRequestContext, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = str(params.uri)
    if uri not in NOTES:
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource: {uri}")
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="text/plain",
                                                                         text=NOTES[uri])])


async def list_prompts(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[
        types.Prompt(name="summarize", description="Summarize a note",
                     arguments=[types.PromptArgument(name="note", required=True)]),
    ])


async def get_prompt(ctx: ServerRequestContext, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    note = (params.arguments or {}).get("note", "")
    return types.GetPromptResult(description="Summarize a note", messages=[
        types.PromptMessage(role="user", content=types.TextContent(type="text", text=f"Summarize: {note}")),
    ])


server = Server("ll2-notes", on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                on_read_resource=read_resource, on_list_prompts=list_prompts, on_get_prompt=get_prompt)


def main() -> None:
    if os.environ.get("PARITY_TRANSPORT") == "http":
        import uvicorn

        app = server.streamable_http_app(streamable_http_path="/mcp")
        uvicorn.run(app, host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), log_level="warning")
    else:
        import anyio

        from mcp.server.stdio import stdio_server

        async def serve() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(serve)


if __name__ == "__main__":
    main()
