"""Fixtures of the scale-out tests: a fresh 3-replica cluster (Redis, replicas, nginx) per test.

The languages come from OXMCP_SCALEOUT_LANGS (default "rust,python,node"). Missing redis-server
or nginx fails the test (no skip): scripts/setup.sh installs both.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cluster import Cluster  # noqa: E402

LANGS = [x for x in os.environ.get("OXMCP_SCALEOUT_LANGS", "rust,python,node").replace(" ", "").split(",") if x]


@pytest.fixture(params=LANGS)
def lang(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def cluster(lang: str, tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(lang, tmp_path / "cluster")
    c.start()
    try:
        yield c
    finally:
        c.stop()
