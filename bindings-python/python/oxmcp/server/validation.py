"""``mcp.server.validation``: the SDK's checks of a sampling request a server is about to send.

Each decision is the core's (``_oxmcp.wants_sampling_tools``, ``_oxmcp.tool_use_results_problem``),
the rules it applies to a handler's own sampling requests; these functions raise as the SDK does.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check_sampling_tools_capability", "validate_sampling_tools", "validate_tool_use_result_messages",
           "wants_sampling_tools"]


def _wire(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, list):
        return [_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    return value


def check_sampling_tools_capability(client_caps: Any) -> bool:
    """Whether the client declared ``sampling.tools``."""
    sampling = getattr(client_caps, "sampling", None) if client_caps is not None else None
    return sampling is not None and getattr(sampling, "tools", None) is not None


def wants_sampling_tools(tools: Any, tool_choice: Any) -> bool:
    """Whether a sampling request with these ``tools`` / ``tool_choice`` uses tools."""
    from .. import _oxmcp

    params = {k: v for k, v in (("tools", tools), ("toolChoice", tool_choice)) if v is not None}
    return bool(_oxmcp.wants_sampling_tools(_wire(params)))


def validate_sampling_tools(client_caps: Any, tools: Any, tool_choice: Any) -> None:
    """Raise ``MCPError`` (-32602) when the request uses tools the client did not declare."""
    from ..shared.exceptions import MCPError

    if wants_sampling_tools(tools, tool_choice) and not check_sampling_tools_capability(client_caps):
        raise MCPError(code=-32602, message="Client does not support sampling tools capability")


def validate_tool_use_result_messages(messages: Any) -> None:
    """Raise ``ValueError`` when the messages' tool-use turns break the spec's rule."""
    from .. import _oxmcp

    problem = _oxmcp.tool_use_results_problem(_wire(list(messages or [])))
    if problem is not None:
        raise ValueError(problem)
