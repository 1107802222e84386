"""``mcp.shared._compat``: ``resync_tracer()``, one cancel-shielded checkpoint.

The SDK awaits it after a cancelled task-group join so that coverage's tracer on CPython 3.11 sees
the coroutine chain resume normally; the upstream test suites' in-process HTTP bridge imports it.
It does nothing else, here as there.
"""

from __future__ import annotations

__all__ = ["resync_tracer"]


async def resync_tracer() -> None:
    import anyio.lowlevel  # only ever awaited from anyio code; oxmcp does not depend on anyio

    await anyio.lowlevel.cancel_shielded_checkpoint()
