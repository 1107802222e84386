"""FastMCP's component API on oxmcp's ``FastMCP``: ``enable``/``disable``, ``read_resource``, and the
path policy (``ResourceSecurity``) of its resource templates.

``enable``/``disable`` stack FastMCP's visibility rules (names, keys, tags, kinds; the last rule
that matches a component decides). A component they hide leaves the core's registry (it is kept
here, to come back when a later rule shows it), so every path the core answers (lists, calls,
reads, completions, a client in this process) finds it unknown, as FastMCP answers it. The rules
hold for components registered later too. A component's tags are those FastMCP lists in its
``_meta.fastmcp.tags``.

A template's policy (``@mcp.resource(uri, security=...)``, or the server's ``resource_security=``
when it sets none) is the core's screening of that template's values (``add_resource``'s
``screening``): the core's matcher applies it on every read, from a client or in-process, and a
mounted template takes the mounting server's default as FastMCP resolves it at the reading server.

A read goes through the core as a client's ``resources/read`` (the core matches the URI, screens the
values a template extracts, runs the middleware chain and the handler), and its answer comes back as
FastMCP's ``ResourceResult``. The core answers a refused template value as it answers an unknown URI
(so that a client learns nothing from it); an in-process caller gets FastMCP's
``ResourceSecurityError`` instead of ``NotFoundError`` when a template of this server matches the URI
and its policy names the value the core refused.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from ._reword import RewordingLink, missing_arguments_text
from .resources.security import DEFAULT_RESOURCE_SECURITY, INHERIT_SECURITY, InheritSecurity

__all__ = ["Components"]

#: The core's answer to a URI that no resource or template serves (and to a refused value).
_NOT_FOUND = (-32002, "Resource not found")


class Components:
    """The mixin ``FastMCP`` takes its in-process component calls from."""

    _resources: dict[str, Any]
    _mounted: list[tuple[Any, str | None]]
    #: The server's ``resource_security=`` (None: templates that set no policy are not screened).
    _resource_default: Any = DEFAULT_RESOURCE_SECURITY

    _native: Any
    _build_native: Callable[[], Any]
    _tools: dict[str, Any]
    _prompts: dict[str, Any]
    _lock: Any

    _fastmcp_meta: bool

    def _speaks_fastmcp(self) -> bool:
        """FastMCP's own rules (its ``_meta.fastmcp``, its template policy) apply: not on the SDK
        layers built on this class (MCPServer, mcp 1.x's FastMCP), which screen templates their
        own way (``_template_policy``)."""
        return self._fastmcp_meta and getattr(type(self), "_template_policy", None) is None

    @property
    def _dump_structured(self) -> Any:
        """FastMCP's serialisation of a structured result (non-finite floats refused with a
        ``ToolError`` naming the value and its path); None on the SDK layers."""
        if not self._speaks_fastmcp():
            return None
        from .tools.base import serialize_checked

        return serialize_checked

    # -- visibility -------------------------------------------------------------------------------
    def enable(self, *, names: Any = None, keys: Any = None, version: Any = None, tags: Any = None,
               components: Any = None, only: bool = False) -> Any:
        """Show the components matching every given criterion (``only=True``: those alone)."""
        rules = self.__dict__.setdefault("_visibility", [])
        if only:
            rules.append(_Rule(False, match_all=True))
        rules.append(_Rule(True, names=names, keys=keys, version=version, tags=tags, components=components))
        self._sync_visibility()
        return self

    def disable(self, *, names: Any = None, keys: Any = None, version: Any = None, tags: Any = None,
                components: Any = None) -> Any:
        """Hide the components matching every given criterion (a later ``enable`` may show them)."""
        self.__dict__.setdefault("_visibility", []).append(
            _Rule(False, names=names, keys=keys, version=version, tags=tags, components=components))
        self._sync_visibility()
        return self

    def _visible(self, kind: str, key: str, entry: Any) -> bool:
        shown = True
        for rule in self.__dict__.get("_visibility", ()):
            if rule.matches(kind, key, entry):
                shown = rule.enabled
        return shown

    def _components(self) -> list[tuple[str, str, Any]]:
        out = [("tool", k, e) for k, e in self._tools.items()]
        out += [("template" if e.is_template else "resource", k, e) for k, e in self._resources.items()]
        return out + [("prompt", k, e) for k, e in self._prompts.items()]

    def _sync_visibility(self) -> None:
        """Take the components the rules hide out of the core's registry, and put back the ones a
        later rule shows."""
        if not self.__dict__.get("_visibility"):
            return
        with self._lock:
            hidden: set[tuple[str, str]] = self.__dict__.setdefault("_hidden", set())
            native = self._native
            for kind, key, entry in self._components():
                if self._visible(kind, key, entry):
                    if (kind, key) in hidden:
                        hidden.discard((kind, key))
                        if native is not None:
                            _register(self, native, kind, key, entry)
                elif native is not None:
                    hidden.add((kind, key))
                    _unregister(native, kind, key)
                else:
                    hidden.add((kind, key))

    def _with_mounted(self) -> None:
        """Mounted servers' components join this one's tables when its core is built: before an
        in-process listing, build it."""
        if self._mounted and self._native is None:
            self._build_native()

    def _shown(self, listing: list[dict[str, Any]], kind: str, field: str) -> list[dict[str, Any]]:
        """An in-process listing without what the rules hide."""
        hidden = self.__dict__.get("_hidden")
        if not hidden:
            return listing
        kinds = ("resource", "template") if kind == "resource" else (kind,)
        return [d for d in listing if not any((k, d.get(field)) in hidden for k in kinds)]

    def _completes(self, ref: Any) -> bool:
        """Whether a completion reference names a prompt or resource template this server lists
        (registered and not hidden by a visibility rule): a template by its own URI template."""
        hidden = self.__dict__.get("_hidden") or ()
        if getattr(ref, "type", None) == "ref/prompt":
            return ref.name in self._prompts and ("prompt", ref.name) not in hidden
        entry = self._resources.get(str(getattr(ref, "uri", "")))
        return entry is not None and entry.is_template and ("template", ref.uri) not in hidden

    @property
    def middleware(self) -> list[Any]:
        """FastMCP's ``mcp.middleware``: the server's middleware, first added first. ``append`` adds
        one (``add_middleware``); any other change is refused, not left unapplied."""
        from .server.middleware import MiddlewareEntry

        return _MiddlewareList(self, [e.middleware for e in self._middleware  # type: ignore[attr-defined]
                                      if isinstance(e, MiddlewareEntry)])

    # -- one component, as FastMCP's get_tool / get_prompt find it -----------------------------------
    async def get_tool(self, name: str, version: Any = None) -> Any:  # type: ignore[override]
        """FastMCP's ``await mcp.get_tool(name)``: the tool as this server lists it (a ``Tool``), or
        None when none is registered or a visibility rule hides it."""
        from .tools.base import Tool

        spec = self._listed("get_tool", version, self.list_tools(), "name", name)  # type: ignore[attr-defined]
        if spec is None:
            return None
        return Tool(name=name, parameters=spec.get("inputSchema"), description=spec.get("description"),
                    title=spec.get("title"), output_schema=spec.get("outputSchema"),
                    annotations=spec.get("annotations"), meta=spec.get("_meta"), icons=spec.get("icons"),
                    tags=self._component_tags.get(("tool", name)),  # type: ignore[attr-defined]
                    execution=spec.get("execution"))

    async def get_prompt(self, name: str, version: Any = None) -> Any:
        """FastMCP's ``await mcp.get_prompt(name)``: the prompt as this server lists it (a
        ``Prompt``, its ``arguments`` as listed), or None."""
        from .prompts.base import Prompt, PromptArgument

        spec = self._listed("get_prompt", version, self.list_prompts(), "name", name)  # type: ignore[attr-defined]
        if spec is None:
            return None
        arguments = [PromptArgument.model_validate(a) for a in spec.get("arguments") or ()]
        return Prompt(name=name, description=spec.get("description"), title=spec.get("title"),
                      arguments=arguments, icons=spec.get("icons"), meta=spec.get("_meta"),
                      tags=self._component_tags.get(("prompt", name)))  # type: ignore[attr-defined]

    @staticmethod
    def _listed(what: str, version: Any, listing: list[dict[str, Any]], field: str, key: str) -> Any:
        if version is not None:
            # oxmcp keeps one version of a component: a lookup by version could not honour it.
            raise TypeError(f"{what}(version=...): oxmcp keeps one version per component; look it up without version=")
        return next((spec for spec in listing if spec.get(field) == key), None)

    # -- resource security ------------------------------------------------------------------------
    def _take_security(self, uri: str, kwargs: dict[str, Any]) -> None:
        """Keep a template's ``security=`` keyword (FastMCP's) for its registration with the core."""
        if "security" in kwargs:
            self.__dict__.setdefault("_template_security", {})[uri] = kwargs.pop("security")

    def _keep_security(self, entry: Any) -> Any:
        """Carry the template's own policy on its entry (a mount copies it with the entry)."""
        if entry is not None and "security" not in entry.__dict__:
            entry.security = self.__dict__.get("_template_security", {}).get(entry.uri, INHERIT_SECURITY)
        return entry

    def _policy(self, entry: Any) -> Any:
        policy = entry.__dict__.get("security")
        if policy is None and "security" not in entry.__dict__:
            policy = self.__dict__.get("_template_security", {}).get(entry.uri, INHERIT_SECURITY)
        return self._resource_default if isinstance(policy, InheritSecurity) else policy

    def _screening(self, entry: Any) -> tuple[bool, bool, bool, list[str]] | None:
        if not entry.is_template or not self._speaks_fastmcp():
            return super()._screening(entry)  # type: ignore[misc]
        policy = self._policy(entry)
        if policy is None:
            return (False, False, False, [])
        return (bool(policy.reject_path_traversal), bool(policy.reject_absolute_paths),
                bool(policy.reject_null_bytes), sorted(policy.exempt_params))

    async def _read_resource(self, uri: str, *, version: Any = None, run_middleware: bool = True) -> Any:
        """FastMCP's ``await mcp.read_resource(uri)``: the ``ResourceResult`` (``.contents``, each with
        ``.content``, ``.mime_type``, ``.meta``), read through the core as a client's request (the
        server's Python middleware passing it by with ``run_middleware=False``; the core's own checks
        still apply)."""
        import contextlib

        from ._client import Client
        from ._errors import McpError
        from .exceptions import NotFoundError
        from .resources.base import ResourceContent, ResourceResult
        from .server.middleware import skipping_middleware

        if version is not None:
            raise TypeError("read_resource(version=...): oxmcp serves one version of each resource")
        skip: contextlib.AbstractContextManager[dict[str, str]] = \
            contextlib.nullcontext({}) if run_middleware else skipping_middleware()
        try:
            with skip as meta:
                async with Client(self) as client:
                    params = {"uri": str(uri), **({"_meta": meta} if meta else {})}
                    answer = await client.request("resources/read", params)
        except McpError as exc:
            self._raise_screened(str(uri))
            if exc.code in (_NOT_FOUND[0], -32602) and (exc.code == _NOT_FOUND[0] or exc.message == _NOT_FOUND[1]):
                self._raise_screened(str(uri))
                raise NotFoundError(f"Unknown resource: {str(uri)!r}") from None
            raise
        contents = []
        for c in answer.get("contents") or ():
            content: Any = c["text"] if "text" in c else base64.b64decode(c.get("blob", ""))
            contents.append(ResourceContent(content, mime_type=c.get("mimeType"), meta=c.get("_meta")))
        return ResourceResult(contents, meta=answer.get("_meta"))

    # The SDK layers built on FastMCP (MCPServer) read with their SDK's signature instead.
    read_resource: Any = _read_resource

    def _raise_screened(self, uri: str) -> None:
        """Raise ``ResourceSecurityError`` when a template of this server (or of a mounted one) that
        matches ``uri`` has a policy refusing one of its values: the reason the core found no
        resource, told to an in-process caller only."""
        from .exceptions import ResourceSecurityError
        from .resources.template import match_uri_template

        for entry in _templates(self):
            params = match_uri_template(uri, entry.uri)
            if params is None:
                continue
            policy = self._policy(entry)
            if policy is not None and policy.validate(params) is not None:
                raise ResourceSecurityError(f"Unknown resource: {uri!r}")


