"""The protocol rules the core decides for every language (tests/python/test_core_rules.py): tools and
a prompt whose arguments pass the JSON Schema but fail pydantic (an AfterValidator the schema cannot
express), and tools returning lists with no outputSchema.

    python core_rules.py --http HOST:PORT [VALIDATION]
"""

import sys
from typing import Annotated, Any

from pydantic import AfterValidator

from oxmcp import Server


def lower(s: str) -> str:
    if s != s.lower():
        raise ValueError("must be lower case")
    return s


Lower = Annotated[str, AfterValidator(lower)]
server = Server("core-rules", validation=sys.argv[3] if len(sys.argv) > 3 else "tool_error")


@server.tool
def shout(word: Lower) -> str:
    return word.upper()


@server.tool
def data_list() -> Any:
    return [1, {"k": "v"}, "x"]


@server.tool
def empty_list() -> Any:
    return []


@server.tool
def block_list() -> Any:
    return ["a", {"type": "text", "text": "b"}]


@server.prompt
def greet(name: Lower) -> str:
    return f"Hello {name}"


if __name__ == "__main__":
    host, port = sys.argv[2].rsplit(":", 1)
    server.run("http", host=host, port=int(port))
