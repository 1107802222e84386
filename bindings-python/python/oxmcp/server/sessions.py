"""``fastmcp.server.sessions``: FastMCP's session state, kept by the server across stateless calls.

A modern request has no protocol session, so FastMCP gives tools two ways to keep state between calls:

- ``session_id: SessionId``, an argument the agent passes: an id ``create_session()`` minted, resolved
  with ``await get_session(session_id)`` (an id never created, or created by another principal, is
  ``InvalidSession``);
- ``session: Session = CurrentSession()``, one bucket per authenticated principal (``SessionAuthError``
  without one; ``OptionalCurrentSession()`` gives None instead).

A session is one dict in the server's state store (``FastMCP(session_state_store=...)``, an
``AsyncKeyValue`` store as FastMCP takes it; by default a bounded in-memory one), under a key made of
the principal and the id. The principal is the request's caller as the core verified it (its client
id, issuer and subject, ``get_access_token()``), so no argument a client sends can reach another
principal's state. Without authentication every client is the one ``anon`` principal and an id is a
bearer capability, as on FastMCP: ids are random UUIDs.

``mcp.add_provider(SessionProvider())`` registers ``create_session`` and ``end_session`` as the server's
tools. A ``SessionId`` parameter's schema says how to get an id, after any description the author gave.
A ``session: UserSession`` parameter is not injected by its annotation alone (it is refused when the tool
is built); give it ``CurrentSession()`` as its default.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import time
import typing
import uuid
from collections import OrderedDict
from collections.abc import Callable
from typing import Annotated, Any, Final

from pydantic import BaseModel

from ..exceptions import FastMCPError
from .providers.base import Provider

__all__ = [
    "CurrentSession",
    "InvalidSession",
    "OptionalCurrentSession",
    "Session",
    "SessionAuthError",
    "SessionId",
    "SessionProvider",
    "StateValue",
    "UserSession",
    "create_session",
    "current_principal",
    "end_session",
    "get_session",
    "session_id_parameter_names",
    "session_storage_key",
]

#: The description a ``SessionId`` argument carries in a tool's schema.
SESSION_ID_DESCRIPTION: Final[str] = (
    "Session identifier. Use a tool to create a session, then pass the resulting "
    "id here to persist state across calls in the same session.")

# A session's stored dict: the user's state under one member, the time it was created under another
# (so a created but empty session is told from an unknown id, whatever keys the user sets).
_CREATED: Final[str] = "_created"
_STATE: Final[str] = "state"
# The id of a principal's own bucket (CurrentSession): a constant, so the key never holds the raw
# principal; create_session's UUIDs never take this form.
_USER_BUCKET: Final[str] = "_user"
_COLLECTION: Final[str] = "fastmcp_state"


class SessionAuthError(FastMCPError):
    """``CurrentSession()`` on a request no authenticated principal made."""

    def __init__(self, message: str = ("Injected `session: UserSession` requires an authenticated principal, "
                                       "but this request is unauthenticated. Use a `session_id: SessionId` "
                                       "argument for cross-call state on unauthenticated connections.")) -> None:
        super().__init__(message)


class InvalidSession(FastMCPError):
    """A session id no session of the current principal has. One text for an unknown id and for
    another principal's, so a caller cannot tell them apart."""

    def __init__(self, message: str = "Invalid or unknown session.") -> None:
        super().__init__(message)


class StateValue(BaseModel):
    """A stored state value (FastMCP's wrapper)."""

    value: Any


class MemoryStateStore:
    """The default state store: in this process, bounded. Past ``max_entries`` the least recently
    used entry goes, and an entry unused for ``ttl_s`` is dropped, so clients minting sessions cannot
    grow the server without bound. Values are stored as JSON (copies, as a store outside the process
    would keep them)."""

    def __init__(self, max_entries: int = 10_000, ttl_s: float = 86_400.0) -> None:
        self._entries: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._max = max_entries
        self._ttl = ttl_s

    async def get(self, key: str) -> StateValue | None:
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry is None:
            return None
        if now - entry[0] >= self._ttl:
            del self._entries[key]
            return None
        self._entries[key] = (now, entry[1])
        self._entries.move_to_end(key)
        return StateValue(value=json.loads(entry[1]))

    async def put(self, key: str, value: StateValue) -> None:
        self._entries[key] = (time.monotonic(), json.dumps(value.value))
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    async def delete(self, key: str) -> None:
        self._entries.pop(key, None)


