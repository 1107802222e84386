"""A FastMCP-shaped server whose components need OAuth scopes, for tests over real HTTP.

    python scoped.py --http HOST:PORT

OXMCP_TEST_ISSUER names the authorization server, OXMCP_TEST_JWKS its keys (a JWKS JSON document);
OXMCP_TEST_HIDE=1 sets hide_out_of_scope.
"""

import json
import os
import sys

from oxmcp import FastMCP, require_scopes

mcp = FastMCP("scoped", hide_out_of_scope=os.environ.get("OXMCP_TEST_HIDE") == "1")


@mcp.tool
def open_tool() -> str:
    return "open"


@mcp.tool(auth=require_scopes("deploy:run", "deploy:read"))
def deploy() -> str:
    return "deployed"


@mcp.resource("mem://payroll", auth=require_scopes("hr:read"))
def payroll() -> str:
    return "salaries"


@mcp.resource("mem://hr/{id}", auth=require_scopes("hr:read"))
def person(id: str) -> str:
    return f"person {id}"


@mcp.prompt(auth=require_scopes("hr:read"))
def review() -> str:
    return "review"


if __name__ == "__main__":
    host, _, port = sys.argv[sys.argv.index("--http") + 1].rpartition(":")
    issuer = os.environ["OXMCP_TEST_ISSUER"]
    mcp.run("http", host=host, port=int(port), oauth={
        "resource": f"http://{host}:{port}/mcp", "authorization_servers": [issuer],
        "scopes": ["mcp:tools"], "issuer": issuer, "jwks": json.loads(os.environ["OXMCP_TEST_JWKS"])})
