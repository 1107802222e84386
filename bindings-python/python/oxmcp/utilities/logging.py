"""``fastmcp.utilities.logging`` / ``mcp.server.fastmcp.utilities.logging``: ``get_logger`` and
``configure_logging``. Log records go to stderr: on stdio, stdout is the transport."""

from __future__ import annotations

import logging

__all__ = ["configure_logging", "get_logger"]


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(name)


def configure_logging(level: str | int = "INFO", *args: object, **kwargs: object) -> None:
    logging.basicConfig(level=level, format="%(message)s", handlers=[logging.StreamHandler()])
