"""``serverInfo.version`` when a ported server gives none: what its framework would report.

FastMCP reports the installed ``fastmcp`` package's version, mcp 1.x's FastMCP and low-level
``Server`` the installed ``mcp`` package's. A port reports the same while that package is still
installed (as under ``oxmcp run``, where the server's own dependencies stay in place), and oxmcp's
version when it is not (or, for mcp 1.x's classes, when the installed ``mcp`` is not 1.x: the
original would not have run on it).
"""

from __future__ import annotations

from importlib import metadata


def framework_version(distribution: str, major: str | None = None) -> str:
    try:
        found = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        found = None
    if found is not None and (major is None or found.split(".", 1)[0] == major):
        return found
    from . import __version__

    return __version__
