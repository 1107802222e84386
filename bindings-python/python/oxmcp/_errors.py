"""Exceptions a handler may raise, and the ones the server raises to Python code."""

from __future__ import annotations

from typing import Any


class OxmcpError(Exception):
    """Base class of the errors this package raises."""


class ToolError(OxmcpError):
    """Raise from a tool to return an ``isError: true`` result carrying this message.

    The message is shown to the model, so it should say what went wrong and how to fix it.
    """


class ResourceError(OxmcpError):
    """Raise from a resource handler: the client gets a JSON-RPC error with this message."""


class PromptError(OxmcpError):
    """Raise from a prompt handler: the client gets a JSON-RPC error with this message."""


class McpError(OxmcpError):
    """A JSON-RPC error with a typed code, raised to end a request with that error.

    Raised by handlers to answer with a specific code (e.g. ``-32602``), and raised to Python code
    when a request to the client failed.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __repr__(self) -> str:
        return f"McpError(code={self.code}, message={self.message!r})"


class InputRequired(BaseException):
    """The request needs client input that is not there yet (MRTR on a modern request).

    It derives from :class:`BaseException` so that ``except Exception`` in user code does not
    swallow it: the server must see it to answer ``resultType: "input_required"``. Let it propagate.
    """


class RequestCancelled(BaseException):
    """The client cancelled the request. Like :class:`InputRequired`, let it propagate."""


class DefinitionError(OxmcpError, TypeError):
    """A decorated function cannot be turned into a tool, resource or prompt (bad signature)."""
