"""Skills through 3 replicas: every replica serves the same skills with the same digests (skills
are read at start from the same files), and a read through nginx verifies against a listing
that another replica gave."""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.request
from typing import Any

from cluster import Cluster

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def modern(url: str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if method == "resources/read":
        headers["Mcp-Name"] = str((params or {})["uri"])
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {**(params or {}), "_meta": META}})
    req = urllib.request.Request(url, data=body.encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=20) as r:
        text = r.read().decode()
    if text.startswith(("event:", "data:")):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    answer: dict[str, Any] = json.loads(text)["result"]
    return answer


def test_every_replica_serves_the_same_skills(cluster: Cluster) -> None:
    listings = [modern(cluster.direct_url(i), "skills/list")["skills"] for i in range(cluster.replicas)]
    assert [s["uri"] for s in listings[0]] == ["skill://explore-database/SKILL.md", "skill://live/clock/SKILL.md",
                                               "skill://ops/release-notes/SKILL.md"]
    assert all(other == listings[0] for other in listings[1:])
    # Through the balancer: each file read (round-robin, any replica) matches replica 0's digests.
    for skill in listings[0]:
        if skill["resources"] == "dynamic":
            continue
        for r in skill["resources"]:
            (c,) = modern(cluster.url, "resources/read", {"uri": r["uri"]})["contents"]
            data = c["text"].encode() if "text" in c else base64.b64decode(c["blob"])
            assert "sha256:" + hashlib.sha256(data).hexdigest() == r["digest"], r["uri"]
