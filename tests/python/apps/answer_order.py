"""Tools that show the client's answers as the handler receives them (``json.dumps`` keeps a dict's
order): a form elicitation's content and a sampling result."""

import json

from oxmcp import Context, Server

server = Server("answer-order")


@server.tool
async def ask(ctx: Context) -> str:
    """Elicit a form with three fields, then print its content."""
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in ("zeta", "alpha", "mid")}}
    answer = await ctx.elicit("fields", "Fill in", schema)
    return json.dumps(answer.content)


@server.tool
async def draw(ctx: Context) -> str:
    """Ask the client's model, then print its answer."""
    answer = await ctx.sample("draw", "Say hi", max_tokens=5)
    return json.dumps(answer)


if __name__ == "__main__":
    server.main()
