"""FastMCP composition: mount() (live) and import_server() (a copy), with prefixes."""

import os

from fastmcp import FastMCP

weather = FastMCP("weather")


@weather.tool
def forecast(city: str) -> str:
    return f"sunny in {city}"


@weather.resource("data://cities")
def cities() -> str:
    return "Paris,Oslo"


@weather.resource("weather://{city}/current")
def current(city: str) -> str:
    return f"{city}: 20C"


@weather.prompt
def ask_weather(city: str) -> str:
    return f"What is the weather in {city}?"


calc = FastMCP("calc")


@calc.tool
def add(a: int, b: int) -> int:
    return a + b


main = FastMCP("main")


@main.tool
def ping() -> str:
    return "pong"


main.mount(weather, namespace="weather")


@weather.tool
def added_later(x: int) -> int:
    """Added to the mounted server after mounting: still visible (mount is live)."""
    return x + 1


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        main.run(transport="http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), show_banner=False)
    else:
        main.run(show_banner=False)
