"""``fastmcp.resources.security``: ``ResourceSecurity``, the screening of the values a resource
template extracts from a URI (a relative path climbing above its base, an absolute path, a NUL
byte) before the function runs. The checks are the core's (``_oxmcp.screen_path_value``), the same
ones its template matcher applies; this class holds FastMCP's switches and exemptions."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from .._oxmcp import screen_path_value

__all__ = ["DEFAULT_RESOURCE_SECURITY", "INHERIT_SECURITY", "InheritSecurity", "ResourceSecurity"]


class InheritSecurity:
    """The type of :data:`INHERIT_SECURITY`: a template that sets no policy of its own takes the
    server's (where ``None`` turns screening off)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "INHERIT_SECURITY"


INHERIT_SECURITY = InheritSecurity()


@dataclass(frozen=True)
class ResourceSecurity:
    """Which checks run on extracted template values, and which parameters skip them
    (``exempt_params``, in the template's spelling or with ``-`` as ``_``)."""

    reject_path_traversal: bool = True
    reject_absolute_paths: bool = True
    reject_null_bytes: bool = True
    exempt_params: AbstractSet[str] = field(default_factory=frozenset)

    def _exempt(self, name: str) -> bool:
        return name in self.exempt_params or any(e.replace("-", "_") == name for e in self.exempt_params)

    def validate(self, params: Mapping[str, object]) -> str | None:
        """The name of the first parameter whose value (or, for a list, one of its strings) fails
        an enabled check, or None. Values that are not strings are not paths and pass."""
        for name, value in params.items():
            if self._exempt(name):
                continue
            if isinstance(value, str):
                values: list[Any] = [value]
            elif isinstance(value, (list, tuple)):
                values = [v for v in value if isinstance(v, str)]
            else:
                continue
            if any(screen_path_value(v, self.reject_path_traversal, self.reject_absolute_paths,
                                     self.reject_null_bytes) for v in values):
                return name
        return None


DEFAULT_RESOURCE_SECURITY = ResourceSecurity()
