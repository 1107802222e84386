"""``@mcp.completion()`` of the SDK's ``MCPServer`` (and mcp 1.x's FastMCP): one handler for every
``completion/complete``, called as ``handler(ref, argument, context)`` with the SDK's models and
answering a ``Completion`` or ``None`` (no suggestions). It is a link in the core's middleware chain
that hooks that one method, as the low-level ``Server``'s handlers are; the per-argument completers of
oxmcp's own ``completion(prompt=..., argument=...)`` are the core's, behind it."""

from __future__ import annotations

import logging
from typing import Any

from .._errors import McpError

_log = logging.getLogger("oxmcp")
_sdk_log = logging.getLogger("mcp.server.mcpserver.server")


class CompletionLink:
    is_async = True

    def __init__(self, handler: Any, sdk_failures: bool = False) -> None:
        self.handler = handler
        #: mcp 2.x's MCPServer: a crash (a return value that is no ``Completion`` included) is one
        #: ERROR record on its server logger, answered -32603 naming only the argument.
        self.sdk_failures = sdk_failures

    def hooks(self) -> list[str]:
        return ["completion/complete"]

    def call_sync(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:  # pragma: no cover
        import asyncio

        return asyncio.run(self.call_async(payload, native_ctx))

    async def call_async(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        from .. import types
        from .lowlevel.server import _dump

        params = payload.get("params") or {}
        try:
            ref = params.get("ref") or {}
            ref_model = (types.PromptReference(**ref) if ref.get("type") == "ref/prompt"
                         else types.ResourceTemplateReference(**ref))
            argument = types.CompletionArgument(**(params.get("argument") or {}))
            context = params.get("context")
            out = await self.handler(ref_model, argument, types.CompletionContext(**context) if context else None)
            if self.sdk_failures:
                out = types.CompleteResult.model_validate({"completion": out if out is not None else {"values": []}})
                out = out.completion
        except McpError as exc:
            return ("mcp_error", (exc.code, exc.message, exc.data))
        except Exception as exc:  # noqa: BLE001  an internal error that names the cause
            if self.sdk_failures:
                name = (params.get("argument") or {}).get("name")
                _sdk_log.error("Completion for argument %r raised an unexpected exception", name, exc_info=exc)
                return ("mcp_error", (-32603, f"Error completing argument {name}", None))
            _log.error("completion handler raised", exc_info=exc)
            return ("mcp_error", (-32603, str(exc), None))
        body = _dump(out) if out is not None else {"values": []}
        return ("ok", {"completion": {k: v for k, v in body.items() if v is not None}})
