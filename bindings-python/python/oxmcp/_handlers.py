"""The Python handlers the native core calls: one ``*Entry`` per registered tool, resource, prompt
and completer, holding the user's function and converting its arguments and return value.

Every entry exposes ``is_async``, ``call_sync(payload, native_ctx)`` and ``call_async(payload, native_ctx)``.
Both return an *outcome* ``(kind, value)`` and never raise (except BaseExceptions the runtime owns):

- ``("ok", result)``: a spec-shaped result (CallToolResult / contents list / GetPromptResult / Completion);
- ``("mcp_error", (code, message, data))``: answer with that JSON-RPC error;
- ``("input_required", key)``: a ``Context.elicit``/``sample``/``roots`` call needs a new MRTR round;
- ``("cancelled", None)``: the client cancelled the request;
- ``("internal", detail | None)``: an unexpected exception; the core answers with its one
  internal-error text (the detail, only in debug mode, is appended).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import re
import traceback
import typing
from collections.abc import Callable
from typing import Any

import pydantic

from . import _rounds as rounds
from ._context import Context
from ._errors import DefinitionError, InputRequired, McpError, PromptError, RequestCancelled, ResourceError, ToolError
from ._faults import note
from ._refusals import refusal_for
from ._results import (
    CoreList,
    Message,
    error_result,
    normalize_prompt_result,
    normalize_resource_result,
    normalize_tool_result,
)
from ._results import ToolResult as ToolResultType
from ._schema import FunctionInfo, analyze_function
from .server.dependencies import current_context

_log = logging.getLogger("oxmcp")

Outcome = tuple[str, Any]

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def camel_keys(d: dict[str, Any] | None) -> dict[str, Any] | None:
    if d is None:
        return None
    if hasattr(d, "model_dump"):
        d = d.model_dump(exclude_none=True, by_alias=True)  # type: ignore[union-attr]
    return {(_camel(k) if "_" in k else k): v for k, v in d.items()}


class _Entry:
    info: FunctionInfo
    server: Any
    #: Where it was registered from: None (by hand) or the (module, file, line) discovery found it at.
    origin: tuple[str, str, int] | None = None

    @property
    def is_async(self) -> bool:
        return self.info.is_async

    @property
    def _rounds(self) -> bool:
        """Whether the server takes an ``InputRequiredResult`` returned by the function as an
        input round (mcp 2.x's flow, ``_rounds.py``)."""
        return bool(getattr(self.server, "_relays_input_required", False))

    def _kwargs(self, values: dict[str, Any], native_ctx: Any, by_name: bool = False) -> dict[str, Any]:
        kwargs = self.info.convert_arguments(values, by_name)
        # A compatibility layer's own Context class (the SDK's attributes), else oxmcp's.
        ctx = getattr(self.server, "_context_class", Context)(native_ctx, self.server)
        current_context.set(ctx)  # get_context()/get_access_token() without a Context parameter
        if self.info.context_param is not None:
            kwargs[self.info.context_param] = ctx
        return kwargs

    def call_sync(self, payload: Any, native_ctx: Any = None) -> Outcome:
        try:
            if self._rounds and rounds.retried(native_ctx):
                rounds.keep(asyncio.run(rounds.answers_before(self.server, native_ctx)))
            kwargs = self._prepare(payload, native_ctx)
            value = self.info.fn(**kwargs)
            # (`isawaitable` is an ABC check, a tenth of a small call: skipped for plain data.)
            if type(value) not in _PLAIN_DATA:
                if inspect.isawaitable(value):
                    # A sync callable that returned an awaitable (e.g. a partial of a coroutine function).
                    value = asyncio.run(_await(value))
                elif inspect.isgenerator(value):
                    # A generator's body runs as it is consumed: here, where the function ran.
                    value = list(value)
            if self._rounds and rounds.is_input_required(self.server, value):
                return rounds.relay_sync(value, native_ctx)
            return self._finish(payload, value)
        except InputRequired as exc:
            return ("input_required", exc.args[0] if exc.args else None)
        except RequestCancelled:
            return ("cancelled", None)
        except BaseException as exc:  # every failure becomes a result or an error
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            note(native_ctx, exc, self._raised)
            return self._failed(exc, payload)
        finally:
            # Pool threads are reused: a context left here would keep the request's sink open.
            current_context.set(None)

    async def call_async(self, payload: Any, native_ctx: Any = None) -> Outcome:
        try:
            if self._rounds and rounds.retried(native_ctx):
                rounds.keep(await rounds.answers_before(self.server, native_ctx))
            kwargs = self._prepare(payload, native_ctx)
            value = self.info.fn(**kwargs)
            if inspect.isawaitable(value):
                value = await value
            if type(value) not in _PLAIN_DATA:
                value = await _consumed(value)
            if self._rounds and rounds.is_input_required(self.server, value):
                return await rounds.relay(value, native_ctx)
            return self._finish(payload, value)
        except InputRequired as exc:
            return ("input_required", exc.args[0] if exc.args else None)
        except (RequestCancelled, asyncio.CancelledError):
            return ("cancelled", None)
        except Exception as exc:  # noqa: BLE001
            note(native_ctx, exc, self._raised)
            return self._failed(exc, payload)
        finally:
            current_context.set(None)

    # subclasses
    def _prepare(self, payload: Any, native_ctx: Any) -> dict[str, Any]:
        raise NotImplementedError

    def _finish(self, payload: Any, value: Any) -> Outcome:
        raise NotImplementedError

    def _failed(self, exc: BaseException, payload: Any = None) -> Outcome:
        raise NotImplementedError

    def _raised(self, exc: BaseException) -> BaseException:
        """What the framework's middleware sees raised for ``exc`` (``_faults``)."""
        return exc

    def _debug(self) -> bool:
        return bool(getattr(self.server, "debug", False))


async def _await(aw: Any) -> Any:
    return await _consumed(await aw)


async def _consumed(value: Any) -> Any:
    """A generator or async generator a handler returned, as the list of what it yields (consumed on
    the loop that awaited the handler); any other value as it is."""
    if inspect.isasyncgen(value):
        return [item async for item in value]
    if inspect.isgenerator(value):
        return list(value)
    return value


#: Return types that are never awaitable.
_PLAIN_DATA = frozenset((int, float, str, bool, dict, list, tuple, type(None), bytes))


class ToolEntry(_Entry):
    def __init__(self, fn: Callable[..., Any], server: Any = None, *, name: str | None = None,
                 title: str | None = None, description: str | None = None, annotations: Any = None,
                 icons: list[dict[str, Any]] | None = None, meta: dict[str, Any] | None = None,
                 output_schema: dict[str, Any] | None | bool = None, structured_output: bool | None = None,
                 input_schema: dict[str, Any] | None = None, timeout: float | None = None,
                 required_scopes: list[str] | None = None, max_concurrency: int | None = None,
                 task: bool | None = None, task_support: str | None = None,
                 task_after: float | None = None, refusal_text: Callable[..., Any] | None = None) -> None:
        self.server = server
        self.info = analyze_function(fn, name=name, description=description, output_schema=output_schema,
                                     structured_output=structured_output, input_schema=input_schema,
                                     str_is_data=bool(getattr(server, "_str_returns_are_data", False)),
                                     sdk_outputs=getattr(server, "_sdk_output_rule", None),
                                     underscore_params=bool(getattr(server, "_underscore_params", False)))
        self.name = self.info.name
        info = self.info
        #: The words of a refusal of the arguments (``_refusals``), which the core calls: the tool's
        #: own, or its compatibility layer's; None: the core's text.
        self.refusal = refusal_for(self, server, refusal_text)
        #: FastMCP marks a result it wrapped under ``result`` in ``_meta.fastmcp.wrap_result`` (its
        #: client unwraps ``.data`` by it).
        self._wrap_meta = bool(info.wrap_result and info.output_schema is not None
                               and getattr(server, "_fastmcp_wrap_meta", False))
        #: The plain return type whose result `_finish` builds directly (None: normalize_tool_result).
        self._fast_type: type | None = (
            info.return_annotation if info.return_annotation in (int, bool, str) and info.wrap_result
            and info.output_adapter is not None and info.output_schema is not None else None)
        # The core's rule for a tool's own limits (Node's registerTool applies the same one); a
        # tool that sets none has nothing to check.
        if timeout is not None or max_concurrency is not None or task_after is not None:
            from . import _oxmcp

            _oxmcp.check_tool_limits(self.name, None if timeout is None else timeout * 1000, max_concurrency,
                                     None if task_after is None else task_after * 1000)
        if task_support is None and task is not None:
            task_support = "optional" if task else "forbidden"
        if task_support not in (None, "forbidden", "optional", "required"):
            raise ValueError('task_support must be "forbidden", "optional" or "required"')
        #: The Tasks extension: whether calls may become tasks, and after how long of running.
        self.task_support = task_support
        self.task_after = task_after
        #: The core's per-tool limits (seconds; OAuth scopes; calls at once).
        self.timeout = timeout
        self.required_scopes = list(required_scopes) if required_scopes is not None else None
        self.max_concurrency = max_concurrency
        self.title = title
        self.annotations = camel_keys(annotations)
        self.icons = icons
        self.meta = meta

    @property
    def limits(self) -> tuple[float | None, list[str] | None, float | None, float | None]:
        """``(timeout_ms, required_scopes, max_concurrency, task_after_ms)`` as the native ``add_tool`` takes them."""
        ms = None if self.timeout is None else self.timeout * 1000
        after = None if self.task_after is None else self.task_after * 1000
        return ms, self.required_scopes, self.max_concurrency, after

    @property
    def spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.title:
            out["title"] = self.title
        if self.info.description is not None:
            out["description"] = self.info.description
        out["inputSchema"] = self.info.input_schema
        if self.info.output_schema is not None:
            out["outputSchema"] = self.info.output_schema
        if self.annotations:
            out["annotations"] = self.annotations
        if self.icons:
            out["icons"] = self.icons
        if self.meta:
            out["_meta"] = self.meta
        if self.task_support is not None:
            out["execution"] = {"taskSupport": self.task_support}
        return out

    def _prepare(self, payload: Any, native_ctx: Any) -> dict[str, Any]:
        try:
            # (The arguments are only read: the native side's fresh dict is used as it is.)
            return self._kwargs(payload if type(payload) is dict else dict(payload or {}), native_ctx)
        except pydantic.ValidationError as exc:
            raise _InvalidArguments(exc) from exc

    def _finish(self, payload: Any, value: Any) -> Outcome:
        check = getattr(self.server, "_check_tool_value", None)  # a framework's own check of the value
        if check is not None and self.info.output_schema is not None:
            check(self, value)
        if type(value) is self._fast_type:
            # `-> int` / `-> bool` / `-> str` (as data) returning exactly that: what
            # normalize_tool_result gives, without the adapter and json.dumps (half of a small call).
            text = value if type(value) is str else ("true" if value is True else "false" if value is False
                                                      else int.__repr__(value))
            out = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": value}}
            if self._wrap_meta:
                out["_meta"] = {"fastmcp": {"wrap_result": True}}
            return ("ok", out)
        try:
            result = normalize_tool_result(value, output_schema=self.info.output_schema, wrap=self.info.wrap_result,
                                           adapter=self.info.output_adapter,
                                           structured_objects=getattr(self.server, "_structured_objects", False),
                                           dump=getattr(self.server, "_dump_structured", None))
        except ToolError as exc:  # the framework's refusal of the value, in its words
            return ("ok", error_result(str(exc)))
        except Exception as exc:  # noqa: BLE001
            _log.error("tool %r returned a value that cannot be serialised", self.name, exc_info=exc)
            return ("ok", error_result(f"Tool {self.name!r} returned a value that cannot be serialised"
                                       + (f": {exc}" if self._debug() else "")))
        content_of = getattr(self.server, "_tool_content", None)  # a framework's own rendering of the value
        blocks = content_of(value) if content_of is not None else None
        if blocks is not None:
            result = {"content": blocks} if isinstance(result, CoreList) else {**result, "content": blocks}
        if isinstance(result, CoreList):
            return ("list", list(result))
        if self._wrap_meta and "structuredContent" in result and not isinstance(value, ToolResultType):
            result["_meta"] = {**(result.get("_meta") or {}), "fastmcp": {"wrap_result": True}}
        return ("ok", result)

    def _raised(self, exc: BaseException) -> BaseException:
        """FastMCP's: a ``ToolError`` as it is, anything else as the ``ToolError`` its result's text
        says, chained to it."""
        if isinstance(exc, ToolError):
            return exc
        if isinstance(exc, _InvalidArguments):  # arguments the function's types refuse
            from .exceptions import ValidationError

            invalid = ValidationError(str(exc.__cause__))
            invalid.__cause__ = exc.__cause__
            return invalid
        text_of = getattr(self.server, "_tool_error_text", None)
        error = ToolError(text_of(self.name, exc) if text_of is not None else str(exc))
        error.__cause__ = exc
        return error

    def _failed(self, exc: BaseException, payload: Any = None) -> Outcome:
        if isinstance(exc, _InvalidArguments):
            # The function's types refused what the schema let through: the framework's words, if
            # its layer has any, else the core renders what failed.
            text = self.refusal.call_sync({"arguments": payload, "violations": exc.pointers})[1] \
                if self.refusal is not None else None
            return ("ok", error_result(text)) if text is not None else ("invalid_arguments", exc.violations)
        # A compatibility layer may log a failure as its framework does (FastMCP's records).
        log_failure = getattr(self.server, "_log_tool_failure", None)
        sdk_failed = getattr(self.server, "_sdk_tool_failed", None)  # mcp 2.x's wording and records
        if sdk_failed is not None and not isinstance(exc, McpError):
            return ("ok", error_result(sdk_failed(self.name, exc)))
        if isinstance(exc, ToolError):
            anticipated = getattr(self.server, "_tool_error_anticipated", None)  # the SDK's wording and log
            if anticipated is not None:
                return ("ok", error_result(anticipated(self.name, exc)))
            if log_failure is not None:
                log_failure(self.name, exc)
            return ("ok", error_result(str(exc)))
        if isinstance(exc, McpError):
            return ("mcp_error", (exc.code, exc.message, exc.data))
        crashed = getattr(self.server, "_log_tool_crash", None)
        if crashed is not None:
            crashed(self.name, exc)
        elif log_failure is not None:
            log_failure(self.name, exc)
        else:
            _log.error("tool %r raised", self.name, exc_info=exc)
        custom = getattr(self.server, "_tool_error_text", None)
        if custom is not None:  # FastMCP / MCPServer: their frameworks' wording and masking rule
            return ("ok", error_result(custom(self.name, exc)))
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) if self._debug() else None
        return ("internal", detail)


