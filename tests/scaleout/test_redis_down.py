"""Redis stopped, then started again (same port): modern stateless calls never notice; a
`subscriptions/listen` stream held across the outage gets events again once Redis is back (the
replicas' subscriber reconnects with backoff)."""

from __future__ import annotations

import asyncio
import time

from mcp.client.subscriptions import ResourceUpdated

from clients import Recorder
from cluster import Cluster
from test_bus import WATCHED
from test_modern import direct_client, modern_client


async def test_redis_outage_modern_calls_served_and_listeners_recover(cluster: Cluster) -> None:
    rec = Recorder()
    async with modern_client(cluster, rec) as client:
        async with client.listen(resource_subscriptions=[WATCHED]) as sub:
            holder = cluster.replica_of(rec.upstreams("subscriptions/listen")[0])
            other = (holder + 1) % cluster.replicas
            events = aiter(sub)

            cluster.stop_redis()
            t0 = time.monotonic()
            for _ in range(9):  # every replica, 3 times: no Redis on the modern path
                r = await asyncio.wait_for(client.call_tool("test_simple_text", {}), 10)
                assert r.is_error is False, r
            assert time.monotonic() - t0 < 8, "modern calls slowed down while Redis was down"
            assert len(set(cluster.served_by()[-9:])) == cluster.replicas

            cluster.start_redis()
            async with direct_client(cluster, other) as trigger:
                # The subscriber reconnects with backoff: trigger until the event arrives (bounded).
                got = None
                deadline = time.monotonic() + 20
                while got is None and time.monotonic() < deadline:
                    await asyncio.wait_for(trigger.call_tool("test_trigger_resource_update", {}), 10)
                    try:
                        ev = await asyncio.wait_for(anext(events), 1.0)
                        got = ev if isinstance(ev, ResourceUpdated) else None
                    except TimeoutError:
                        pass
                assert isinstance(got, ResourceUpdated) and got.uri == WATCHED, "no event after Redis came back"
