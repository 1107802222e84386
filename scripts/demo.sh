#!/usr/bin/env bash
# Run oxmcp's demo server: the Rust SQLite explorer (binary `sqlite-explorer`
# of package `oxmcp-examples`, in examples/). Builds it first; needs only cargo.
#
#   bash scripts/demo.sh                      # MCP over HTTP at http://127.0.0.1:8000/mcp
#   bash scripts/demo.sh --http 127.0.0.1:9000
#   bash scripts/demo.sh ARGS...              # any arguments are passed through as given
#
# With no arguments it serves on --http 127.0.0.1:8000. Stop it with Ctrl-C.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

[[ $# -gt 0 ]] || set -- --http 127.0.0.1:8000

if ! cargo metadata --no-deps --format-version 1 2>/dev/null | grep -q '"name":"sqlite-explorer"'; then
  echo "demo: the workspace has no binary 'sqlite-explorer' (package oxmcp-examples, examples/) yet" >&2
  exit 1
fi

echo "demo: building sqlite-explorer" >&2
cargo build -q -p oxmcp-examples --bin sqlite-explorer

# Hints go to stderr: on --stdio, stdout is the MCP transport.
args=" $* "
if [[ "$args" == *" --http "* ]]; then
  addr="${args#* --http }"; addr="${addr%% *}"
  echo "demo: MCP endpoint http://$addr/mcp (Ctrl-C stops it)" >&2
fi
exec "${CARGO_TARGET_DIR:-$ROOT/target}/debug/sqlite-explorer" "$@"
