"""``mcp.server.mcpserver.resolve``: the SDK's resolvers, parameters a tool gets from the server.

``Annotated[T, Resolve(fn)]`` fills a tool parameter by running ``fn`` before the tool: the parameter
is left out of the tool's input schema (a value the client sends for it is ignored). A resolver
takes the tool's arguments by name, the ``Context``, and other resolvers' values
(``Annotated[U, Resolve(g)]``); each resolver runs at most once per call. A resolver may return a
question for the client instead of a value: ``Elicit(message, Model)`` (a form),
``Sample(messages, max_tokens=...)`` (the client's model) or ``ListRoots()``; the answer becomes the
value (the accepted form's model, the ``CreateMessageResult``, the ``ListRootsResult``).

The questions are the core's input requests (``Context.inputs`` of oxmcp): on a 2026-07-28 request
every question the call's resolvers reach is asked in one ``input_required`` round and the call is
retried with the answers (the core carries them, sealed, in ``requestState``, so each is asked
once, and the resolvers run again on the retry); on an earlier revision each is a server-to-client
request sent while the call runs. A question the client's capabilities do not cover is the core's
-32021 error.

A consumer annotated ``T`` gets the accepted value, and a declined or cancelled form fails the call;
one annotated ``ElicitationResult[T]`` (or one of its members) gets the outcome itself.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import types
import typing
from collections.abc import Callable, Hashable
from typing import Annotated, Any, Generic, TypeVar, get_args, get_origin

from ..._errors import InputRequired, McpError
from ..elicitation import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationResult,
    render_form_schema,
)
from .exceptions import InvalidSignature, ToolError

__all__ = ["AcceptedElicitation", "CancelledElicitation", "DeclinedElicitation", "Elicit", "ElicitationResult",
           "ListRoots", "Resolve", "Sample", "build_resolver_plans", "find_resolved_parameters",
           "returns_input_required", "with_resolvers"]

T = TypeVar("T")

#: The JSON-RPC code of a request the client's declared capabilities do not cover.
_MISSING_CAPABILITY = -32021


class Resolve:
    """``Annotated[T, Resolve(fn)]``: the parameter's value is what ``fn`` resolves to."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn


class Elicit(Generic[T]):
    """A resolver's question to the user: a form shaped by ``schema`` (a pydantic model)."""

    def __init__(self, message: str, schema: type[T]) -> None:
        self.message = message
        self.schema = schema


class Sample:
    """A resolver's request to the client's model (``sampling/createMessage``): the value is the
    ``CreateMessageResult``. The keywords are ``CreateMessageRequestParams``'s."""

    def __init__(self, messages: list[Any], *, max_tokens: int, system_prompt: str | None = None,
                 include_context: Any = None, temperature: float | None = None,
                 stop_sequences: list[str] | None = None, metadata: dict[str, Any] | None = None,
                 model_preferences: Any = None, tools: list[Any] | None = None, tool_choice: Any = None) -> None:
        from ...types import CreateMessageRequestParams
        from ..validation import validate_tool_use_result_messages

        validate_tool_use_result_messages(messages)
        self.params = CreateMessageRequestParams.model_validate({
            "messages": messages, "maxTokens": max_tokens, "systemPrompt": system_prompt,
            "includeContext": include_context, "temperature": temperature, "stopSequences": stop_sequences,
            "metadata": metadata, "modelPreferences": model_preferences, "tools": tools, "toolChoice": tool_choice})


class ListRoots:
    """A resolver's request for the client's roots (``roots/list``): the value is the ``ListRootsResult``."""


_MARKERS = (Elicit, Sample, ListRoots)


# -- registration: the resolvers of a tool, analysed once ------------------------------------------
class _Plan:
    """One resolver: how each of its parameters is filled, and its key on the wire."""

    def __init__(self, fn: Callable[..., Any], params: dict[str, tuple[str, Any, bool]], key: str) -> None:
        self.fn = fn
        #: name -> ("context", None, _) | ("by_name", None, _) | ("resolve", Resolve, wants_outcome)
        self.params = params
        self.is_async = _is_async(fn)
        self.key = key


def _is_async(fn: Any) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    return inspect.iscoroutinefunction(fn) or (callable(fn) and inspect.iscoroutinefunction(type(fn).__call__))


