"""The core's URI-template expander and path screening as Python sees them: FastMCP's template
helpers (``oxmcp.resources.template``) build URIs that a real server, matching with the core,
reads back with the same values; ``ResourceSecurity`` screens with the core's checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from oxmcp._oxmcp import expand_uri_template as core_expand
from oxmcp.resources.security import ResourceSecurity
from oxmcp.resources.template import expand_uri_template, match_uri_template

SERVER = """
import json, sys
from oxmcp import FastMCP
mcp = FastMCP("t")

@mcp.resource("data://items{?page}{&size}")
def items(page: str = "1", size: str = "10") -> str:
    return json.dumps({"page": page, "size": size})

@mcp.resource("user://{id}/profile{?fields}")
def profile(id: str, fields: str = "") -> str:
    return json.dumps({"id": id, "fields": fields})

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def test_the_core_expands_every_rfc_6570_level() -> None:
    assert core_expand("{+path}/x{?q,none}", {"path": "/a b", "q": ["1", "2"], "none": None}) == "/a%20b/x?q=1,2"
    assert core_expand("{/list*}{#frag}", {"list": ["a", "b"], "frag": "c d"}) == "/a/b#c%20d"
    with pytest.raises(ValueError):
        core_expand("x://{", {})


def test_fastmcp_helpers_round_trip() -> None:
    template = "test://{x}/{path*}{?tags*}{&q}"
    params = {"x": "a/b", "path": "p q/r", "tags": ["1", "2 3"], "q": "&="}
    uri = expand_uri_template(template, params)
    assert uri == "test://a%2Fb/p%20q/r?tags=1&tags=2%203&q=%26%3D"
    assert match_uri_template(uri, template) == params


@pytest.mark.parametrize(("value", "refused"), [
    ("../etc/passwd", True), ("a/../../b", True), ("/abs", True), ("C:x", True), ("a\0b", True),
    ("foo/../bar", False), ("v1..v2", False), (".env", False)])
def test_resource_security_uses_the_cores_checks(value: str, refused: bool) -> None:
    assert (ResourceSecurity().validate({"p": value}) == "p") is refused
    assert ResourceSecurity(exempt_params={"p"}).validate({"p": value}) is None


def test_expanded_uris_read_back_through_the_server(tmp_path: Path) -> None:
    import json

    from procs import start_script, stop
    from test_access_everywhere import Http

    proc, port = start_script(tmp_path, SERVER)
    try:
        http = Http(port, "")
        cases = [("data://items{?page}{&size}", {"page": "2", "size": "5"}),
                 ("data://items{?page}{&size}", {"size": "a&b"}),
                 ("user://{id}/profile{?fields}", {"id": "a b", "fields": "x,y"})]
        for template, params in cases:
            uri = expand_uri_template(template, params)
            answer = http.post("resources/read", {"uri": uri}, modern=True)
            text = json.loads(answer["result"]["contents"][0]["text"])
            assert {k: text[k] for k in params} == params, uri
    finally:
        stop(proc)
