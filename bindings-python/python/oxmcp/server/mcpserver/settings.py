"""``mcp.server.mcpserver.server.Settings``: mcp 2.x MCPServer's settings, as ``MCPServer(...).settings``
reads them (a snapshot of its constructor keywords over the SDK's defaults)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Settings"]


class Settings(BaseModel):
    """MCPServer's settings (mcp 2.x)."""

    model_config = ConfigDict(extra="ignore", arbitrary_types_allowed=True)

    debug: bool = False
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    warn_on_duplicate_resources: bool = True
    warn_on_duplicate_tools: bool = True
    warn_on_duplicate_prompts: bool = True
    dependencies: list[str] = Field(default_factory=list)
    lifespan: Callable[..., Any] | None = None
    auth: Any = None
