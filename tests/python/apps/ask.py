"""A tool that asks the client for input with ``await ctx.elicit(...)``: MRTR on modern requests,
a real ``elicitation/create`` request on legacy sessions (stdio and HTTP)."""

from pydantic import BaseModel

from oxmcp import Context, Server

server = Server("ask")


class Person(BaseModel):
    name: str


@server.tool
async def greet(ctx: Context) -> str:
    """Ask the user's name, then greet them."""
    answer = await ctx.elicit("who", "What is your name?", Person)
    if not answer.accepted:
        return f"no name ({answer.action})"
    assert isinstance(answer.content, Person)  # converted into the annotated type
    return f"Hello, {answer.content.name}! ({ctx.era}, {ctx.protocol_version})"


if __name__ == "__main__":
    server.main()
