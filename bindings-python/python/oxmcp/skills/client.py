"""``fastmcp.skills.client``: see ``oxmcp.skills``."""

from . import SkillsClientExtension

__all__ = ["SkillsClientExtension"]
