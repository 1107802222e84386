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
The file is read, the one entry set, every other key kept, and the result written atomically
(see write_config for the file's mode, symlinks and the temp file).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
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


# What the kernel allows (ELOOP): a longer chain is a loop, refused rather than followed forever.
MAX_LINKS = 40


def resolve_link(path: Path) -> Path:
    """The file a symlinked config points at, even when that file does not exist yet: the write
    goes there, so a config kept in a dotfiles repository stays a link."""
    for _ in range(MAX_LINKS):
        if not path.is_symlink():
            return path
        path = path.parent / os.readlink(path)
    raise CliError(f"{path}: too many levels of symbolic links")


def write_config(path: Path, text: str) -> None:
    """Replace `path` atomically. Client configs hold secrets in "env", so a new file is 0600 and
    an existing one keeps its mode. The temp file is created O_EXCL with a random name beside the
    target (same filesystem, so the rename is atomic; no predictable path another user could
    plant), and removed if anything fails before the rename."""
    path = resolve_link(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".oxmcp-tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)  # by name: os.fchmod is missing on Windows before Python 3.13
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


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
    write_config(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    print(f"{verb} {name!r} in {client} config: {path}")
