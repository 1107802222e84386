"""``mcp.server.extension`` of mcp 2.x: the SDK's Extension API (SEP-2133), on the core.

An ``Extension`` given to ``MCPServer(extensions=[...])`` contributes a closed set of things, each
of which becomes what the core already serves: its tools and resources are registered like any
other (``ToolBinding``, ``ResourceBinding``), its request methods and its ``tools/call`` interceptor
are links of the core's middleware chain (``MethodBinding``, ``intercept_tool_call``), and its
``settings()`` are the ``extensions`` option, which the core declares in ``server/discover`` (the
2025 ``initialize`` result has no ``extensions`` member). The identifier rule (``vendor-prefix/name``)
is the core's ``extensions`` option's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .context import CallNext, HandlerResult

if TYPE_CHECKING:
    from .context import ServerRequestContext

__all__ = ["Extension", "MethodBinding", "RequestHandler", "ResourceBinding", "ToolBinding",
           "compose_tool_call_handler", "require_client_extension", "validate_extension_identifier"]

RequestHandler = Callable[["ServerRequestContext", Any], Awaitable[HandlerResult]]

#: The request methods the spec defines for a client (every revision): an extension's methods are
#: additive and never one of these.
SPEC_CLIENT_METHODS = frozenset({
    "completion/complete", "initialize", "logging/setLevel", "ping", "prompts/get", "prompts/list",
    "resources/list", "resources/read", "resources/subscribe", "resources/templates/list",
    "resources/unsubscribe", "server/discover", "subscriptions/listen", "tools/call", "tools/list",
})


def validate_extension_identifier(identifier: Any, *, owner: str) -> None:
    """Raise ``TypeError`` (the SDK's text) unless ``identifier`` is one the core's ``extensions``
    option accepts (``vendor-prefix/name``)."""
    from .. import _oxmcp

    refused = TypeError(f"{owner}.identifier must be a `vendor-prefix/name` string "
                        f"(reverse-DNS prefix required), got {identifier!r}")
    if not isinstance(identifier, str):
        raise refused
    try:
        _oxmcp.check_options({"extensions": {identifier: {}}})
    except ValueError:
        raise refused from None


@dataclass(frozen=True)
class ToolBinding:
    """A tool an extension contributes, with the ``_meta`` listed on it and ``add_tool``'s keywords."""

    fn: Callable[..., Any]
    meta: dict[str, Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResourceBinding:
    """A resource object an extension contributes (``TextResource``, ``FunctionResource``, ...)."""

    resource: Any


@dataclass(frozen=True)
class MethodBinding:
    """A request method an extension serves: ``params_type`` validates its params before ``handler``
    runs; ``protocol_versions`` (``None``: every version) restricts it to those protocol versions,
    any other answering -32601 as an unknown method does."""

    method: str
    params_type: type[BaseModel]
    handler: RequestHandler
    protocol_versions: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.method in SPEC_CLIENT_METHODS:
            raise ValueError(
                f"MethodBinding cannot bind spec method {self.method!r}; extension methods are "
                "additive — use Extension.intercept_tool_call or Server.middleware to wrap core behaviour")
        if self.protocol_versions is not None and not self.protocol_versions:
            raise ValueError(
                f"MethodBinding for {self.method!r} has an empty protocol_versions set, so it could "
                "never be served; use None to admit every version")


class Extension:
    """An opt-in bundle of MCP behaviour named by ``identifier``; override only what it adds."""

    #: The extension's ``vendor-prefix/name``, declared under ``capabilities.extensions``.
    identifier: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A class-level identifier is checked when the class is defined; one set in `__init__`
        # when the server applies the extension.
        identifier = cls.__dict__.get("identifier")
        if identifier is not None:
            validate_extension_identifier(identifier, owner=cls.__name__)

    def settings(self) -> dict[str, Any]:
        """The settings declared at ``capabilities.extensions[identifier]`` (``{}``: none)."""
        return {}

    def tools(self) -> Sequence[ToolBinding]:
        return ()

    def resources(self) -> Sequence[ResourceBinding]:
        return ()

    def methods(self) -> Sequence[MethodBinding]:
        return ()

    async def intercept_tool_call(self, params: Any, ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
        """Wrap ``tools/call``: the default passes it on unchanged. Return without ``call_next`` to
        answer in the tool's place. ``params`` is what the tool is called with; a context passed
        on changes what the handler sees, not which call runs."""
        return await call_next(ctx)


def require_client_extension(ctx: Any, identifier: str) -> None:
    """Raise -32021 (missing required client capability, ``data.requiredCapabilities`` naming the
    extension) unless the client declared ``identifier`` in its capabilities' ``extensions``."""
    from ..shared.exceptions import McpError

    caps = ctx.session.client_capabilities
    declared = getattr(caps, "extensions", None) if caps is not None else None
    if not declared or identifier not in declared:
        raise McpError(-32021, f"Client did not declare required extension {identifier!r}",
                       {"requiredCapabilities": {"extensions": {identifier: {}}}})


def overrides_interceptor(extension: Extension) -> bool:
    return type(extension).intercept_tool_call is not Extension.intercept_tool_call


def compose_tool_call_handler(extensions: Sequence[Extension], handler: RequestHandler) -> RequestHandler:
    """The ``tools/call`` handler with every extension's interceptor around it, the first outermost."""

    async def wrapped(ctx: ServerRequestContext, params: Any) -> HandlerResult:
        async def innermost(inner_ctx: ServerRequestContext) -> HandlerResult:
            return await handler(inner_ctx, params)

        chain: CallNext = innermost
        for extension in reversed(extensions):
            chain = _bind(extension, params, chain)
        return await chain(ctx)

    return wrapped


def _bind(extension: Extension, params: Any, call_next: CallNext) -> CallNext:
    async def call(ctx: ServerRequestContext) -> HandlerResult:
        return await extension.intercept_tool_call(params, ctx, call_next)

    return call