def public_meta(meta: dict[str, Any] | None) -> dict[str, Any] | None:
    """A component's own meta without FastMCP's internal keys (``_``-prefixed under ``fastmcp``);
    None when nothing is left."""
    if not meta:
        return None
    out = dict(meta)
    if isinstance(out.get("fastmcp"), dict):
        out["fastmcp"] = {k: v for k, v in out["fastmcp"].items() if not k.startswith("_")}
        if not out["fastmcp"]:
            del out["fastmcp"]
    return out or None


def contents_meta(meta: dict[str, Any] | None) -> dict[str, Any] | None:
    """The meta FastMCP gives each content of a resource's read: the component's own public meta,
    without the tags and version :func:`fastmcp_meta` lists under ``fastmcp``; None when nothing
    is left."""
    out = public_meta(meta)
    if out and isinstance(out.get("fastmcp"), dict):
        rest = {k: v for k, v in out["fastmcp"].items() if k not in ("tags", "version")}
        out = {k: v for k, v in out.items() if k != "fastmcp"} | ({"fastmcp": rest} if rest else {})
    return out or None


def fastmcp_meta(meta: dict[str, Any] | None, tags: Any, version: Any) -> dict[str, Any]:
    """A component's ``_meta`` as FastMCP lists it: its own, with ``fastmcp`` holding its public keys
    (internal ones, ``_``-prefixed, dropped), its tags sorted and its version when it has one."""
    out = dict(meta or {})
    upstream = out.get("fastmcp")
    if upstream is not None and not isinstance(upstream, dict):
        raise TypeError("meta['fastmcp'] must be a dict")
    own: dict[str, Any] = {"tags": sorted(tags)}
    if version is not None:
        own["version"] = str(version)
    out["fastmcp"] = {**{k: v for k, v in (upstream or {}).items() if not k.startswith("_")}, **own}
    return out


