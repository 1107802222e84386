"""Skill providers under FastMCP 4.2's names (``fastmcp.skills.provider``): register one with
``server.add_provider(...)`` (or ``FastMCP(providers=[...])``) and its skills are served by the
core, files as ``skill://`` resources plus ``skills/list`` / ``skills/get``.

Skills are read once, when the provider is built; the core serves those bytes, so the manifest's
digests always match what ``resources/read`` returns. A FastMCP provider that re-reads per request
(``reload=True``, an overridden ``load_skills()``) has no equivalent and is refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import Skill

__all__ = ["SkillCatalogProvider", "SkillsDirectoryProvider"]


class SkillCatalogProvider:
    """Serve ``Skill`` objects, each at ``skill://{path}/`` (default: its name). Pass a mapping to
    choose paths; the last segment of a path must be its skill's name."""

    def __init__(self, skills: Mapping[str, Skill] | Iterable[Skill] | None = None) -> None:
        if type(self).load_skills is not SkillCatalogProvider.load_skills:
            raise TypeError(f"{type(self).__name__} overrides load_skills(): oxmcp reads skills once at start "
                            "and does not reload them per request; pass the skills to the constructor")
        catalog: dict[str, Skill] = {}
        if isinstance(skills, Mapping):
            catalog = dict(skills)
        else:
            for skill in skills or ():
                if not isinstance(skill, Skill):
                    raise TypeError(f"Expected a Skill, got {type(skill).__name__}")
                if skill.name in catalog:
                    raise ValueError(f"Duplicate skill name: {skill.name!r}")
                catalog[skill.name] = skill
        self._catalog = catalog

    async def load_skills(self) -> Mapping[str, Skill]:
        return dict(self._catalog)

    def _wire(self) -> list[tuple[str, list[tuple[str, bytes]]]]:
        return [skill._wire(path) for path, skill in self._catalog.items()]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self._catalog)} skills)"


class SkillsDirectoryProvider(SkillCatalogProvider):
    """Serve every folder holding a ``SKILL.md`` below one or more roots, at its path relative to
    the root (``root/ops/deploy/SKILL.md`` → ``skill://ops/deploy/SKILL.md``). When a path appears
    under more than one root, the first root wins. A broken folder, a symlink or a non-UTF-8
    ``SKILL.md`` raises ``ValueError`` naming the file and the rule."""

    def __init__(self, roots: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *,
                 reload: bool = False, **kwargs: Any) -> None:
        if reload:
            raise TypeError("reload=True is not supported by oxmcp: skills are read once at start (restart to "
                            "serve changed files), so the digests always match the bytes served")
        if kwargs.pop("experimental_skills", None) is not None or kwargs.pop("supporting_files", None) is not None:
            pass  # FastMCP 4.1's spellings: the skills are always served through the extension
        if kwargs.pop("main_file_name", "SKILL.md") != "SKILL.md":
            raise TypeError("main_file_name: the Skills extension's skill file is always SKILL.md")
        if kwargs:
            raise TypeError(f"SkillsDirectoryProvider() got unexpected keyword argument(s): {', '.join(kwargs)}")
        from .. import _oxmcp

        if isinstance(roots, (str, os.PathLike)):
            roots = [roots]
        self._roots = [os.path.abspath(os.path.expanduser(os.fspath(r))) for r in roots]
        wire: dict[str, list[tuple[str, bytes]]] = {}
        for root in self._roots:
            if not os.path.isdir(root):
                continue
            for path, files in _oxmcp.skills_load_dir(root):
                wire.setdefault(path, files)
        self._loaded = wire
        super().__init__({})

    def _wire(self) -> list[tuple[str, list[tuple[str, bytes]]]]:
        return sorted(self._loaded.items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}(roots={self._roots!r})"
