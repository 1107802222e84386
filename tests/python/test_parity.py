"""The parity corpus (tests/parity/<name>/server.py): each server runs on its original framework and on
oxmcp with only its imports changed, driven by the official `mcp` client; the normalised results must
be equal. The original frameworks live in their own venvs (scripts/setup.sh installs them):
.cache/peers-py/v2 (fastmcp 4.2.3 + mcp 2.3.0) and .cache/peers-py/v1 (mcp 1.x, for
`mcp.server.fastmcp` and the decorator low-level `Server`).

Scenario keys: ``peer`` (fastmcp4 | mcp2 | mcp1), ``eras`` the peer serves, ``oxmcp_only_eras`` eras
where the peer cannot serve (oxmcp's results there must equal the peer's legacy ones), ``transports``.
"""

from __future__ import annotations

import difflib
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "parity"
sys.path.insert(0, str(CORPUS))

import py_runner

PEERS = {
    "fastmcp4": ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python",
    "mcp2": ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python",
    "mcp1": ROOT / ".cache" / "peers-py" / "v1" / "bin" / "python",
}


def _cases() -> list[Any]:
    out = []
    for case in sorted(p for p in CORPUS.iterdir() if (p / "server.py").is_file() and (p / "scenario.json").is_file()):
        sc = json.loads((case / "scenario.json").read_text())
        for transport in sc.get("transports", ["stdio", "http"]):
            for era in sc.get("eras", ["legacy", "modern"]):
                out.append(pytest.param(case, transport, era, True, id=f"{case.name}-{transport}-{era}"))
            for era in sc.get("oxmcp_only_eras", []):
                out.append(pytest.param(case, transport, era, False, id=f"{case.name}-{transport}-{era}-oxmcp"))
    return out


def _show(x: Any) -> list[str]:
    return json.dumps(x, indent=1, sort_keys=True).splitlines()


@pytest.mark.parametrize(("case", "transport", "era", "with_peer"), _cases())
def test_parity(case: Path, transport: str, era: str, with_peer: bool) -> None:
    sc = json.loads((case / "scenario.json").read_text())
    peer = PEERS[sc["peer"]]
    assert peer.exists(), f"{peer} missing: run scripts/setup.sh"
    # The peer does not serve this era when with_peer is False (e.g. FastMCP 4 has no elicitation on
    # 2026-07-28 requests, where oxmcp uses MRTR): oxmcp in this era must answer as the peer does in
    # the legacy era. Both sides run at once (two server processes; most of the time is start-up).
    with ThreadPoolExecutor(2) as pool:
        mine = pool.submit(py_runner.run, case, sys.executable, transport, era, True)
        theirs = pool.submit(py_runner.run, case, str(peer), transport, era if with_peer else "legacy", False)
        ours, expected = mine.result(), theirs.result()
    if ours != expected:
        diff = "\n".join(difflib.unified_diff(_show(expected), _show(ours), "original", "oxmcp", lineterm=""))
        pytest.fail(f"{case.name} over {transport} ({era}) differs:\n{diff}")