_TEMPLATE_VAR = re.compile(r"\{([+#./;?&]?)([A-Za-z0-9_,*-]+)\}")


def template_variables(uri: str) -> list[str]:
    """The variable names of an RFC 6570 URI template (``user://{id}/profile`` → ``["id"]``)."""
    names: list[str] = []
    for _op, body in _TEMPLATE_VAR.findall(uri):
        names.extend(v.rstrip("*") for v in body.split(","))
    return names


def _list_variables(uri: str, fn: Callable[..., Any]) -> list[str]:
    """The non-exploded query variables of ``uri`` whose parameter of ``fn`` takes only a list."""
    from .resources.template import _hints, _only_list, extract_exploded_query_params, extract_query_params

    signature = inspect.signature(fn).parameters
    hints = _hints(fn)
    exploded = extract_exploded_query_params(uri)
    out = []
    for raw in sorted(extract_query_params(uri) - exploded):
        pname = raw.replace("-", "_")
        if pname in signature and _only_list(hints.get(pname, signature[pname].annotation)):
            out.append(raw)
    return out


class TemplateMismatch(DefinitionError, ValueError):
    """A resource function's parameters are not its URI's template variables (a ``ValueError`` too,
    as the SDKs raise it)."""


class ResourceEntry(_Entry):
    def __init__(self, fn: Callable[..., Any], uri: str, server: Any = None, *, name: str | None = None,
                 title: str | None = None, description: str | None = None, mime_type: str | None = None,
                 size: int | None = None, icons: list[dict[str, Any]] | None = None,
                 annotations: dict[str, Any] | None = None, meta: dict[str, Any] | None = None,
                 required_scopes: list[str] | None = None,
                 screen: tuple[bool, bool, bool, list[str]] | None = None) -> None:
        self.server = server
        self.uri = uri
        self.required_scopes = list(required_scopes) if required_scopes else None
        #: A template's value policy for the core, ``(traversal, absolute, null_bytes, exempt)``, in
        #: place of the matcher's own refusals (a compatibility layer's ``ResourceSecurity``).
        self.screen = screen
        self.variables = template_variables(uri)
        self.is_template = bool(self.variables)
        self.info = analyze_function(fn, name=name, description=description, output_schema=False)
        fastmcp_rule = getattr(server, "_template_params_subset", False)
        params, variables = set(self.info.param_names), set(self.variables)
        #: FastMCP's rule: a variable's ``-`` is a parameter's ``_`` (``{user-id}`` is ``user_id``).
        self.renamed = {v: v.replace("-", "_") for v in variables if "-" in v} if fastmcp_rule else {}
        variables = {self.renamed.get(v, v) for v in variables}
        #: The template's non-exploded query variables the core reads as lists (FastMCP's rule: the
        #: function's parameter takes only a list).
        self.list_variables = _list_variables(uri, self.info.fn) if fastmcp_rule and "{?" in uri else None
        if fastmcp_rule:
            # FastMCP's rule: every variable names a parameter, and every parameter without a
            # default in the signature is a variable (one with a default may stay out of the URI).
            signature = inspect.signature(self.info.fn).parameters
            required = {p for p in params if p in signature and signature[p].default is inspect.Parameter.empty}
            fits = variables <= params and required <= variables
        else:
            fits = params == variables
        if not fits:
            what = "template variables " + ", ".join(self.variables) if self.variables else "no parameters (static)"
            raise TemplateMismatch(
                f"Mismatch between URI parameters {sorted(self.variables)} and function parameters "
                f"{sorted(params)}: resource {uri!r}: function {getattr(fn, '__name__', fn)!r} takes "
                f"{sorted(params)} but the URI has {what}")
        self.name = self.info.name
        self.title, self.mime_type, self.size, self.icons = title, mime_type, size, icons
        self.annotations = camel_keys(annotations)
        self.meta = meta

    @property
    def spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {("uriTemplate" if self.is_template else "uri"): self.uri, "name": self.name}
        for key, value in (("title", self.title), ("description", self.info.description),
                           ("mimeType", self.mime_type), ("icons", self.icons), ("annotations", self.annotations),
                           ("_meta", self.meta)):
            if value or (key == "description" and value == ""):
                out[key] = value
        if self.size is not None and not self.is_template:
            out["size"] = self.size
        return out

    def _prepare(self, payload: Any, native_ctx: Any) -> dict[str, Any]:
        variables = dict((payload or {}).get("vars") or {})
        for raw, pname in self.renamed.items():
            if raw in variables:
                variables[pname] = variables.pop(raw)
        try:
            # On FastMCP's rule the variables name the parameters, not their pydantic aliases.
            return self._kwargs(variables, native_ctx, getattr(self.server, "_template_params_subset", False))
        except pydantic.ValidationError as exc:
            raise ResourceError(f"Invalid URI variables for {self.uri!r}: {_brief(exc)}") from exc

    def _finish(self, payload: Any, value: Any) -> Outcome:
        contents = normalize_resource_result(value, (payload or {}).get("uri") or self.uri, self.mime_type,
                                             getattr(self.server, "_resource_json", None))
        how = getattr(self.server, "_contents_meta", False)
        if self.meta and how == "merge":
            # FastMCP gives each content of a read the component's own `_meta`, under the content's
            # own keys, unless the function built the whole result.
            from ._fastmcp_components import contents_meta
            from .resources.base import ResourceResult

            meta = contents_meta(self.meta)
            if meta and not isinstance(value, ResourceResult):
                contents = [{**c, "_meta": {**meta, **(c.get("_meta") or {})}} for c in contents]
        elif self.meta and how:
            # mcp 2.x's MCPServer gives each content of a read the resource's `_meta`.
            contents = [c if "_meta" in c else {**c, "_meta": self.meta} for c in contents]
        return ("ok", contents)

    def _failed(self, exc: BaseException, payload: Any = None) -> Outcome:
        sdk = getattr(self.server, "_resource_failed", None)  # the SDK's codes, texts and log records
        if sdk is not None and not isinstance(exc, McpError):
            return sdk((payload or {}).get("uri") or self.uri, exc, self.is_template)
        if isinstance(exc, McpError):
            return ("mcp_error", (exc.code, exc.message, exc.data))
        if isinstance(exc, ResourceError):
            return ("mcp_error", (getattr(self.server, "_resource_error_code", INVALID_PARAMS), str(exc), None))
        _log.error("resource %r raised", self.uri, exc_info=exc)
        return ("internal", repr(exc) if self._debug() else None)


