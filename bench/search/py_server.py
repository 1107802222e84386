"""The tool-search benchmark's Python server (bench/search.py): N tools from the shared fixture
(tool i is fixture tool i % 1000 with the suffix _{i // 1000}), oxmcp/tools/search on, over stdio.

    python bench/search/py_server.py N
"""

import json
import sys
from pathlib import Path

from oxmcp import Server

n = int(sys.argv[1])
defs = json.loads((Path(__file__).resolve().parents[2] / "tests" / "config" / "tools-1000.json").read_text())["tools"]
server = Server("oxmcp-search-bench", "1", tool_search_method=True)


def ok(**kw: object) -> str:
    return "ok"


server.add_tools([{"fn": ok, "name": f"{d['name']}_{i // len(defs)}", "description": d["description"],
                   "input_schema": d["inputSchema"]} for i in range(n) for d in [defs[i % len(defs)]]])
server.run("stdio")
