"""FastMCP HTTP: a custom route next to the MCP endpoint, served by http_app() under uvicorn."""

import os

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse

from fastmcp import FastMCP

mcp = FastMCP("http-demo")


@mcp.custom_route("/health", methods=["GET"])
async def health(request: Request) -> PlainTextResponse:
    return PlainTextResponse("OK")


@mcp.custom_route("/info", methods=["GET"])
async def info(request: Request) -> JSONResponse:
    return JSONResponse({"server": "http-demo"})


@mcp.tool
def echo(text: str) -> str:
    return text


app = mcp.http_app(path="/mcp")

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), log_level="warning")