class PromptEntry(_Entry):
    def __init__(self, fn: Callable[..., Any], server: Any = None, *, name: str | None = None,
                 title: str | None = None, description: str | None = None,
                 icons: list[dict[str, Any]] | None = None, meta: dict[str, Any] | None = None,
                 required_scopes: list[str] | None = None) -> None:
        self.server = server
        self.info = analyze_function(fn, name=name, description=description, output_schema=False)
        self.name = self.info.name
        self.title, self.icons, self.meta = title, icons, meta
        self.required_scopes = list(required_scopes) if required_scopes else None
        required = set(self.info.input_schema.get("required", []))
        self.arguments: list[dict[str, Any]] = []
        for pname in self.info.param_names:
            arg: dict[str, Any] = {"name": pname}
            desc = self.info.input_schema["properties"].get(pname, {}).get("description")
            if desc:
                arg["description"] = desc
            arg["required"] = pname in required
            self.arguments.append(arg)

    @property
    def spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        for key, value in (("title", self.title), ("description", self.info.description), ("icons", self.icons),
                           ("_meta", self.meta)):
            if value or (key == "description" and value == ""):
                out[key] = value
        out["arguments"] = self.arguments
        return out

    def _prepare(self, payload: Any, native_ctx: Any) -> dict[str, Any]:
        raw = dict(payload or {})
        values: dict[str, Any] = {}
        for key, value in raw.items():
            field = self.info.arg_model.model_fields.get(key)
            if field is not None and field.annotation is not None and isinstance(value, str) and field.annotation is not str \
                    and not _takes_str(field.annotation):
                # Prompt arguments travel as strings: accept JSON for structured parameters (a
                # parameter that takes a string as it is, `str | int`, gets the string).
                try:
                    values[key] = json.loads(value)
                    pydantic.TypeAdapter(field.annotation).validate_python(values[key])
                except Exception:  # noqa: BLE001
                    values[key] = value
            else:
                values[key] = value
        try:
            return self._kwargs(values, native_ctx)
        except pydantic.ValidationError as exc:
            raise _InvalidArguments(exc) from exc

    #: The meta a rendered prompt's result carries when the function returned only messages (a
    #: compatibility layer's: FastMCP gives it the prompt's own meta).
    result_meta: dict[str, Any] | None = None

    def _finish(self, payload: Any, value: Any) -> Outcome:
        out = normalize_prompt_result(value, self.info.description)
        if self.result_meta and isinstance(value, (str, list, tuple, Message)):
            out = {**out, "_meta": {**self.result_meta, **out.get("_meta", {})}}
        return ("ok", out)

    def _failed(self, exc: BaseException, payload: Any = None) -> Outcome:
        if isinstance(exc, _InvalidArguments):
            return ("invalid_arguments", exc.violations)
        if isinstance(exc, McpError):
            return ("mcp_error", (exc.code, exc.message, exc.data))
        if isinstance(exc, PromptError):
            return ("mcp_error", (INVALID_PARAMS, str(exc), None))
        _log.error("prompt %r raised", self.name, exc_info=exc)
        text_of = getattr(self.server, "_prompt_error_text", None)
        text = text_of(self.name, exc) if text_of is not None else None
        if text is not None:  # the framework's wording (its code, its text) and masking rule
            return ("mcp_error", (getattr(self.server, "_prompt_error_code", INTERNAL_ERROR), text, None))
        return ("internal", repr(exc) if self._debug() else None)


