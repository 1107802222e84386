"""``oxmcp install CLIENT app.py``: add a stdio entry to an MCP client's configuration file.

Each client's documented file and shape (read from their docs):
  claude-code     ~/.claude.json, top-level "mcpServers" (user scope; `claude mcp add -s user`
                  writes the same), entries {"type": "stdio", "command", "args", "env"}
  claude-desktop  claude_desktop_config.json in ~/Library/Application Support/Claude (macOS),
                  %APPDATA%\\Claude (Windows), $XDG_CONFIG_HOME/Claude (Linux); "mcpServers"
                  entries {"command", "args", "env"}
  cursor          ~/.cursor/mcp.json, "mcpServers" entries {"command", "args", "env"}
  vscode          the user profile's mcp.json (~/Library/Application Support/Code/User,
                  %APPDATA%\\Code\\User, $XDG_CONFIG_HOME/Code/User); "servers" entries
                  {"type": "stdio", "command", "args", "env"}
The file is read, the one entry set, every other key kept, and the result written atomically.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ._common import JS_SUFFIXES, CliError, app_file, split_spec


def _app_data() -> Path:
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")


def config_location(client: str) -> tuple[Path, str, bool]:
    """(file, the key holding the servers, whether entries carry "type": "stdio")."""
    home = Path.home()
    if client == "claude-code":
        return home / ".claude.json", "mcpServers", True
    if client == "claude-desktop":
        return _app_data() / "Claude" / "claude_desktop_config.json", "mcpServers", False
    if client == "cursor":
        return home / ".cursor" / "mcp.json", "mcpServers", False
    if client == "vscode":
        return _app_data() / "Code" / "User" / "mcp.json", "servers", True
    raise CliError(f"unknown client {client!r}")


def entry_for(target: str, env: dict[str, str], typed: bool) -> dict[str, Any]:
    file = app_file(target)
    if file is None:
        raise CliError("install wants a file (app.py or app.mjs)")
    _, attr = split_spec(target)
    if file.suffix in JS_SUFFIXES:
        command, args = "node", [str(file)]
    else:
        command, args = sys.executable, ["-m", "oxmcp", "run", f"{file}:{attr}" if attr else str(file)]
    entry: dict[str, Any] = {"type": "stdio"} if typed else {}
    entry.update(command=command, args=args)
    if env:
        entry["env"] = env
    return entry


def parse_env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CliError(f"--env wants KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def install(client: str, target: str, name: str | None, env_pairs: list[str], print_only: bool) -> None:
    path, key, typed = config_location(client)
    entry = entry_for(target, parse_env(env_pairs), typed)
    name = name or Path(split_spec(target)[0]).stem
    if print_only:
        print(json.dumps({key: {name: entry}}, indent=2, ensure_ascii=False))
        return
    data: Any = {}
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if text.strip():
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                raise CliError(f"{path} is not valid JSON; not touching it") from None
        if not isinstance(data, dict):
            raise CliError(f"{path} does not hold a JSON object; not touching it")
    servers = data.setdefault(key, {})
    if not isinstance(servers, dict):
        raise CliError(f"{path}: {key!r} is not an object; not touching it")
    verb = "updated" if name in servers else "added"
    servers[name] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".oxmcp-tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    print(f"{verb} {name!r} in {client} config: {path}")
