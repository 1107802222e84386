"""``mcp.shared._stream_protocols``: what a transport's read and write streams offer (mcp 2.x).

anyio's memory object streams satisfy both; ``Server.run(read, write, ...)`` takes any such pair.
"""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, TypeVar

from typing_extensions import Self

__all__ = ["ReadStream", "WriteStream"]

T_co = TypeVar("T_co", covariant=True)
T_contra = TypeVar("T_contra", contravariant=True)


class ReadStream(Protocol[T_co]):
    """Items in: ``receive()``, ``async for``, ``aclose()``, ``async with``."""

    async def receive(self) -> T_co: ...

    async def aclose(self) -> None: ...

    def __aiter__(self) -> ReadStream[T_co]: ...

    async def __anext__(self) -> T_co: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> bool | None: ...


class WriteStream(Protocol[T_contra]):
    """Items out: ``send(item)``, ``aclose()``, ``async with``."""

    async def send(self, item: T_contra, /) -> None: ...

    async def aclose(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> bool | None: ...
