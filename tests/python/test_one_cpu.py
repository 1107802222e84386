"""The sync-call hand-over when the server may use one CPU only (bindings-python/src/engine.rs:
there sync calls are held until the tokio worker has read every request that came in, or 1 ms at
most, and one pool thread runs every call queued, in order, under one GIL hold). The server runs
under `taskset -c 0`, over real HTTP on 127.0.0.1; the same cases as tests/node/one-cpu.test.mjs,
and the pool's own rule (blocked calls side by side, and not holding back answers before them).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from procs import free_port, stop, tool_call, wait_listening

APP = Path(__file__).resolve().parent / "apps" / "one_cpu.py"


@pytest.fixture(scope="module")
def port() -> Any:
    p = free_port()
    proc = subprocess.Popen(["taskset", "-c", "0", sys.executable, str(APP), "--http", f"127.0.0.1:{p}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ))
    wait_listening(p, proc)
    try:
        with open(f"/proc/{proc.pid}/status") as f:
            allowed = next(line.split(":", 1)[1].strip() for line in f if line.startswith("Cpus_allowed_list"))
        assert allowed == "0", allowed
        yield p
    finally:
        stop(proc)


def call(port: int, name: str, **arguments: Any) -> dict[str, Any]:
    result: dict[str, Any] = tool_call(port, name, arguments)["result"]
    return result


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def test_many_calls_in_flight_each_get_their_own_answer(port: int) -> None:
    def one(i: int) -> None:
        match i % 3:
            case 0:
                assert text(call(port, "add", a=i, b=1)) == str(i + 1)
            case 1:
                r = call(port, "fails", n=i)
                assert r["isError"] is True and f"failure {i}" in text(r), r
            case _:
                assert text(call(port, "async_add", a=i, b=2)) == str(i + 2)

    with ThreadPoolExecutor(30) as ex:
        list(ex.map(one, range(150)))


def test_calls_one_at_a_time_are_answered(port: int) -> None:
    # A batch of one each time, handed over when the worker parks.
    for i in range(30):
        assert text(call(port, "add", a=i, b=i)) == str(2 * i)


def test_blocked_calls_run_side_by_side_up_to_the_pool_size(port: int) -> None:
    # Four calls made together are one batch: each call that blocks calls one more pool thread to
    # the batch, so all four meet (the barrier gives up after 5 s, and the tool then fails).
    for _ in range(3):
        with ThreadPoolExecutor(4) as ex:
            rs = list(ex.map(lambda _: call(port, "meet"), range(4)))
        assert [text(r) for r in rs] == ["met"] * 4, rs


def test_a_call_past_its_timeout_does_not_hold_up_the_others(port: int) -> None:
    with ThreadPoolExecutor(9) as ex:
        slow = ex.submit(call, port, "stuck")
        t0 = time.monotonic()
        quick = list(ex.map(lambda i: text(call(port, "add", a=i, b=i)), range(8)))
        took = time.monotonic() - t0
        r = slow.result()
    assert quick == [str(2 * i) for i in range(8)]
    assert took < 2.5, took  # not behind the stuck call's 3 s sleep
    assert r["isError"] is True and "time" in text(r).lower(), r


def test_a_call_that_blocks_does_not_hold_back_the_answers_before_it(port: int) -> None:
    # Calls queued together run in one turn; a call that blocks after another in the same turn
    # must not hold back that one's answer. `hog` keeps the GIL while an `add` and then a call
    # that blocks until `release` come in behind it, so the two share the next turn in that order.
    # The blocked call is released only once the `add` is answered, and gives up after 10 s
    # ("never released"). (It fails when a thread keeps the answers of its turn until the turn
    # ends.)
    with ThreadPoolExecutor(3) as ex:
        hogged = ex.submit(call, port, "hog")
        time.sleep(0.05)
        quick = ex.submit(call, port, "add", a=2, b=3)
        time.sleep(0.05)
        blocked = ex.submit(call, port, "wait_released")
        assert text(quick.result(timeout=8)) == "5"
        assert text(call(port, "release")) == "ok"
        assert text(blocked.result(timeout=15)) == "released"
        assert text(hogged.result(timeout=15)) == "1000000"
