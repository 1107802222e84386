"""An in-memory client for tests: requests go through the core's HTTP handler without a socket."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from typing import Any

from typing_extensions import Self

from ._errors import McpError
from ._loops import LoopThread, on_asyncio

PROTOCOL_VERSION = "2026-07-28"
LEGACY_PROTOCOL_VERSION = "2025-11-25"


class Client:
    """Speaks modern (2026-07-28) MCP to a :class:`~oxmcp.Server` in the same process.

    ``async with Client(server) as c: await c.call_tool("add", {"a": 1, "b": 2})``. Every request goes
    through the same core dispatch as stdio and HTTP. Notifications a request produced (progress,
    log messages) are kept in :attr:`notifications`.
    """

    #: Whether the exchanges skip the server's HTTP auth: this client sends ``token`` through the
    #: same handler as an HTTP client, auth included; the ``mcp`` SDK's in-memory ``Client`` (a
    #: subclass) talks to the server object in its own process and carries no credentials.
    _in_process = False

    def __init__(self, server: Any, *, capabilities: dict[str, Any] | None = None,
                 client_info: dict[str, Any] | None = None, log_level: str | None = None,
                 path: str = "/mcp", timeout: float = 30.0, token: str | None = None) -> None:
        self.server = server
        self.capabilities = capabilities if capabilities is not None else {}
        self.client_info = client_info or {"name": "oxmcp-inmemory-client", "version": "0"}
        self.log_level = log_level
        self.path = path
        self.timeout = timeout
        #: Sent as ``Authorization: Bearer <token>`` (servers configured with ``tokens``/``oauth``).
        self.token = token
        self.notifications: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._native: Any = None
        #: The legacy session's ``Mcp-Session-Id``, with a server that speaks the handshake era only
        #: (mcp 1.x's FastMCP): the client then opens the session with ``initialize`` first.
        self._session: str | None = None
        #: The client's own asyncio loop when it is awaited from trio (``_loops``); None on asyncio.
        self._loop_thread: LoopThread | None = None
        #: The ``initialize`` answer of a legacy session (None in the modern era, which has no handshake).
        self.init_result: dict[str, Any] | None = None
        #: Answers a legacy session's server-to-client request (a message with ``method`` and ``id``)
        #: met on a response's stream: ``async (message) -> response``. None: such requests are kept
        #: in :attr:`notifications`, unanswered.
        self._on_request: Any = None
        #: Sees each notification as it arrives on a response's stream: ``async (message) -> None``.
        self._on_notification: Any = None

    @property
    def _skips_auth(self) -> bool:
        return self._in_process and self.token is None

    async def __aenter__(self) -> Self:
        self._native = self.server._build_native()
        if on_asyncio():
            self._native.set_loop(asyncio.get_running_loop())
        else:
            self._loop_thread = LoopThread()
            self._native.set_loop(self._loop_thread.loop)
        if getattr(self.server, "_handshake_only", False):
            await self._handshake()
        return self

    async def _handshake(self) -> None:
        self._session = ""  # legacy requests from here on; the id comes with initialize's answer
        self.init_result = await self.request("initialize", {"protocolVersion": LEGACY_PROTOCOL_VERSION,
                                          "capabilities": self.capabilities, "clientInfo": self.client_info})
        body = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        headers = self._headers("notifications/initialized")
        await self._native_call(lambda: self._native.handle_http("POST", self.path, headers, body, in_process=self._skips_auth))

    async def _native_call(self, make: Any) -> Any:
        """Await the native awaitable ``make()`` gives, on the loop the native layer completes it on."""
        async def call() -> Any:
            return await asyncio.wait_for(make(), self.timeout)

        if self._loop_thread is None:
            return await call()
        return await self._loop_thread.run(call())

    def _headers(self, method: str) -> list[tuple[str, str]]:
        legacy = self._session is not None
        headers = [("content-type", "application/json"), ("accept", "application/json, text/event-stream"),
                   ("mcp-protocol-version", LEGACY_PROTOCOL_VERSION if legacy else PROTOCOL_VERSION),
                   ("host", "localhost")]
        if self._session:
            headers.append(("mcp-session-id", self._session))
        if not legacy:
            headers.append(("mcp-method", method))
        return headers

    async def __aexit__(self, *exc: object) -> None:
        if self._session and self._native is not None:
            # End the legacy session as an HTTP client does on close (DELETE): the server's
            # per-session state (its GET stream, its keep-alive pings) ends with it.
            native, headers = self._native, self._headers("")
            with contextlib.suppress(Exception):
                await self._native_call(lambda: native.handle_http("DELETE", self.path, headers, b"", in_process=self._skips_auth))
            self._session = None
        self._native = None
        if self._loop_thread is not None:
            self._loop_thread.close()
            self._loop_thread = None

    # -- raw -----------------------------------------------------------------------------------
    async def request(self, method: str, params: dict[str, Any] | None = None, *,
                      progress_token: Any = None, capabilities: dict[str, Any] | None = None,
                      raw: bool = False) -> Any:
        """Send one request; returns its result (or the whole response with ``raw=True``)."""
        if self._native is None:
            raise RuntimeError("use `async with Client(server) as client:`")
        params = dict(params or {})
        if self._session is not None:  # the legacy era: no per-request protocol metadata
            return await self._send(method, params, progress_token, raw)
        meta: dict[str, Any] = {
            "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": self.capabilities if capabilities is None else capabilities,
            "io.modelcontextprotocol/clientInfo": self.client_info,
            **params.pop("_meta", {}),
        }
        if self.log_level is not None:
            meta["io.modelcontextprotocol/logLevel"] = self.log_level
        if progress_token is not None:
            meta["progressToken"] = progress_token
        params["_meta"] = meta
        return await self._send(method, params, None, raw)

    async def _send(self, method: str, params: dict[str, Any], progress_token: Any, raw: bool) -> Any:
        if progress_token is not None:
            params["_meta"] = {**params.get("_meta", {}), "progressToken": progress_token}
        msg = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}
        headers = self._headers(method)
        name = (params.get("name") if method in ("tools/call", "prompts/get") else params.get("uri")
                if method == "resources/read" else params.get("taskId")
                if method in ("tasks/get", "tasks/update", "tasks/cancel") else None)
        if isinstance(name, str):
            headers.append(("mcp-name", name))
        if self.token is not None:
            headers.append(("authorization", f"Bearer {self.token}"))
        native, data = self._native, json.dumps(msg).encode()
        status, reply_headers, body, stream = await self._native_call(
            lambda: native.handle_http("POST", self.path, headers, data, in_process=self._skips_auth))
        if method == "initialize":
            self._session = next((str(v) for k, v in reply_headers if str(k).lower() == "mcp-session-id"), "")
        messages: list[dict[str, Any]] = []
        if stream is not None:
            buf = b""
            while True:
                chunk = await self._native_call(stream.next)
                if chunk is None:
                    break
                buf += chunk
                *events, buf = buf.replace(b"\r\n", b"\n").split(b"\n\n")
                for ev in events:
                    data = b"\n".join(line[5:].lstrip() for line in ev.split(b"\n") if line.startswith(b"data:"))
                    if data:
                        message = json.loads(data)
                        if self._on_request is not None and "method" in message and "id" in message:
                            await self._post(await self._on_request(message))
                            continue
                        if self._on_notification is not None and "method" in message and "id" not in message:
                            await self._on_notification(message)
                        messages.append(message)
                if any("id" in m and ("result" in m or "error" in m) for m in messages):
                    break
        elif body:
            messages.append(json.loads(body))
        response: dict[str, Any] | None = None
        for m in messages:
            if "method" in m and "id" not in m:
                self.notifications.append(m)
            elif "result" in m or "error" in m:
                response = m
        if response is None:
            raise McpError(-32603, f"no response (HTTP {status})", {"requestId": msg["id"]})
        if raw:
            return response
        if "error" in response:
            err = response["error"]
            if not isinstance(err, dict):  # not JSON-RPC: an HTTP-level refusal (401 from auth)
                raise McpError(-32603, f"HTTP {status}: {err}: {response.get('error_description', '')}".rstrip(": "),
                               {"httpStatus": status, **response})
            raise McpError(err.get("code", -32603), err.get("message", ""), err.get("data"))
        return response["result"]

    async def _post(self, message: dict[str, Any]) -> None:
        """POST a message that has no answer (a response to the server's request)."""
        native, data, headers = self._native, json.dumps(message).encode(), self._headers("")
        await self._native_call(lambda: native.handle_http("POST", self.path, headers, data, in_process=self._skips_auth))

    # -- conveniences ------------------------------------------------------------------------------
    async def discover(self) -> dict[str, Any]:
        return await self.request("server/discover")

    async def list_tools(self) -> list[dict[str, Any]]:
        return (await self.request("tools/list"))["tools"]

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *,
                        input_responses: dict[str, Any] | None = None, request_state: Any = None,
                        progress_token: Any = None, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if input_responses is not None:
            params["inputResponses"] = input_responses
        if request_state is not None:
            params["requestState"] = request_state
        return await self.request("tools/call", params, progress_token=progress_token, capabilities=capabilities)

    async def list_resources(self) -> list[dict[str, Any]]:
        return (await self.request("resources/list"))["resources"]

    async def list_resource_templates(self) -> list[dict[str, Any]]:
        return (await self.request("resources/templates/list"))["resourceTemplates"]

    async def read_resource(self, uri: str) -> dict[str, Any]:
        return await self.request("resources/read", {"uri": uri})

    async def list_prompts(self) -> list[dict[str, Any]]:
        return (await self.request("prompts/list"))["prompts"]

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return await self.request("prompts/get", params)

    async def complete(self, ref: dict[str, Any], argument: str, value: str,
                       context: dict[str, str] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context is not None:
            params["context"] = {"arguments": context}
        return (await self.request("completion/complete", params))["completion"]
