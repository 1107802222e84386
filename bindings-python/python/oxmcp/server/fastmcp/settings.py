"""``mcp.server.fastmcp.server.Settings``: mcp 1.x FastMCP's settings, as ``FastMCP(...).settings`` reads them.

The values are the ones the server was built with (its constructor keywords over the SDK's defaults);
``FastMCP.settings`` is a snapshot for reading. oxmcp's own options (docs/OPTIONS.md) are what the
server runs with, and the SDK's ``FASTMCP_*`` environment variables are not read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..transport_security import TransportSecuritySettings

__all__ = ["Settings"]


class Settings(BaseModel):
    """FastMCP's server settings (mcp 1.x)."""

    model_config = ConfigDict(extra="ignore", arbitrary_types_allowed=True)

    debug: bool = False
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    host: str = "127.0.0.1"
    port: int = 8000
    mount_path: str = "/"
    sse_path: str = "/sse"
    message_path: str = "/messages/"
    streamable_http_path: str = "/mcp"
    json_response: bool = False
    stateless_http: bool = False
    max_request_body_size: int = 4 * 1024 * 1024
    session_idle_timeout: float | None = None
    max_sessions: int | None = None
    warn_on_duplicate_resources: bool = True
    warn_on_duplicate_tools: bool = True
    warn_on_duplicate_prompts: bool = True
    dependencies: list[str] = Field(default_factory=list)
    lifespan: Callable[..., Any] | None = None
    auth: Any = None
    transport_security: TransportSecuritySettings | None = None
