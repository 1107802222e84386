"""``mcp_types.version``: the protocol revisions, oldest first, as mcp 2.x's types package names them.

They are the revisions the core serves (``SUPPORTED_VERSIONS`` in core/src/protocol): the ones
negotiated through ``initialize`` (the handshake era) and 2026-07-28, the stateless one.
tests/python/test_mcp_http_mirrors.py checks the lists against what the core answers.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "HANDSHAKE_PROTOCOL_VERSIONS", "KNOWN_PROTOCOL_VERSIONS", "LATEST_HANDSHAKE_VERSION", "LATEST_MODERN_VERSION",
    "LATEST_PROTOCOL_VERSION", "MODERN_PROTOCOL_VERSIONS", "OLDEST_SUPPORTED_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS", "is_version_at_least",
]

HANDSHAKE_PROTOCOL_VERSIONS: Final[tuple[str, ...]] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_PROTOCOL_VERSIONS: Final[tuple[str, ...]] = ("2026-07-28",)
KNOWN_PROTOCOL_VERSIONS: Final[tuple[str, ...]] = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
SUPPORTED_PROTOCOL_VERSIONS: tuple[str, ...] = KNOWN_PROTOCOL_VERSIONS
LATEST_PROTOCOL_VERSION: Final[str] = KNOWN_PROTOCOL_VERSIONS[-1]
LATEST_HANDSHAKE_VERSION: Final[str] = HANDSHAKE_PROTOCOL_VERSIONS[-1]
LATEST_MODERN_VERSION: Final[str] = MODERN_PROTOCOL_VERSIONS[-1]
OLDEST_SUPPORTED_VERSION: Final[str] = HANDSHAKE_PROTOCOL_VERSIONS[0]


def is_version_at_least(version: str, minimum: str) -> bool:
    """Whether ``version`` is ``minimum`` or a later revision. Revisions are an enumerated set, not
    ordered strings: an unknown ``version`` is never "at least" anything, and an unknown ``minimum``
    is a programming error."""
    if minimum not in KNOWN_PROTOCOL_VERSIONS:
        raise ValueError(f"minimum must be a known protocol version, got {minimum!r}")
    if version not in KNOWN_PROTOCOL_VERSIONS:
        return False
    return KNOWN_PROTOCOL_VERSIONS.index(version) >= KNOWN_PROTOCOL_VERSIONS.index(minimum)
