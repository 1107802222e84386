"""A server with the security options on, for tests over real HTTP.

    python secure.py --http HOST:PORT

Named tokens come from the Server(...) keywords; with OXMCP_TEST_JWKS (a JWKS JSON document) the
OAuth resource-server settings are given to run(...) instead, JWTs signed by that key are accepted.
"""

import asyncio
import json
import os
import sys

from oxmcp import Context, Server

TOKENS = {
    "alice": {"tokens": ["alice-token", "alice-rotated"], "tools": ["whoami", "add", "admin_only", "slow", "one_at_a_time"]},
    "bob": {"token": "bob-token", "tools": ["whoami"]},
    "root": {"token": "root-token", "scopes": ["admin"]},
    "carol": {"token": "carol-token"},  # only the rate-limit test uses her bucket
}

jwks = os.environ.get("OXMCP_TEST_JWKS")
# Admission options under test, as keywords (only when set: the defaults stay the core's).
admission = {k: json.loads(v) for k, v in (
    ("trusted_proxies", os.environ.get("OXMCP_TEST_TRUSTED_PROXIES")),
    ("max_connections_per_client", os.environ.get("OXMCP_TEST_MAX_CONNECTIONS_PER_CLIENT")),
) if v}
server = Server("secure", tokens=None if jwks else TOKENS, rate_limit={"rate": 0.05, "burst": 3, "per_caller": {"alice": 1000, "root": 1000, "bob": 1000, "jwt-user": 1000}},
                max_in_flight=int(os.environ.get("OXMCP_TEST_MAX_IN_FLIGHT", "64")), max_string_bytes=4096, **admission)


@server.tool
def whoami(ctx: Context) -> dict:
    """The caller the core authenticated."""
    return ctx.caller or {}


@server.tool
def add(a: int, b: int) -> int:
    return a + b


@server.tool(required_scopes=["admin"])
def admin_only() -> str:
    return "admin things"


@server.tool(timeout=0.3)
async def slow() -> str:
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        print("cancelled slow", file=sys.stderr, flush=True)
        raise
    return "too late"


@server.tool(max_concurrency=1)
async def one_at_a_time(seconds: float = 1.0) -> str:
    await asyncio.sleep(seconds)
    return "done"


if __name__ == "__main__":
    host, _, port = sys.argv[sys.argv.index("--http") + 1].rpartition(":")
    if jwks:
        server.run("http", host=host, port=int(port), oauth={
            "resource": f"http://{host}:{port}/mcp", "authorization_servers": ["https://auth.example"],
            "scopes": ["mcp:tools", "admin"], "issuer": "https://auth.example", "jwks": json.loads(jwks),
            "allow": {"jwt-user": {"tools": ["whoami", "admin_only"]}}})
    else:
        server.run("http", host=host, port=int(port))
