"""FastMCP's dependency injection (``Depends``, ``CallArgument``, ``Shared``, ``CurrentContext()``)
for the functions a server registers: a parameter whose default (or ``Annotated`` metadata) is a
dependency is left out of the listed schema and resolved per call.

The engine is ``uncalled-for``, the one FastMCP itself uses, so the semantics (per-call caching,
bindings, ``CallArgument`` references and their cycles, context-manager lifetimes) are FastMCP's.
It is optional: a function can only carry a dependency once ``uncalled_for`` is imported, so
without it nothing here runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import sys
import typing
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["declares_dependencies", "resolve_dependencies", "without_injected_parameters"]


def _engine() -> Any:
    """``uncalled_for``, when it is imported (no dependency can exist otherwise)."""
    return sys.modules.get("uncalled_for")


def _target(fn: Any) -> Any:
    """The callable whose signature declares the parameters (a callable object: its ``__call__``)."""
    if inspect.isroutine(fn) or inspect.isclass(fn) or isinstance(fn, functools.partial):
        return fn
    return type(fn).__call__.__get__(fn)


def declares_dependencies(fn: Any) -> bool:
    """Whether ``fn`` has a parameter a dependency supplies. A parameter that declares two (a
    ``Depends`` default and one in its ``Annotated`` metadata) is a ``TypeError``, as on FastMCP."""
    engine = _engine()
    if engine is None or not callable(fn):
        return False
    try:
        target = _target(fn)
        return bool(engine.get_dependency_parameters(target) or engine.get_annotation_dependencies(target))
    except ValueError:  # no signature to read (a builtin): nothing to inject
        return False


@contextlib.asynccontextmanager
async def resolve_dependencies(fn: Callable[..., Any], arguments: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
    """FastMCP's ``resolve_dependencies(fn, arguments)``: the arguments with every dependency of
    ``fn`` resolved, for the block's duration (context-manager dependencies close after it). A
    caller's value for a dependency's parameter is dropped: injected values are never the
    caller's to choose. A dependency that fails is a ``RuntimeError`` naming it (FastMCP's errors
    and a ``CycleError`` pass as they are)."""
    from ._errors import OxmcpError

    engine = _engine()
    params = engine.get_dependency_parameters(fn) if engine is not None else {}
    if not params:
        yield dict(arguments)
        return
    from uncalled_for.functional import _Depends

    given = {k: v for k, v in arguments.items() if k not in params}
    cache_token = _Depends.cache.set({})
    try:
        async with contextlib.AsyncExitStack() as stack:
            stack_token = _Depends.stack.set(stack)
            try:
                with engine.frame_scope(fn, given) as frame:
                    resolved: dict[str, Any] = {}
                    for name in params:
                        try:
                            resolved[name] = await frame.resolve(name)
                        except (OxmcpError, engine.CycleError):
                            raise
                        except Exception as exc:
                            what = getattr(fn, "__name__", repr(fn))
                            raise RuntimeError(f"Failed to resolve dependency '{name}' for {what}") from exc
                    yield {**given, **resolved}
            finally:
                _Depends.stack.reset(stack_token)
    finally:
        _Depends.cache.reset(cache_token)


def without_injected_parameters(fn: Any, *, run_in_thread: bool = True) -> Any:
    """``fn`` as the server registers it: an async function whose signature leaves out the
    dependency parameters (and takes the parameters a ``CallArgument`` names that ``fn`` lacks),
    resolving the dependencies per call. A sync ``fn`` runs in a worker thread (inline on the
    loop with ``run_in_thread=False``); a generator it returns is consumed before the dependencies
    close. ``fn`` itself when it declares none."""
    if not declares_dependencies(fn):
        return fn
    engine = _engine()
    target = _target(fn)
    params = engine.get_dependency_parameters(target)
    referenced = engine.get_call_argument_parameters(target)
    referenced_names = {p.name for p in referenced}
    sig = inspect.signature(target)
    kept = [p for name, p in sig.parameters.items() if name not in params]
    variadic = [p for p in kept if p.kind is inspect.Parameter.VAR_KEYWORD]
    kept = [p for p in kept if p.kind is not inspect.Parameter.VAR_KEYWORD]
    is_async = inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target)

    async def wrapper(**given: Any) -> Any:
        async with resolve_dependencies(target, given) as kwargs:
            if referenced_names:
                kwargs = {k: v for k, v in kwargs.items() if k not in referenced_names}
            if is_async:
                result = target(**kwargs)
                if inspect.isawaitable(result):
                    result = await result
            elif run_in_thread:
                result = await _in_thread(functools.partial(_call_consumed, target, kwargs))
            else:
                result = _call_consumed(target, kwargs)
            if inspect.isawaitable(result):
                result = await result
            if inspect.isasyncgen(result):
                return [item async for item in result]
            if inspect.isgenerator(result):
                return list(result)
            return result

    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception:  # noqa: BLE001  unresolvable hints: the registration says so
        hints = dict(getattr(target, "__annotations__", {}))
    wrapper.__signature__ = inspect.Signature([*kept, *referenced, *variadic])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {k: v for k, v in hints.items() if k not in params and k != "return"} \
        | {p.name: p.annotation for p in referenced}
    if "return" in hints:
        wrapper.__annotations__["return"] = hints["return"]
    wrapper.__name__ = getattr(fn, "__name__", None) or type(fn).__name__
    wrapper.__qualname__ = getattr(fn, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = getattr(fn, "__doc__", None) if inspect.isroutine(fn) else inspect.getdoc(type(fn))
    wrapper.__module__ = getattr(fn, "__module__", __name__)
    return wrapper


def _call_consumed(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Call a sync ``fn`` and consume a generator it returns where it runs (its body runs then)."""
    result = fn(**kwargs)
    return list(result) if inspect.isgenerator(result) else result


async def _in_thread(call: Callable[[], Any]) -> Any:
    """``call()`` in a worker thread, in this context. A cancellation waits for the thread to end
    before it passes on: the dependencies it uses close only after it."""
    loop = asyncio.get_running_loop()
    ctx = contextvars.copy_context()
    future = loop.run_in_executor(None, ctx.run, call)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        while not future.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(future)
        raise
