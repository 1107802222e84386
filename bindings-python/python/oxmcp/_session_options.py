"""The frameworks' session keywords (``max_sessions``, ``session_idle_timeout`` in seconds) as the
core's server options, for every way a ported server is served: FastMCP's ``run()`` / ``http_app()``,
the low-level ``Server.streamable_http_app()`` and the SDK's ``StreamableHTTPSessionManager``."""

from __future__ import annotations

from typing import Any

#: (keyword, the core's option, scale from the keyword's unit to the option's).
SESSION_KEYWORDS = (("max_sessions", "max_sessions", 1), ("session_idle_timeout", "session_idle_ms", 1000))


def session_options(given: dict[str, Any], where: str) -> dict[str, Any]:
    """Take the session keywords out of ``given`` and return them as the core's options (the core
    checks their values). ``None``, the frameworks' "no limit", is refused: the core always bounds
    sessions, and ``None`` would read as unset."""
    out: dict[str, Any] = {}
    for key, option, scale in SESSION_KEYWORDS:
        if key not in given:
            continue
        value = given.pop(key)
        if value is None:
            raise ValueError(f"{where}(): {key}=None (no limit) is not supported by oxmcp: "
                             f"the core always bounds sessions; give a number ({option})")
        out[option] = value if scale == 1 else round(float(value) * scale)
    return out
