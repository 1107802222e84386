"""The pytest plugin tests/upstream/run.py loads (``-p oxmcp_upstream_plugin``) into an upstream suite.

Imported before any test module, it installs oxmcp's zero-change import hook, so ``import fastmcp``
and ``import mcp...`` in the upstream tests resolve to oxmcp's mirrors, as under ``oxmcp run``. With
``OXMCP_UPSTREAM_BASELINE=1`` it installs nothing: the same files run on the original frameworks.
With ``OXMCP_UPSTREAM_SELECT=<baseline json>`` it deselects every test that json does not choose.

The upstream conftest files are not loaded (``--noconftest``): they import framework internals
(FastMCP's JWT provider and settings, the SDK's OpenTelemetry and BlockBuster set-up). The one
fixture of theirs that only chooses an event loop is provided here.
"""

from __future__ import annotations

import json
import os

import pytest

if os.environ.get("OXMCP_UPSTREAM_BASELINE") != "1":
    from oxmcp import _dropin

    # The suite runs from its sdist's folder (``mcp-1.30.0``): its tests are written for that
    # generation of mcp, whichever one the environment has installed.
    _suite = os.path.basename(os.getcwd())
    _dropin.install(int(_suite[4]) if _suite.startswith("mcp-") else None)


#: The descriptor calls pytest's output capture makes between a test's phases.
_FD_CALLS = (os.dup, os.dup2, os.close)


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_call(item: pytest.Item):  # type: ignore[no-untyped-def]
    """Put the descriptor calls back as soon as a test's body ends. A test may replace ``os.dup2``
    with a double that fails (and closes its target) once, for the SDK's stdio transport to meet;
    where nothing met it, pytest's own capture would, losing its descriptors and the rest of the
    run. The test's own result stands; its monkeypatch would restore the same calls later."""
    yield
    os.dup, os.dup2, os.close = _FD_CALLS


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


def _test_id(nodeid: str) -> str:
    """A node id in run.py's form (``file::Outer.Inner::test[param]``, as the JUnit report gives it)."""
    head, bracket, param = nodeid.partition("[")
    parts = head.split("::")
    name = parts[-1] + bracket + param
    cls = ".".join(parts[1:-1])
    return f"{parts[0]}::{cls}::{name}" if cls else f"{parts[0]}::{name}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # OXMCP_UPSTREAM_SELECT names the suite's committed baseline: only its tests (those that pass
    # on the original framework) run on oxmcp; the rest would be counted nowhere.
    select = os.environ.get("OXMCP_UPSTREAM_SELECT")
    if not select:
        return
    with open(select) as f:
        chosen = set(json.load(f)["passed"])
    keep, drop = [], []
    for item in items:
        (keep if _test_id(item.nodeid) in chosen else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