def _takes_str(annotation: Any) -> bool:
    """Whether a string is a value of ``annotation`` as it is (strictly: ``str | int`` yes, ``int`` no)."""
    try:
        return _takes_str_cached(annotation)
    except TypeError:  # an unhashable annotation
        return _takes_str_cached.__wrapped__(annotation)


@functools.lru_cache(maxsize=256)
def _takes_str_cached(annotation: Any) -> bool:
    try:
        pydantic.TypeAdapter(annotation).validate_python("", strict=True)
    except Exception:  # noqa: BLE001  not a string type, or a constrained one: decided by the JSON rule
        return False
    return True


class CompletionEntry(_Entry):
    """Completer for one prompt argument or template variable: ``fn(value[, context_args][, ctx])``.
    (A fixed list of values is matched by the core, not here.)
    """

    def __init__(self, fn: Callable[..., Any], server: Any = None) -> None:
        self.server = server
        self.fn = fn
        self._is_async = inspect.iscoroutinefunction(fn)
        self._wants_ctx = False
        self._arity = 1
        params = list(inspect.signature(fn).parameters.values())
        hints = typing.get_type_hints(fn)
        plain = [p for p in params if hints.get(p.name) is not Context]
        self._ctx_name = next((p.name for p in params if hints.get(p.name) is Context), None)
        self._arity = len(plain)

    @property
    def is_async(self) -> bool:
        return self._is_async

    def _call(self, payload: dict[str, Any], native_ctx: Any) -> Any:
        args: list[Any] = [payload.get("value", "")]
        if self._arity >= 2:
            args.append(dict(payload.get("context") or {}))
        kwargs: dict[str, Any] = {self._ctx_name: Context(native_ctx, self.server)} if self._ctx_name else {}
        return self.fn(*args, **kwargs)

    def call_sync(self, payload: Any, native_ctx: Any = None) -> Outcome:
        try:
            return ("ok", _completion(self._call(payload, native_ctx)))
        except McpError as exc:
            return ("mcp_error", (exc.code, exc.message, exc.data))
        except Exception as exc:  # noqa: BLE001
            _log.error("completion raised", exc_info=exc)
            return ("internal", None)

    async def call_async(self, payload: Any, native_ctx: Any = None) -> Outcome:
        try:
            return ("ok", _completion(await self._call(payload, native_ctx)))
        except asyncio.CancelledError:
            return ("cancelled", None)
        except McpError as exc:
            return ("mcp_error", (exc.code, exc.message, exc.data))
        except Exception as exc:  # noqa: BLE001
            _log.error("completion raised", exc_info=exc)
            return ("internal", None)


