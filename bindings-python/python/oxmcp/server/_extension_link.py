"""``MCPServer(extensions=[...])`` applied to the server: what each SEP-2133 extension contributes
becomes what the core already serves.

Tools and resources are registered like the server's own; the settings join the core's
``extensions`` option (declared in ``server/discover``). The request methods and the ``tools/call``
interceptors are one link of the core's middleware chain, inside the server's context-tier
middleware (as the SDK runs them at the handler layer, below ``Server.middleware``): the methods are
answered there, each at the protocol versions its binding admits (another version is
answered as an unknown method, -32601); ``tools/call`` runs the interceptors, first extension
outermost, around the rest of the core's chain, whose own checks (the caller's allow-list, argument
validation, limits) still apply to the call the interceptors pass on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pydantic

from .._context import Context
from .._errors import InputRequired, RequestCancelled
from .extension import Extension, MethodBinding, compose_tool_call_handler, overrides_interceptor
from .extension import validate_extension_identifier as _check_identifier
from .middleware import failed_link, native_next


class ExtensionLink:
    """The core-chain link answering the extensions' methods and intercepting ``tools/call``."""

    is_async = True

    def __init__(self, server: Any, lifespan: Callable[[], Any], methods: dict[str, MethodBinding],
                 interceptors: Sequence[Extension]) -> None:
        self.server = server
        self.lifespan = lifespan
        self.methods = methods
        self.interceptors = list(interceptors)

    def hooks(self) -> list[str]:
        return sorted(set(self.methods) | ({"tools/call"} if self.interceptors else set()))

    def call_sync(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:  # pragma: no cover
        import asyncio

        return asyncio.run(self.call_async(payload, native_ctx))

    async def call_async(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        from .. import types
        from .lowlevel.server import _dump, _LLRequestContext

        method = payload["method"]
        params = dict(payload.get("params") or {})
        ctx = _LLRequestContext(Context(native_ctx, self.server), self.lifespan(), method, params)
        try:
            if method == "tools/call" and self.interceptors:
                async def run_tool(_ctx: Any, _params: Any) -> Any:
                    return await native_next(native_ctx, params)  # the call as the client sent it

                call = types.CallToolRequestParams.model_validate(params)
                value = await compose_tool_call_handler(self.interceptors, run_tool)(ctx, call)
            else:
                binding = self.methods[method]
                allowed = binding.protocol_versions
                if allowed is not None and ctx.protocol_version not in allowed:
                    return ("mcp_error", (-32601, "Method not found", method))
                try:
                    typed = binding.params_type.model_validate(params)
                except pydantic.ValidationError as exc:
                    return ("mcp_error", (-32602, f"Invalid params for {method}: {exc.errors()}", None))
                value = await binding.handler(ctx, typed)
        except (InputRequired, RequestCancelled, Exception) as exc:  # noqa: BLE001  each is an answer
            return failed_link(exc, f"extension handler for {method}")
        return ("ok", _dump(value) if value is not None else {})


def apply_extensions(server: Any, extensions: Sequence[Extension]) -> ExtensionLink | None:
    """Register what ``extensions`` contribute on ``server`` (an ``MCPServer`` not yet serving); the
    link to add to its chain, if any method or interceptor needs one. A missing or repeated
    identifier, or two bindings of one method, is refused."""
    seen: set[str] = set()
    methods: dict[str, MethodBinding] = {}
    declared: dict[str, Any] = {}
    for ext in extensions:
        if not isinstance(ext, Extension):
            raise TypeError(f"MCPServer(extensions=[...]) takes mcp.server.extension.Extension objects, "
                            f"got {type(ext).__name__}")
        identifier = getattr(ext, "identifier", None)
        if identifier is None:
            raise TypeError(f"{type(ext).__name__} has no identifier: set `identifier` on the class or in __init__")
        _check_identifier(identifier, owner=type(ext).__name__)
        if identifier in seen:
            raise ValueError(f"Extension {identifier!r} is registered twice")
        seen.add(identifier)
        for binding in ext.methods():
            if binding.method in methods:
                raise ValueError(f"Extension {identifier!r} binds method {binding.method!r}, which is already "
                                 "registered; extension methods are additive and cannot replace another handler")
            methods[binding.method] = binding
        declared[identifier] = dict(ext.settings())
    for ext in extensions:
        for tool in ext.tools():
            server.add_tool(tool.fn, **({"meta": tool.meta} if tool.meta is not None else {}), **tool.kwargs)
        for resource in ext.resources():
            server.add_resource(resource.resource)
    if declared:
        server.options["extensions"] = {**(server.options.get("extensions") or {}), **declared}
    interceptors = [ext for ext in extensions if overrides_interceptor(ext)]
    if not methods and not interceptors:
        return None
    # Every extension takes part once one intercepts: the others' default passes the call on.
    return ExtensionLink(server, lambda: server.lifespan_context, methods,
                         list(extensions) if interceptors else [])
