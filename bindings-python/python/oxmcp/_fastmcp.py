"""``FastMCP`` and ``MCPServer``: oxmcp's ``Server`` under the names (and defaults) of the frameworks
that servers are ported from, so that changing the import is the whole port.

- ``FastMCP`` follows FastMCP 4 (and ``mcp.server.fastmcp`` of mcp 1.x, whose API it is a superset of):
  ``FastMCP()`` without a name, ``lifespan=``, ``mount``/``import_server``, ``@custom_route``,
  ``http_app()``, ``run(transport=..., host=..., ...)``, ``mask_error_details`` (default False: an
  exception's text reaches the client as ``Error calling tool 'name': <text>``).
- ``MCPServer`` (``_mcpserver.py``, built on this class) follows ``mcp`` 2.x's ``MCPServer`` (``Error executing tool name: <text>``).

What differs on purpose is listed in docs/COMPATIBILITY.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import secrets
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from ._errors import DefinitionError
from ._fastmcp_components import Components, PromptTexts, fastmcp_meta, public_meta
from ._fastmcp_rules import fastmcp_prompt_arguments, fastmcp_tool_schemas, inline
from ._fastmcp_serving import Serving
from ._refusals import fastmcp_refusal
from ._server import Server, _Listing, option_names

__all__ = ["FastMCP"]

_log = logging.getLogger("oxmcp")

# Keywords of FastMCP 4's / MCPServer's / mcp 1.x FastMCP's constructors that oxmcp accepts and ignores
# (documented no-ops: what they configure does not exist in oxmcp, or oxmcp always does it).
_NOOP_INIT = {
    "dependencies", "on_duplicate", "dereference_schemas", "strict_input_validation",
    "request_state_security", "tasks", "client_log_level", "experimental_capabilities", "warn_on_duplicate_tools",
    "warn_on_duplicate_resources", "warn_on_duplicate_prompts", "log_level",
    "extensions", "subscriptions", "session_state_store", "tool_serializer",
    "include_fastmcp_meta", "sse_path", "message_path", "mount_path", "event_store", "retry_interval",
    "warn_on_duplicate", "cache_hints",
}
# Keywords that configure a feature oxmcp does not have in this form: a clear error, never a TypeError.
_REFUSED_INIT = {
    "auth": "pass tokens=/oauth= (oxmcp's auth options, see docs/OPTIONS.md) instead of an auth provider object",
    "auth_server_provider": "oxmcp does not host an OAuth authorization server; use oauth= to verify tokens",
    "token_verifier": "use tokens= or oauth= (see docs/OPTIONS.md)",
    # Transforms rename, hide or guard components: left out, the server would serve something else
    # than was written. (Skill providers are accepted: `providers=` below.)
    "transforms": "register the components as they should be served (FastMCP's search transforms are supported)",
}
# What a component's auth= check decides (who may see and call it) is the core's, per caller. A
# scope check (``require_scopes(...)``, FastMCP's or oxmcp's) becomes the component's required
# scopes, which the core enforces; any other check is one oxmcp would not run, so it must stop the
# server from starting, not leave the component open.
_AUTH_REFUSED = ("auth= takes only require_scopes(...) checks on oxmcp: the core does not run other "
                 "per-component auth checks; restrict callers with the tokens= allow-lists (tools, "
                 "resources, prompts per caller) or required_scopes= (docs/SECURITY.md)")


class RequireScopes:
    """A component auth check requiring every one of ``scopes`` (FastMCP's ``require_scopes``):
    ``@mcp.tool(auth=require_scopes("files:write"))``. The core enforces it as the component's
    required scopes: a caller without them gets the HTTP 403 ``insufficient_scope`` challenge."""

    def __init__(self, scopes: tuple[str, ...]) -> None:
        if not scopes:
            raise TypeError("require_scopes() needs at least one scope")
        self.required_scopes = tuple(scopes)

    def __call__(self, ctx: Any) -> bool:
        held = set(getattr(getattr(ctx, "token", None), "scopes", None) or ())
        return set(self.required_scopes) <= held


def require_scopes(*scopes: str) -> RequireScopes:
    """Require all of the given OAuth scopes on a tool, resource, template or prompt (``auth=``)."""
    return RequireScopes(scopes)


def _auth_scopes(kind: str, auth: Any) -> list[str]:
    """The scopes a FastMCP ``auth=`` value requires: one scope check or a list of them (FastMCP
    runs every check of a list, so their scopes add up); anything else is refused."""
    out: list[str] = []
    for check in auth if isinstance(auth, (list, tuple)) else (auth,):
        scopes = getattr(check, "required_scopes", None)
        if type(check).__name__ not in ("RequireScopes", "_RequireScopes") or scopes is None:
            raise TypeError(f"{kind}(): {_AUTH_REFUSED}")
        for scope in sorted(scopes) if isinstance(scopes, (set, frozenset)) else scopes:
            if scope not in out:
                out.append(scope)
    return out


def _coerce_version(version: Any) -> str | None:
    return None if version is None else str(version)


class _LifespanState:
    """The running lifespan's value, and how many servings hold it (stdio + ASGI may overlap)."""

    def __init__(self) -> None:
        self.value: Any = None
        self.entered = False
        self.stack: contextlib.AsyncExitStack | None = None
        self.count = 0


class FastMCP(Components, Serving, Server):  # type: ignore[misc]  # FastMCP 4: await get_tool(name)
    """A FastMCP-compatible server (``from oxmcp import FastMCP``)."""

    #: How an unexpected exception in a tool reads, unmasked / masked.
    _error_prefix = "Error calling tool {name!r}"
    _default_mask = False
    #: The SDK generation speaks only the `initialize`-era revisions (mcp 1.x).
    _handshake_only = False
    _str_returns_are_data = True
    #: FastMCP answers an object a tool returns without an output schema as structuredContent too.
    _structured_objects = True
    _fastmcp_wrap_meta = True
    #: A read's contents carry the component's `_meta`, merged under each content's own.
    _contents_meta: bool | str = "merge"
    _prompt_schema_notes = True
    _fastmcp_log_data = True
    #: A tool's exception reaches the middleware chain (as the ``ToolError`` FastMCP raises).
    _tool_errors_reach_middleware = True
    #: A tool call's timeout result (the core's `tool_timeout_text`), unmasked / masked: FastMCP's
    #: ``ToolError`` for its ``execution timed out`` error. None: the core's text.
    _tool_timeout_texts: tuple[str, str] | None = (
        "Error calling tool '{name}': Tool '{name}' execution timed out after {timeout}s",
        "Error calling tool '{name}'")
    #: How a prompt's unexpected exception reads (-32603), unmasked / masked; None: the core's text.
    _prompt_error_prefix: str | None = "Error rendering prompt {name!r}"
    _str_request_id = True
    _resource_error_code = -32603
    #: FastMCP lists a component's tags (and version) in its ``_meta.fastmcp``.
    _fastmcp_meta = True
    _template_params_subset = True
    #: FastMCP describes a tool parameter whose name starts with ``_`` (the SDKs refuse one).
    _underscore_params = True
    #: A resource's JSON-native value (dict, list, number, bool, None) as FastMCP writes it: json.dumps.
    _resource_json = staticmethod(json.dumps)

    def __init__(self, name: str | None = None, instructions: str | None = None, *, version: Any = None,
                 title: str | None = None, description: str | None = None, website_url: str | None = None,
                 icons: list[Any] | None = None, lifespan: Callable[..., Any] | None = None,
                 tools: Sequence[Callable[..., Any]] | None = None, mask_error_details: bool | None = None,
                 middleware: Sequence[Any] | None = None, list_page_size: int | None = None,
                 cache_ttl: int | None = None, cache_scope: str | None = None, debug: bool = False,
                 host: str | None = None, port: int | None = None, streamable_http_path: str | None = None,
                 json_response: bool | None = None, stateless_http: bool | None = None,
                 **kwargs: Any) -> None:
        providers = kwargs.pop("providers", None) or ()
        if "resource_security" in kwargs:  # FastMCP's default path policy of its templates
            self._resource_default = kwargs.pop("resource_security")
        # mcp's TransportSecuritySettings: the HTTP guard's lists for run() and http_app().
        self._transport_security = kwargs.pop("transport_security", None)
        # Where fastmcp.server.sessions keeps session state (an AsyncKeyValue store; None: in memory).
        self._state_storage = kwargs.pop("session_state_store", None)
        self._state_adapter: Any = None
        # mcp 1.x FastMCP's HTTP+SSE settings, which run("sse") and sse_app() use.
        sse_defaults = {k: kwargs.pop(k) for k in ("sse_path", "message_path") if kwargs.get(k) is not None}
        transforms = kwargs.pop("transforms", None) or ()
        if any(not isinstance(t, _served_transforms()) for t in transforms):
            raise TypeError(f"{type(self).__name__}(): transforms= is not supported by oxmcp: "
                            f"{_REFUSED_INIT['transforms']}")
        for key in ("sampling_handler", "sampling_handler_behavior"):
            if key in kwargs:  # FastMCP 4 removed it with ctx.sample() (SEP-2577), so does its mirror
                raise TypeError(f"{type(self).__name__}(): {key}= was removed with server-initiated sampling "
                                "(SEP-2577)")
        from .server.fastmcp_auth import StaticTokenVerifier

        if isinstance(kwargs.get("auth"), StaticTokenVerifier) and "tokens" not in kwargs:
            kwargs["tokens"] = kwargs.pop("auth")._oxmcp_tokens()  # the core checks them
        for key, why in _REFUSED_INIT.items():
            if kwargs.get(key):
                raise TypeError(f"{type(self).__name__}(): {key}= is not supported by oxmcp: {why}")
            kwargs.pop(key, None)
        # FastMCP 2.x's tag filters: a component they hide is never registered, so every caller
        # finds it unknown (FastMCP answers it as not found too).
        include_tags = kwargs.pop("include_tags", None)
        exclude_tags = kwargs.pop("exclude_tags", None)
        self._include_tags = None if include_tags is None else frozenset(include_tags)
        self._exclude_tags = frozenset(exclude_tags or ())
        names = frozenset().union(*option_names())
        options = {k: v for k, v in kwargs.items() if k in names}
        unknown = sorted(set(kwargs) - set(options) - _NOOP_INIT)
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword argument(s): {', '.join(unknown)}")
        policy = getattr(kwargs.get("request_state_security"), "core_options", None)
        if callable(policy):  # the SDK's RequestStateSecurity(keys=...): the core's key ring
            options.update({k: v for k, v in policy().items() if k not in options})
        if list_page_size is not None:
            # The core checks it (a ValueError, as FastMCP raises).
            options.setdefault("page_size", list_page_size)
        if cache_ttl is not None:
            options.setdefault("cache_ttl_ms", int(cache_ttl) * 1000)
        if cache_scope is not None:
            options.setdefault("cache_scope", cache_scope)
        if stateless_http:
            options.setdefault("legacy_stateless", True)
        # FastMCP and the SDK's FastMCP/MCPServer validate tool arguments in pydantic's lax mode
        # ("yes" for a bool, "3" for an int); the core's lenient coercion follows the same rules.
        options.setdefault("lenient_coercion", not kwargs.get("strict_input_validation"))
        # The framework lists its definitions as given: no digests of oxmcp's catalog in them.
        options.setdefault("catalog_digests", False)
        masked = self._default_mask if mask_error_details is None else bool(mask_error_details)
        if self._tool_timeout_texts is not None:
            options.setdefault("tool_timeout_text", self._tool_timeout_texts[1 if masked else 0])
        if self._handshake_only:
            # An SDK generation that speaks only the `initialize`-era revisions is served in them
            # unless the server opts in (`modern=True`): its lifecycle hooks were written for them.
            options.setdefault("modern", False)
        try:
            super().__init__(name if name else self.generate_name(), _coerce_version(version) or self._default_version(),
                             title=title, instructions=instructions, website_url=website_url, description=description,
                             icons=[_dump(i) for i in icons] if icons else None, debug=debug, **options)
        except ValueError as exc:
            if list_page_size is not None and str(exc).startswith("page_size"):
                # The core's refusal, in the words of FastMCP's own parameter.
                raise ValueError("list_page_size must be a positive integer") from exc
            raise
        # FastMCP (1.x to 4.x), mcp 1.x's FastMCP and mcp 2.x's MCPServer declare resources and prompts
        # with none registered, and answer their lists empty (not -32601).
        self._declare = ["resources", "prompts"]
        self._middleware.append(PromptTexts(self))
        self._tool_transforms: list[Any] = []
        self._component_tags: dict[tuple[str, str], frozenset[str]] = {}
        from .server.providers.local import LocalProvider

        self._local_provider = LocalProvider(self)
        self._providers: list[Any] = []  # FastMCP Providers, run for their lifespan
        for provider in providers:
            self.add_provider(provider)
        for transform in transforms:
            self.add_transform(transform)
        self.mask_error_details = self._default_mask if mask_error_details is None else bool(mask_error_details)
        self._lifespan_fn = lifespan
        self._lifespan = _LifespanState()
        self._custom_routes: list[tuple[str, list[str], Callable[..., Any], str | None]] = []
        self._mounted: list[tuple[Server, str | None]] = []
        self._state: dict[str, Any] = {}
        # mcp 1.x FastMCP took the HTTP settings in the constructor; run() uses them.
        self._http_defaults: dict[str, Any] = {k: v for k, v in (("host", host), ("port", port), ("path", streamable_http_path),
                                                 ("json_response", json_response)) if v is not None}
        self._http_defaults.update(sse_defaults)
        for fn in tools or ():
            self.add_tool(fn)
        for mw in middleware or ():
            self.add_middleware(mw)
        from ._fastmcp_notify import ClientNotifications

        self._client_notifications = ClientNotifications(self)

    def add_notification_handler(self, method: str, params_type: Any, handler: Callable[..., Any]) -> None:
        """mcp 2.x's ``add_notification_handler`` (FastMCP's ``mcp._mcp_server`` takes it):
        ``handler(ctx, params)`` for each ``method`` notification a legacy session's client sends."""
        self._client_notifications.add(method, handler)

    def add_provider(self, provider: Any) -> None:
        """A skill provider's skills are served; a FastMCP ``Provider`` runs its ``lifespan()`` with the
        server's (one that supplies components is refused)."""
        from .server.providers.base import Provider

        if not isinstance(provider, Provider):
            return super().add_provider(provider)
        provider._check_servable()
        for fn in provider._oxmcp_tools():  # tools a provider contributes as the server's own
            self.tool(fn)
        self._providers.append(provider)

    def add_transform(self, transform: Any) -> None:
        """FastMCP's search transforms (``BM25SearchTransform``, ``RegexSearchTransform``) set the
        core's ``tool_search`` options; a ``ToolTransform`` re-registers the tools it names (now and
        later ones); other transforms are refused, as in the constructor."""
        from .server.transforms.tool_transform import ToolTransform

        if not isinstance(transform, _served_transforms()):
            raise TypeError(f"add_transform({type(transform).__name__}): oxmcp supports FastMCP's search "
                            f"transforms and ToolTransform only; {_REFUSED_INIT['transforms']}")
        if isinstance(transform, ToolTransform):
            with self._lock:
                self._tool_transforms.append(transform)
                for name, entry in list(self._tools.items()):
                    changed = transform.apply(entry)
                    if changed is not entry:
                        self.remove_tool(name)
                        self._adopt("tool", changed.name, changed, self._tools)
            return
        if self._native is not None:
            raise RuntimeError("add_transform() must come before the server starts serving")
        search: Any = transform  # a search transform (isinstance above narrowed it to object)
        self.options.update(search._options())

    @property
    def _mcp_server(self) -> Any:
        """The low-level server FastMCP hands the SDK's in-process client (``Client(mcp._mcp_server)``):
        on oxmcp, this server itself."""
        return self

    @property
    def _state_store(self) -> Any:
        """The store of ``fastmcp.server.sessions``' session state, made on first use."""
        if self._state_adapter is None:
            from .server.sessions import KeyValueStateStore, MemoryStateStore

            given = self._state_storage
            self._state_adapter = MemoryStateStore() if given is None else KeyValueStateStore(given)
        return self._state_adapter

    @property
    def local_provider(self) -> Any:
        """FastMCP's ``LocalProvider`` of this server: a view of its registry."""
        return self._local_provider

    @classmethod
    def generate_name(cls, name: str | None = None) -> str:
        return f"{cls.__name__}-{name + '-' if name else ''}{secrets.token_hex(2)}"

    @staticmethod
    def _default_version() -> str:
        from ._versions import framework_version

        return framework_version("fastmcp")

    def _adapt_tool(self, entry: Any) -> None:
        fastmcp_tool_schemas(entry)
        for transform in getattr(self, "_tool_transforms", ()):
            changed = transform.apply(entry)
            if changed is not entry:  # the entry is registered as the transform serves it
                entry.__dict__.update(changed.__dict__)

    # -- registration: FastMCP's extra decorator keywords ---------------------------------------
    def add_tool(self, fn: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        # tool() comes here too (Server.tool calls add_tool): the keywords are read once, here.
        from .tools.base import Tool
        from .tools.function_tool import FunctionTool, ToolMeta, get_fastmcp_meta

        if not isinstance(fn, Tool) and isinstance(get_fastmcp_meta(fn), ToolMeta):
            # A function the standalone @tool marked: registered with the settings it carries.
            fn = FunctionTool.from_function(fn, metadata=get_fastmcp_meta(fn))
        if isinstance(fn, Tool):
            # A tool component: the same registration as @mcp.tool, with the component's settings
            # (a keyword given here wins).
            fn, settings = fn._registration()
            kwargs = {**settings, **kwargs}
        elif getattr(fn, "fn", None) is not None:
            kwargs["_component"] = fn
        if kwargs.pop("run_in_thread", True) is False:
            fn = inline(fn, kwargs.get("timeout"))
        kwargs = self._component_kwargs("tool", kwargs, _TOOL_EXTRAS)
        if kwargs.pop("_hidden", False):
            return None
        tags = kwargs.pop("_tags", None)
        entry = super().add_tool(getattr(fn, "fn", fn), **kwargs)
        self._tag("tool", entry.name, tags)
        self._sync_visibility()
        return entry

    def _prepare_tool(self, fn: Any, kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
        # add_tools items take FastMCP's keywords too; a hidden item is skipped, as tool() does.
        kwargs = self._component_kwargs("tool", kwargs, _TOOL_EXTRAS)
        if kwargs.pop("_hidden", False):
            return None
        kwargs.pop("_tags", None)
        return getattr(fn, "fn", fn), kwargs

    def add_prompt(self, fn: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        from .prompts.base import Prompt
        from .prompts.function_prompt import FunctionPrompt, PromptMeta
        from .tools.function_tool import get_fastmcp_meta

        if not isinstance(fn, Prompt) and isinstance(get_fastmcp_meta(fn), PromptMeta):
            # A function the standalone @prompt marked: registered with the settings it carries.
            fn = FunctionPrompt.from_function(fn)
        if isinstance(fn, Prompt):
            # A prompt component: the same registration as @mcp.prompt, with its settings.
            fn, settings = fn._registration()
            kwargs = self._component_kwargs("prompt", {**settings, **kwargs}, _OTHER_EXTRAS)
            if kwargs.pop("_hidden", False):
                return None
        tags = kwargs.pop("_tags", None)
        result_meta = kwargs.pop("_result_meta", None)
        entry = super().add_prompt(fn, **kwargs)
        entry.result_meta = result_meta
        self._tag("prompt", entry.name, tags)
        self._sync_visibility()
        return entry

    def _adapt_prompt(self, entry: Any) -> None:
        if self._prompt_schema_notes:
            fastmcp_prompt_arguments(entry)

    def add_resource(self, fn: Any, uri: str | None = None, **kwargs: Any) -> Any:  # type: ignore[override]
        """FastMCP's ``mcp.add_resource(resource)`` (a component, or a function the standalone
        ``@resource`` marked), or oxmcp's ``add_resource(fn, uri, ...)``."""
        from .resources.base import Resource
        from .resources.function_resource import FunctionResource, ResourceMeta
        from .resources.template import ResourceTemplate
        from .tools.function_tool import get_fastmcp_meta

        marked = get_fastmcp_meta(fn)
        if not isinstance(fn, (Resource, ResourceTemplate)) and isinstance(marked, ResourceMeta):
            if "{" in marked.uri:
                fn = ResourceTemplate.from_function(fn, marked.uri, name=marked.name, title=marked.title,
                                                    description=marked.description, mime_type=marked.mime_type,
                                                    icons=marked.icons, tags=marked.tags, meta=marked.meta,
                                                    annotations=marked.annotations, auth=marked.auth)
            else:
                fn = FunctionResource.from_function(fn, metadata=marked)
        if isinstance(fn, (Resource, ResourceTemplate)):
            # A resource component: the same registration as @mcp.resource, with its settings.
            fn, uri, settings = fn._registration()
            kwargs = self._component_kwargs("resource", {**settings, **kwargs}, _OTHER_EXTRAS)
            if kwargs.pop("_hidden", False):
                return None
        if uri is None:
            raise TypeError("add_resource(fn, uri): a function needs its URI")
        tags = kwargs.pop("_tags", None)
        self._take_security(uri, kwargs)
        entry = self._keep_security(super().add_resource(fn, uri, **kwargs))
        self._tag("resource", uri, tags)
        self._sync_visibility()
        return entry

    def add_template(self, template: Any) -> Any:
        return self.add_resource(template)

    def resource(self, uri: str, **kwargs: Any) -> Callable[[Any], Any]:  # type: ignore[override]
        kwargs = self._component_kwargs("resource", kwargs, _OTHER_EXTRAS)
        if kwargs.pop("_hidden", False):
            return lambda f: f
        if kwargs.get("mime_type") is None:
            kwargs["mime_type"] = "text/plain"  # FastMCP's default for every resource and template
        tags = kwargs.pop("_tags", None)
        self._take_security(uri, kwargs)
        deco = super().resource(uri, **kwargs)

        def tagged(fn: Any) -> Any:
            out = deco(fn)
            self._tag("resource", uri, tags)
            return out
        return tagged if tags else deco

    def prompt(self, fn: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        kwargs = self._component_kwargs("prompt", kwargs, _OTHER_EXTRAS)
        if kwargs.pop("_hidden", False):
            return fn if fn is not None and not isinstance(fn, str) else (lambda f: f)
        return super().prompt(fn, **kwargs)

    def _component_kwargs(self, kind: str, kwargs: dict[str, Any], extras: tuple[str, ...]) -> dict[str, Any]:
        """FastMCP's registration keywords in oxmcp's terms. ``auth=require_scopes(...)`` becomes the
        component's required scopes, any other ``auth=`` is refused (``_AUTH_REFUSED``);
        ``enabled=False`` and the server's tag filters hide the component: it is not registered."""
        kwargs = dict(kwargs)
        if kwargs.get("icons"):  # the SDK's Icon models (FastMCP takes them) as the wire's dicts
            kwargs["icons"] = [_dump(i) for i in kwargs["icons"]]
        component = kwargs.pop("_component", None)
        if component is not None:  # a FastMCP Tool/Resource/Prompt object: its own settings count too
            for k in ("auth", "tags", "enabled"):
                if getattr(component, k, None) is not None:
                    kwargs.setdefault(k, getattr(component, k))
        auth = kwargs.pop("auth", None)
        if auth is not None:
            scopes = _auth_scopes(kind, auth)
            kwargs["required_scopes"] = [*(kwargs.get("required_scopes") or ()), *scopes]
        tags = frozenset(kwargs.get("tags") or ())
        if self._speaks_fastmcp():
            if kind == "prompt":  # FastMCP gives a rendered prompt the public part of its own meta
                kwargs["_result_meta"] = public_meta(kwargs.get("meta"))
            kwargs["meta"] = fastmcp_meta(kwargs.get("meta"), tags, kwargs.get("version"))
        hidden = kwargs.pop("enabled", True) is False or bool(tags & self._exclude_tags) \
            or (self._include_tags is not None and not tags & self._include_tags)
        for k in extras:
            kwargs.pop(k, None)
        if hidden:
            kwargs["_hidden"] = True
        if tags:
            kwargs["_tags"] = tags  # for the middleware's views of the lists (`_tag`)
        return kwargs

    def _tag(self, kind: str, key: str, tags: Any) -> None:
        """Keep a component's FastMCP tags, which a middleware reads from the listed components
        (``tool.tags``); they are not part of the definition a client gets."""
        if tags:
            self._component_tags[(kind, key)] = frozenset(tags)

    def completion(self, fn: Any = None, *, prompt: str | None = None, resource: str | None = None,  # type: ignore[override]
                   argument: str | None = None) -> Any:
        """FastMCP's ``@mcp.completion`` (bare or called): one ``handler(ref, argument, context)``, sync
        or async, for every completion request; with ``prompt=``/``resource=`` and ``argument=``,
        oxmcp's per-argument form."""
        if self._native is not None and not self.options.get("completions"):
            raise RuntimeError("completion(): register completions before the server first serves "
                               "(the completions capability is declared then)")
        if prompt is not None or resource is not None or argument is not None:
            if argument is None:
                raise TypeError("completion(prompt=..., argument=...): name the argument to complete")
            return super().completion(prompt=prompt, resource=resource, argument=argument)

        def deco(f: Any) -> Any:
            from .server._completion_link import CompletionLink
            from .server.completions import completion_handler

            handler = completion_handler(f)

            async def answer(ref: Any, argument: Any, context: Any) -> Any:
                # FastMCP completes only a prompt or template a client could list: a reference to
                # an unknown or disabled one gets no suggestions (completion shows no more than a
                # listing does), without a call to the handler.
                return await handler(ref, argument, context) if self._completes(ref) else None

            link = CompletionLink(answer)
            with self._lock:
                self._middleware.append(link)
                if self._native is not None:
                    self._native.add_middleware(link, True, link.hooks())
            return f
        return deco(fn) if fn is not None else deco

    def _has_completer(self) -> bool:
        from .server._completion_link import CompletionLink

        return bool(self._completions) or any(isinstance(m, CompletionLink) for m in self._middleware)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *,
                        run_middleware: bool = True) -> Any:
        """FastMCP's in-process call: the tool's ``ToolResult``, through the core as a client's
        ``tools/call``; an error result raises ``ToolError`` with its text. ``run_middleware=False``
        passes the server's middleware by (the core's own checks still apply)."""
        from .server.middleware import skipping_middleware
        from .tools.base import call_through_core

        if run_middleware:
            return await call_through_core(self, name, arguments)
        with skipping_middleware() as meta:
            return await call_through_core(self, name, arguments, meta)

    # FastMCP 4's listing of the server's own components (``await mcp.list_tools()``): awaited, the
    # definitions as the SDK's models (``.name``, ``.input_schema``); as called, oxmcp's dicts.
    # Mounted servers' components are listed too: the core that serves them is built first.
    def list_tools(self) -> Any:
        self._with_mounted()
        return _Listing("list_tools", self._shown(super().list_tools(), "tool", "name"), "Tool")

    def list_resources(self) -> Any:
        self._with_mounted()
        return _Listing("list_resources", self._shown(super().list_resources(), "resource", "uri"), "Resource")

    def list_resource_templates(self) -> Any:
        self._with_mounted()
        shown = self._shown(super().list_resource_templates(), "resource", "uriTemplate")
        return _Listing("list_resource_templates", shown, "ResourceTemplate")

    def list_prompts(self) -> Any:
        self._with_mounted()
        return _Listing("list_prompts", self._shown(super().list_prompts(), "prompt", "name"), "Prompt")

    async def render_prompt(self, name: str, arguments: dict[str, Any] | None = None, *,
                            run_middleware: bool = True) -> Any:
        """FastMCP 4's in-process ``prompts/get``: the ``GetPromptResult``, through the core as a
        client's request (middleware included unless ``run_middleware=False``); values that are not
        strings go as JSON, as FastMCP's client sends them."""
        from ._client import Client as PlainClient
        from .client import Client
        from .server.middleware import skipping_middleware
        from .types import GetPromptResult

        args = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (arguments or {}).items()}
        if run_middleware:
            async with Client(self) as client:
                return await client.get_prompt(name, args)
        with skipping_middleware() as meta:
            async with PlainClient(self) as plain:
                raw = await plain.request("prompts/get", {"name": name, "arguments": args, "_meta": meta})
        return GetPromptResult.model_validate(raw)

    # -- composition ----------------------------------------------------------------------------
    def mount(self, server: Server, prefix: str | None = None, *, namespace: str | None = None,
              as_proxy: bool | None = None) -> None:
        """Serve ``server``'s tools, resources and prompts from this one, live (later additions show too).

        Names become ``{prefix}_{name}``; resource URIs ``scheme://{prefix}/rest`` (FastMCP's path format).
        """
        if as_proxy:
            raise TypeError("mount(as_proxy=True): oxmcp does not proxy servers; mount the server object itself")
        prefix = namespace if namespace is not None else prefix
        with self._lock:
            self._mounted.append((server, prefix))
            if self._native is not None:
                self._fold(server, prefix)

    def import_server(self, server: Server, prefix: str | None = None) -> None:
        """Copy ``server``'s current tools, resources and prompts into this one (a one-time copy)."""
        self._fold(server, prefix)

    def _fold(self, server: Server, prefix: str | None) -> None:
        if isinstance(server, FastMCP):
            for child, child_prefix in server._mounted:
                server._fold(child, child_prefix)
        for name, entry in list(server._tools.items()):
            e = copy.copy(entry)
            e.name = f"{prefix}_{name}" if prefix else name
            self._adopt("tool", e.name, e, self._tools)
        for uri, res_entry in list(server._resources.items()):
            r = copy.copy(res_entry)
            r.uri = prefix_uri(uri, prefix) if prefix else uri
            self._adopt("resource", r.uri, r, self._resources)
        for name, prompt_entry in list(server._prompts.items()):
            p = copy.copy(prompt_entry)
            p.name = f"{prefix}_{name}" if prefix else name
            self._adopt("prompt", p.name, p, self._prompts)
        for (ref_type, ref), router in server._completions.items():
            new_ref = (f"{prefix}_{ref}" if ref_type == "ref/prompt" else prefix_uri(ref, prefix)) if prefix else ref
            self._completions[(ref_type, new_ref)] = router

    def _adopt(self, kind: str, key: str, entry: Any, table: dict[str, Any]) -> None:
        with self._lock:
            if key in table:
                _log.warning("%s %r from a mounted server replaces an existing one", kind, key)
            table[key] = entry
            if self._native is not None:
                if kind == "tool":
                    self._native.remove_tool(key)
                    self._native.add_tool(entry.spec, entry, entry.is_async, *entry.limits)
                elif kind == "resource":
                    self._native.remove_resource(key, entry.is_template)
                    self._native.add_resource(entry.spec, entry, entry.is_async, entry.is_template,
                                              entry.required_scopes, self._screening(entry),
                                              getattr(entry, "list_variables", None))
                else:
                    self._native.remove_prompt(key)
                    self._native.add_prompt(entry.spec, entry, entry.is_async, entry.required_scopes)
        self._sync_visibility()

    def _build_native(self) -> Any:
        with self._lock:
            if self._native is None:
                for server, prefix in self._mounted:
                    self._fold(server, prefix)
                # FastMCP declares `completions` (and answers completion/complete) only for a
                # completion handler.
                self.options["completions"] = self._has_completer()
                native = super()._build_native()
            native = super()._build_native()
            self._sync_visibility()
            return super()._build_native()
            return native

    # -- errors -----------------------------------------------------------------------------------
    _argument_refusal = fastmcp_refusal  # the words of a refusal of a tool's arguments

    def _tool_error_text(self, name: str, exc: BaseException) -> str:
        head = self._error_prefix.format(name=name)
        return head if self.mask_error_details else f"{head}: {exc}"

    def _prompt_error_text(self, name: str, exc: BaseException) -> str | None:
        if self._prompt_error_prefix is None:
            return None
        head = self._prompt_error_prefix.format(name=name)
        return head if self.mask_error_details else f"{head}: {exc}"

    def _log_tool_failure(self, name: str, exc: BaseException) -> None:
        """FastMCP's record of a failed call (logger ``fastmcp.server.server``): a ``ValidationError`` as
        refused arguments (a warning), a ``ToolError`` at its own level and an upstream HTTP error response (an answer, not a crash) without a traceback,
        anything else with one."""
        from ._errors import ToolError
        from .exceptions import ValidationError

        log = logging.getLogger("fastmcp.server.server")
        if isinstance(exc, ValidationError):  # refused input: a warning, with none of the client's data
            log.warning("Invalid arguments for tool %r", name)
            return
        if isinstance(exc, ToolError):
            log.log(getattr(exc, "log_level", logging.ERROR), "Error calling tool %r", name)
            return
        status = getattr(getattr(exc, "response", None), "status_code", None)
        log.error("Error calling tool %r", name, exc_info=exc if status is None else None)

    # -- lifespan ---------------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _lifespan_running(self) -> AsyncIterator[Any]:
        from ._loops import on_asyncio

        st = self._lifespan
        # Client notifications are handed to the server's asyncio loop (none under trio: not heard).
        self._client_notifications.loop = asyncio.get_running_loop() if on_asyncio() else None
        if st.count == 0 and (self._lifespan_fn is not None or self._providers):
            stack = contextlib.AsyncExitStack()
            await stack.__aenter__()
            try:
                if self._lifespan_fn is not None:
                    st.value = await stack.enter_async_context(self._lifespan_fn(self))
                for provider in self._providers:
                    await stack.enter_async_context(provider.lifespan())
            except BaseException:
                await stack.__aexit__(*sys.exc_info())
                raise
            st.stack = stack
        st.count += 1
        try:
            yield st.value
        finally:
            st.count -= 1
            if st.count == 0 and st.stack is not None:
                stack, st.stack = st.stack, None
                await _finish(stack.aclose())
                st.value = None

    #: FastMCP's name of the same context manager.
    _lifespan_manager = _lifespan_running

    @property
    def lifespan_context(self) -> Any:
        return self._lifespan.value if self._lifespan.value is not None else {}

    # -- in-process calls that FastMCP servers make on themselves -------------------------------------
    async def read_resource_contents(self, uri: str) -> list[dict[str, Any]]:
        from ._inproc import read_resource

        return await read_resource(self, uri)


def prefix_uri(uri: str, prefix: str | None) -> str:
    """FastMCP's path-format resource prefix: ``scheme://rest`` → ``scheme://prefix/rest``."""
    if not prefix:
        return uri
    scheme, sep, rest = uri.partition("://")
    if not sep:
        raise DefinitionError(f"cannot prefix resource URI {uri!r}: it has no scheme")
    return f"{scheme}://{prefix}/{rest}"


# FastMCP's registration keywords that change nothing a client sees on oxmcp.
_TOOL_EXTRAS = ("tags", "exclude_args", "serializer", "version", "task", "app")
_OTHER_EXTRAS = ("tags", "version", "task")


async def _finish(teardown: Any) -> None:
    """Run a lifespan's tear-down to its end even when the serving task is being cancelled (a
    cancellation reaching it halfway would leave connections open); the cancellation is then passed
    on. Under trio (through anyio), in a shielded scope."""
    from ._loops import on_asyncio

    if not on_asyncio():
        import anyio

        with anyio.CancelScope(shield=True):
            await teardown
        return
    task = asyncio.ensure_future(teardown)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    task.result()
    if cancelled:
        raise asyncio.CancelledError


def _served_transforms() -> tuple[type, ...]:
    from .server.transforms.search import _SearchTransform
    from .server.transforms.tool_transform import ToolTransform

    return (_SearchTransform, ToolTransform)


def _dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    return value
