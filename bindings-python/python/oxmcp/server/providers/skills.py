"""``fastmcp.server.providers.skills``: see ``oxmcp.skills.provider``."""

from ...skills.provider import SkillCatalogProvider, SkillsDirectoryProvider

__all__ = ["SkillCatalogProvider", "SkillsDirectoryProvider"]
