"""FastMCP errors: ToolError text, an unexpected exception (mask_error_details default), unknown names."""

import os

from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError, ToolError

mcp = FastMCP("errors-demo")


@mcp.tool
def divide(a: float, b: float) -> float:
    if b == 0:
        raise ToolError("Division by zero is not allowed")
    return a / b


@mcp.tool
def crash(x: int) -> int:
    raise ValueError(f"bad value {x}")


@mcp.resource("data://broken")
def broken() -> str:
    raise ResourceError("this resource is unavailable")


masked = FastMCP("masked", mask_error_details=True)


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), show_banner=False)
    else:
        mcp.run(show_banner=False)
