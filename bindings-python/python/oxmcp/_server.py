"""``Server``: decorators that register Python functions with the oxmcp core."""

from __future__ import annotations

import asyncio
import enum
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

from ._completions import CompletionRouter, check_completion_names, completion_values
from ._errors import DefinitionError
from ._handlers import CompletionEntry, PromptEntry, ResourceEntry, ToolEntry

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Server"]


class _Listing(list):  # type: ignore[type-arg]
    """What ``Server.list_tools()`` & co. return: the registered definitions. Calling it (the SDK's
    ``@server.list_tools()`` decorator on the wrong class) is a clear error."""

    def __init__(self, name: str, items: list[dict[str, Any]], model: str | None = None) -> None:
        super().__init__(items)
        self._name = name
        self._model = model

    def __await__(self) -> Any:
        """``await server.list_tools()`` (MCPServer's async spelling) gives the same list, as the SDK's
        models (``oxmcp.types``) when the class is the SDK's (``model``)."""
        if self._model is None:
            return _ready(self).__await__()
        from . import types

        cls = getattr(types, self._model)
        return _ready([cls.model_validate(item) for item in self]).__await__()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"oxmcp.Server.{self._name}() lists what is registered; it is not a decorator. For the "
                        f"SDK's low-level @server.{self._name}() use oxmcp.server.lowlevel.Server (or register "
                        "functions with @server.tool / @server.resource / @server.prompt)")


async def _ready(value: Any) -> Any:
    return value


def option_names() -> tuple[frozenset[str], frozenset[str]]:
    """The core's option names, snake_case and camelCase: (the server's, a listener's). The schema
    is the core's (docs/OPTIONS.md); this only asks it."""
    from . import _oxmcp

    server, listen = _oxmcp.option_names()
    return frozenset(server), frozenset(listen)


