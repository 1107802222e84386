"""Agent Skills served over MCP (the Skills extension, ``io.modelcontextprotocol/skills``).

A skill is a directory whose minimum is a ``SKILL.md`` with YAML frontmatter. oxmcp serves each
file as a resource under ``skill://<skill-path>/`` and answers ``skills/list``, ``skills/get`` and
``resources/directory/read``; every rule (names, paths, limits, frontmatter) is the core's, and a
broken skill raises ``ValueError`` naming the file and the rule.

oxmcp's own API::

    server.add_skills_dir("./skills")          # every folder below holding a SKILL.md
    server.add_skill(Skill(name=..., description=..., instructions=..., files={...}))

FastMCP 4.2's spellings (``fastmcp.skills``, ``fastmcp.skills.provider``) are these same names:
``Skill``, ``SkillCatalogProvider``, ``SkillsDirectoryProvider``, ``SkillsExtension``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["SKILLS_EXTENSION_ID", "Skill", "SkillFile", "SkillManifest", "SkillsClientExtension", "SkillsExtension"]

SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills"


def _render_skill_md(frontmatter: Mapping[str, Any], instructions: str) -> bytes:
    # Each value as JSON, which is YAML too: no YAML writer needed, and the frontmatter reads back
    # as exactly these values in every SDK.
    lines = "".join(f"{key}: {json.dumps(value, ensure_ascii=False)}\n" for key, value in frontmatter.items())
    return f"---\n{lines}---\n{instructions}".encode()


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill, described by its digest (``sha256:<hex>``) and size."""

    digest: str
    size: int


@dataclass(frozen=True)
class SkillManifest:
    """A skill's frontmatter and its files (relative path → ``SkillFile``), without their bytes."""

    frontmatter: dict[str, Any]
    files: dict[str, SkillFile] = field(default_factory=dict)


class Skill:
    """An agent skill: a ``SKILL.md`` plus supporting files, with their exact bytes.

    Build one in code (``Skill(name=..., description=..., instructions=..., files=...)``), from a
    mapping of files (``Skill.from_files``) or from a folder (``Skill.from_directory``). It is
    checked at once by the core, so a skill that could not be served never exists.
    """

    __slots__ = ("_entry", "_files", "_name")
    _entry: dict[str, Any]
    _files: Mapping[str, bytes]
    _name: str

    def __init__(self, *, name: str, description: str, instructions: str,
                 files: Mapping[str, str | bytes] | None = None,
                 frontmatter: Mapping[str, Any] | None = None) -> None:
        extra = dict(frontmatter or {})
        for key in ("name", "description"):
            if key in extra:
                raise ValueError(f"Pass {key!r} as a Skill argument, not frontmatter")
        contents: dict[str, str | bytes] = {
            "SKILL.md": _render_skill_md({"name": name, "description": description, **extra}, instructions)}
        for path, content in (files or {}).items():
            if path == "SKILL.md":
                raise ValueError("Pass SKILL.md content as `instructions`")
            contents[path] = content
        self._init(contents)

    def _init(self, files: Mapping[str, str | bytes], path: str | None = None) -> None:
        from .. import _oxmcp

        data = {p: c.encode() if isinstance(c, str) else bytes(c) for p, c in files.items()}
        _served_at, entry = _oxmcp.skill_entry(sorted(data.items()), path)
        object.__setattr__(self, "_files", MappingProxyType(dict(sorted(data.items()))))
        object.__setattr__(self, "_entry", entry)
        object.__setattr__(self, "_name", entry["frontmatter"]["name"])

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Skill is immutable")

    @classmethod
    def from_files(cls, files: Mapping[str, str | bytes]) -> Skill:
        """A skill from relative paths mapped to text or bytes; ``files`` must include ``SKILL.md``."""
        skill = object.__new__(cls)
        skill._init(files)
        return skill

    @classmethod
    def from_directory(cls, path: str | os.PathLike[str]) -> Skill:
        """Read a skill folder once. Its name must be the skill's name; symlinks, special files,
        hidden entries' absence and a non-UTF-8 ``SKILL.md`` are the core loader's rules."""
        from .. import _oxmcp

        _path, files = _oxmcp.skills_load_one(os.fspath(path), None)
        return cls.from_files(dict(files))

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return str(self._entry["frontmatter"]["description"])

    @property
    def frontmatter(self) -> dict[str, Any]:
        """A copy of the parsed frontmatter."""
        return json.loads(json.dumps(self._entry["frontmatter"]))

    @property
    def manifest(self) -> SkillManifest:
        """The frontmatter and every file's digest and size (a copy)."""
        root = self._entry["uri"][: -len("SKILL.md")]
        files = {r["uri"][len(root):]: SkillFile(r["digest"], r["size"]) for r in self._entry["resources"]}
        return SkillManifest(self.frontmatter, files)

    @property
    def files(self) -> Mapping[str, bytes]:
        """Every file, keyed by relative path, including ``SKILL.md``."""
        return self._files

    def to_mcp_skill(self, path: str | None = None) -> dict[str, Any]:
        """The entry ``skills/list`` carries for this skill served at ``skill://{path}/``."""
        from .. import _oxmcp

        return _oxmcp.skill_entry(sorted(self._files.items()), path or self._name)[1]

    def _wire(self, path: str | None = None) -> tuple[str, list[tuple[str, bytes]]]:
        return (path or self._name, sorted(self._files.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Skill) and self._files == other._files

    def __hash__(self) -> int:
        return hash(tuple(self._files.items()))

    def __repr__(self) -> str:
        return f"Skill(name={self._name!r}, files={len(self._files)})"


class SkillsExtension:
    """The Skills extension. oxmcp declares it whenever a skill is served, so registering it is
    accepted and changes nothing; ``providers`` must be skill providers registered on the server."""

    identifier = SKILLS_EXTENSION_ID

    def __init__(self, *, providers: Any = None) -> None:
        if providers is not None and not providers:
            raise ValueError("SkillsExtension requires at least one provider")
        self._providers = None if providers is None else tuple(providers)


class SkillsClientExtension:
    """FastMCP's client-side declaration of the extension (a marker: oxmcp serves, it does not call)."""

    identifier = SKILLS_EXTENSION_ID
