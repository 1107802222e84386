"""mcp 2.x's hand-written multi-round-trip flow on the core's input rounds.

A tool, prompt or resource template of ``MCPServer`` may return ``InputRequiredResult(input_requests=
{key: request}, request_state=...)`` and read the client's answers on the retry from
``ctx.input_responses`` (and its own state from ``ctx.request_state``). The core runs such rounds:
it seals ``requestState`` (the client can neither read nor change it), binds it to the call and to
the keys asked, and keeps the answers. Here the returned result becomes that: the requests are
asked of the core under their keys, with the handler's state and the keys' kinds as the round's
state; on the retry the state names the keys, whose answers the core gives back before the
handler runs. A session of an earlier revision has no ``input_required`` result: there the
returned value is an invalid result (-32603), as in the SDK.
"""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

__all__ = ["answers_before", "input_responses", "is_input_required", "keep", "relay", "relay_sync", "request_state",
           "retried"]

#: The native state's key that marks a round of this flow (the handler's state is under it).
_MARK = "mcp.input_required"
#: The input request kinds of the core, by the request's method.
_KINDS = {"elicitation/create": "elicit", "sampling/createMessage": "sample", "roots/list": "roots"}
#: ``(request key, answers by key)`` of the request being served, read before its handler runs.
_ANSWERS: contextvars.ContextVar[tuple[int, dict[str, Any]] | None] = contextvars.ContextVar(
    "oxmcp_sdk_input_responses", default=None)


def is_input_required(server: Any, value: Any) -> bool:
    if not getattr(server, "_relays_input_required", False):
        return False
    from .types import InputRequiredResult

    return isinstance(value, InputRequiredResult)


def _round(native: Any) -> dict[str, Any] | None:
    state = native.request_state if native is not None else None
    if isinstance(state, dict) and isinstance(state.get(_MARK), dict):
        return state[_MARK]
    return None


def retried(native: Any) -> bool:
    """Whether this request retries a round of this flow (its state names what was asked)."""
    return native is not None and native.era != "legacy" and bool((_round(native) or {}).get("asked"))


async def answers_before(server: Any, native: Any) -> tuple[int, dict[str, Any]] | None:
    """On a retry of this flow, the answers to the requests the last round made (the core's, each
    checked against its request's kind), for ``ctx.input_responses`` of this request (``keep``)."""
    if not getattr(server, "_relays_input_required", False) or native is None or native.era == "legacy":
        return None
    asked = (_round(native) or {}).get("asked")
    if not asked:
        return None
    from ._context import settled_by_core

    answers = await settled_by_core(lambda settle: native.ask("many", "", asked, settle), None)
    return (native.request_key, {item[0]: answer for item, answer in zip(asked, answers)})


def keep(answers: tuple[int, dict[str, Any]] | None) -> None:
    _ANSWERS.set(answers)


def input_responses(native: Any) -> dict[str, Any] | None:
    """The client's answers to the last round's requests, as the SDK's result models; None on a
    first round (and for a request this flow did not start)."""
    held = _ANSWERS.get()
    if native is None or held is None or held[0] != native.request_key:
        return None
    from . import types

    models: dict[str, Any] = {"elicit": types.ElicitResult, "sample": types.CreateMessageResult, "roots": types.ListRootsResult}
    kinds = {item[0]: item[1] for item in (_round(native) or {}).get("asked") or ()}
    return {key: models[kinds[key]].model_validate(value) if kinds.get(key) in models else value
            for key, value in held[1].items()}


def request_state(native: Any) -> Any:
    """The state the handler returned with its last ``InputRequiredResult``; otherwise the core's."""
    state = native.request_state if native is not None else None
    held = _round(native)
    return held.get("state") if held is not None else state


async def relay(value: Any, native: Any) -> tuple[str, Any]:
    """The handler's ``InputRequiredResult`` as the core's input round (the outcome for the core)."""
    if native is None or native.era == "legacy":
        return ("mcp_error", (-32603, "Handler returned an invalid result", None))
    from ._context import settled_by_core
    from ._errors import InputRequired

    items = []
    for key, request in (value.inputRequests or {}).items():
        body = request.model_dump(by_alias=True, exclude_none=True, mode="json") \
            if hasattr(request, "model_dump") else dict(request)
        kind = _KINDS.get(body.get("method", ""))
        if kind is None:
            return ("mcp_error", (-32603, f"Unsupported input request {body.get('method')!r} for key {key!r}", None))
        items.append([key, kind, body.get("params")])
    native.request_state = {_MARK: {"state": value.requestState, "asked": items}}
    try:
        await settled_by_core(lambda settle: native.ask("many", "", items, settle), None)
    except InputRequired:
        return ("input_required", None)
    # Every request was answered already: the handler asked again for what it has.
    return ("mcp_error", (-32603, "Handler returned InputRequiredResult for requests already answered", None))


def relay_sync(value: Any, native: Any) -> tuple[str, Any]:
    """``relay`` for a handler run on a worker thread (no loop of its own)."""
    return asyncio.run(relay(value, native))