class KeyValueStateStore:
    """A store given as ``session_state_store=``: a ``py-key-value`` ``AsyncKeyValue``, each value a
    ``{"value": ...}`` mapping in FastMCP's ``fastmcp_state`` collection."""

    def __init__(self, store: Any) -> None:
        for method in ("get", "put", "delete"):
            if not callable(getattr(store, method, None)):
                raise TypeError(f"session_state_store: {type(store).__name__} has no {method}(); give an "
                                "AsyncKeyValue store (py-key-value)")
        self._store = store

    async def get(self, key: str) -> StateValue | None:
        raw = await self._store.get(key=key, collection=_COLLECTION)
        return None if raw is None else StateValue.model_validate(raw)

    async def put(self, key: str, value: StateValue) -> None:
        await self._store.put(key=key, value=value.model_dump(mode="json"), collection=_COLLECTION)

    async def delete(self, key: str) -> None:
        await self._store.delete(key=key, collection=_COLLECTION)


def current_principal() -> str | None:
    """The caller of this request as a compact JSON ``[client_id, issuer, subject]``, or None when it
    is not authenticated."""
    from .auth.middleware.auth_context import get_access_token
    from .auth.provider import principal_components

    token = get_access_token()
    if token is None:
        return None
    return json.dumps(principal_components(token), separators=(",", ":"))


def session_storage_key(principal: str | None, session_id: str) -> str:
    """The key of a session's dict: ``session:<principal>:<id>``, the principal as its SHA-256 (so no
    principal can forge the delimiter, and no identity is written into keys) or ``anon``."""
    segment = "anon" if principal is None else \
        hashlib.sha256(principal.encode("utf-8", "surrogatepass")).hexdigest()
    return f"session:{segment}:{session_id}"


class Session:
    """The state of one ``(principal, session_id)``: ``get``/``set``/``delete``/``clear`` on its dict,
    ``end`` to remove it. Each write reads, changes and writes the whole dict back; two concurrent
    writes to one session may lose one of them (session state is small and driven by one agent)."""

    def __init__(self, *, store: Any, principal: str | None, session_id: str,
                 public_id: str | None = None) -> None:
        self._store = store
        self._key = session_storage_key(principal, session_id)
        self._public_id = public_id

    @property
    def id(self) -> str | None:
        """The id the agent passes, or None for a principal's own bucket (which has none)."""
        return self._public_id

    async def _record(self) -> dict[str, Any] | None:
        found = await self._store.get(key=self._key)
        value = None if found is None else found.value
        return dict(value) if isinstance(value, dict) else None

    async def _write(self, record: dict[str, Any]) -> None:
        await self._store.put(key=self._key, value=StateValue(value=record))

    @staticmethod
    def _state(record: dict[str, Any] | None) -> dict[str, Any]:
        state = (record or {}).get(_STATE)
        return dict(state) if isinstance(state, dict) else {}

    async def _exists(self) -> bool:
        """Whether ``create_session`` made this session (false for a principal's own bucket)."""
        record = await self._record()
        return record is not None and _CREATED in record

    async def _create(self) -> None:
        record = await self._record() or {}
        record[_CREATED] = time.time()
        record.setdefault(_STATE, {})
        await self._write(record)

    async def get(self, key: str, default: Any = None) -> Any:
        return self._state(await self._record()).get(key, default)

    async def set(self, key: str, value: Any) -> None:
        record = await self._record() or {}
        record[_STATE] = {**self._state(record), key: value}
        await self._write(record)

    async def delete(self, key: str) -> None:
        record = await self._record()
        state = self._state(record)
        if record is not None and key in state:
            del state[key]
            record[_STATE] = state
            await self._write(record)

    async def clear(self) -> None:
        """Empty the state; the session stays (its id still resolves)."""
        record = await self._record()
        if record is not None:
            record[_STATE] = {}
            await self._write(record)

    async def end(self) -> None:
        """Remove the session and its state: its id no longer resolves."""
        await self._store.delete(key=self._key)


