"""Low-level SDK server (mcp 1.x): resources, templates, prompts and completions."""

import anyio

import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.stdio import stdio_server

server = Server("lowlevel-resources", instructions="Notes and prompts")

NOTES = {"alpha": "first note", "beta": "second note"}


@server.list_resources()
async def list_resources() -> list[types.Resource]:
    return [types.Resource(uri=f"note://{k}", name=k, mimeType="text/plain") for k in NOTES]


@server.list_resource_templates()
async def list_templates() -> list[types.ResourceTemplate]:
    return [types.ResourceTemplate(uriTemplate="note://{name}", name="note")]


@server.read_resource()
async def read_resource(uri) -> list[ReadResourceContents]:
    name = str(uri).removeprefix("note://")
    if name not in NOTES:
        raise ValueError(f"no note {name}")
    return [ReadResourceContents(content=NOTES[name], mime_type="text/plain")]


@server.list_prompts()
async def list_prompts() -> list[types.Prompt]:
    return [types.Prompt(name="summarize", description="Summarize a note",
                         arguments=[types.PromptArgument(name="note", required=True)])]


@server.get_prompt()
async def get_prompt(name: str, arguments: dict | None) -> types.GetPromptResult:
    note = (arguments or {}).get("note", "")
    return types.GetPromptResult(
        description="Summarize a note",
        messages=[types.PromptMessage(role="user",
                                      content=types.TextContent(type="text", text=f"Summarize: {NOTES.get(note)}"))],
    )


@server.completion()
async def complete(ref, argument, context) -> types.Completion | None:
    if argument.name in ("note", "name"):
        values = [k for k in NOTES if k.startswith(argument.value)]
        return types.Completion(values=values, total=len(values), hasMore=False)
    return None


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
