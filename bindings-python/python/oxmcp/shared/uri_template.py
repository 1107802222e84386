"""``mcp.shared.uri_template``: ``UriTemplate``, an RFC 6570 template parsed, expanded and matched
in reverse, and ``InvalidUriTemplate``, the error of one that does not parse.

Templates are parsed, expanded and matched by oxmcp's core (the same matcher its resource
templates use). ``UriTemplate.parse`` refuses what the SDK's parser refuses: a template the core
cannot parse, and one whose reverse match is ambiguous (two variables with no literal between
them, or two variables that may span segments), which the core names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["DEFAULT_MAX_TEMPLATE_LENGTH", "DEFAULT_MAX_URI_LENGTH", "DEFAULT_MAX_VARIABLES",
           "InvalidUriTemplate", "UriTemplate"]

DEFAULT_MAX_TEMPLATE_LENGTH = 8_192
DEFAULT_MAX_VARIABLES = 256
DEFAULT_MAX_URI_LENGTH = 65_536


class InvalidUriTemplate(ValueError):
    """A URI template that does not parse (``template``; ``position`` when known)."""

    def __init__(self, message: str, *, template: str, position: int | None = None) -> None:
        super().__init__(message)
        self.template = template
        self.position = position


def _names(template: str) -> list[str]:
    """The variable names of a template that parsed, in order (``{x*}``, ``{x:3}`` give ``x``)."""
    names: list[str] = []
    rest = template
    while (start := rest.find("{")) >= 0:
        end = rest.find("}", start)
        body = rest[start + 1:end].lstrip("+#./;?&")
        names += [v.rstrip("*").split(":")[0] for v in body.split(",")]
        rest = rest[end + 1:]
    return names


class UriTemplate:
    """A parsed RFC 6570 URI template; build one with :meth:`parse`. Equal, and hashed, by its
    source string, which ``str()`` gives back."""

    __slots__ = ("_variable_names", "template")

    def __init__(self, template: str, variable_names: list[str]) -> None:
        self.template = template
        self._variable_names = variable_names

    @staticmethod
    def is_template(value: str) -> bool:
        """Whether ``value`` holds a ``{...}`` pair (no parse: a ``True`` may still not parse)."""
        opened = value.find("{")
        return opened >= 0 and value.find("}", opened) >= 0

    @classmethod
    def parse(cls, template: str, *, max_length: int = DEFAULT_MAX_TEMPLATE_LENGTH,
              max_variables: int = DEFAULT_MAX_VARIABLES) -> UriTemplate:
        from .._oxmcp import uri_template_ambiguity

        if len(template) > max_length:
            raise InvalidUriTemplate(f"Template exceeds maximum length of {max_length}", template=template)
        try:
            ambiguity = uri_template_ambiguity(template)
        except ValueError as exc:
            reason = str(exc)
            opened = template.rfind("{")
            if "unclosed" in reason and opened >= 0:
                raise InvalidUriTemplate(f"Unclosed expression at position {opened}", template=template,
                                         position=opened) from exc
            raise InvalidUriTemplate(reason, template=template) from exc
        names = _names(template)
        for name in names:
            if "-" in name:  # the core takes FastMCP's hyphenated names; RFC 6570 and the SDK do not
                raise InvalidUriTemplate(f"Invalid variable name {name!r}", template=template)
        if len(names) > max_variables:
            raise InvalidUriTemplate(f"Template exceeds maximum of {max_variables} variables", template=template)
        if ambiguity is not None:
            kind, pair = ambiguity
            if kind == "adjacent":
                raise InvalidUriTemplate(
                    f"Variables {pair[0]!r} and {pair[1]!r} are adjacent with no literal separator; matching "
                    "cannot determine where one ends and the other begins. Add a literal between them or use "
                    "a single variable.", template=template)
            raise InvalidUriTemplate(
                "Template contains more than one multi-segment variable ({+var}, {#var}, or explode "
                "modifier); matching would be ambiguous", template=template)
        return cls(template, names)

    @property
    def variable_names(self) -> list[str]:
        """The variables' names, in the order they appear."""
        return list(self._variable_names)

    def expand(self, variables: Mapping[str, str | Sequence[str]]) -> str:
        """The URI this template stands for with ``variables`` (a missing one leaves nothing)."""
        from .._oxmcp import expand_uri_template

        for name, value in variables.items():
            if not isinstance(value, str) and not (
                    isinstance(value, Sequence) and all(isinstance(v, str) for v in value)):
                raise TypeError(f"Variable {name!r} must be a str or a sequence of str, got {type(value).__name__}")
        return expand_uri_template(self.template, {k: v if isinstance(v, str) else list(v)
                                                   for k, v in variables.items()})

    def match(self, uri: str, *, max_uri_length: int = DEFAULT_MAX_URI_LENGTH) -> dict[str, Any] | None:
        """The percent-decoded variables of ``uri`` (a list for an exploded one), or ``None`` when it
        does not have this template's structure. The values are not screened: whether one may name
        a file is for :mod:`mcp.shared.path_security` to say."""
        from .._oxmcp import match_uri_template_screened

        if len(uri) > max_uri_length:
            return None
        found = match_uri_template_screened(self.template, str(uri), False, False, False, [])
        if found is None or found[0] != "matched":
            return None
        values = found[1]
        return {name: values[name] for name in self._variable_names if name in values}

    def __str__(self) -> str:
        return self.template

    def __repr__(self) -> str:
        return f"UriTemplate(template={self.template!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UriTemplate) and other.template == self.template

    def __hash__(self) -> int:
        return hash(self.template)
