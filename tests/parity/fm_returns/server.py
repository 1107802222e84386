"""FastMCP return values: TypedDict, pydantic model, dataclass, list[str], dict, None, Image, ToolResult-free."""

import os
from dataclasses import dataclass
from typing_extensions import TypedDict

from pydantic import BaseModel

from fastmcp import FastMCP

mcp = FastMCP()  # no name: FastMCP generates one


class Weather(TypedDict):
    city: str
    temperature: float


class Person(BaseModel):
    name: str
    age: int


@dataclass
class Point:
    x: int
    y: int


@mcp.tool
def weather(city: str) -> Weather:
    """Current weather."""
    return {"city": city, "temperature": 21.5}


@mcp.tool
def person(name: str) -> Person:
    return Person(name=name, age=36)


@mcp.tool
def point() -> Point:
    return Point(1, 2)


@mcp.tool
def tags() -> list[str]:
    """A list of strings."""
    return ["a", "b", "c"]


@mcp.tool
def numbers() -> list[int]:
    return [1, 2, 3]


@mcp.tool
def config() -> dict:
    return {"debug": True, "level": 3}


@mcp.tool
def nothing() -> None:
    return None


@mcp.tool
def untyped(x: int):
    return x * 2


@mcp.tool
def maybe(flag: bool) -> str | None:
    return "yes" if flag else None


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), show_banner=False)
    else:
        mcp.run(show_banner=False)
