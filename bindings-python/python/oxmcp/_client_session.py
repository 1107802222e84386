"""``mcp.client.session``: what the SDK's client callbacks are given.

``ClientRequestContext`` is the first argument of an ``elicitation_callback``, ``sampling_callback``
or ``list_roots_callback`` of ``mcp.client.Client`` (oxmcp's in-process client is its ``session``).
``ClientSession``, the SDK's client over a transport's streams, is not provided: oxmcp is a server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ClientRequestContext"]


@dataclass(kw_only=True)
class ClientRequestContext:
    """The client answering, and the id of the server's request (or the input request's key)."""

    session: Any
    request_id: Any
    meta: Any = None


def __getattr__(name: str) -> Any:
    if name == "ClientSession":
        raise ImportError("mcp.client.session.ClientSession is not provided by oxmcp: oxmcp is a server. Test "
                          "the server in process with mcp.client.Client(server), or over stdio/HTTP with the "
                          "official mcp client")
    raise AttributeError(f"module 'mcp.client.session' has no attribute {name!r}")
