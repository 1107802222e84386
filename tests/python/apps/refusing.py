"""Tools and a prompt whose arguments pass the JSON Schema but fail pydantic (an AfterValidator the
schema cannot express), for the invalid-arguments text test (tests/python/test_invalid_arguments.py).

    python refusing.py --http HOST:PORT [VALIDATION]
"""

import sys
from typing import Annotated

from pydantic import AfterValidator

from oxmcp import Server


def lower(s: str) -> str:
    if s != s.lower():
        raise ValueError("must be lower case")
    return s


Lower = Annotated[str, AfterValidator(lower)]
server = Server("refusing", validation=sys.argv[3] if len(sys.argv) > 3 else "tool_error")


@server.tool
def shout(word: Lower) -> str:
    return word.upper()


@server.prompt
def greet(name: Lower) -> str:
    return f"Hello {name}"


if __name__ == "__main__":
    host, port = sys.argv[2].rsplit(":", 1)
    server.run("http", host=host, port=int(port))
