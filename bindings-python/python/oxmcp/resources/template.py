"""``fastmcp.resources.template``: ``ResourceTemplate``, a resource whose URI has parameters
(``user://{id}/profile``), and FastMCP's URI-template helpers. Registering a template goes the same
way as ``@mcp.resource`` with that URI: the core matches the URIs a client reads.

The helpers speak FastMCP's template dialect: ``{name}`` is one path segment, ``{name*}`` a run of
segments, ``{?a,b}`` / ``{&a}`` query parameters (``{?tags*}`` a repeated key), and a ``?`` written
in the template starts a query whose ``{name}`` values end at the next ``&``. Names that are not
identifiers are keyed by :func:`template_param_key`. ``build_regex`` hands back a Python pattern
because FastMCP's API does; every value is encoded by the core's RFC 6570 expander
(``_oxmcp.expand_uri_template``), so a URI built here is one the server matches."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Collection
from typing import Any, ClassVar
from urllib.parse import parse_qs, unquote, unquote_plus

from .._oxmcp import expand_uri_template as _core_expand
from ..utilities.components import dump, dump_all
from .base import Resource
from .function_resource import FunctionResource, _call
from .security import INHERIT_SECURITY, InheritSecurity

__all__ = ["ResourceTemplate", "build_regex", "encode_literal", "expand_uri_template",
           "extract_exploded_query_params", "extract_query_params", "forward_uri", "match_uri_template",
           "template_param_key"]

_PLACEHOLDER = re.compile(r"(\{[^}]+\})")
_QUERY_EXPR = re.compile(r"\{[?&]([^}]+)\}")
_PCT = re.compile(r"%[0-9A-Fa-f]{2}")


def _query_names(uri_template: str) -> list[str]:
    """The names of every ``{?...}`` and ``{&...}`` expression, as written (``*`` kept)."""
    return [n.strip() for m in _QUERY_EXPR.finditer(uri_template) for n in m.group(1).split(",")]


def extract_query_params(uri_template: str) -> set[str]:
    """The query parameter names of ``{?a,b}`` and ``{&c}`` expressions (without ``*``)."""
    return {n.removesuffix("*") for n in _query_names(uri_template)}


def extract_exploded_query_params(uri_template: str) -> set[str]:
    """The query parameters written with the explode modifier (``{?tags*}``): repeated keys."""
    return {n.removesuffix("*") for n in _query_names(uri_template) if n.endswith("*")}


def _has_literal_query(uri_template: str) -> bool:
    return uri_template.count("?") > uri_template.count("{?")


def template_param_key(name: str) -> str:
    """The key a matched value is returned under: ``name`` with every character an identifier
    cannot hold turned into ``_`` (and a leading digit prefixed with ``_``)."""
    key = re.sub(r"\W", "_", name)
    if not key.isidentifier():
        key = re.sub(r"[^A-Za-z0-9_]", "_", key)
    return f"_{key}" if not key or key[0].isdigit() else key


def encode_literal(text: str) -> str:
    """Literal template text as the core's expander writes it (RFC 6570 section 3.1): reserved and
    unreserved characters and ``%XX`` triplets kept, anything else UTF-8 percent-encoded."""
    if not text:
        return text
    return _core_expand(text.replace("{", "%7B").replace("}", "%7D") + "{_}", {})


@functools.lru_cache(maxsize=1024)
def _encoded_char(ch: str) -> str:
    return encode_literal(ch)


def _literal_pattern(text: str) -> str:
    """A pattern for literal text that also accepts its percent-encoded form (a URI reaching the
    server may have been normalised by a client), hex digits in either case."""
    out: list[str] = []
    for piece in re.split(r"(%[0-9A-Fa-f]{2})", text):
        if _PCT.fullmatch(piece):
            out.append(f"(?i:{re.escape(piece)})")
            continue
        for ch in piece:
            enc = _encoded_char(ch)
            out.append(re.escape(ch) if enc == ch else f"(?:{re.escape(ch)}|(?i:{re.escape(enc)}))")
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def build_regex(template: str) -> re.Pattern[str] | None:
    """The pattern the part of a URI before its query must match (query expressions are read
    apart), with one named group per parameter (keyed by :func:`template_param_key`); None when the
    template cannot compile (two parameters with the same key)."""
    pattern: list[str] = []
    in_query = False
    for part in _PLACEHOLDER.split(_QUERY_EXPR.sub("", template)):
        if part.startswith("{") and part.endswith("}"):
            name = part[1:-1]
            key = template_param_key(name.removesuffix("*"))
            if in_query:
                pattern.append(f"(?P<{key}>[^&]*)")
            else:
                pattern.append(f"(?P<{key}>{'.+' if name.endswith('*') else '[^/]+'})")
        elif part:
            pattern.append(_literal_pattern(part))
            in_query = in_query or "?" in part
    try:
        return re.compile("^" + "".join(pattern) + "$")
    except re.error:
        return None


def match_uri_template(uri: str, uri_template: str, *, list_params: Collection[str] = (),
                       regex: re.Pattern[str] | None = None) -> dict[str, Any] | None:
    """The parameters of ``uri`` under ``uri_template`` (percent-decoded), or None. A fragment is
    dropped unless the template writes one; a query parameter of ``list_params`` (a non-exploded
    list) is split on its literal commas, and an exploded one collects every repetition."""
    if "#" not in uri_template:
        uri = uri.partition("#")[0]
    if _has_literal_query(uri_template):
        path, query = uri, ""
    else:
        path, _, query = uri.partition("?")
    regex = build_regex(uri_template) if regex is None else regex
    m = regex.match(path) if regex is not None else None
    if m is None:
        return None
    params: dict[str, Any] = {k: unquote(v) for k, v in m.groupdict().items()}
    if not query:
        return params
    parsed = parse_qs(query, keep_blank_values=True)
    raw: dict[str, str] = {}
    for pair in query.split("&"):
        k, _, v = pair.partition("=")
        raw.setdefault(unquote_plus(k), v)
    exploded = extract_exploded_query_params(uri_template)
    for name in extract_query_params(uri_template):
        key = name.replace("-", "_")
        if name not in parsed or key in params:
            continue
        if name in exploded:
            params[key] = parsed[name]
        elif name in list_params:
            params[key] = [unquote_plus(item) for item in raw[name].split(",")] if raw.get(name) else []
        else:
            params[key] = parsed[name][0]
    return params


def _check_template(uri_template: str) -> None:
    """FastMCP's refusals: the RFC 6570 operators other than the query forms, and ``{a,b}``, which
    its path matcher cannot capture."""
    ops = sorted(set(re.findall(r"\{([+#./;])", uri_template)))
    if ops:
        raise ValueError(f"RFC 6570 level-3 operators {{{', '.join(ops)}...}} are not supported. Use "
                         "{?param} or {&param} for query parameters or {param} for path parameters.")
    sets = re.findall(r"\{([a-zA-Z_][\w-]*,[^}]+)\}", uri_template)
    if sets:
        examples = ", ".join(f"{{{x}}}" for x in sets[:2])
        raise ValueError(f"Set expansion syntax like {examples} is not supported. "
                         "Use {?param1,param2} for multiple query parameters.")


def _hints(fn: Any) -> dict[str, Any]:
    target = fn if inspect.isroutine(fn) or isinstance(fn, functools.partial) else type(fn).__call__
    try:
        import typing

        return typing.get_type_hints(target, include_extras=True)
    except (NameError, TypeError):  # a name the annotations cannot resolve: the raw annotations serve
        return {}


def _strip(annotation: Any) -> Any:
    import typing

    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _members(annotation: Any) -> list[Any] | None:
    import types
    import typing

    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(annotation) if a is not type(None)]
    return None


def _only_list(annotation: Any) -> bool:
    annotation = _strip(annotation)
    members = _members(annotation)
    if members is not None:
        return bool(members) and all(_only_list(m) for m in members)
    import typing

    return annotation is list or typing.get_origin(annotation) is list


def _accepts_list(annotation: Any) -> bool:
    annotation = _strip(annotation)
    if annotation in (Any, object, inspect.Parameter.empty) or isinstance(annotation, str):
        return True
    members = _members(annotation)
    if members is not None:
        return any(_accepts_list(m) for m in members)
    import typing

    return annotation is list or typing.get_origin(annotation) is list


def _coerce(pname: str, annotation: Any, value: str) -> Any:
    annotation = _strip(annotation)
    if annotation is int:
        return int(value)
    if annotation is float:
        return float(value)
    if annotation is bool:
        lower = value.lower()
        if lower in ("true", "1", "yes"):
            return True
        if lower in ("false", "0", "no"):
            return False
        raise ValueError(f"Invalid boolean value for {pname}: {value!r}")
    return value


def _lookup(params: dict[str, Any], name: str) -> tuple[bool, Any]:
    for candidate in (name, name.replace("-", "_"), template_param_key(name)):
        if candidate in params:
            return True, params[candidate]
    return False, None


def _as_core(value: Any) -> Any:
    """A value as FastMCP writes it into a URI (``str()`` of a scalar; a list or tuple item by item)."""
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value)


def _expand_placeholder(token: str, params: dict[str, Any]) -> str:
    wildcard = token.endswith("*")
    found, value = _lookup(params, token.removesuffix("*"))
    if not found:
        return "{" + token + "}"
    if wildcard:
        # A run of segments: each segment encoded on its own, the slashes kept.
        return _core_expand("{/v*}", {"v": str(value).split("/")})[1:]
    return _core_expand("{v}", {"v": str(value)})


def _expand_query(names: str, params: dict[str, Any], started: bool) -> str:
    pieces: list[str] = []
    for raw in names.split(","):
        name = raw.strip()
        found, value = _lookup(params, name.removesuffix("*"))
        if not found:
            continue
        # The template decides the form: ``{?tags*}`` repeats the key, ``{?tags}`` joins with commas.
        out = _core_expand("{&v*}" if name.endswith("*") else "{&v}", {"v": _as_core(value)})
        key = _core_expand("{v}", {"v": name.removesuffix("*")})
        pieces.extend(key + piece[1:] for piece in out.split("&")[1:])
    if not pieces:
        return ""
    return ("&" if started else "?") + "&".join(pieces)


def expand_uri_template(uri_template: str, params: dict[str, Any]) -> str:
    """The URI for ``params`` (keyed as :func:`match_uri_template` returns them): literals and
    values percent-encoded by the core's expander, ``{name*}`` keeping its slashes, the first query
    expression that has a value opening the query and later ones continuing it. A placeholder
    with no value stays as written; an absent query parameter is left out."""
    out: list[str] = []
    started = False
    for part in _PLACEHOLDER.split(uri_template):
        if not (part.startswith("{") and part.endswith("}")):
            text = encode_literal(part)
            started = started or "?" in text
            out.append(text)
        elif part[1] in "?&":
            text = _expand_query(part[2:-1], params, started)
            started = started or bool(text)
            out.append(text)
        else:
            out.append(_expand_placeholder(part[1:-1], params))
    return "".join(out)


def forward_uri(uri_template: str, params: dict[str, Any], uri: str) -> str:
    """The URI a mount or proxy sends on: the path expanded from ``params``, the query of ``uri``
    carried over as it came (re-encoding it could change how a list parameter splits)."""
    forwarded = expand_uri_template(_QUERY_EXPR.sub("", uri_template), params)
    if _has_literal_query(uri_template):
        return forwarded
    query = uri.partition("?")[2]
    return f"{forwarded}?{query}" if query else forwarded


class ResourceTemplate:
    """FastMCP's resource template. ``ResourceTemplate.from_function(fn, uri_template, ...)`` takes a
    function whose parameters are the template's: every path parameter a parameter of the function,
    every required parameter a path parameter, query parameters optional."""

    KEY_PREFIX: ClassVar[str] = "template"

    def __init__(self, *, uri_template: str, name: str, fn: Callable[..., Any] | None = None,
                 description: str | None = None, title: str | None = None, mime_type: str | None = None,
                 parameters: dict[str, Any] | None = None, icons: list[Any] | None = None,
                 tags: set[str] | None = None, annotations: Any = None, meta: dict[str, Any] | None = None,
                 enabled: bool = True, auth: Any = None, version: Any = None,
                 security: Any = INHERIT_SECURITY) -> None:
        self.uri_template = uri_template
        self.name = name
        self.fn = fn
        self.description = description
        self.title = title
        self.mime_type = mime_type or "text/plain"
        self.parameters = parameters or {"type": "object", "properties": {}}
        self.icons = icons
        self.tags = set(tags or ())
        self.annotations = annotations
        self.meta = meta
        self.enabled = enabled
        self.auth = auth
        self.version = None if version is None else str(version)
        self.security = security
        #: Non-exploded ``{?name}`` parameters whose function parameter is a list (split on commas).
        self._list_query_params: frozenset[str] = frozenset()
        self._info: Any = None

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri_template: str, *, name: str | None = None,
                      **kwargs: Any) -> ResourceTemplate:
        from .._errors import DefinitionError
        from .._schema import analyze_function

        name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            if p.kind is inspect.Parameter.POSITIONAL_ONLY:
                raise ValueError("Functions with positional-only parameters are not supported as resource "
                                 "templates because URI template parameters are passed by name; use "
                                 "standard parameters that can be passed as keywords")
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                raise ValueError("Functions with *args are not supported as resource templates")
        _check_template(uri_template)
        raw_path = set(re.findall(r"\{([\w-]+)\*?\}", uri_template))
        raw_query = extract_query_params(uri_template)
        seen: dict[str, str] = {}
        for raw in sorted(raw_path | raw_query):
            key = raw.replace("-", "_")
            if key in seen:
                raise ValueError(f"URI template parameters '{seen[key]}' and '{raw}' both normalize to "
                                 f"'{key}'. Use one or the other, not both.")
            seen[key] = raw
        path_params = {p.replace("-", "_") for p in raw_path}
        query_params = {p.replace("-", "_") for p in raw_query}
        if not path_params | query_params:
            raise ValueError("URI template must contain at least one parameter")
        try:
            info = analyze_function(fn, name=name, description=kwargs.get("description"), output_schema=False)
        except DefinitionError:
            info = None  # **kwargs: the URI decides the parameter names
        user = [p for p in sig.parameters.values()
                if info is None or p.name in info.param_names]
        required = {p.name for p in user if p.default is inspect.Parameter.empty
                    and p.kind is not inspect.Parameter.VAR_KEYWORD}
        optional = {p.name for p in user if p.default is not inspect.Parameter.empty
                    and p.kind is not inspect.Parameter.VAR_KEYWORD}
        hints = _hints(fn)
        list_params: set[str] = set()
        if query_params:
            if query_params - optional:
                raise ValueError(f"Query parameters {query_params - optional} must be optional function "
                                 "parameters with default values")
            exploded = {p.replace("-", "_") for p in extract_exploded_query_params(uri_template)}
            for pname in sorted(exploded & set(sig.parameters)):
                if not _accepts_list(hints.get(pname, sig.parameters[pname].annotation)):
                    raise ValueError(f"Query parameter '{pname}' uses the RFC 6570 explode modifier, so its "
                                     f"function parameter must accept a list: use '{{?{pname}}}' for a "
                                     "scalar value")
            for raw in raw_query:
                pname = raw.replace("-", "_")
                if pname not in exploded and pname in sig.parameters and _only_list(
                        hints.get(pname, sig.parameters[pname].annotation)):
                    list_params.add(raw)
        if not required <= path_params:
            raise ValueError(f"Required function arguments {required} must be a subset of the URI path "
                             f"parameters {path_params}")
        if (not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())
                and not (path_params | query_params) <= {p.name for p in user}):
            raise ValueError(f"URI parameters {path_params | query_params} must be a subset of the "
                             f"function arguments: { {p.name for p in user} }")
        if kwargs.get("description") is None:
            kwargs["description"] = info.description if info is not None else inspect.getdoc(fn)
        parameters = info.input_schema if info is not None else None
        template = cls(uri_template=uri_template, name=name, fn=fn, parameters=parameters, **kwargs)
        template._list_query_params = frozenset(list_params)
        template._info = info
        return template

    def resolve_security(self, server_default: Any) -> Any:
        """The policy this template's reads are screened with: its own, or ``server_default`` when it
        inherits (``None`` turns screening off)."""
        return server_default if isinstance(self.security, InheritSecurity) else self.security

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> ResourceTemplate:
        """A copy with the fields of ``update`` replaced (pydantic's ``model_copy``)."""
        import copy

        out = copy.deepcopy(self) if deep else copy.copy(self)
        for key, value in (update or {}).items():
            setattr(out, key, value)
        return out

    @property
    def key(self) -> str:
        return f"{self.KEY_PREFIX}:{self.uri_template}@{self.version or ''}"

    def matches(self, uri: str) -> dict[str, Any] | None:
        """The template's parameters in ``uri`` (strings, or lists for list query parameters), or
        None when it does not match."""
        # Each template keeps its own pattern (reads try every template), rebuilt only when its
        # uri_template changes.
        cached = self.__dict__.get("_pattern")
        if cached is None or cached[0] != self.uri_template:
            cached = self._pattern = (self.uri_template, build_regex(self.uri_template))
        if cached[1] is None:
            return None
        return match_uri_template(uri, self.uri_template, regex=cached[1],
                                  list_params=self._list_query_params if "?" in uri else ())

    async def read(self, arguments: dict[str, Any]) -> Any:
        """The function's value for these parameters: a string for an ``int``, ``float`` or ``bool``
        parameter converted first (``true``/``1``/``yes`` and ``false``/``0``/``no`` for a bool, a
        ``ValueError`` for anything else), then the rest validated as the function's signature says."""
        if self.fn is None:
            raise NotImplementedError("Subclasses must implement read()")
        kwargs = dict(arguments)
        sig = inspect.signature(self.fn)
        hints = _hints(self.fn)
        for pname, value in list(kwargs.items()):
            if pname in sig.parameters and isinstance(value, str):
                kwargs[pname] = _coerce(pname, hints.get(pname, sig.parameters[pname].annotation), value)
        info = self._info
        if info is not None:
            ctx = {}
            if info.context_param is not None:
                from ..server.dependencies import current_context

                # The request's context when read inside one (a template read outside any has none).
                if (current := current_context.get()) is not None:
                    ctx = {info.context_param: current}
            kwargs = {**info.convert_arguments(kwargs), **ctx}
        return await _call(self.fn, kwargs)

    async def create_resource(self, uri: str, params: dict[str, Any]) -> Resource:
        """The concrete resource for one URI: a :class:`FunctionResource` reading this template with
        ``params``, with the template's name, description, MIME type, tags and metadata."""
        template = self

        async def read_template() -> Any:
            return await template.read(params)

        return FunctionResource(fn=read_template, uri=uri, name=self.name, description=self.description,
                                title=self.title, mime_type=self.mime_type, icons=self.icons, tags=self.tags,
                                annotations=self.annotations, meta=self.meta, auth=self.auth)

    def to_mcp_template(self, **overrides: Any) -> Any:
        from .._fastmcp_client import model_types

        spec: dict[str, Any] = {"uriTemplate": self.uri_template, "name": self.name, "title": self.title,
                                "description": self.description, "mimeType": self.mime_type,
                                "icons": dump_all(self.icons), "annotations": dump(self.annotations),
                                "_meta": self.meta}
        spec.update(overrides)
        return model_types().ResourceTemplate.model_validate({k: v for k, v in spec.items() if v is not None})

    def _registration(self) -> tuple[Callable[..., Any], str, dict[str, Any]]:
        if self.fn is None:
            raise TypeError(f"ResourceTemplate {self.name!r} has no function to register")
        reader = FunctionResource(fn=self.fn, uri=self.uri_template, name=self.name, mime_type=self.mime_type)
        fn, _, _ = reader._registration()
        out: dict[str, Any] = {"name": self.name, "title": self.title, "description": self.description,
                               "mime_type": self.mime_type, "icons": dump_all(self.icons),
                               "annotations": dump(self.annotations), "meta": self.meta, "tags": self.tags,
                               "enabled": self.enabled, "auth": self.auth}
        settings = {k: v for k, v in out.items() if v is not None}
        if not isinstance(self.security, InheritSecurity):
            settings["security"] = self.security  # None too: screening off for this template
        return fn, self.uri_template, settings

    def __repr__(self) -> str:
        return f"ResourceTemplate(uri_template={self.uri_template!r}, name={self.name!r})"
