#!/usr/bin/env bash
# Builds what bench/run.py measures, in release mode, and installs the peers it
# compares against. Everything but the load generator lands outside the repository.
#
#   bash bench/setup.sh                 # all of it
#   bash bench/setup.sh ours            # only the load generator + our three servers
#   bash bench/setup.sh peers           # only the peers
#
# Ours (release builds; the binding builds of a dev checkout are usually debug builds):
#   bench/loadgen/target/release/loadgen          the load generator
#   target/release/bench-server, workload-server  oxmcp Rust (package oxmcp-examples; the bench server
#                                                 with its hot code together, target/hot-code/rust-release.ld)
#   target/bench-tls/release/bench-server         the same with TLS serving, for bench/h2.py
#   $OXMCP_BENCH_DIR/venv                         a venv with the oxmcp wheel (maturin --release)
#   $OXMCP_BENCH_DIR/node/oxmcp.node              the Node native module (release), used via OXMCP_NATIVE
#   target/hot-code/{node,python}-release.ld      their hot-code linker scripts (scripts/hot-code.py)
# Peers (versions pinned as in the team's shared measurement kit; override with env vars):
#   $BENCH_VENV      fastmcp + mcp + uvicorn            (default /tmp/bench-venv)
#   $BENCH_NODE_DIR  @modelcontextprotocol/server + node (default /tmp/bench-node)
#   $BENCH_RUST_TARGET  rmcp-server and ceiling, built from $BENCH_KIT/rust (default /tmp/bench-rust-target)
# The peers' server programs are not in this repository: they come from $BENCH_KIT
# (default: ../shared/bench next to the checkout).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HOST="$(rustc -vV | sed -n "s/^host: //p")"
OXMCP_BENCH_DIR="${OXMCP_BENCH_DIR:-/tmp/oxmcp-bench}"
BENCH_KIT="${BENCH_KIT:-$(cd "$ROOT/.." && pwd)/shared/bench}"
BENCH_VENV="${BENCH_VENV:-/tmp/bench-venv}"
BENCH_NODE_DIR="${BENCH_NODE_DIR:-/tmp/bench-node}"
BENCH_RUST_TARGET="${BENCH_RUST_TARGET:-/tmp/bench-rust-target}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
FASTMCP_VERSION="${FASTMCP_VERSION:-4.2.3}"
MCP_VERSION="${MCP_VERSION:-2.3.0}"
TS_SERVER_VERSION="${TS_SERVER_VERSION:-2.4.0}"
TS_NODE_VERSION="${TS_NODE_VERSION:-2.1.2}"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}"
what="${1:-all}"
step() { echo "== $*" >&2; }

command -v taskset >/dev/null || { echo "taskset (util-linux) is required" >&2; exit 1; }
if [[ "$what" == all || "$what" == ours ]]; then
  command -v valgrind >/dev/null || { echo "valgrind is required (the bindings' hot-code profile, scripts/hot-code.py)" >&2; exit 1; }
fi
# h2load (bench/h2.py's load generator: HTTP/2 and HTTP/1.1, plain and TLS), as scripts/setup.sh
# installs its Debian packages: as root with apt-get, else a note.
if [[ "$what" == all || "$what" == ours ]] && ! command -v h2load >/dev/null; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
    step "apt-get install nghttp2-client (h2load, for bench/h2.py)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nghttp2-client
  else
    step "h2load missing: install nghttp2-client (Debian) for bench/h2.py"
  fi
fi
mkdir -p "$OXMCP_BENCH_DIR"

