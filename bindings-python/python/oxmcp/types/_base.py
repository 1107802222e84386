"""The base of every generated ``oxmcp.types`` model: both SDK generations' field spellings.

mcp 1.x's ``mcp.types`` names fields as the wire does (``inputSchema``, ``isError``); mcp 2.x's
(``mcp_types``) spells them in snake_case (``input_schema``, ``is_error``) with the wire names as
aliases. A server written for either builds these models unchanged: a snake_case keyword is taken
as the wire field it spells, and read back under either name. Dumps (``by_alias=True``, what oxmcp
sends) are the wire's either way.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, model_validator

__all__ = ["SpecModel"]


def _camel(name: str) -> str:
    if name == "meta":  # both SDKs' name for `_meta` (the generator's is `field_meta`)
        return "field_meta"
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _other_name(name: str) -> bool:
    return name == "meta" or "_" in name.strip("_")


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


class SpecModel(BaseModel):
    @model_validator(mode="before")
    @classmethod
    def _wire_names(cls, data: Any) -> Any:
        """``input_schema=`` (mcp 2.x) is ``inputSchema`` (the wire's, mcp 1.x's); and the wire's
        ``receiptToken`` is the ``receipt_token`` field of a server's or client's own subclass
        (mcp 2.x's models take their fields' camelCase spelling from the wire)."""
        if not isinstance(data, dict):
            return data
        fields = cls.model_fields
        renamed: dict[str, Any] | None = None
        for key in data:
            if isinstance(key, str) and _other_name(key) and key not in fields:
                wire = _camel(key)
                if wire in fields and wire not in data and fields[wire].alias not in data:
                    if renamed is None:
                        renamed = dict(data)
                    renamed[wire] = renamed.pop(key)
            elif isinstance(key, str) and key not in fields and key[:1].islower() and not key.islower():
                snake = _snake(key)
                if snake in fields and snake not in data and fields[snake].alias is None:
                    if renamed is None:
                        renamed = dict(data)
                    renamed[snake] = renamed.pop(key)
        return data if renamed is None else renamed

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)  # type: ignore[misc]
        except AttributeError:
            wire = _camel(name) if _other_name(name) else None
            if wire is not None and wire in type(self).model_fields:
                return getattr(self, wire)
            raise

    def __setattr__(self, name: str, value: Any) -> None:
        """``result.meta = None`` (mcp 2.x) sets ``_meta``, as reading it does."""
        fields = type(self).model_fields
        if name not in fields and _other_name(name):
            wire = _camel(name)
            if wire in fields:
                name = wire
        super().__setattr__(name, value)
