"""mcp 2.x's names for the 2026-07-28 messages in ``oxmcp.types`` (``mcp_types`` under the import
hook) read and write what the core puts on the wire: over real stdio, a modern ``tools/call``
whose tool elicits is answered ``input_required``, and each of its requests parses as an
``InputRequest`` (here an ``ElicitRequest``) and is answered with an ``InputResponse``; a
``SubscriptionsListenRequest`` built from the models is acknowledged with the filter it sent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pydantic

from oxmcp.types import (
    ElicitRequest,
    ElicitResult,
    InputRequest,
    InputResponse,
    SubscriptionFilter,
    SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequest,
    SubscriptionsListenRequestParams,
)

EVERYTHING = Path(__file__).resolve().parents[2] / "examples" / "python" / "everything.py"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}


class _Stdio:
    """The everything example served over its real stdio, spoken to one line at a time."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(EVERYTHING)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def ask(self, message: dict[str, Any], until: str) -> list[dict[str, Any]]:
        """Send ``message``; the lines read up to the one that answers it or has method ``until``."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        out = []
        while True:
            line = json.loads(self.proc.stdout.readline())
            out.append(line)
            if line.get("id") == message["id"] and "method" not in line or line.get("method") == until:
                return out

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(30)


def test_input_requests_and_listen_requests_are_the_wires() -> None:
    server = _Stdio()
    try:
        call = {"name": "test_elicitation", "arguments": {"message": "who?"}, "_meta": META}
        (first,) = server.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}, "")
        result = first["result"]
        assert result["resultType"] == "input_required"
        requests = {key: pydantic.TypeAdapter(InputRequest).validate_python(value)
                    for key, value in result["inputRequests"].items()}
        assert requests and all(isinstance(r, ElicitRequest) for r in requests.values()), requests
        answers: dict[str, InputResponse] = {
            key: ElicitResult(action="accept", content={"username": "ann", "email": "a@example.com"})
            for key in requests}
        retry = {**call, "requestState": result["requestState"],
                 "inputResponses": {k: v.model_dump(by_alias=True, exclude_none=True) for k, v in answers.items()}}
        (second,) = server.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry}, "")
        assert "action=accept" in second["result"]["content"][0]["text"], second

        listen = SubscriptionsListenRequest(params=SubscriptionsListenRequestParams(
            notifications=SubscriptionFilter(tools_list_changed=True), _meta=META))
        assert listen.method == "subscriptions/listen"
        wire = {"jsonrpc": "2.0", "id": 3, **listen.model_dump(by_alias=True, exclude_none=True)}
        ack = server.ask(wire, "notifications/subscriptions/acknowledged")[-1]
        params = SubscriptionsAcknowledgedNotificationParams.model_validate(ack["params"])
        assert params.notifications.toolsListChanged is True
    finally:
        server.close()