if [[ "$what" == all || "$what" == ours ]]; then
  step "load generator -> bench/loadgen/target/release/loadgen"
  cargo build --release --locked --manifest-path "$ROOT/bench/loadgen/Cargo.toml"

  # Without the examples' default `auth-jwt` (OAuth JWTs, which the bench server does not use),
  # as a server without OAuth is built; rmcp's bench server likewise has only the features it uses.
  # Its hot code together as the bindings' (below): built, profiled, built again with the script.
  step "oxmcp Rust bench server -> target/release/bench-server"
  hot="$TARGET/hot-code"
  (cd "$ROOT" && OXMCP_HOT_CODE_LD="" cargo build --release -p oxmcp-examples --bin bench-server --no-default-features)
  python3 "$ROOT/scripts/hot-code.py" profile rust "$TARGET/release/bench-server" --out "$hot/rust-release.ld"
  (cd "$ROOT" && OXMCP_HOT_CODE_LD="$hot/rust-release.ld" cargo build --release -p oxmcp-examples --bin bench-server \
      --no-default-features)
  python3 "$ROOT/scripts/hot-code.py" check "$TARGET/release/bench-server" "$hot/rust-release.ld"
  # bench/h2.py: the same server with TLS serving (`OXMCP_TLS_CERT`/`OXMCP_TLS_KEY`), kept apart so
  # that run.py measures the build without it.
  (cd "$ROOT" && cargo build --release -p oxmcp-examples --bin bench-server --no-default-features \
      --features oxmcp/tls --target-dir "$ROOT/target/bench-tls")
  # The workload server with Redis (`workloads.py --redis` runs it with OXMCP_REDIS_URL; without it,
  # it keeps sessions and tasks in memory), still without OAuth JWTs.
  (cd "$ROOT" && cargo build --release -p oxmcp-examples --bin workload-server --no-default-features --features redis)

  # Both bindings as the release workflow builds them: for the target triple, with the hot code
  # together: built, profiled into a linker script in the target directory (scripts/hot-code.py),
  # built again with it (OXMCP_HOT_CODE_LD, the bindings' build.rs) and checked.
  step "oxmcp Node native module (release) -> $OXMCP_BENCH_DIR/node/oxmcp.node"
  addon="$TARGET/$HOST/release/liboxmcp_node.so"
  (cd "$ROOT" && cargo build --release --target "$HOST" -p oxmcp-node)
  python3 "$ROOT/scripts/hot-code.py" profile node "$addon" --out "$hot/node-release.ld"
  (cd "$ROOT" && OXMCP_HOT_CODE_LD="$hot/node-release.ld" cargo build --release --target "$HOST" -p oxmcp-node)
  python3 "$ROOT/scripts/hot-code.py" check "$addon" "$hot/node-release.ld"
  mkdir -p "$OXMCP_BENCH_DIR/node"
  cp "$addon" "$OXMCP_BENCH_DIR/node/oxmcp.node.tmp"
  mv "$OXMCP_BENCH_DIR/node/oxmcp.node.tmp" "$OXMCP_BENCH_DIR/node/oxmcp.node"

  step "oxmcp Python wheel (release) -> $OXMCP_BENCH_DIR/venv"
  py="$OXMCP_BENCH_DIR/venv/bin/python"
  [ -x "$py" ] || python3 -m venv "$OXMCP_BENCH_DIR/venv"
  "$OXMCP_BENCH_DIR/venv/bin/pip" install -q --upgrade pip maturin
  for ld in "" "$hot/python-release.ld"; do
    rm -rf "$OXMCP_BENCH_DIR/wheels"
    (cd "$ROOT" && OXMCP_HOT_CODE_LD="$ld" "$OXMCP_BENCH_DIR/venv/bin/maturin" build --release --target "$HOST" -q \
        -o "$OXMCP_BENCH_DIR/wheels")
    "$OXMCP_BENCH_DIR/venv/bin/pip" install -q --force-reinstall "$OXMCP_BENCH_DIR"/wheels/oxmcp-*.whl
    [ -n "$ld" ] || python3 "$ROOT/scripts/hot-code.py" profile python "$py" --out "$hot/python-release.ld"
  done
  python3 "$ROOT/scripts/hot-code.py" check "$("$py" -c 'import oxmcp._oxmcp as m; print(m.__file__)')" \
    "$hot/python-release.ld"
fi

if [[ "$what" == all || "$what" == peers ]]; then
  step "Python peers (fastmcp $FASTMCP_VERSION, mcp $MCP_VERSION) -> $BENCH_VENV"
  [ -x "$BENCH_VENV/bin/python" ] || python3 -m venv "$BENCH_VENV"
  "$BENCH_VENV/bin/pip" install -q --upgrade pip
  "$BENCH_VENV/bin/pip" install -q "fastmcp==$FASTMCP_VERSION" "mcp==$MCP_VERSION" uvicorn

  step "TypeScript SDK v2 ($TS_SERVER_VERSION) -> $BENCH_NODE_DIR"
  mkdir -p "$BENCH_NODE_DIR"
  [ -f "$BENCH_NODE_DIR/package.json" ] || (cd "$BENCH_NODE_DIR" && npm init -y >/dev/null)
  (cd "$BENCH_NODE_DIR" && npm install --no-audit --no-fund \
      "@modelcontextprotocol/server@$TS_SERVER_VERSION" "@modelcontextprotocol/node@$TS_NODE_VERSION" zod >/dev/null)

  if [ -d "$BENCH_KIT/rust" ]; then
    step "rmcp server and hyper ceiling from $BENCH_KIT/rust -> $BENCH_RUST_TARGET"
    cargo build --release --locked --manifest-path "$BENCH_KIT/rust/rmcp-server/Cargo.toml" --target-dir "$BENCH_RUST_TARGET"
    cargo build --release --locked --manifest-path "$BENCH_KIT/rust/ceiling/Cargo.toml" --target-dir "$BENCH_RUST_TARGET"
  else
    step "no $BENCH_KIT/rust: rmcp and the ceiling will be skipped by run.py"
  fi

  step "the workload suite's rmcp and bare servers -> bench/workloads/rust/target/release"
  cargo build --release --locked --manifest-path "$ROOT/bench/workloads/rust/Cargo.toml"
fi
echo "setup done" >&2
