"""Registry scale: a plain-typed tool costs no pydantic model, and registering many
tools does linear work in a few KB each. Counted (tracemalloc), not timed."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pydantic
import pytest

from oxmcp import Server
from oxmcp._schema import _Generator, analyze_function


def add(a: int, b: int, note: str = "") -> int:
    """Add a and b.

    Args:
        a: the first number
        b: the second number
        note: a free-form note
    """
    return a + b


def mixed(x: float, flag: bool = False, y: float = 1, s: str = "z") -> str:
    return f"{x}{flag}{y}{s}"


def none_required(n: int = 3) -> None:
    return None


def pydantic_schema(info: Any) -> dict[str, Any]:
    model = pydantic.create_model("M", **{n: (f.annotation, f) for n, f in info.arg_model.model_fields.items()})
    s = model.model_json_schema(mode="validation", schema_generator=_Generator)
    s.pop("title", None)
    s.setdefault("properties", {})
    return s


@pytest.mark.parametrize("fn", [add, mixed, none_required])
def test_plain_signature_builds_no_model_and_the_schema_pydantic_would(fn: Any) -> None:
    info = analyze_function(fn)
    assert info._model is None, "a plain signature should not build a pydantic model at registration"
    # Key order too: the descriptor a client sees is byte-identical to the pydantic-built one.
    assert json.dumps(info.input_schema) == json.dumps(pydantic_schema(info))


@pytest.mark.parametrize("args", [{"a": 1, "b": 2}, {"a": 1, "b": 2.0, "note": "n"}, {"a": 3.0, "b": -1, "zz": 1}])
def test_plain_arguments_convert_as_pydantic_does(args: dict[str, Any]) -> None:
    info = analyze_function(add)
    fast = info.convert_arguments(args)
    model = info.arg_model.model_validate(args)
    slow = {n: getattr(model, n) for n in info.param_names}
    assert fast == slow and [type(v) for v in fast.values()] == [type(v) for v in slow.values()]


def test_plain_arguments_pydantic_explains_what_the_schema_would_refuse() -> None:
    info = analyze_function(add)
    with pytest.raises(pydantic.ValidationError):
        info.convert_arguments({"a": "x", "b": 1})
    with pytest.raises(pydantic.ValidationError):
        info.convert_arguments({"b": 1})


def test_same_shape_tools_share_one_schema_dict() -> None:
    def make(i: int) -> Any:
        def f(a: int, b: int, note: str = "") -> int:
            return a + b
        f.__name__ = f"tool_{i}"
        return f

    infos = [analyze_function(make(i)) for i in range(3)]
    assert infos[0].input_schema is infos[1].input_schema is infos[2].input_schema
    assert infos[0].output_schema is infos[1].output_schema


def _register(n: int) -> tuple[Server, int]:
    server = Server("scale")

    def make(i: int) -> Any:
        def f(a: int, b: int, note: str = "") -> int:
            """Add a and b."""
            return a + b
        f.__name__ = f"tool_{i}"
        return f

    fns = [make(i) for i in range(n)]  # the user's functions are not ours to count
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for f in fns:
            server.tool(f)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    kept = sum(s.size_diff for s in after.compare_to(before, "filename"))
    return server, kept


def test_registering_n_tools_is_linear_and_light() -> None:
    s1, small = _register(300)
    s2, large = _register(3000)
    assert len(s2.list_tools()) == 3000 and len(s1.list_tools()) == 300
    per_small, per_large = small / 300, large / 3000
    # Python objects per tool (the entry, its FunctionInfo, descriptions); the native registry is
    # counted in core/tests/registry_scale.rs. A pydantic model per tool would be ~18 KB here.
    assert per_large < 4096, f"{per_large:.0f} B of Python heap per tool"
    assert per_large < per_small * 1.5, f"per-tool cost grows with N: {per_small:.0f} -> {per_large:.0f} B"


def test_signature_cache_tells_equal_but_different_defaults_apart() -> None:
    def make(d: Any) -> Any:
        def f(a: int = d) -> int:
            return a
        return f

    one, true = analyze_function(make(1)), analyze_function(make(True))
    assert one.input_schema["properties"]["a"]["default"] == 1
    assert true.input_schema["properties"]["a"]["default"] is True