class _Rule:
    """One of FastMCP's visibility rules: every given criterion must match (none given: nothing)."""

    def __init__(self, enabled: bool, *, names: Any = None, keys: Any = None, version: Any = None,
                 tags: Any = None, components: Any = None, match_all: bool = False) -> None:
        if keys:
            malformed = sorted(k for k in keys if "@" not in k)
            if malformed:
                import warnings

                warnings.warn(f"Component keys are missing the '@' version delimiter and will match nothing: "
                              f"{malformed}. A key always ends in '@' for an unversioned component (e.g. "
                              "'tool:my_tool@') or '@<version>' for a versioned one. Read the value from "
                              "`component.key`, or filter by `names` instead.", UserWarning, stacklevel=4)
        self.enabled = enabled
        self.names = set(names) if names is not None else None
        self.keys = set(keys) if keys is not None else None
        self.version = version
        self.tags = set(tags) if tags else None
        self.components = set(components) if components else None
        self.match_all = match_all

    def matches(self, kind: str, key: str, entry: Any) -> bool:
        if self.match_all:
            return True
        if all(c is None for c in (self.names, self.keys, self.version, self.tags, self.components)):
            return False
        spec = entry.spec
        fastmcp = (spec.get("_meta") or {}).get("fastmcp") or {}
        version = fastmcp.get("version")
        if self.components is not None and kind not in self.components:
            return False
        if self.keys is not None and f"{kind}:{key}@{version or ''}" not in self.keys:
            return False
        if self.names is not None and spec.get("name") not in self.names and key not in self.names:
            return False
        if self.version is not None and (version is None or not self.version.matches(version, match_none=False)):
            return False
        return self.tags is None or bool(set(fastmcp.get("tags") or ()) & self.tags)


