"""Batch registration: ``Server.add_tools`` over real stdio (tests/python/apps/batch.py).
The same cases as tests/node/batch-tools.test.mjs: N tools in one batch are all listed (paginated),
the batch gives one ``notifications/tools/list_changed``, and a bad item refuses the whole batch
with an error naming it."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

APP = Path(__file__).parent / "apps" / "batch.py"
LIST_CHANGED = "notifications/tools/list_changed"


class Peer:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(APP)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.notes: list[str] = []
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def _next(self, deadline: float) -> dict[str, Any]:
        msg = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
        if "id" not in msg and "method" in msg:
            self.notes.append(msg["method"])
        return msg

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})
        deadline = time.monotonic() + 15
        while True:
            msg = self._next(deadline)
            if msg.get("id") == rid:
                assert "error" not in msg, msg
                return msg["result"]  # type: ignore[no-any-return]

    def settle(self, seconds: float = 0.5) -> None:
        """Read what arrives within `seconds` (notifications sent after a response)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self._next(deadline)
        except queue.Empty:
            pass

    def tool_names(self) -> list[str]:
        names: list[str] = []
        cursor = None
        pages = 0
        while True:
            r = self.request("tools/list", {"cursor": cursor} if cursor else {})
            pages += 1
            assert len(r["tools"]) <= 50
            names += [t["name"] for t in r["tools"]]
            cursor = r.get("nextCursor")
            if not cursor:
                return names
            assert pages < 100

    def call(self, name: str, args: dict[str, Any]) -> str:
        return self.request("tools/call", {"name": name, "arguments": args})["content"][0]["text"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def peer() -> Iterator[Peer]:
    p = Peer()
    p.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                             "clientInfo": {"name": "batch-test", "version": "0"}})
    p.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    yield p
    assert p.proc.stdin is not None
    p.proc.stdin.close()
    try:
        p.proc.wait(10)
    except subprocess.TimeoutExpired:
        p.proc.kill()


def test_a_batch_before_serving_is_listed(peer: Peer) -> None:
    names = peer.tool_names()
    assert names[:31] == [f"start_{i}" for i in range(30)] + ["start_named"]
    assert peer.call("start_named", {"a": 2, "b": 3}) == "x0: 5"


def test_a_batch_while_serving_is_listed_with_one_list_changed(peer: Peer) -> None:
    before = len(peer.tool_names())
    peer.settle(0.2)
    peer.notes.clear()
    assert peer.call("add_batch", {"prefix": "gen_", "n": 240}) == "added 240"
    peer.settle()
    assert peer.notes.count(LIST_CHANGED) == 1, peer.notes
    names = peer.tool_names()
    assert len(names) == before + 240
    assert names[before:] == [f"gen_{i}" for i in range(240)]
    assert peer.call("gen_239", {"a": 1}) == "gen_239: 1"


@pytest.mark.parametrize(("bad", "named"), [("name", "'bad name!'"), ("twice", "'bad_0'"), ("taken", "'add_batch'")])
def test_a_bad_item_refuses_the_whole_batch_naming_it(peer: Peer, bad: str, named: str) -> None:
    before = peer.tool_names()
    peer.settle(0.2)
    peer.notes.clear()
    text = peer.call("add_batch", {"prefix": "bad_", "n": 5, "bad": bad})
    assert text.startswith("refused: ") and named in text, text
    peer.settle()
    assert LIST_CHANGED not in peer.notes
    assert peer.tool_names() == before
