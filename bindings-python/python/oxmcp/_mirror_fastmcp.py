"""The ``fastmcp`` package under oxmcp's import hook: oxmcp's names, as FastMCP's top level has them.

``import fastmcp`` is mostly ``import oxmcp``, with the differences FastMCP's top level forces:
``fastmcp.Client`` is FastMCP's client (``fastmcp.client.Client``: ``CallToolResult`` with ``.data``,
``ToolError`` on an error result), where ``oxmcp.Client`` answers with the wire's dicts; and
``FastMCPDeprecationWarning`` is there.
"""

from __future__ import annotations

import logging as _logging
import os as _os
from typing import Any

import oxmcp as _oxmcp

from .exceptions import FastMCPDeprecationWarning

# FastMCP's loggers ("fastmcp.*": its middleware's timing, errors, retries) log at FASTMCP_LOG_LEVEL
# (INFO by default), as on FastMCP; where the records go stays the application's logging set-up.
if _logging.getLogger("fastmcp").level == _logging.NOTSET:
    _logging.getLogger("fastmcp").setLevel(_os.environ.get("FASTMCP_LOG_LEVEL", "INFO").upper())

# A package, so that ``import fastmcp.server`` resolves through the hook (which maps every submodule).
__path__: list[str] = []

__all__ = ["FastMCPDeprecationWarning"]


def __getattr__(name: str) -> Any:
    if name == "Client":
        from ._fastmcp_client import Client

        return Client
    if name == "__version__":
        from ._versions import framework_version

        return framework_version("fastmcp")
    try:
        return getattr(_oxmcp, name)
    except AttributeError:
        raise AttributeError(f"module 'fastmcp' has no attribute {name!r} (under oxmcp's import hook)") from None


def __dir__() -> list[str]:
    return sorted(set(dir(_oxmcp)) | {"Client", "FastMCPDeprecationWarning"})