def _completion(value: Any) -> dict[str, Any]:
    """A completion handler's return as the core's ``Completion``: host conversion only. The cap
    on values sent (100, with ``total`` and ``hasMore``) is the core's rule, the same in every
    language."""
    if isinstance(value, dict):
        out: dict[str, Any] = {"values": [str(v) for v in value.get("values", [])]}
        if "total" in value:
            out["total"] = value["total"]
        if "hasMore" in value:
            out["hasMore"] = bool(value["hasMore"])
        return out
    return {"values": [str(v) for v in (value or [])]}


class _InvalidArguments(Exception):
    """pydantic refused the arguments: what failed, as `{path, message}` for the core to render
    (the text is the core's, the same in every language)."""

    def __init__(self, exc: pydantic.ValidationError) -> None:
        super().__init__(str(exc))
        self.violations: list[dict[str, Any]] = [{"path": list(err.get("loc", ())), "message": err.get("msg", "")}
                           for err in exc.errors()]

    @property
    def pointers(self) -> list[dict[str, str]]:
        """The violations as the core gives them to a wording: ``{pointer, message}``."""
        return [{"pointer": "".join(f"/{str(p).replace('~', '~0').replace('/', '~1')}" for p in v["path"]),
                 "message": v["message"]} for v in self.violations]


def _brief(exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        parts.append(f"{loc}: {err.get('msg')}")
    return "; ".join(parts)
