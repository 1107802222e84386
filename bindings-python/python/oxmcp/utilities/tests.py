"""``fastmcp.utilities.tests``: FastMCP's test helpers, as far as they apply on oxmcp.

``temporary_settings`` changes FastMCP's global settings object; oxmcp has none (a server's options
are its constructor's and ``run()``'s keywords, or ``OXMCP_*`` variables), so it is refused with
that explanation rather than accepted and ignored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["temporary_settings"]


@contextlib.contextmanager
def temporary_settings(**settings: Any) -> Iterator[None]:
    raise TypeError(f"temporary_settings({', '.join(sorted(settings))}): oxmcp has no FastMCP settings "
                    "object; give the option to the server (FastMCP(...), run(...)) or set OXMCP_* "
                    "variables (docs/OPTIONS.md)")
    yield  # pragma: no cover  (a generator, so that it is a context manager)
