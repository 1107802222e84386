"""``fastmcp.server.transforms.ToolTransform``: tools served under a new name, title, description or
``_meta`` (see ``oxmcp.tools.tool_transform``).

``FastMCP.add_transform(ToolTransform({"old": ToolTransformConfig(name="new")}))`` re-registers
``old`` as ``new`` in the core's registry, and so every tool of that name added later: clients list
and call ``new`` only, as with FastMCP.
"""

from __future__ import annotations

from typing import Any

from ...tools.tool_transform import ToolTransformConfig

__all__ = ["ToolTransform"]


class ToolTransform:
    """Map of a tool's registered name to its :class:`ToolTransformConfig`."""

    def __init__(self, transforms: dict[str, ToolTransformConfig]) -> None:
        targets: dict[str, str] = {}
        for original, config in transforms.items():
            if not isinstance(config, ToolTransformConfig):
                config = ToolTransformConfig.model_validate(config)
            target = config.name or original
            if target in targets:
                raise ValueError(f"ToolTransform has duplicate target name {target!r}: both "
                                 f"{targets[target]!r} and {original!r} map to it")
            targets[target] = original
        self._transforms = {k: v if isinstance(v, ToolTransformConfig) else ToolTransformConfig.model_validate(v)
                            for k, v in transforms.items()}

    def __repr__(self) -> str:
        return f"ToolTransform({list(self._transforms)!r})"

    def apply(self, entry: Any) -> Any:
        """``entry`` as this transform serves it (itself when no config names it)."""
        config = self._transforms.get(entry.name)
        return entry if config is None else config.apply(entry)