def _name(fn: Any) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def _hints(fn: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn if inspect.isroutine(fn) else type(fn).__call__, include_extras=True)
    except Exception:  # noqa: BLE001  unresolvable hints: no resolved parameters
        return {}


def _marker_of(annotation: Any) -> tuple[Resolve | None, bool]:
    """The ``Resolve`` an ``Annotated`` carries at its top level, and whether the consumer wants the
    elicitation's outcome (its type is ``ElicitationResult`` or a member of it)."""
    if get_origin(annotation) is not Annotated:
        return None, False
    type_arg, *metadata = get_args(annotation)
    marker = next((m for m in metadata if isinstance(m, Resolve)), None)
    return marker, marker is not None and _wants_outcome(type_arg)


def _wants_outcome(type_arg: Any) -> bool:
    value = getattr(type_arg, "__value__", None) or getattr(get_origin(type_arg), "__value__", None)
    if value is not None:
        type_arg = value
    members = get_args(type_arg) if get_origin(type_arg) in (typing.Union, types.UnionType) else (type_arg,)
    outcomes = (AcceptedElicitation, DeclinedElicitation, CancelledElicitation)
    return any(isinstance(get_origin(m) or m, type) and issubclass(get_origin(m) or m, outcomes) for m in members)


def _nested_resolve(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated:
        return any(isinstance(m, Resolve) for m in get_args(annotation)[1:])
    return any(_nested_resolve(arg) for arg in get_args(annotation))


def find_resolved_parameters(fn: Callable[..., Any]) -> dict[str, tuple[Resolve, bool]]:
    """``{parameter: (Resolve, wants_outcome)}`` of ``fn``; a ``Resolve`` inside a union is refused."""
    hints = _hints(fn)
    found: dict[str, tuple[Resolve, bool]] = {}
    for name in inspect.signature(fn).parameters:
        annotation = hints.get(name)
        marker, wants = _marker_of(annotation)
        if marker is not None:
            found[name] = (marker, wants)
        elif _nested_resolve(annotation):
            raise InvalidSignature(f"Parameter {name!r} of {_name(fn)!r} wraps `Resolve(...)` in a union; annotate "
                                   "the parameter directly as `Annotated[T, Resolve(...)]`")
    return found


def returns_input_required(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``'s return annotation has an ``InputRequiredResult`` arm."""
    from ...types import InputRequiredResult

    def arm(annotation: Any) -> bool:
        if get_origin(annotation) is Annotated:
            return arm(get_args(annotation)[0])
        if get_origin(annotation) in (typing.Union, types.UnionType):
            return any(arm(a) for a in get_args(annotation))
        return isinstance(annotation, type) and issubclass(annotation, InputRequiredResult)

    return arm(_hints(fn).get("return"))


def _resolver_id(fn: Any) -> Hashable:
    """One resolver however it is reached: a bound method by its function and instance."""
    bound = getattr(fn, "__self__", None)
    if bound is not None:
        func = getattr(fn, "__func__", None)
        return (id(func) if func is not None else getattr(fn, "__name__", id(fn)), id(bound))
    return id(fn)


def _is_context(annotation: Any) -> bool:
    from ..._context import Context

    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    candidates = get_args(annotation) if get_origin(annotation) is not None else (annotation,)
    return any(isinstance(c, type) and issubclass(c, Context) for c in candidates)


def _check_return(annotation: Any, name: str) -> None:
    arms = get_args(annotation) if get_origin(annotation) in (typing.Union, types.UnionType) else (annotation,)
    questions = [a for a in arms if get_origin(a) is Elicit
                 or (get_origin(a) is None and isinstance(a, type) and issubclass(a, _MARKERS))]
    if len(questions) > 1:
        raise InvalidSignature(f"Resolver {name!r} return annotation has multiple Elicit/Sample/ListRoots arms; "
                               "a resolver asks one question - split it into separate resolvers")


def build_resolver_plans(resolved: dict[str, tuple[Resolve, bool]], tool_args: set[str]) -> dict[Hashable, _Plan]:
    """Every resolver a tool's parameters reach, analysed: a cycle, or a parameter that is neither a
    ``Context``, a ``Resolve`` nor a tool argument by name, is ``InvalidSignature``."""
    plans: dict[Hashable, _Plan] = {}
    bases: dict[str, int] = {}

    def analyse(fn: Any, stack: tuple[Hashable, ...]) -> None:
        rid = _resolver_id(fn)
        if rid in stack:
            raise InvalidSignature(f"Resolver {_name(fn)!r} has a cyclic dependency")
        if rid in plans:
            return
        # The key names the resolver's question on the wire, the same in every process.
        base = f"{getattr(fn, '__module__', None) or type(fn).__module__}:" \
               f"{getattr(fn, '__qualname__', None) or type(fn).__qualname__}"
        seen = bases.get(base, 0)
        bases[base] = seen + 1
        hints = _hints(fn)
        params: dict[str, tuple[str, Any, bool]] = {}
        nested = []
        for pname in inspect.signature(fn).parameters:
            annotation = hints.get(pname)
            marker, wants = _marker_of(annotation)
            if annotation is not None and _is_context(annotation):
                params[pname] = ("context", None, False)
            elif marker is not None:
                params[pname] = ("resolve", marker, wants)
                nested.append(marker.fn)
            elif pname in tool_args:
                params[pname] = ("by_name", None, False)
            else:
                raise InvalidSignature(f"Resolver {_name(fn)!r} parameter {pname!r} cannot be resolved: expected a "
                                       "Context, an Annotated[_, Resolve(...)], or a tool argument by name")
        _check_return(hints.get("return"), _name(fn))
        plans[rid] = _Plan(fn, params, base if seen == 0 else f"{base}#{seen}")
        for dep in nested:
            analyse(dep, (*stack, rid))

    for marker, _ in resolved.values():
        analyse(marker.fn, ())
    return plans


def with_resolvers(fn: Any) -> Any:
    """``fn`` as the server registers it: without its resolved parameters (neither listed nor taken
    from the client), which are resolved per call before it runs. ``fn`` itself when it has none."""
    target = fn if inspect.isroutine(fn) or isinstance(fn, functools.partial) else type(fn).__call__.__get__(fn)
    try:
        resolved = find_resolved_parameters(target)
    except (TypeError, ValueError):  # no signature to read: nothing to resolve
        return fn
    if not resolved:
        return fn
    if returns_input_required(target):
        raise InvalidSignature(f"Tool {_name(fn)!r} combines Resolve(...) parameters with an InputRequiredResult "
                               "return; a call has one input_required channel, so the multi-round flow is driven "
                               "either by resolvers or by the tool body, not both")
    sig = inspect.signature(target)
    hints = _hints(target)
    kept = [p for name, p in sig.parameters.items() if name not in resolved]
    plans = build_resolver_plans(resolved, {p.name for p in kept if not _is_context(hints.get(p.name))})
    is_async = _is_async(target)

    async def wrapper(**given: Any) -> Any:
        from ..dependencies import current_context

        values = await _resolve_all(resolved, plans, given, current_context.get())
        kwargs = {**given, **values}
        if is_async:
            return await target(**kwargs)
        return await asyncio.to_thread(functools.partial(target, **kwargs))

    wrapper.__signature__ = sig.replace(parameters=kept)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {k: v for k, v in hints.items() if k not in resolved}
    wrapper.__name__ = _name(fn)
    wrapper.__qualname__ = getattr(fn, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = fn.__doc__ if inspect.isroutine(fn) else inspect.getdoc(type(fn))
    wrapper.__module__ = getattr(fn, "__module__", __name__)
    wrapper.__oxmcp_resolved__ = fn  # type: ignore[attr-defined]
    return wrapper


# -- per call ---------------------------------------------------------------------------------------
class _Pending(Exception):
    """A resolver (or one it depends on) waits for an answer of the client."""


class _Call:
    def __init__(self, plans: dict[Hashable, _Plan], args: dict[str, Any], ctx: Any) -> None:
        self.plans = plans
        self.args = args
        self.ctx = ctx
        self.values: dict[Hashable, Any] = {}
        self.pending: list[str] = []


async def _resolve_all(resolved: dict[str, tuple[Resolve, bool]], plans: dict[Hashable, _Plan],
                       args: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """The tool's resolved parameters. Every question the resolvers reach is asked before any is
    waited for, so that a 2026-07-28 round carries them all (the core answers ``input_required``)."""
    call = _Call(plans, args, ctx)
    out: dict[str, Any] = {}
    for name, (marker, wants_outcome) in resolved.items():
        try:
            outcome = await _resolve(marker.fn, call)
        except _Pending:
            continue
        out[name] = outcome if wants_outcome else _unwrap(outcome, name)
    if call.pending:
        raise InputRequired(call.pending[0])
    return out


async def _resolve(fn: Any, call: _Call) -> Any:
    rid = _resolver_id(fn)
    if rid in call.values:
        return call.values[rid]
    plan = call.plans[rid]
    if plan.key in call.pending:
        raise _Pending
    kwargs: dict[str, Any] = {}
    waiting = False
    for pname, (kind, marker, wants_outcome) in plan.params.items():
        if kind == "context":
            kwargs[pname] = call.ctx
        elif kind == "by_name":
            kwargs[pname] = call.args.get(pname)
        else:
            try:  # every dependency is visited, so that the questions of independent ones are asked together
                dep = await _resolve(marker.fn, call)
            except _Pending:
                waiting = True
                continue
            kwargs[pname] = dep if wants_outcome else _unwrap(dep, pname)
    if waiting:
        raise _Pending
    if plan.is_async:
        value = await fn(**kwargs)
    else:
        value = await asyncio.to_thread(functools.partial(fn, **kwargs))
    outcome = await _ask(value, plan.key, call) if isinstance(value, _MARKERS) else AcceptedElicitation(data=value)
    call.values[rid] = outcome
    return outcome


def _request(marker: Any) -> tuple[str, Any]:
    """The core's input request for a question: ``(kind, params)``."""
    if isinstance(marker, Elicit):
        return "elicit", {"mode": "form", "message": marker.message, "requestedSchema": render_form_schema(marker.schema)}
    if isinstance(marker, Sample):
        return "sample", marker.params.model_dump(by_alias=True, exclude_none=True, mode="json")
    return "roots", None


#: What a question needs the client to have declared: its name in the SDK's error, and the capability.
_CAPABILITY = {"elicit": ("form elicitation", {"elicitation": {"form": {}}}), "sample": ("sampling", {"sampling": {}}),
               "roots": ("roots", {"roots": {}})}


async def _ask(marker: Any, key: str, call: _Call) -> Any:
    """The client's answer to a resolver's question, as its outcome; ``_Pending`` while a
    2026-07-28 round waits for it."""
    from ..._context import settled_by_core

    native = getattr(call.ctx, "_native", None)
    if native is None:
        raise McpError(-32603, f"Resolver {key!r} asks the client, and there is no request in progress")
    kind, params = _request(marker)
    try:
        answer = await settled_by_core(lambda settle: native.ask(kind, key, params, settle), key)
    except InputRequired:
        call.pending.append(key)
        raise _Pending from None
    except McpError as exc:
        if exc.code != _MISSING_CAPABILITY:
            raise
        # The core's refusal, worded as the SDK words it for a resolver's question.
        name, required = _CAPABILITY[kind]
        if kind == "sample" and (params.get("tools") or params.get("toolChoice")):
            name, required = "sampling.tools", {"sampling": {"tools": {}}}
        raise McpError(exc.code, f"Client did not declare the {name} capability required by resolver {key!r}",
                       {"requiredCapabilities": required}) from None
    return _outcome(marker, key, answer)


def _outcome(marker: Any, key: str, answer: Any) -> Any:
    import pydantic

    from ... import types as t

    if not isinstance(marker, Elicit):
        model = t.ListRootsResult if isinstance(marker, ListRoots) else t.CreateMessageResult
        try:
            return AcceptedElicitation(data=model.model_validate(answer))
        except pydantic.ValidationError as exc:
            raise ToolError(f"Resolver {key!r} received a response of the wrong kind") from exc
    action = answer.get("action") if isinstance(answer, dict) else None
    if action == "accept":
        content = answer.get("content")
        if content is None:
            raise ToolError(f"Resolver {key!r} received an accepted elicitation with no content")
        try:
            return AcceptedElicitation(data=marker.schema.model_validate(content))  # type: ignore[attr-defined]
        except pydantic.ValidationError as exc:
            raise ToolError(f"Resolver {key!r} received an accepted elicitation whose content does not match the "
                            "requested schema") from exc
    if action == "decline":
        return DeclinedElicitation()
    return CancelledElicitation()


def _unwrap(outcome: Any, name: str) -> Any:
    if isinstance(outcome, AcceptedElicitation):
        return outcome.data
    raise ToolError(f"Resolver for parameter {name!r} could not resolve: elicitation was {outcome.action}")
