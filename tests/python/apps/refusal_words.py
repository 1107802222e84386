"""Refusals of tool arguments worded by the tool (tests/python/test_refusal_words.py; the same server as
tests/node/refusal-words.test.mjs): the core decides that `count`'s arguments are refused, and the
tool's `refusal_text` gives the words, or None to keep the core's. `calls` says how often `count` ran.

    python refusal_words.py --http HOST:PORT [VALIDATION]
"""

import json
import sys
from typing import Annotated, Any

from pydantic import Field

from oxmcp import Server

server = Server("refusal-words", validation=sys.argv[3] if len(sys.argv) > 3 else "tool_error")
ran = 0


def words(arguments: dict[str, Any], violations: list[dict[str, str]]) -> str | None:
    if arguments.get("n") == 0:
        return None
    return f"refused {json.dumps(arguments, separators=(',', ':'))} at {','.join(v['pointer'] for v in violations)}"


@server.tool(refusal_text=words)
def count(n: Annotated[int, Field(ge=1)]) -> str:
    global ran
    ran += 1
    return f"counted {n}"


@server.tool
def calls() -> int:
    return ran


if __name__ == "__main__":
    host, port = sys.argv[2].rsplit(":", 1)
    server.run("http", host=host, port=int(port))
