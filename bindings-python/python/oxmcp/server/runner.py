"""``mcp.server.runner`` of mcp 2.x: the SDK's per-connection kernel (``ServerRunner``, ``serve_one``,
``serve_connection``, ...), which drives a connection's handshake and dispatch.

In oxmcp that kernel is the core's one dispatch path (every transport, binding and era goes through
it), so this module only names it: its entry points are not provided, and asking for one says why
rather than standing in for the core.
"""

from __future__ import annotations

import logging
from typing import NoReturn

__all__: list[str] = []

logger = logging.getLogger(__name__)


def __getattr__(name: str) -> NoReturn:
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"mcp.server.runner.{name}: the SDK's connection kernel is the oxmcp core's dispatch; "
                         "serve a Server with run(), streamable_http_app() or StreamableHTTPSessionManager")
