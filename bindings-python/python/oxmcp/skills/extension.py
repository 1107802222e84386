"""``fastmcp.skills.extension``: see ``oxmcp.skills``."""

from . import SKILLS_EXTENSION_ID, SkillsExtension

__all__ = ["SKILLS_EXTENSION_ID", "SkillsExtension"]
