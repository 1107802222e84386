#!/usr/bin/env python3
"""Install built artifacts into a clean place and serve the quick start to the official client.

    python3 scripts/release-smoke.py python dist/oxmcp-*.whl
    python3 scripts/release-smoke.py node dist/oxmcp-0.1.0.tgz dist/oxmcp-linux-x64-gnu-0.1.0.tgz

Used by scripts/release-local.sh and by every smoke step of .github/workflows/release.yml, so the
two test the artifacts the same way. Stdlib only. What it does:
  python: a fresh venv outside the checkout; `pip install WHEEL mcp` (the official client) with
          no cargo/rustc on PATH; the quick start (copied out of the checkout) served over stdio
          to mcp's ClientSession (tools/list, tools/call add, a progress-reporting call), and
          `oxmcp call` from the installed console script.
  node:   an empty npm project outside the checkout; `npm install ROOT.tgz PLATFORM.tgz zod
          @modelcontextprotocol/client` with no cargo/rustc on PATH; the root tarball holds no
          binary; the quick start served over stdio to the TypeScript SDK's Client, `npx oxmcp
          call`, and the loader's error naming the platform when the platform package is gone.
It prints the artifact sizes and the install times (seconds, wall clock).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WINDOWS = os.name == "nt"


def say(msg: str) -> None:
    print(f"release-smoke: {msg}", flush=True)


def fail(msg: str) -> None:
    print(f"release-smoke: FAILED: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def clean_env() -> dict[str, str]:
    """The environment minus every PATH entry that holds cargo or rustc (a machine without Rust)."""
    exe = ".exe" if WINDOWS else ""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not any(Path(d, t + exe).exists() for t in ("cargo", "rustc"))]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CARGO_HOME", "RUSTUP_HOME",
                                                            "PYTHONPATH", "NODE_PATH", "OXMCP_NATIVE")}
    env["PATH"] = os.pathsep.join(dirs)
    for tool in ("cargo", "rustc"):
        if shutil.which(tool, path=env["PATH"]):
            fail(f"{tool} is still on the cleaned PATH")
    return env


def run(cmd: list[str], *, env: dict[str, str], cwd: Path | None = None, timeout: float = 600,
        input: str | None = None) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, input=input,
                       shell=WINDOWS and cmd[0] in ("npm", "npx"))
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


def size(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB"


PY_CLIENT = r'''
import asyncio, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    params = StdioServerParameters(command=sys.executable, args=["quickstart.py"])
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await asyncio.wait_for(s.initialize(), 60)
        names = sorted(t.name for t in (await s.list_tools()).tools)
        assert names == ["add", "countdown"], names
        res = await s.call_tool("add", {"a": 20, "b": 22})
        assert res.structured_content == {"result": 42}, res
        seen = []
        async def progress(p, total, message):
            seen.append(p)
        res = await s.call_tool("countdown", {"n": 3}, progress_callback=progress)
        assert res.content[0].text == "liftoff", res
    import oxmcp
    print("python quick start ok with oxmcp", oxmcp.__version__, "from", oxmcp.__file__)

asyncio.run(main())
'''


def smoke_python(wheel: Path) -> None:
    if not wheel.is_file():
        fail(f"no wheel at {wheel}")
    say(f"wheel {wheel.name}: {size(wheel)}")
    env = clean_env()
    with tempfile.TemporaryDirectory(prefix="oxmcp-wheel-") as tmp:
        home = Path(tmp)
        venv.EnvBuilder(with_pip=True).create(home / "venv")
        py = home / "venv" / ("Scripts/python.exe" if WINDOWS else "bin/python")
        env = {**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        t = time.monotonic()
        run([str(py), "-m", "pip", "install", "-q", str(wheel)], env=env)
        say(f"pip install {wheel.name} (with pydantic): {time.monotonic() - t:.1f} s")
        t = time.monotonic()
        run([str(py), "-m", "pip", "install", "-q", "mcp>=2,<3"], env=env)
        say(f"pip install mcp (the official client, for the test): {time.monotonic() - t:.1f} s")
        shutil.copy(ROOT / "examples" / "python" / "quickstart.py", home / "quickstart.py")
        (home / "client.py").write_text(PY_CLIENT)
        r = run([str(py), "client.py"], env=env, cwd=home, timeout=180)
        out = r.stdout.strip()
        if str(home) not in out:
            fail(f"oxmcp was not imported from the fresh venv: {out}")
        say(out)
        cli = home / "venv" / ("Scripts/oxmcp.exe" if WINDOWS else "bin/oxmcp")
        r = run([str(cli), "call", "quickstart.py", "add", "a=1", "b=2"], env=env, cwd=home, timeout=180)
        if r.stdout != "3\n":
            fail(f"oxmcp call printed {r.stdout!r}")
        say("oxmcp call quickstart.py add a=1 b=2 -> 3")


NODE_CLIENT = r'''
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createRequire } from 'node:module';
const client = new Client({ name: 'release-smoke', version: '0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: ['quickstart.mjs'], stderr: 'pipe' }));
const { tools } = await client.listTools();
if (tools.map((t) => t.name).join() !== 'add') throw new Error(`tools: ${tools.map((t) => t.name)}`);
const r = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
if (r.structuredContent?.sum !== 42) throw new Error(JSON.stringify(r));
await client.close();
const require = createRequire(import.meta.url);
console.log(`node quick start ok with oxmcp ${require('oxmcp/package.json').version} from ${require.resolve('oxmcp')}`);
'''


def smoke_node(root_tgz: Path, platform_tgz: Path) -> None:
    for f in (root_tgz, platform_tgz):
        if not f.is_file():
            fail(f"no tarball at {f}")
    with tarfile.open(root_tgz) as tf:
        binaries = [m.name for m in tf.getmembers() if m.name.endswith(".node")]
    if binaries:
        fail(f"the root tarball holds binaries: {binaries}")
    with tarfile.open(platform_tgz) as tf:
        names = tf.getnames()
        pkg_json = tf.extractfile("package/package.json")
        assert pkg_json is not None
        import json

        platform_pkg = json.loads(pkg_json.read())
    key = platform_pkg["name"].split("/", 1)[1]
    say(f"{root_tgz.name}: {size(root_tgz)} (no binary); {platform_tgz.name}: {size(platform_tgz)} ({', '.join(n for n in names if n.endswith('.node'))})")
    env = clean_env()
    with tempfile.TemporaryDirectory(prefix="oxmcp-npm-") as tmp:
        home = Path(tmp)
        (home / "package.json").write_text('{"name": "smoke", "version": "0.0.0", "private": true, "type": "module"}\n')
        t = time.monotonic()
        run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", str(root_tgz), str(platform_tgz)],
            env=env, cwd=home)
        say(f"npm install {root_tgz.name} {platform_tgz.name}: {time.monotonic() - t:.1f} s")
        t = time.monotonic()
        run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "zod@^4", "@modelcontextprotocol/client@^2.4"],
            env=env, cwd=home)
        say(f"npm install zod @modelcontextprotocol/client (the quick start's and the test's own): {time.monotonic() - t:.1f} s")
        shutil.copy(ROOT / "examples" / "node" / "quickstart.mjs", home / "quickstart.mjs")
        (home / "client.mjs").write_text(NODE_CLIENT)
        r = run(["node", "client.mjs"], env=env, cwd=home, timeout=180)
        out = r.stdout.strip()
        if str(Path(tmp).resolve()) not in out and str(home) not in out:
            fail(f"oxmcp was not loaded from the fresh project: {out}")
        say(out)
        r = run(["npx", "--no-install", "oxmcp", "call", "quickstart.mjs", "add", "a=1", "b=2"], env=env, cwd=home, timeout=180)
        if r.stdout != '{"sum":3}\n':
            fail(f"npx oxmcp call printed {r.stdout!r}")
        say("npx oxmcp call quickstart.mjs add a=1 b=2 -> {\"sum\":3}")
        # Without the platform package the loader says which one is missing.
        pkg_dir = home / "node_modules" / "@oxmcp" / key
        pkg_dir.rename(home / "hidden")
        r = subprocess.run(["node", "-e", "require('oxmcp').Server && new (require('oxmcp').Server)({name: 'x', version: '1'})"],
                           env=env, cwd=home, capture_output=True, text=True, timeout=60)
        (home / "hidden").rename(pkg_dir)
        if r.returncode == 0 or f"@oxmcp/{key} is not installed" not in r.stderr:
            fail(f"no clear loader error without @oxmcp/{key}: exit {r.returncode}\n{r.stderr}")
        line = next(ln for ln in r.stderr.splitlines() if "no native module" in ln)
        say(f"without @oxmcp/{key} the loader says: {line.strip()[:160]}...")


def main(argv: list[str]) -> None:
    if len(argv) == 2 and argv[0] == "python":
        smoke_python(Path(argv[1]).resolve())
    elif len(argv) == 3 and argv[0] == "node":
        smoke_node(Path(argv[1]).resolve(), Path(argv[2]).resolve())
    else:
        fail(__doc__ or "usage")
    say("ok")


if __name__ == "__main__":
    main(sys.argv[1:])