def _register(server: Any, native: Any, kind: str, key: str, entry: Any) -> None:
    _unregister(native, kind, key)  # a mount may have put it back meanwhile
    if kind == "tool":
        native.add_tool(entry.spec, entry, entry.is_async, *entry.limits)
    elif kind == "prompt":
        native.add_prompt(entry.spec, entry, entry.is_async, entry.required_scopes)
    else:
        native.add_resource(entry.spec, entry, entry.is_async, entry.is_template, entry.required_scopes,
                            server._screening(entry), getattr(entry, "list_variables", None))


def _unregister(native: Any, kind: str, key: str) -> None:
    if kind == "tool":
        native.remove_tool(key)
    elif kind == "prompt":
        native.remove_prompt(key)
    else:
        native.remove_resource(key, kind == "template")


def _templates(server: Any) -> list[Any]:
    """The resource templates ``server`` serves, its mounted servers' (with their prefix) included."""
    from ._fastmcp import prefix_uri

    found = [e for e in server._resources.values() if e.is_template]
    for child, prefix in getattr(server, "_mounted", ()):
        for entry in _templates(child):
            if prefix:
                entry = _Prefixed(entry, prefix_uri(entry.uri, prefix))
            found.append(entry)
    return found


class _Prefixed:
    """A mounted template under its prefixed URI template."""

    def __init__(self, entry: Any, uri: str) -> None:
        self._entry = entry
        self.uri = uri

    def __getattr__(self, name: str) -> Any:
        return getattr(self._entry, name)


class PromptTexts(RewordingLink):
    """A link at the head of the core's chain on ``prompts/get``: the core's answer to a prompt read
    without a required argument, worded as FastMCP words it (``Missing required arguments:
    {'topic'}``, every one missing). Codes, data and every other answer pass unchanged."""

    def hooks(self) -> list[str]:
        return ["prompts/get"]

    def _message(self, exc: Any, params: dict[str, Any]) -> str:
        return missing_arguments_text(self.server, exc, params) or str(exc.message)


class _MiddlewareList(list):  # type: ignore[type-arg]
    """``FastMCP.middleware``: a copy whose ``append`` adds to the server; other changes raise."""

    def __init__(self, server: Any, items: list[Any]) -> None:
        super().__init__(items)
        self._server = server

    def append(self, middleware: Any) -> None:
        self._server.add_middleware(middleware)
        super().append(middleware)

    def _refused(self, *_: Any, **__: Any) -> Any:
        raise TypeError("FastMCP.middleware: add middleware with add_middleware() (or middleware.append); "
                        "the chain cannot be reordered or cut while the core holds it")

    extend = insert = remove = pop = clear = sort = reverse = _refused
    __setitem__ = __delitem__ = __iadd__ = _refused  # type: ignore[assignment]
