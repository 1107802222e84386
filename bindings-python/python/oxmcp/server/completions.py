"""``fastmcp.server.completions``: FastMCP's completion handler API. ``@mcp.completion`` registers one
handler for every ``completion/complete``: ``handler(ref, argument, context)`` (sync or async) with
the SDK's models, answering a list of strings, a ``Completion`` or ``None``."""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_COMPLETION_VALUES", "normalize_completion"]

#: The protocol's cap on the values of one completion (the core applies it on the wire too).
MAX_COMPLETION_VALUES = 100


def normalize_completion(result: Any) -> Any:
    """A handler's return as a ``Completion``: ``None`` is none; a ``str`` is refused (it would iterate
    into one-letter candidates); more than 100 values are cut to 100 with ``total`` and ``has_more``."""
    from .._fastmcp_client import model_types

    t = model_types()
    if result is None:
        return t.Completion(values=[])
    if isinstance(result, str):
        raise TypeError("A completion handler returned a str; return a list of strings (for example, "
                        "[value]) or a Completion instead.")
    completion = result if isinstance(result, t.Completion) else t.Completion(values=list(result))
    if len(completion.values) > MAX_COMPLETION_VALUES:
        total = completion.total if completion.total is not None else len(completion.values)
        return t.Completion(values=completion.values[:MAX_COMPLETION_VALUES], total=total, has_more=True)
    return completion


def completion_handler(fn: Any) -> Any:
    """``fn(ref, argument, context)`` as the async handler of the completion link: the SDK's models in
    (``mcp_types``' when installed), a sync ``fn`` off the event loop, its answer normalized."""
    import asyncio
    import inspect

    from .._fastmcp_client import model_types

    async def handler(ref: Any, argument: Any, context: Any) -> Any:
        t = model_types()

        def convert(model: Any, cls: Any) -> Any:
            return None if model is None else cls.model_validate(model.model_dump(by_alias=True, exclude_none=True))

        ref = convert(ref, t.PromptReference if getattr(ref, "type", "") == "ref/prompt"
                      else t.ResourceTemplateReference)
        args = (ref, convert(argument, t.CompletionArgument), convert(context, t.CompletionContext))
        if inspect.iscoroutinefunction(fn):
            out = await fn(*args)
        else:
            out = await asyncio.to_thread(fn, *args)
            if inspect.isawaitable(out):
                out = await out
        return normalize_completion(out)

    return handler
