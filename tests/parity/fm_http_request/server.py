"""FastMCP 4: the HTTP request behind a tool call (get_http_request(), get_http_headers()); on stdio
get_http_request() raises FastMCP's RuntimeError."""

import os

from fastmcp import FastMCP
from fastmcp.server.dependencies import get_http_headers, get_http_request

mcp = FastMCP("http-request")


@mcp.tool
def request_info() -> dict:
    """What the tool sees of the HTTP request."""
    request = get_http_request()
    return {"method": request.method, "path": request.url.path, "query": dict(request.query_params),
            "content_type": request.headers.get("content-type"), "has_accept": "accept" in request.headers,
            "client_host": request.client.host if request.client else None}


@mcp.tool
def header_names() -> list[str]:
    """Forwardable headers (FastMCP's default filter)."""
    get_http_request()  # raises on stdio
    names = set(get_http_headers())
    return sorted(names & {"mcp-protocol-version", "authorization", "content-type", "accept", "host",
                           "mcp-session-id", "user-agent"})


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), show_banner=False)
    else:
        mcp.run(show_banner=False)
