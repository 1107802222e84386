"""The ``mcp`` package under oxmcp's import hook: oxmcp's names, as the SDK's top level has them.

``import mcp`` is mostly ``import oxmcp``, with two differences the SDK's top level forces:
``mcp.Client`` is the SDK's client (``mcp.client.Client``, results as ``mcp.types`` models), where
``oxmcp.Client`` answers with the wire's dicts; and the SDK re-exports its errors and types at the
top (``from mcp import MCPError, ErrorData, Tool``), so a name oxmcp's package lacks is looked up in
``oxmcp.shared.exceptions``, then ``oxmcp.types``.
"""

from __future__ import annotations

from typing import Any

import oxmcp as _oxmcp

# A package, so that ``import mcp.server`` resolves through the hook (which maps every submodule).
__path__: list[str] = []


def __getattr__(name: str) -> Any:
    if name == "Client":
        from oxmcp.client import Client

        return Client
    try:
        return getattr(_oxmcp, name)
    except AttributeError:
        pass
    from oxmcp import types
    from oxmcp.shared import exceptions

    for module in (exceptions, types):  # MCPError, UrlElicitationRequiredError; the types
        if not name.startswith("_") and hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module 'mcp' has no attribute {name!r} (under oxmcp's import hook)")


def __dir__() -> list[str]:
    return sorted(set(dir(_oxmcp)) | {"Client"})
