"""The workload benchmark's Python servers: the same tools and resources on oxmcp, FastMCP and
the `mcp` SDK's MCPServer, as each library's user writes them (decorators, pydantic models where
the library builds schemas from hints). What they serve is in examples/rust/workload_server.rs.

    python wl_py.py oxmcp|fastmcp|pysdk --port N     # Streamable HTTP at 127.0.0.1:N/mcp

Data from WL_DATA; WL_TOOLS=N generated tools, WL_TEMPLATES=N resource templates.
The peers run as the shared kit runs them: stateless HTTP under uvicorn (FastMCP with its
default SSE responses, the SDK with JSON responses); WL_STATEFUL=1 runs them with sessions
(the legacy-session workload). oxmcp's limits are raised to the workloads' sizes (10,000
sessions, 1,000 listeners from one caller).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

impl = sys.argv[1]
port = int(sys.argv[sys.argv.index("--port") + 1])
DATA = os.environ["WL_DATA"]
TOOLS = int(os.environ.get("WL_TOOLS", "0"))
TEMPLATES = int(os.environ.get("WL_TEMPLATES", "0"))


def load(name: str, mode: str = "r"):
    with open(os.path.join(DATA, name), mode) as f:
        return f.read()


RECORDS = {s: json.loads(load(f"records_{s}.json")) for s in ("large", "small")}
RECORDS_SCHEMA = json.loads(load("records_schema.json"))
ORDERS_SCHEMA = json.loads(load("orders_schema.json"))
BLOBS = {s: load(f"blob_{s}.bin", "rb") for s in ("large", "small")}
TEXTS = {s: load(f"text_{s}.txt") for s in ("large", "small")}


# The shapes the peers build their schemas from (the same as orders_schema.json).
class Record(TypedDict):
    id: int
    name: str
    email: str
    score: float
    active: bool
    tags: list[str]


class Records(TypedDict):
    items: list[Record]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Address(Strict):
    street: str
    city: str
    zip: str
    country: str


class Customer(Strict):
    name: str
    email: str
    address: Address


class Item(Strict):
    sku: str
    qty: int = Field(ge=1)
    price: float
    tags: list[str]


class Card(Strict):
    kind: Literal["card"]
    number: str
    expiry: str


class Transfer(Strict):
    kind: Literal["transfer"]
    iban: str
    reference: str


class Order(Strict):
    id: str
    customer: Customer
    items: list[Item]
    payment: Annotated[Card | Transfer, Field(discriminator="kind")]


if impl == "oxmcp":
    from oxmcp import Server

    mcp = Server("wl-oxmcp-python", page_size=max(100, TOOLS + 10), max_sessions=20000,
                 max_sessions_per_caller=20000, max_listeners=4096, max_listeners_per_caller=4096,
                 max_tasks_per_caller=1_000_000)

    def records_tool(size: str):
        def records() -> dict:
            return RECORDS[size]
        mcp.add_tool(records, name=f"records_{size}", description="A page of records", output_schema=RECORDS_SCHEMA)

    def orders(**args) -> str:
        return f"orders={len(args['orders'])}"
    mcp.add_tool(orders, name="orders", description="Checks a batch of orders", input_schema=ORDERS_SCHEMA)
    tool = mcp.tool

    @mcp.tool(task=True)
    def job() -> str:
        """A task that is done at once"""
        return "job done"

    @mcp.tool()
    def touch() -> str:
        """Marks bench://watched as updated"""
        mcp.native.notify_resource_updated("bench://watched")
        return "touched"

    @mcp.resource("bench://watched", name="watched", mime_type="text/plain")
    def watched() -> str:
        return "watched"
else:
    if impl == "fastmcp":
        from fastmcp import FastMCP
        mcp = FastMCP("wl-fastmcp")
        tool = mcp.tool
    else:
        from mcp.server.mcpserver import MCPServer
        mcp = MCPServer("wl-pysdk")
        tool = mcp.tool()

    def records_tool(size: str):
        def records() -> Records:
            return RECORDS[size]
        records.__name__ = f"records_{size}"
        records.__doc__ = "A page of records"
        (mcp.tool if impl == "fastmcp" else mcp.tool())(records)

    def orders(orders: list[Order]) -> str:
        """Checks a batch of orders"""
        return f"orders={len(orders)}"
    tool(orders)

    if impl == "pysdk":  # the SDK's subscriptions/listen bus
        from mcp.server.mcpserver import Context

        async def touch(ctx: Context) -> str:
            """Marks bench://watched as updated"""
            await ctx.notify_resource_updated("bench://watched")
            return "touched"
        tool(touch)

        @mcp.resource("bench://watched", name="watched", mime_type="text/plain")
        def watched() -> str:
            return "watched"


def add(a: int, b: int) -> str:
    """Adds a and b"""
    return str(a + b)


(mcp.tool if impl in ("fastmcp", "oxmcp") else mcp.tool())(add)


def resources(size: str) -> None:
    def blob() -> bytes:
        return BLOBS[size]

    def text() -> str:
        return TEXTS[size]
    mcp.resource(f"bench://blob/{size}", name=f"blob_{size}", mime_type="application/octet-stream")(blob)
    mcp.resource(f"bench://text/{size}", name=f"text_{size}", mime_type="text/plain")(text)


for size in ("large", "small"):
    records_tool(size)
    resources(size)


def generated(i: int):
    def f(a: int, b: int, note: str = "") -> str:
        return str(a + b)
    f.__name__ = f"tool_{i:04d}"
    f.__doc__ = f"Generated tool number {i}: adds a and b."
    return f


for i in range(TOOLS):
    (mcp.tool if impl in ("fastmcp", "oxmcp") else mcp.tool())(generated(i))


def template(i: int):
    def read(id: str) -> str:
        return f"t{i}:{id}"
    read.__name__ = f"template_{i}"
    return read


for i in range(TEMPLATES):
    mcp.resource(f"bench://t{i}/{{id}}", name=f"template_{i}", mime_type="text/plain")(template(i))

STATEFUL = os.environ.get("WL_STATEFUL") == "1"
if impl == "oxmcp":
    mcp.run("http", host="127.0.0.1", port=port, max_connections=4096, max_connections_per_client=4096)
else:
    import uvicorn
    if impl == "fastmcp":
        app = mcp.http_app(path="/mcp", stateless_http=not STATEFUL)
    else:
        app = mcp.streamable_http_app(stateless_http=not STATEFUL, json_response=True, host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, loop="asyncio", http="h11")