class UserSession(Session):
    """A principal's own bucket (what ``CurrentSession()`` gives)."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        # A tool parameter typed UserSession with no CurrentSession() default would otherwise be an
        # argument the client sends: refused when the tool is built, saying what to write.
        raise TypeError("a `session: UserSession` parameter is injected only with `= CurrentSession()` "
                        "(or `OptionalCurrentSession()`) as its default on oxmcp")


class _SessionIdMarker:
    """Marks a ``SessionId`` parameter, whose schema then says how to get an id (added to a
    description the author gave)."""

    def extend_description(self, given: str | None) -> str:
        if not given:
            return SESSION_ID_DESCRIPTION
        return given if SESSION_ID_DESCRIPTION in given else f"{given}\n\n{SESSION_ID_DESCRIPTION}"


#: An argument the agent passes: an id ``create_session`` minted.
SessionId = Annotated[str, _SessionIdMarker()]


@functools.lru_cache(maxsize=5000)
def session_id_parameter_names(fn: Callable[..., object]) -> tuple[str, ...]:
    """The parameters of ``fn`` typed ``SessionId`` that a caller still passes (a ``partial``'s
    positionally bound ones are not; its keyword-bound ones are, since a caller may override them)."""
    target: Any = fn
    while isinstance(target, functools.partial):
        target = target.func
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except (TypeError, NameError):
        return ()
    try:
        open_names: set[str] | None = set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        open_names = None
    return tuple(name for name, hint in hints.items()
                 if name != "return" and (open_names is None or name in open_names)
                 and typing.get_origin(hint) is Annotated
                 and any(isinstance(m, _SessionIdMarker) for m in typing.get_args(hint)[1:]))


def _server() -> Any:
    from .dependencies import get_context

    server = get_context().fastmcp
    if server is None:
        raise RuntimeError("No FastMCP server instance in context")
    return server


async def get_session(session_id: str) -> Session:
    """The session ``session_id`` names for the current principal; ``InvalidSession`` when
    ``create_session`` made no such session for it."""
    session = Session(store=_server()._state_store, principal=current_principal(), session_id=session_id,
                      public_id=session_id)
    if not await session._exists():
        raise InvalidSession
    return session


async def create_session() -> str:
    """Create a session for the current principal and return its id (a random UUID)."""
    session_id = str(uuid.uuid4())
    await Session(store=_server()._state_store, principal=current_principal(), session_id=session_id,
                  public_id=session_id)._create()
    return session_id


async def end_session(session_id: SessionId) -> str:
    """End a session and remove its state (an unknown or another principal's id is refused)."""
    await (await get_session(session_id)).end()
    return "session ended"


class SessionProvider(Provider):
    """``mcp.add_provider(SessionProvider())``: the ``create_session`` and ``end_session`` tools, registered
    on the server itself (the state is in the server's store; the provider holds none)."""

    def _oxmcp_tools(self) -> tuple[Callable[..., Any], ...]:
        return create_session, end_session


def _user_session() -> UserSession | None:
    principal = current_principal()
    if principal is None:
        return None
    return UserSession(store=_server()._state_store, principal=principal, session_id=_USER_BUCKET)


@functools.cache
def _providers() -> tuple[type, type]:
    """The dependency classes of ``CurrentSession()`` and ``OptionalCurrentSession()`` (FastMCP's
    injection engine, ``uncalled-for``, is imported when one is first asked for)."""
    from uncalled_for import Provider

    class _CurrentSession(Provider[Any]):
        async def __aenter__(self) -> Session:
            session = _user_session()
            if session is None:
                raise SessionAuthError
            return session

    class _OptionalCurrentSession(Provider[Any]):
        async def __aenter__(self) -> Session | None:
            return _user_session()

    return _CurrentSession, _OptionalCurrentSession


def CurrentSession() -> Any:
    """The current principal's own ``Session`` as a dependency (``session: UserSession =
    CurrentSession()``); ``SessionAuthError`` on an unauthenticated request."""
    return _providers()[0]()


def OptionalCurrentSession() -> Any:
    """As ``CurrentSession()``, None on an unauthenticated request."""
    return _providers()[1]()
