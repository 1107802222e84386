"""Schema generation from signatures: one golden per kind of hint (pure Python, no native module)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from oxmcp import Context, DefinitionError, Image, Server, ToolResult


def schema_of(fn: Any, **kw: Any) -> dict[str, Any]:
    s = Server("t")
    s.add_tool(fn, **kw)
    return s.list_tools()[0]


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Address(BaseModel):
    street: str
    zip: str = Field(description="postal code")


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


class Movie(TypedDict):
    title: str
    year: int


class Node(BaseModel):
    value: int
    children: list[Node] = []


def _prop(fn: Any, name: str) -> dict[str, Any]:
    return schema_of(fn)["inputSchema"]["properties"][name]


def test_scalars_required_and_defaults() -> None:
    def add(a: int, b: float, c: str = "x", d: bool = False) -> None: ...
    assert schema_of(add)["inputSchema"] == {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "number"},
            "c": {"type": "string", "default": "x"},
            "d": {"type": "boolean", "default": False},
        },
        "required": ["a", "b"],
    }


def test_no_parameters_gives_empty_object() -> None:
    def ping() -> None: ...
    assert schema_of(ping)["inputSchema"] == {"type": "object", "properties": {}}


def test_optional_union_literal_enum() -> None:
    def f(o: str | None = None, u: int | str = 1, lit: Literal["x", "y"] = "x", e: Color = Color.RED) -> None: ...
    props = schema_of(f)["inputSchema"]["properties"]
    assert props["o"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    assert props["u"] == {"anyOf": [{"type": "integer"}, {"type": "string"}], "default": 1}
    assert props["lit"] == {"enum": ["x", "y"], "type": "string", "default": "x"}
    assert props["e"] == {"enum": ["red", "green"], "title": "Color", "type": "string", "default": "red"}


def test_containers() -> None:
    def f(items: list[int], m: dict[str, float], t: tuple[int, str]) -> None: ...
    props = schema_of(f)["inputSchema"]["properties"]
    assert props["items"] == {"type": "array", "items": {"type": "integer"}}
    assert props["m"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert props["t"] == {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                          "minItems": 2, "maxItems": 2}


def test_typeddict_dataclass_model_are_inlined() -> None:
    def f(m: Movie, p: Point, a: Address) -> None: ...
    schema = schema_of(f)["inputSchema"]
    assert "$defs" not in schema
    assert "$ref" not in repr(schema)
    assert schema["properties"]["m"] == {"type": "object", "title": "Movie",
                                         "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
                                         "required": ["title", "year"]}
    assert schema["properties"]["p"] == {"type": "object", "title": "Point",
                                         "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0.0}},
                                         "required": ["x"]}
    assert schema["properties"]["a"]["properties"]["zip"] == {"type": "string", "description": "postal code"}


def test_recursive_model_keeps_defs() -> None:
    def f(tree: Node) -> None: ...
    schema = schema_of(f)["inputSchema"]
    assert schema["properties"]["tree"] == {"$ref": "#/$defs/Node"}
    assert schema["$defs"]["Node"]["properties"]["children"] == {
        "type": "array", "items": {"$ref": "#/$defs/Node"}, "default": []}


def test_annotated_field_constraints_and_description() -> None:
    def f(n: Annotated[int, Field(ge=0, le=10, description="ten at most")] = 5,
          s: str = Field(default="a", min_length=1, description="non-empty")) -> None:
        """Doc.

        Args:
            n: ignored, the Field description wins
        """
    props = schema_of(f)["inputSchema"]["properties"]
    assert props["n"] == {"type": "integer", "minimum": 0, "maximum": 10, "description": "ten at most", "default": 5}
    assert props["s"] == {"type": "string", "minLength": 1, "description": "non-empty", "default": "a"}


def test_google_docstring() -> None:
    def f(a: int, b: str) -> None:
        """Do a thing.

        Longer explanation.

        Args:
            a: the first
                value, continued.
            b (str): the second.

        Returns:
            nothing.
        """
    tool = schema_of(f)
    assert tool["description"] == "Do a thing.\n\nLonger explanation."
    assert tool["inputSchema"]["properties"]["a"]["description"] == "the first value, continued."
    assert tool["inputSchema"]["properties"]["b"]["description"] == "the second."


def test_numpy_docstring() -> None:
    def f(a: int, b: int, c: int) -> None:
        """Sum.

        Parameters
        ----------
        a : int
            first one
        b, c : int
            the others

        Returns
        -------
        int
        """
    tool = schema_of(f)
    assert tool["description"] == "Sum."
    props = tool["inputSchema"]["properties"]
    assert [props[k]["description"] for k in "abc"] == ["first one", "the others", "the others"]


def test_context_parameter_is_not_in_schema() -> None:
    def f(a: int, ctx: Context) -> None: ...
    def g(a: int, ctx: Context | None = None) -> None: ...
    assert schema_of(f)["inputSchema"]["properties"].keys() == {"a"}
    assert schema_of(g)["inputSchema"]["required"] == ["a"]


def test_output_schema_object_and_wrapped_scalar() -> None:
    def point() -> Point: ...
    def count() -> int: ...
    def names() -> list[str]: ...
    assert schema_of(point)["outputSchema"] == {"type": "object", "title": "Point",
                                                "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0.0}},
                                                "required": ["x"]}
    assert schema_of(count)["outputSchema"] == {"type": "object", "properties": {"result": {"type": "integer"}},
                                                "required": ["result"], "x-oxmcp-wrap-result": True}
    assert schema_of(names)["outputSchema"]["properties"]["result"] == {"type": "array", "items": {"type": "string"}}


def test_no_output_schema_for_text_and_content() -> None:
    def a() -> str: ...
    def b() -> None: ...
    def c() -> Image: ...
    def d() -> ToolResult: ...
    def e(): ...
    def f() -> list[Image]: ...
    for fn in (a, b, c, d, e, f):
        assert "outputSchema" not in schema_of(fn), fn


def test_structured_output_flags() -> None:
    def count() -> int: ...
    assert "outputSchema" not in schema_of(count, structured_output=False)
    def text() -> str: ...
    assert schema_of(text, structured_output=True)["outputSchema"]["properties"]["result"] == {"type": "string"}
    explicit = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert schema_of(count, output_schema=explicit)["outputSchema"] == explicit


def test_tool_metadata() -> None:
    def f() -> None:
        """Summary."""
    tool = schema_of(f, name="renamed", title="T", description="D", annotations={"read_only_hint": True},
                     icons=[{"src": "https://x/i.png"}], meta={"com.example/k": 1})
    assert tool == {"name": "renamed", "title": "T", "description": "D",
                    "inputSchema": {"type": "object", "properties": {}},
                    "annotations": {"readOnlyHint": True}, "icons": [{"src": "https://x/i.png"}],
                    "_meta": {"com.example/k": 1}}


def test_bad_definitions_are_reported() -> None:
    s = Server("t")
    def star(*args: int) -> None: ...
    with pytest.raises(DefinitionError, match=r"\*args"):
        s.add_tool(star)
    def ok() -> None: ...
    s.add_tool(ok)
    with pytest.raises(DefinitionError, match="already registered"):
        s.add_tool(ok)
    with pytest.raises(DefinitionError, match="template"):
        @s.resource("user://{id}/profile")
        def wrong(name: str) -> str: ...
    with pytest.raises(TypeError, match="unknown option `no_such_option`"):
        Server("x", no_such_option=1)


def test_resource_and_prompt_specs() -> None:
    s = Server("t")

    @s.resource("config://app", mime_type="application/json")
    def config() -> dict[str, Any]:
        """App configuration."""
        return {}

    @s.resource("user://{id}/profile")
    def profile(id: int) -> str:
        """A user's profile."""
        return ""

    @s.prompt
    def review(code: str, language: str = "python") -> str:
        """Review code.

        Args:
            code: the code to review
        """
        return ""

    assert s.list_resources() == [{"uri": "config://app", "name": "config", "description": "App configuration.",
                                   "mimeType": "application/json"}]
    assert s.list_resource_templates() == [{"uriTemplate": "user://{id}/profile", "name": "profile",
                                            "description": "A user's profile."}]
    assert s.list_prompts() == [{"name": "review", "description": "Review code.",
                                 "arguments": [{"name": "code", "description": "the code to review", "required": True},
                                               {"name": "language", "required": False}]}]
