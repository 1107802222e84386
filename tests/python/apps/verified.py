"""An ``MCPServer`` whose bearer tokens are checked by its own ``TokenVerifier`` (the SDK's
``auth=AuthSettings(...)``, ``token_verifier=``), for tests over real HTTP.

    python verified.py --http HOST:PORT
"""

import sys
import time
from typing import Any

from pydantic import AnyHttpUrl

from oxmcp import MCPServer
from oxmcp.server.auth.middleware.auth_context import get_access_token
from oxmcp.server.auth.provider import AccessToken
from oxmcp.server.auth.settings import AuthSettings

host, port = sys.argv[sys.argv.index("--http") + 1].rsplit(":", 1)
RESOURCE = f"http://{host}:{port}/mcp"


def grant(client_id: str, **kw: object) -> AccessToken:
    fields = {"scopes": ["notes:read"], "expires_at": int(time.time()) + 3600, "resource": RESOURCE, **kw}
    return AccessToken(token="", client_id=client_id, **fields)  # type: ignore[arg-type]


TOKENS = {
    "good": grant("app", subject="alice", claims={"iss": "https://auth.example.com", "client_id": "root"}),
    "wide": grant("app", scopes=["notes:read", "notes:write"]),
    "expired": grant("app", expires_at=int(time.time()) - 60),
    "no-scope": grant("app", scopes=[]),
    "elsewhere": grant("app", resource="http://127.0.0.1:1/mcp"),
    "no-resource": grant("app", resource=None),
}


class Verifier:
    async def verify_token(self, token: str) -> AccessToken | None:
        if token == "crash":
            raise RuntimeError("the introspection endpoint is down")
        return TOKENS.get(token)


server = MCPServer("verified", token_verifier=Verifier(), auth=AuthSettings(
    issuer_url=AnyHttpUrl("https://auth.example.com"), resource_server_url=AnyHttpUrl(RESOURCE),
    required_scopes=["notes:read"], validate_token_resource=True))


@server.tool()
def whoami() -> dict[str, Any]:
    """The access token the core verified."""
    t = get_access_token()
    return {} if t is None else {"client_id": t.client_id, "scopes": t.scopes, "subject": t.subject,
                                 "resource": t.resource, "iss": (t.claims or {}).get("iss")}


if __name__ == "__main__":
    server.run("streamable-http", host=host, port=int(port))
