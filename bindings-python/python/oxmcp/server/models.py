"""``mcp.server.models``: ``InitializationOptions``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class InitializationOptions(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    server_name: str
    server_version: str
    capabilities: Any
    instructions: str | None = None
    website_url: str | None = None
    icons: list[Any] | None = None
