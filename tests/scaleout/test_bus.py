"""Change events across replicas (RedisBus): a `subscriptions/listen` stream opened through nginx
and held by one replica receives `resources/updated` and list_changed triggered by calls that
another replica ran (sent straight to that replica, so where they ran is certain)."""

from __future__ import annotations

import asyncio

from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged

from clients import Recorder, ts_client
from cluster import Cluster
from test_modern import direct_client, modern_client

WATCHED = "test://watched-resource"


async def test_python_listen_stream_gets_events_from_other_replicas(cluster: Cluster) -> None:
    rec = Recorder()
    async with modern_client(cluster, rec) as client:
        async with client.listen(tools_list_changed=True, resource_subscriptions=[WATCHED]) as sub:
            holder = cluster.replica_of(rec.upstreams("subscriptions/listen")[0])
            other = (holder + 1) % cluster.replicas
            events = aiter(sub)
            async with direct_client(cluster, other) as trigger:
                await asyncio.wait_for(trigger.call_tool("test_trigger_resource_update", {}), 20)
                ev = await asyncio.wait_for(anext(events), 10)
                assert isinstance(ev, ResourceUpdated) and ev.uri == WATCHED, ev

                await asyncio.wait_for(trigger.call_tool("test_trigger_tool_change", {}), 20)
                ev = await asyncio.wait_for(anext(events), 10)
                assert isinstance(ev, ToolsListChanged), ev


def test_ts_listen_stream_gets_events_from_other_replicas(cluster: Cluster) -> None:
    out = ts_client(cluster.url, "listen", WATCHED, *[cluster.direct_url(i) for i in range(cluster.replicas)])
    holder = next(cluster.replica_of(u) for m, u, _ in out["hops"] if m == "subscriptions/listen")
    assert cluster.replica_of(out["triggeredOn"]) != holder, out
    assert out["updated"] == [WATCHED] and out["toolsListChanged"] >= 1, out