class Server:
    """An MCP server: register tools, resources and prompts with decorators, then ``run()``.

    Keyword options beyond the documented ones are the core's options (validation mode, cache
    hints, limits, state key) and the defaults of every listener (allowed origins and hosts, body
    and header limits, timeouts, ``tokens``, ``oauth``, ``rate_limit``): one schema, checked by the
    core, the same in every language (docs/README-python.md lists them). camelCase spellings are
    accepted too. An unknown option raises ``TypeError``, a bad value ``ValueError``.
    ``debug`` and ``max_workers`` are Python's own (the sync handler pool).
    """

    #: The host's token verifier the core asks about each bearer token (``async (token, None) ->
    #: ("ok", grant | None)``), set by ``MCPServer(token_verifier=...)``; None: the core's own checks.
    _token_verifier_entry: Any = None

    def __init__(self, name: str, version: str = "0.1.0", *, title: str | None = None,
                 instructions: str | None = None, website_url: str | None = None, description: str | None = None,
                 icons: list[dict[str, Any]] | None = None, debug: bool = False, max_workers: int | None = None,
                 **options: Any) -> None:
        from . import _oxmcp

        _oxmcp.check_options(options)
        self.name = name
        self.version = version
        self.title = title
        self.instructions = instructions
        self.website_url = website_url
        self.description = description
        self.icons = icons
        self.debug = debug
        self.max_workers = max_workers or min(32, (os.cpu_count() or 1) + 4)
        self.options: dict[str, Any] = options
        # Capabilities a subclass answers from Python with nothing registered (the low-level Server).
        self._declare: list[str] | None = None
        self._tools: dict[str, ToolEntry] = {}
        self._resources: dict[str, ResourceEntry] = {}
        self._prompts: dict[str, PromptEntry] = {}
        self._completions: dict[tuple[str, str], CompletionRouter] = {}
        self._native: Any = None
        self._middleware: list[Any] = []
        #: Called with the native server when it is built (a compatibility layer's methods, lookups).
        self._native_hooks: list[Callable[[Any], None]] = []
        self._skills: list[tuple[str, list[tuple[str, bytes]], bool]] = []
        self._dynamic_skills: list[tuple[str, dict[str, Any], Any, bool]] = []
        self._lock = threading.RLock()
        # The origin of the registrations made now: None (by hand) or the (module, file, line) a
        # discovery is registering from (set under the lock by ``discover``).
        self._origin: tuple[str, str, int] | None = None

    # -- identity ---------------------------------------------------------------------------------
    @property
    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "version": self.version}
        for key, value in (("title", self.title), ("instructions", self.instructions),
                           ("websiteUrl", self.website_url), ("description", self.description), ("icons", self.icons)):
            if value is not None:
                out[key] = value
        return out

    # -- tools --------------------------------------------------------------------------------------
    @overload
    def tool(self, fn: F) -> F: ...

    @overload
    def tool(self, fn: None = None, *, name: str | None = None, title: str | None = None,
             description: str | None = None, annotations: Any = None, icons: list[dict[str, Any]] | None = None,
             meta: dict[str, Any] | None = None, output_schema: dict[str, Any] | None | bool = None,
             structured_output: bool | None = None, input_schema: dict[str, Any] | None = None,
             timeout: float | None = None, required_scopes: list[str] | None = None,
             max_concurrency: int | None = None, task: bool | None = None, task_support: str | None = None,
             task_after: float | None = None, app: str | dict[str, Any] | None = None,
             refusal_text: Callable[..., Any] | None = None) -> Callable[[F], F]: ...

    def tool(self, fn: Any = None, **kwargs: Any) -> Any:
        """Register a function as a tool: ``@server.tool`` or ``@server.tool(name=..., ...)``."""
        if isinstance(fn, str):  # @server.tool("name")
            kwargs.setdefault("name", fn)
            fn = None
        if fn is None:
            def deco(f: F) -> F:
                self.add_tool(f, **kwargs)
                return f
            return deco
        self.add_tool(fn, **kwargs)
        return fn

    def add_tool(self, fn: Callable[..., Any], *, name: str | None = None, title: str | None = None,
                 description: str | None = None, annotations: Any = None, icons: list[dict[str, Any]] | None = None,
                 meta: dict[str, Any] | None = None, output_schema: dict[str, Any] | None | bool = None,
                 structured_output: bool | None = None, input_schema: dict[str, Any] | None = None,
                 timeout: float | None = None, required_scopes: list[str] | None = None,
                 max_concurrency: int | None = None, task: bool | None = None, task_support: str | None = None,
                 task_after: float | None = None, app: str | dict[str, Any] | None = None,
                 refusal_text: Callable[..., Any] | None = None, replace: bool = False) -> ToolEntry:
        """Register a tool, also while serving (clients get ``notifications/tools/list_changed``).

        ``input_schema`` replaces the schema built from the signature; the function then gets the
        arguments as plain JSON values (``**kwargs`` allowed). ``timeout`` (seconds) bounds a call
        (it answers ``isError`` and the handler is cancelled); ``required_scopes`` are OAuth scopes a
        caller must hold (HTTP 403 ``insufficient_scope`` otherwise); ``max_concurrency`` caps the
        calls of this tool running at once (the rest answer ``isError`` at once).

        Tasks extension: ``task=True`` (FastMCP's spelling) or ``task_support="optional"`` lets a
        call become a durable task when the client supports it (``"required"``: only as a task,
        -32021 otherwise); ``task_after`` (seconds) runs the call as a plain request that long
        first and turns it into a task only if it is still running (default: a task at once).

        MCP Apps: ``app="ui://..."`` (or ``{"resource_uri": ..., "visibility": ["model", "app"]}``)
        links the tool to a UI resource registered with :meth:`ui_resource`. ``refusal_text(arguments,
        violations)`` words a refusal of the arguments (the core decides it): the text, or None for the core's.
        """
        if app is not None:
            from ._apps import tool_ui_meta
            meta = tool_ui_meta(app, meta)
        entry = ToolEntry(fn, self, name=name, title=title, description=description, annotations=annotations,
                          icons=icons, meta=meta, output_schema=output_schema, structured_output=structured_output,
                          input_schema=input_schema, timeout=timeout, required_scopes=required_scopes,
                          max_concurrency=max_concurrency, task=task, task_support=task_support,
                          task_after=task_after, refusal_text=refusal_text)
        self._adapt_tool(entry)
        with self._lock:
            existing = self._tools.get(entry.name)
            if self._settle("tool", entry.name, existing, replace,
                            f"a tool named {entry.name!r} is already registered") == "skip":
                return existing  # type: ignore[return-value]
            if self._native is not None:
                if existing is not None:
                    self._native.remove_tool(entry.name)
                self._native.add_tool(entry.spec, entry, entry.is_async, *entry.limits)
            entry.origin = self._origin
            self._tools[entry.name] = entry
        return entry

    def _settle(self, kind: str, name: str, existing: Any, replace: bool, taken: str) -> str:
        """What to do with a registration of ``name`` from ``self._origin`` where ``existing`` is:
        ``"add"``, ``"replace"`` or ``"skip"``. Between a registration by hand and a discovered one
        the core decides (``oxmcp::discovery::admit``: by hand wins, two discovered are an error
        naming both places); two by hand are ``taken`` unless ``replace``."""
        if existing is None:
            return "add"
        previous = existing.origin
        if previous is None and self._origin is None:
            if replace:
                return "replace"
            raise DefinitionError(taken)
        from . import _oxmcp

        try:
            return str(_oxmcp.admit_registration(kind, name, previous, self._origin))
        except ValueError as e:
            raise DefinitionError(str(e)) from None

    def add_tools(self, tools: Iterable[Callable[..., Any] | dict[str, Any]]) -> list[ToolEntry]:
        """Register many tools as one change: each item is a function (as ``add_tool(fn)``) or a dict
        of :meth:`add_tool`'s keyword arguments with the function under ``"fn"``
        (``{"fn": f, "name": "x", "timeout": 5}``).

        All or none: a bad definition, a name already registered or a name twice in the batch
        raises :class:`DefinitionError` naming the tool, and none of the batch is registered.
        While serving, the batch is one registry change: clients get at most one
        ``notifications/tools/list_changed`` for it. (``replace`` is not taken here.)
        """
        entries: list[ToolEntry] = []
        seen: set[str] = set()
        for i, item in enumerate(tools):
            kwargs: dict[str, Any] = dict(item) if isinstance(item, dict) else {"fn": item}
            fn = kwargs.pop("fn", None)
            label = kwargs.get("name") or getattr(fn, "__name__", None) or f"#{i}"
            if not callable(fn):
                raise DefinitionError(f"add_tools: tool {label!r} (item {i}) has no function (\"fn\")")
            if "replace" in kwargs:
                raise DefinitionError(f"add_tools: tool {label!r}: replace is not taken in a batch")
            prepared = self._prepare_tool(fn, kwargs)
            if prepared is None:
                continue
            fn, kwargs = prepared
            app = kwargs.pop("app", None)
            if app is not None:
                from ._apps import tool_ui_meta
                kwargs["meta"] = tool_ui_meta(app, kwargs.get("meta"))
            try:
                entry = ToolEntry(fn, self, **kwargs)
            except DefinitionError as e:
                raise DefinitionError(f"add_tools: tool {label!r}: {e}") from e
            except TypeError as e:
                raise DefinitionError(f"add_tools: tool {label!r}: {e}") from e
            self._adapt_tool(entry)
            if entry.name in seen:
                raise DefinitionError(f"add_tools: tool {entry.name!r} is twice in the batch")
            seen.add(entry.name)
            entries.append(entry)
        with self._lock:
            # A discovered tool of the same name is replaced (the core's rule); one by hand refuses the batch.
            replaced = [e.name for e in entries
                        if self._settle("tool", e.name, self._tools.get(e.name), False,
                                        f"a tool named {e.name!r} is already registered") == "replace"]
            if self._native is not None and entries:
                for name in replaced:
                    self._native.remove_tool(name)
                self._native.add_tools([(e.spec, e, e.is_async, *e.limits) for e in entries])
            for entry in entries:
                entry.origin = self._origin
                self._tools[entry.name] = entry
        return entries

    # Hooks of the FastMCP-compatible classes (oxmcp/_fastmcp.py), so that add_tool and add_tools
    # apply the same rules: their keywords, their listing defaults.
    def _prepare_tool(self, fn: Callable[..., Any], kwargs: dict[str, Any]) -> tuple[Callable[..., Any], dict[str, Any]] | None:
        """An ``add_tools`` item's function and ``add_tool`` keywords; None: the item is skipped."""
        return fn, kwargs

    def _adapt_tool(self, entry: ToolEntry) -> None:
        """Adjust a new tool's entry before it is registered (listed)."""

    def _adapt_prompt(self, entry: PromptEntry) -> None:
        """Adjust a new prompt's entry before it is registered (listed)."""

    def remove_tool(self, name: str) -> bool:
        """Unregister a tool; returns whether it existed."""
        with self._lock:
            existed = self._tools.pop(name, None) is not None
            if existed and self._native is not None:
                self._native.remove_tool(name)
            return existed

    # -- resources ------------------------------------------------------------------------------------
    def ui_resource(self, uri: str, *, name: str | None = None, title: str | None = None,
                    description: str | None = None, connect_domains: list[str] | None = None,
                    resource_domains: list[str] | None = None, frame_domains: list[str] | None = None,
                    base_uri_domains: list[str] | None = None, permissions: dict[str, Any] | None = None,
                    domain: str | None = None, prefers_border: bool | None = None) -> Callable[[F], F]:
        """Register an MCP App's UI: the function returns the HTML of the ``ui://`` resource.

        It is served as ``text/html;profile=mcp-app`` with ``_meta.ui`` (the CSP domains,
        ``permissions``, ``domain``, ``prefers_border``) on the listing and the contents; link a
        tool to it with ``@server.tool(app=uri)``.
        """
        from ._apps import RESOURCE_MIME_TYPE, ui_meta, wrap_html
        ui = ui_meta(connect_domains=connect_domains, resource_domains=resource_domains,
                     frame_domains=frame_domains, base_uri_domains=base_uri_domains, permissions=permissions,
                     domain=domain, prefers_border=prefers_border)

        def deco(f: F) -> F:
            self.add_resource(wrap_html(f, ui), uri, name=name, title=title, description=description,
                              mime_type=RESOURCE_MIME_TYPE, meta={"ui": ui} if ui else None)
            return f
        return deco

    def resource(self, uri: str, *, name: str | None = None, title: str | None = None,
                 description: str | None = None, mime_type: str | None = None, size: int | None = None,
                 icons: list[dict[str, Any]] | None = None, annotations: dict[str, Any] | None = None,
                 meta: dict[str, Any] | None = None,
                 completions: dict[str, Callable[..., Any] | list[str] | type[enum.Enum]] | None = None,
                 required_scopes: list[str] | None = None) -> Callable[[F], F]:
        """Register a resource (``"config://app"``) or a template (``"user://{id}/profile"``).

        ``required_scopes``: OAuth scopes a caller must hold to read it (HTTP 403
        ``insufficient_scope`` otherwise), as on a tool."""
        def deco(f: F) -> F:
            self.add_resource(f, uri, name=name, title=title, description=description, mime_type=mime_type,
                              size=size, icons=icons, annotations=annotations, meta=meta, completions=completions,
                              required_scopes=required_scopes)
            return f
        return deco

    def add_resource(self, fn: Callable[..., Any], uri: str, *, completions: dict[str, Any] | None = None,
                     **kwargs: Any) -> ResourceEntry:
        entry = ResourceEntry(fn, uri, self, **kwargs)
        if completions:
            check_completion_names(uri, list(completions), None)
        with self._lock:
            existing = self._resources.get(uri)
            kind = "resource template" if entry.is_template else "resource"
            if self._settle(kind, uri, existing, False, f"a resource {uri!r} is already registered") == "skip":
                return existing  # type: ignore[return-value]
            if self._native is not None:
                if existing is not None:
                    self._native.remove_resource(uri, existing.is_template)
                self._native.add_resource(entry.spec, entry, entry.is_async, entry.is_template,
                                          entry.required_scopes, self._screening(entry),
                                          getattr(entry, "list_variables", None))
            entry.origin = self._origin
            self._resources[uri] = entry
        for argument, completer in (completions or {}).items():
            self._add_completion("ref/resource", uri, argument, completer)
        return entry

    def _screening(self, entry: ResourceEntry) -> tuple[bool, bool, bool, list[str]] | None:
        """A template's value policy for the core's matcher (``add_resource``'s ``screen``): the
        entry's own, else None (the matcher's own refusals). Compatibility layers whose framework
        screens values its own way say how."""
        return entry.screen

    def remove_resource(self, uri: str) -> bool:
        with self._lock:
            entry = self._resources.pop(uri, None)
            if entry is not None and self._native is not None:
                self._native.remove_resource(uri, entry.is_template)
            return entry is not None

    # -- prompts --------------------------------------------------------------------------------------
    @overload
    def prompt(self, fn: F) -> F: ...

    @overload
    def prompt(self, fn: None = None, *, name: str | None = None, title: str | None = None,
               description: str | None = None, icons: list[dict[str, Any]] | None = None,
               meta: dict[str, Any] | None = None,
               completions: dict[str, Callable[..., Any] | list[str] | type[enum.Enum]] | None = None,
               required_scopes: list[str] | None = None) -> Callable[[F], F]: ...

    def prompt(self, fn: Any = None, **kwargs: Any) -> Any:
        """Register a prompt: its parameters become the prompt's arguments."""
        if isinstance(fn, str):
            kwargs.setdefault("name", fn)
            fn = None
        if fn is None:
            def deco(f: F) -> F:
                self.add_prompt(f, **kwargs)
                return f
            return deco
        self.add_prompt(fn, **kwargs)
        return fn

    def add_prompt(self, fn: Callable[..., Any], *, completions: dict[str, Any] | None = None,
                   **kwargs: Any) -> PromptEntry:
        entry = PromptEntry(fn, self, **kwargs)
        self._adapt_prompt(entry)
        if completions:
            check_completion_names(entry.name, list(completions), list(entry.info.param_names))
        with self._lock:
            existing = self._prompts.get(entry.name)
            if self._settle("prompt", entry.name, existing, False,
                            f"a prompt named {entry.name!r} is already registered") == "skip":
                return existing  # type: ignore[return-value]
            if self._native is not None:
                if existing is not None:
                    self._native.remove_prompt(entry.name)
                self._native.add_prompt(entry.spec, entry, entry.is_async, entry.required_scopes)
            entry.origin = self._origin
            self._prompts[entry.name] = entry
        for argument, completer in (completions or {}).items():
            self._add_completion("ref/prompt", entry.name, argument, completer)
        return entry

    def remove_prompt(self, name: str) -> bool:
        with self._lock:
            existed = self._prompts.pop(name, None) is not None
            if existed and self._native is not None:
                self._native.remove_prompt(name)
            return existed

    # -- explicit elements ----------------------------------------------------------------------------
    def add(self, definition: Any, handler: Callable[..., Any]) -> Any:
        """Register an explicit element: a definition as the spec shapes it (a dict, or a
        ``types.Tool`` / ``Prompt`` / ``Resource`` / ``ResourceTemplate``) with its handler.

        The core checks the pairing (``oxmcp::element::check``, the same rule and texts as Node):
        the definition's kind (``inputSchema``: a tool, ``uriTemplate``: a resource template,
        ``uri``: a resource, otherwise a prompt), that a handler marked ``@oxmcp.tool`` & co. was
        marked for that kind, and that a tool's input schema is an object schema; a
        :class:`DefinitionError` otherwise. A prompt's listed ``arguments`` are the handler's
        parameters. Returns the registered entry."""
        from . import _oxmcp
        from ._discovery import MARK

        spec = definition.model_dump(by_alias=True, exclude_none=True) if hasattr(definition, "model_dump") \
            else definition
        if not isinstance(spec, dict):
            raise TypeError("add(definition, handler): the definition is a dict or an mcp types model, "
                            f"not {type(definition).__name__}")
        if not callable(handler):
            raise TypeError("add(definition, handler): the handler must be callable")
        marks = sorted({m.kind for m in getattr(handler, MARK, None) or []})
        try:
            kind = _oxmcp.check_element(spec)
            if marks:
                fits = []
                for m in marks:
                    try:
                        _oxmcp.check_element(spec, m)
                        fits.append(m)
                    except ValueError:
                        pass
                if not fits:
                    _oxmcp.check_element(spec, marks[0])
        except ValueError as e:
            raise DefinitionError(str(e)) from None
        common = {"name": spec["name"], "title": spec.get("title"), "description": spec.get("description"),
                  "icons": spec.get("icons"), "meta": spec.get("_meta")}
        if kind == "tool":
            return self.add_tool(handler, **common, annotations=spec.get("annotations"),
                                 input_schema=spec["inputSchema"], output_schema=spec.get("outputSchema", False))
        if kind == "prompt":
            entry = PromptEntry(handler, self, name=spec["name"])
            listed = [a.get("name") for a in spec.get("arguments") or []]
            own = [a["name"] for a in entry.spec.get("arguments") or []]
            if "arguments" in spec and sorted(listed) != sorted(own):
                raise DefinitionError(f"prompt {spec['name']!r}: the definition lists the arguments {listed}, "
                                      f"the handler takes {own}")
            return self.add_prompt(handler, **common)
        uri = str(spec["uri"] if kind == "resource" else spec["uriTemplate"])
        return self.add_resource(handler, uri, **common, mime_type=spec.get("mimeType"), size=spec.get("size"),
                                 annotations=spec.get("annotations"))

    # -- completions ----------------------------------------------------------------------------------
    def completion(self, *, prompt: str | None = None, resource: str | None = None,
                   argument: str) -> Callable[[F], F]:
        """Register a completer: ``fn(value)`` or ``fn(value, context_args)`` → list of strings.

        ``@server.completion(prompt="greet", argument="name")`` or ``(resource="user://{id}", argument="id")``.
        """
        if (prompt is None) == (resource is None):
            raise TypeError("completion() needs exactly one of prompt= or resource=")

        def deco(f: F) -> F:
            if prompt is not None:
                self._add_completion("ref/prompt", prompt, argument, f)
            else:
                assert resource is not None
                self._add_completion("ref/resource", resource, argument, f)
            return f
        return deco

    def _add_completion(self, ref_type: str, ref: str, argument: str, completer: Any) -> None:
        with self._lock:
            key = (ref_type, ref)
            router = self._completions.get(key)
            new = router is None
            if router is None:
                router = self._completions[key] = CompletionRouter(self)
            values = completion_values(completer)
            if values is None:
                router.by_argument[argument] = CompletionEntry(completer, self)
                router.values.pop(argument, None)
            else:
                router.values[argument] = values
                router.by_argument.pop(argument, None)
            if self._native is not None:
                self._native.set_completion(ref_type, ref, router, router.is_async, router.values)
            del new

    # -- middleware -------------------------------------------------------------------------------------
    def add_middleware(self, middleware: Any) -> None:
        """Add a middleware (``oxmcp.server.middleware.Middleware`` subclass, FastMCP-shaped, or any
        ``async (context, call_next)`` callable) at the end of the chain; the first added runs first."""
        from .server.middleware import install

        install(self, middleware)

    # -- introspection (what the core will list) ------------------------------------------------------
    # The SDK's low-level Server uses these names as decorator factories (``@server.list_tools()``);
    # here they list what is registered. The list they return refuses to be used as a decorator with
    # an error that says so (instead of "'list' object is not callable").
    def list_tools(self) -> list[dict[str, Any]]:
        return _Listing("list_tools", [t.spec for t in self._tools.values()])

    def list_resources(self) -> list[dict[str, Any]]:
        return _Listing("list_resources", [r.spec for r in self._resources.values() if not r.is_template])

    def list_resource_templates(self) -> list[dict[str, Any]]:
        return _Listing("list_resource_templates", [r.spec for r in self._resources.values() if r.is_template])

    def list_prompts(self) -> list[dict[str, Any]]:
        return _Listing("list_prompts", [p.spec for p in self._prompts.values()])

    def get_tool(self, name: str) -> ToolEntry:
        return self._tools[name]

    # -- discovery ------------------------------------------------------------------------------------
    def discover(self, target: str | os.PathLike[str], *, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
        """Import every module of the package ``target`` (``"myapp.tools"``) or of the directory
        ``target``, in sorted order, and register what ``@oxmcp.tool`` / ``@oxmcp.resource`` /
        ``@oxmcp.prompt`` marked there. ``exclude``: subpackage or directory names (``"vendor"``) and
        dotted module names skipped with what is below them.

        A name registered by hand wins over a discovered one, before or after; two discovered
        with one name raise :class:`DefinitionError` naming both places, and so does a module
        that fails to import (naming its file; the exception is chained). Returns what this call
        found, as :meth:`discovered` lists it."""
        from ._discovery import discover

        return [{"kind": "resource template" if f.kind == "resource" and "{" in f.name else f.kind,
                 "name": f.name, "module": f.module, "file": f.file, "line": f.line}
                for f in discover(self, target, exclude)]

    def discovered(self) -> list[dict[str, Any]]:
        """What is registered from discovery (a name registered by hand is not), with its place:
        ``{"kind", "name", "module", "file", "line"}``, tools, resources and templates, prompts."""
        out: list[dict[str, Any]] = []
        rows: list[tuple[str, str, Any]] = [("tool", n, e) for n, e in self._tools.items()]
        rows += [("resource template" if e.is_template else "resource", n, e) for n, e in self._resources.items()]
        rows += [("prompt", n, e) for n, e in self._prompts.items()]
        for kind, name, entry in rows:
            if entry.origin is not None:
                module, file, line = entry.origin
                out.append({"kind": kind, "name": name, "module": module, "file": file, "line": line})
        return out

    # -- skills (the Skills extension) -------------------------------------------------------------------
    def _add_skill_wire(self, wire: list[tuple[str, list[tuple[str, bytes]]]], listed: bool = True) -> None:
        marked = [(path, files, listed) for path, files in wire]
        with self._lock:
            if self._native is not None:
                self._native.add_skills(marked)
            self._skills.extend(marked)

    def add_skill(self, skill: Any, path: str | None = None, *, listed: bool = True) -> str:
        """Serve an ``oxmcp.skills.Skill`` at ``skill://{path}/`` (default: its name); returns its
        ``SKILL.md`` URI. Its files become resources; ``skills/list`` lists it. ``listed=False``
        leaves it (and its files) out of the listings: a host that holds its URI still gets it with
        ``skills/get`` and reads its files."""
        wire = skill._wire(path)
        self._add_skill_wire([wire], listed)
        return f"skill://{wire[0]}/SKILL.md"

    def add_skills_dir(self, root: str | os.PathLike[str], *, listed: bool = True) -> list[str]:
        """Serve every folder below ``root`` that holds a ``SKILL.md``, at its path relative to
        ``root``. Read once, now; a malformed skill, a symlink or a non-UTF-8 ``SKILL.md`` raises
        ``ValueError`` naming the file and the rule. Returns the ``SKILL.md`` URIs."""
        from . import _oxmcp

        wire = _oxmcp.skills_load_dir(os.fspath(root))
        self._add_skill_wire(wire, listed)
        return [f"skill://{path}/SKILL.md" for path, _ in wire]

    def dynamic_skill(self, path: str, *, description: str, frontmatter: dict[str, Any] | None = None,
                      mime_type: str | None = None, listed: bool = True) -> Callable[[F], F]:
        """A skill whose files are generated per read: the function takes ``file`` (the path under
        the skill's folder, ``SKILL.md`` first) and returns its text or bytes. Its entry says
        ``"resources": "dynamic"``; the last segment of ``path`` is its name."""
        def deco(f: F) -> F:
            name = path.strip("/").rsplit("/", 1)[-1]
            fm = {"name": name, "description": description, **(frontmatter or {})}
            entry = ResourceEntry(f, f"skill://{path.strip('/')}/{{+file}}", self, description=description,
                                  mime_type=mime_type)
            with self._lock:
                if self._native is not None:
                    self._native.add_dynamic_skill(path, fm, entry, entry.is_async, listed)
                self._dynamic_skills.append((path, fm, entry, listed))
            return f
        return deco

    def add_provider(self, provider: Any) -> None:
        """Register a skill provider (``SkillsDirectoryProvider``, ``SkillCatalogProvider``: FastMCP's
        spellings). Other providers are refused: oxmcp registers components on the server itself."""
        from .skills.provider import SkillCatalogProvider

        if not isinstance(provider, SkillCatalogProvider):
            raise TypeError(f"add_provider({type(provider).__name__}): oxmcp accepts skill providers only; "
                            "register other components on the server (tool/resource/prompt, mount)")
        self._add_skill_wire(provider._wire())

    def add_extension(self, extension: Any) -> None:
        """Register a server extension. ``SkillsExtension`` is declared whenever a skill is served."""
        from .skills import SkillsExtension

        if not isinstance(extension, SkillsExtension):
            raise TypeError(f"add_extension({type(extension).__name__}): oxmcp serves the Skills extension "
                            "(and Tasks, Apps through their own options) only")

    # -- the native core --------------------------------------------------------------------------------
    def _build_native(self) -> Any:
        """Create (once) the core server holding every registered definition."""
        with self._lock:
            if self._native is not None:
                return self._native
            from . import _oxmcp

            # `_declare`: capabilities a subclass answers from Python with nothing registered (low-level Server).
            native = _oxmcp.NativeServer(self.info, self.options, self.max_workers, self._declare,
                                         self._token_verifier_entry)
            # One registry version for every tool registered before serving.
            native.add_tools([(t.spec, t, t.is_async, *t.limits) for t in self._tools.values()])
            for r in self._resources.values():
                native.add_resource(r.spec, r, r.is_async, r.is_template, r.required_scopes,
                                    self._screening(r), getattr(r, "list_variables", None))
            for p in self._prompts.values():
                native.add_prompt(p.spec, p, p.is_async, p.required_scopes)
            for (ref_type, ref), router in self._completions.items():
                native.set_completion(ref_type, ref, router, router.is_async, router.values)
            if self._skills:
                native.add_skills(self._skills)
            for path, frontmatter, entry, listed in self._dynamic_skills:
                native.add_dynamic_skill(path, frontmatter, entry, entry.is_async, listed)
            for hook in self._native_hooks:
                hook(native)
            if self._middleware:
                from .server.middleware import hooked_methods

                for m in self._middleware:
                    methods = m.hooks() if hasattr(m, "hooks") else hooked_methods(m.middleware)
                    native.add_middleware(m, m.is_async, methods)
            self._native = native
            return native

    @property
    def native(self) -> Any:
        return self._build_native()

    # -- running ----------------------------------------------------------------------------------------
    def run(self, transport: str = "stdio", *, host: str | None = None, port: int | None = None, path: str = "/mcp",
            **http_options: Any) -> None:
        """Serve until stdin closes (stdio) or SIGINT/SIGTERM (both transports); exits cleanly on a signal.

        ``host``/``port`` default to 127.0.0.1:8000. ``http_options`` (HTTP only) override the server's for
        this listener: ``tokens``, ``oauth``, ``rate_limit``, ``allowed_origins``, ``allowed_hosts``, ``uds``
        (a Unix socket path, in place of host and port) and ``uds_mode``, ... (the listener options of the
        core's schema).
        """
        try:
            asyncio.run(self.run_async(transport, host=host, port=port, path=path, _signals=True, **http_options))
        except KeyboardInterrupt:
            pass

    async def run_async(self, transport: str = "stdio", *, host: str | None = None, port: int | None = None,
                        path: str = "/mcp", _signals: bool = False, **http_options: Any) -> None:
        """Serve on the running asyncio loop (async handlers run on it) until cancelled or the transport ends.

        ``transport="sse"`` serves Streamable HTTP at ``path`` and the 2024-11-05 HTTP+SSE transport beside
        it (``sse_path``, ``messages_path`` options; default ``/sse``, ``/messages``).
        """
        if transport == "sse":
            transport = "http"
            http_options["sse"] = True
        if transport not in ("stdio", "http", "streamable-http"):
            raise ValueError(f"unknown transport {transport!r}: 'stdio' or 'http'")
        if http_options and transport == "stdio":
            raise TypeError(f"{', '.join(sorted(http_options))}: HTTP options, but the transport is stdio "
                            "(stdio servers take credentials from their environment)")
        native = self._build_native()
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        installed: list[signal.Signals] = []
        # Handlers first: a signal that arrives as soon as the port is open must stop us cleanly.
        if _signals and threading.current_thread() is threading.main_thread() and sys.platform != "win32":
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
                installed.append(sig)
        done: asyncio.Future[Any] | None = None
        stopper = asyncio.ensure_future(stop.wait())
        try:
            if transport == "stdio":
                handle = native.serve_stdio(loop)
            else:
                handle = native.serve_http(loop, host, None if port is None else int(port), path,
                                           http_options or None)
            done = asyncio.ensure_future(handle.wait())
            await asyncio.wait({done, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            stopper.cancel()
            if done is not None and not done.done():
                handle.shutdown()
                # The core drains (then cancels) in-flight requests within its drain deadline.
                drain = handle.drain_timeout
                try:
                    await asyncio.wait_for(asyncio.shield(done), timeout=drain + 2)
                except (asyncio.TimeoutError, asyncio.CancelledError):
                    pass
        if done is not None and done.done() and not done.cancelled():
            exc = done.exception()
            if exc is not None:
                raise exc

    def asgi_app(self, path: str = "/mcp", **http_options: Any) -> Any:
        """An ASGI 3 application serving Streamable HTTP through the core (mount it in Starlette/FastAPI).

        ``http_options``: listener options for the mount (``max_body_bytes``, ``allowed_hosts``, ...),
        over the server's; see :meth:`_mount_options`.
        """
        from ._asgi import AsgiApp

        # A path other than the default is the endpoint's: the core's path rules (metrics) see it.
        self._mount_options({"path": path, **http_options} if path != "/mcp" else http_options)
        return AsgiApp(self, path)

    def _mount_options(self, http_options: dict[str, Any]) -> None:
        """Listener options given to an in-process mount: checked by the core now (the same rule and
        text as for ``run("http", ...)`` and Node's ``nodeHandler(options)``), then the mount's, since
        the mount serves with the server's listener options. Refused once the core server exists:
        the mount's handler is made with it, and a silently unapplied option is what this prevents."""
        if not http_options:
            return
        from . import _oxmcp

        _oxmcp.check_listen_options(self.options, http_options)
        # Key by key, whichever spelling (``max_body_bytes`` or ``maxBodyBytes``) each side used.
        given = {_snake(k) for k in http_options}
        merged = {k: v for k, v in self.options.items() if _snake(k) not in given} | http_options
        if self._native is not None:
            raise RuntimeError("mount options must be given before the server starts serving")
        self.options = merged

    def main(self, argv: list[str] | None = None) -> None:
        """The shared example command line: no arguments → stdio; ``--http HOST:PORT`` → Streamable HTTP."""
        import argparse

        parser = argparse.ArgumentParser(prog=self.name, description=f"MCP server {self.name!r}")
        parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at /mcp instead of stdio")
        parser.add_argument("--path", default="/mcp", help="HTTP endpoint path (default /mcp)")
        args = parser.parse_args(argv)
        if args.http:
            host, _, port = args.http.rpartition(":")
            self.run("http", host=host.strip("[]") or "127.0.0.1", port=int(port), path=args.path)
        else:
            self.run()


def _snake(name: str) -> str:
    """``maxBodyBytes`` → ``max_body_bytes`` (the core's two spellings of one option)."""
    return "".join("_" + c.lower() if c.isupper() else c for c in name)
