"""``mcp.shared.session``: ``RequestResponder``, a server's request as a ``ClientSession``'s message
handler receives it (``await responder.respond(result)`` answers it), and ``ProgressFnT``."""

from __future__ import annotations

from typing import Any, Protocol

from typing_extensions import Self

__all__ = ["ProgressFnT", "RequestResponder"]


class ProgressFnT(Protocol):
    async def __call__(self, progress: float, total: float | None, message: str | None) -> None: ...


class RequestResponder:
    """One request from the peer: ``request_id``, ``request_meta``, ``request``; answered once."""

    def __class_getitem__(cls, _params: Any) -> type:
        return cls

    def __init__(self, request_id: Any, request_meta: Any, request: Any, session: Any,
                 on_complete: Any = None, message_metadata: Any = None) -> None:
        self.request_id = request_id
        self.request_meta = request_meta
        self.request = request
        self.message_metadata = message_metadata
        self._session = session
        self._on_complete = on_complete
        self._completed = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._completed and self._on_complete is not None:
            self._on_complete(self)

    @property
    def completed(self) -> bool:
        return self._completed

    @property
    def in_flight(self) -> bool:
        return not self._completed

    async def respond(self, response: Any) -> None:
        """Answer the request with a result model or ``ErrorData`` (once)."""
        if self._completed:
            raise AssertionError("Request already responded to")
        self._completed = True
        await self._session._respond(self.request_id, getattr(response, "root", response))

    async def cancel(self) -> None:
        """Answer the request as cancelled."""
        from ..types import ErrorData

        await self.respond(ErrorData.model_validate({"code": 0, "message": "Request cancelled"}))
