"""Keeping a path taken from a URI inside a folder (mcp 2.x's ``mcp.shared.path_security``).

A resource template hands its handler the values it matched, and a handler that opens a file named
by one must not leave the folder it serves. ``safe_join(root, value)`` is the check to use there:
it joins, resolves through the filesystem (so a symlink that points out is caught too) and
refuses a result outside ``root``. The two string checks, which know no root, are the core's
(``_oxmcp.screen_path_value``), the same ones its template matcher applies to a
``ResourceSecurity`` policy's values before a handler runs.
"""

from __future__ import annotations

from pathlib import Path

from .._oxmcp import screen_path_value

__all__ = ["PathEscapeError", "contains_path_traversal", "is_absolute_path", "safe_join"]


class PathEscapeError(ValueError):
    """A path given to :func:`safe_join` would lead outside its base."""


def contains_path_traversal(value: str) -> bool:
    """Whether ``value``, read as a relative path, climbs above where it starts: a ``..`` segment
    (``/`` and ``\\`` both separate) with fewer named segments before it. ``..`` inside a segment
    (``v1.0..v2.0``) is a name, not a step up."""
    return screen_path_value(value, True, False, False)


def is_absolute_path(value: str) -> bool:
    """Whether ``value`` is absolute on some platform (``/x``, ``\\x``, ``C:\\x``, ``C:x``): joined
    onto a base, such a path would replace it."""
    return screen_path_value(value, False, True, False)


def safe_join(base: str | Path, *parts: str) -> Path:
    """``base`` joined with ``parts`` and resolved, or :class:`PathEscapeError` when a part holds a
    NUL byte or is absolute, or when the resolved path is not inside the resolved ``base``.

    The check is made when it is called: a folder replaced by a symlink between it and the
    caller's ``open`` is not seen."""
    root = Path(base).resolve()
    for part in parts:
        if screen_path_value(part, False, False, True):
            raise PathEscapeError(f"Path component contains a null byte; refusing to join onto {root}")
        if is_absolute_path(part):
            raise PathEscapeError(f"Path component {part!r} is absolute; refusing to join onto {root}")
    target = root.joinpath(*parts).resolve()
    if not target.is_relative_to(root):
        raise PathEscapeError(f"Path {target} escapes base {root}")
    return target
