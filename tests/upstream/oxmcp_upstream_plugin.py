"""The pytest plugin tests/upstream/run.py loads (``-p oxmcp_upstream_plugin``) into an upstream suite.

Imported before any test module, it installs oxmcp's zero-change import hook, so ``import fastmcp``
and ``import mcp...`` in the upstream tests resolve to oxmcp's mirrors, as under ``oxmcp run``. With
``OXMCP_UPSTREAM_BASELINE=1`` it installs nothing: the same files run on the original frameworks.

The upstream conftest files are not loaded (``--noconftest``): they import framework internals
(FastMCP's JWT provider and settings, the SDK's OpenTelemetry and BlockBuster set-up). The one
fixture of theirs that only chooses an event loop is provided here.
"""

from __future__ import annotations

import os

import pytest

if os.environ.get("OXMCP_UPSTREAM_BASELINE") != "1":
    from oxmcp import _dropin

    _dropin.install()


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"
