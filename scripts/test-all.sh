#!/usr/bin/env bash
# Run every oxmcp test that exists in this checkout, then print a per-stage
# summary and one closing line:
#
#   N passed, M failed
#
# summed over the stages (", K skipped" follows when tests were skipped).
# Exit status is non-zero when anything failed.
#
#   bash scripts/test-all.sh
#   OXMCP_SKIP_SETUP=1 OXMCP_STAGES=lint bash scripts/test-all.sh   # one stage (or several: "lint,rust")
#
# Stages, each run only when its pieces exist (otherwise reported as
# "not present", which counts as neither passed nor failed), and only those named in
# OXMCP_STAGES when it is set (the others are left out of the summary):
#   setup               scripts/setup.sh (skip with OXMCP_SKIP_SETUP=1)
#   lint                rustfmt, clippy (-D warnings, bindings included), ruff and mypy on the
#                       Python package, tsc --checkJs on the Node JS layer, shellcheck on every
#                       tracked *.sh, scripts/check-workflows.py (actions pinned by commit, per-registry
#                       publish jobs), scripts/check-file-size.py (no source file over 800 lines),
#                       cargo-deny (licenses, bans, sources); one check each, a check
#                       with any finding failed (CONTRIBUTING.md; .pre-commit-config.yaml runs the same)
#   layers              scripts/check-layers.py: no import cycle among the core's top-level
#                       modules, none against the layer order it declares
#   rust                cargo test over the workspace, minus the binding crates
#                       (oxmcp-python, oxmcp-node), which need a host runtime, with
#                       the core's otel, logging and tls features
#   python              pytest tests/python, in .venv
#   upstream            tests/upstream/run.py: the server-side test files of FastMCP 4.2.3, mcp 2.3.0
#                       and mcp 1.30.0 (tests/upstream/CHOICE.md) on oxmcp through the import hook;
#                       a row per suite, failed = failures not classified in classified.json
#   node                node --test tests/node
#   docs                mkdocs build --strict (the site), then every Python and JavaScript sample
#                       of the README and docs/ (tests/docs/; Rust samples are the rust stage's doctests)
#   upstream-ts         tests/upstream/ts-examples.mjs: the TS SDK's example servers and published
#                       TS servers, unmodified, on the SDK and on oxmcp's zero-change mode, compared
#                       call by call; a difference not classified in tests/upstream/ts-known.json fails
#   upstream-py         tests/upstream/py-servers.py: published Python servers, likewise (py-known.json)
#   conformance-rust    tests/conformance/run.sh against target/debug/everything
#   conformance-python  ... against .venv/bin/python examples/python/everything.py
#   conformance-node    ... against node examples/node/everything.mjs
#   conformance-rust-h2 ... against target/debug/everything through an HTTP/2 hop
#                       (tests/conformance/h2-proxy.mjs: the suite's HTTP/1.1 requests
#                       reach the server as streams of one h2c connection)
#   scaleout            tests/scaleout/: Redis + 3 replicas + nginx per language (rust, python,
#                       node), the official clients and the conformance suite through nginx;
#                       the main paths again with Redis over rediss:// (test CA, ACL user)
#   release             scripts/release-local.sh: the linux x86_64 wheel, sdist and npm tarballs
#                       built and smoke-tested from clean installs, cargo publish --dry-run,
#                       cargo doc, actionlint (OXMCP_SKIP_RELEASE=1 leaves it out)
#   fuzz                scripts/fuzz.sh: each cargo-fuzz target for OXMCP_FUZZ_SECONDS (60)
#
# The conformance stages count the suite's scored scenarios plus the unscored
# ones we hold ourselves to (json-schema-2020-12, http-header-validation,
# server-session-lifecycle, and the 10 tasks-* scenarios of the Tasks
# extension). A scenario listed in
# tests/conformance/expected-failures/<rust|python|node>.txt (or in
# OXMCP_CONFORMANCE_EXPECT) that fails is reported as an expected failure and
# not counted in M; one that is not listed and fails counts as failed. The
# conformance runner's own closing line always shows the full, honest count.
#
# A stage whose command fails without any failing test being counted (a build
# error, a crash, a time-out) counts as 1 failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2

LOGS="$ROOT/.cache/test-all"
rm -rf "$LOGS"
mkdir -p "$LOGS"

total_pass=0 total_fail=0 total_skip=0 total_xfail=0
summary=()
failed_stages=()

banner() { printf '\n==== %s ====\n' "$*"; }

# Test files run side by side in the Python and Node stages (OXMCP_TEST_JOBS, default 2: the
# CI machine's cores).
test_jobs="${OXMCP_TEST_JOBS:-2}"

# wanted STAGE: whether OXMCP_STAGES (comma- or space-separated) is unset or names STAGE.
wanted() { [[ -z "${OXMCP_STAGES:-}" || ",${OXMCP_STAGES// /,}," == *",$1,"* ]]; }

# record NAME RESULT PASSED FAILED SKIPPED NOTE
# The seconds column is the time since the previous record: stages run one after another, so it
# is the stage's own time (the conformance stages, run side by side, share theirs).
stage_t0=$SECONDS
record() {
  local name="$1" result="$2" p="${3:-0}" f="${4:-0}" s="${5:-0}" note="${6:-}"
  local secs=$((SECONDS - stage_t0))
  stage_t0=$SECONDS
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
  if [[ "$result" == "not present" ]]; then
    summary+=("$(printf '%-20s %-12s %7s %7s %7s %6s  %s' "$name" "$result" - - - - "$note")")
  else
    summary+=("$(printf '%-20s %-12s %7d %7d %7d %6d  %s' "$name" "$result" "$p" "$f" "$s" "$secs" "$note")")
  fi
  if [[ "$result" == FAILED ]]; then failed_stages+=("$name"); fi
}

# Sum the first number captured by a regex over every matching line of a file.
sum_matches() { # FILE REGEX
  grep -Eo "$2" "$1" 2>/dev/null | grep -Eo '[0-9]+' | awk '{s+=$1} END {print s+0}'
}

# run LOGFILE TIMEOUT_SECS CMD... : stream the command's output and keep a copy.
run() {
  local log="$1" secs="$2"; shift 2
  timeout --kill-after=15 "$secs" "$@" </dev/null 2>&1 | tee "$log"
  return "${PIPESTATUS[0]}"
}

# ---- setup -----------------------------------------------------------------------
if ! wanted setup; then
  :
elif [[ "${OXMCP_SKIP_SETUP:-0}" == 1 ]]; then
  record setup "skipped" 0 0 0 "OXMCP_SKIP_SETUP=1"
else
  banner "setup (scripts/setup.sh)"
  if run "$LOGS/setup.log" 2400 bash scripts/setup.sh; then
    record setup ok 0 0 0
  else
    record setup FAILED 0 1 0 "see $LOGS/setup.log; later stages may fail for it"
  fi
fi

# ---- lint ------------------------------------------------------------------------
# One check per linter, each the same command as in .pre-commit-config.yaml; a check passes when
# its linter exits 0 (no finding) and fails otherwise, or when its tool is missing (setup.sh
# installs every one). The stage prints its own "lint: N passed, M failed".
lint_pass=0 lint_fail=0 lint_failed=()
# lint_check NAME TIMEOUT_SECS CMD...
lint_check() {
  local name="$1" secs="$2"; shift 2
  local t0=$SECONDS rc
  echo "---- lint: $name: $*"
  run "$LOGS/lint-$name.log" "$secs" "$@"
  rc=$?
  if [[ $rc -eq 0 ]]; then
    lint_pass=$((lint_pass + 1))
    echo "---- lint: $name: ok ($((SECONDS - t0)) s)"
  else
    lint_fail=$((lint_fail + 1)); lint_failed+=("$name")
    echo "---- lint: $name: FAILED (exit $rc, $((SECONDS - t0)) s; $LOGS/lint-$name.log)"
  fi
}
# lint_missing NAME WHAT: a check whose tool is not installed.
lint_missing() {
  lint_fail=$((lint_fail + 1)); lint_failed+=("$1")
  echo "---- lint: $1: FAILED ($2 is missing; scripts/setup.sh installs it)"
}

if wanted lint; then
  banner "lint"
  t_lint=$SECONDS
  if command -v cargo >/dev/null && [[ -f Cargo.toml ]]; then
    lint_check rustfmt 300 cargo fmt --all --check
    # The binding crates too: checking needs no Python or Node headers (pyo3 asks python3).
    lint_check clippy 1200 cargo clippy --workspace --all-targets -- -D warnings
  else
    lint_missing rustfmt cargo; lint_missing clippy cargo
  fi
  if [[ -x .venv/bin/ruff ]]; then
    lint_check ruff 300 .venv/bin/ruff check --no-cache bindings-python/python/oxmcp
  else
    lint_missing ruff .venv/bin/ruff
  fi
  if [[ -x .venv/bin/mypy ]]; then
    # Files and options: [tool.mypy] in pyproject.toml.
    lint_check mypy 600 .venv/bin/mypy
  else
    lint_missing mypy .venv/bin/mypy
  fi
  if [[ -x node_modules/.bin/tsc ]]; then
    lint_check tsc 300 node_modules/.bin/tsc -p bindings-node/tsconfig.json
  else
    lint_missing tsc node_modules/.bin/tsc
  fi
  if command -v shellcheck >/dev/null; then
    mapfile -t sh_files < <(git ls-files -- '*.sh' 2>/dev/null)
    [[ ${#sh_files[@]} -gt 0 ]] || mapfile -t sh_files < <(find scripts tests bench -name '*.sh' -not -path '*/node_modules/*')
    lint_check shellcheck 300 shellcheck "${sh_files[@]}"
  else
    lint_missing shellcheck shellcheck
  fi
  if [[ -x .venv/bin/python ]]; then
    # Actions pinned by commit, OIDC and secrets only in the per-registry publish jobs.
    lint_check workflows 60 .venv/bin/python scripts/check-workflows.py
  else
    lint_missing workflows .venv/bin/python
  fi
  # No source file of the core or the bindings over 800 lines (generated files aside).
  lint_check file-size 60 python3 scripts/check-file-size.py
  # Every name docs/DESIGN.md writes in `code` still exists (a rename updates the map).
  lint_check design-names 60 python3 scripts/check-design-names.py
  if [[ -x .cache/cargo-tools/bin/cargo-deny ]]; then
    # Advisories are not checked: deny.toml says why.
    lint_check cargo-deny 300 .cache/cargo-tools/bin/cargo-deny check licenses bans sources
  else
    lint_missing cargo-deny .cache/cargo-tools/bin/cargo-deny
  fi
  echo "lint: $lint_pass passed, $lint_fail failed ($((SECONDS - t_lint)) s)"
  if [[ $lint_fail -eq 0 ]]; then
    record lint ok "$lint_pass" 0 0 "$((SECONDS - t_lint)) s"
  else
    record lint FAILED "$lint_pass" "$lint_fail" 0 "failed: ${lint_failed[*]}; $((SECONDS - t_lint)) s"
  fi
fi

# ---- layers ----------------------------------------------------------------------
# The core's module graph: four checks (the reader's self-check, no cycle, no upward import,
# every module placed).
if ! wanted layers; then
  :
elif [[ ! -f scripts/check-layers.py ]]; then
  record layers "not present" 0 0 0 "no scripts/check-layers.py"
else
  banner "layers: scripts/check-layers.py"
  run "$LOGS/layers.log" 120 python3 scripts/check-layers.py
  rc=$?
  read -r p f < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$LOGS/layers.log" | tail -1)
  if [[ $rc -eq 0 && -n "${p:-}" ]]; then
    record layers ok "$p" "$f" 0
  else
    [[ "${f:-0}" -gt 0 ]] || f=1
    record layers FAILED "${p:-0}" "$f" 0 "see $LOGS/layers.log"
  fi
fi

# ---- background builds -----------------------------------------------------------
# The release stage's wheel (built, profiled, built again) and the fuzz targets take about seven
# minutes of both cores and need nothing the test stages make. They are built from here on in the
# idle scheduling class, on the CPU the test stages leave while they wait on their servers; the
# release and fuzz stages wait for them. Each writes its log and exit code under $LOGS.
fuzz_secs="${OXMCP_FUZZ_SECONDS:-60}"
release_wanted=0 fuzz_wanted=0
wanted release && [[ -f scripts/release-local.sh && "${OXMCP_SKIP_RELEASE:-0}" != 1 ]] && release_wanted=1
wanted fuzz && [[ -f fuzz/Cargo.toml && -f scripts/fuzz.sh && "$fuzz_secs" != 0 ]] && fuzz_wanted=1
bg_pid=
rm -f "$LOGS/release-wheel.rc" "$LOGS/fuzz-build.rc"
if [[ $release_wanted == 1 || $fuzz_wanted == 1 ]]; then
  idle=(nice -n 19)
  chrt --idle 0 true 2>/dev/null && idle=(chrt --idle 0)
  (
    if [[ $release_wanted == 1 ]]; then
      OXMCP_RELEASE_STEPS=wheel "${idle[@]}" bash scripts/release-local.sh >"$LOGS/release-wheel.log" 2>&1
      echo $? >"$LOGS/release-wheel.rc"
    fi
    if [[ $fuzz_wanted == 1 ]]; then
      "${idle[@]}" bash scripts/fuzz.sh --build-only >"$LOGS/fuzz-build.log" 2>&1
      echo $? >"$LOGS/fuzz-build.rc"
    fi
  ) </dev/null &
  bg_pid=$!
fi

# await_background RCFILE: wait until the background build that writes RCFILE has ended.
await_background() {
  while [[ ! -f "$1" ]] && [[ -n "$bg_pid" ]] && kill -0 "$bg_pid" 2>/dev/null; do sleep 2; done
}

# ---- Rust -------------------------------------------------------------------------
PACKAGES=""
TARGET_DIR="$ROOT/target"
if [[ -f Cargo.toml ]] && command -v cargo >/dev/null; then
  meta="$(cargo metadata --no-deps --format-version 1 2>"$LOGS/cargo-metadata.err")"
  if [[ -n "$meta" ]]; then
    # "package bin1 bin2 ..." per workspace member, and the target dir.
    PACKAGES="$(printf '%s' "$meta" | python3 -c '
import json, sys
m = json.load(sys.stdin)
for p in m["packages"]:
    bins = [t["name"] for t in p["targets"] if "bin" in t["kind"]]
    print(" ".join([p["name"]] + bins))
')"
    TARGET_DIR="$(printf '%s' "$meta" | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  fi
fi
has_package() { grep -q "^$1\( \|$\)" <<<"$PACKAGES"; }
has_bin() { grep -q "^$1 .*\<$2\>" <<<"$PACKAGES"; }

if ! wanted rust; then
  :
elif [[ ! -f Cargo.toml ]]; then
  record rust "not present" 0 0 0 "no Cargo.toml"
elif [[ -z "$PACKAGES" ]]; then
  banner "rust: cargo metadata"
  cat "$LOGS/cargo-metadata.err"
  record rust FAILED 0 1 0 "cargo metadata failed (see $LOGS/cargo-metadata.err)"
else
  excludes=()
  for p in oxmcp-python oxmcp-node; do
    if has_package "$p"; then excludes+=(--exclude "$p"); fi
  done
  # With the core's optional `otel`, `logging` and `tls` features, so core/tests/otel.rs and the
  # https JWKS test run too (the bindings build the core with them, so this shares their
  # compiled dependencies); the default build is compiled by the conformance stage.
  banner "rust: cargo test --workspace ${excludes[*]} --features oxmcp/otel,oxmcp/logging,oxmcp/tls,oxmcp/redis"
  run "$LOGS/rust.log" 1500 cargo test --workspace "${excludes[@]}" --features oxmcp/otel,oxmcp/logging,oxmcp/tls,oxmcp/redis --no-fail-fast
  rc=$?
  p="$(sum_matches "$LOGS/rust.log" 'test result: [A-Za-z]+\. [0-9]+ passed')"
  f="$(sum_matches "$LOGS/rust.log" '; [0-9]+ failed')"
  s="$(sum_matches "$LOGS/rust.log" '; [0-9]+ ignored')"
  if [[ $rc -eq 0 ]]; then
    record rust ok "$p" "$f" "$s"
  elif [[ $f -gt 0 ]]; then
    record rust FAILED "$p" "$f" "$s"
  else
    record rust FAILED "$p" 1 "$s" "cargo exited $rc with no failing test (build error or time-out?)"
  fi
fi

# ---- Python -------------------------------------------------------------------------
has_tests() { # DIR PATTERN...
  local d="$1"; shift
  [[ -d "$d" ]] || return 1
  local pat args=()
  for pat in "$@"; do args+=(-o -name "$pat"); done
  [[ -n "$(find "$d" -type f \( "${args[@]:1}" \) -print -quit 2>/dev/null)" ]]
}

if ! wanted python; then
  :
elif ! has_tests tests/python 'test_*.py' '*_test.py'; then
  record python "not present" 0 0 0 "no tests/python/test_*.py"
elif [[ ! -x .venv/bin/python ]]; then
  record python FAILED 0 1 0 "no .venv (run scripts/setup.sh)"
else
  # Two workers (pytest-xdist), a test file per worker at a time: most tests wait on a server
  # process they started, so two run in about the time of one. OXMCP_TEST_JOBS=1 runs them in turn.
  py_jobs=()
  if [[ "$test_jobs" -gt 1 ]] && .venv/bin/python -c 'import xdist' 2>/dev/null; then
    py_jobs=(-n "$test_jobs" --dist loadfile)
  fi
  banner "python: pytest tests/python ${py_jobs[*]}"
  run "$LOGS/python.log" 1800 .venv/bin/python -m pytest tests/python -p no:cacheprovider \
    "${py_jobs[@]}" --junitxml="$LOGS/python-junit.xml" -q
  rc=$?
  read -r p f s < <(python3 - "$LOGS/python-junit.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print(0, 0, 0); sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
t = sum(int(x.get("tests", 0)) for x in suites)
f = sum(int(x.get("failures", 0)) + int(x.get("errors", 0)) for x in suites)
s = sum(int(x.get("skipped", 0)) for x in suites)
print(t - f - s, f, s)
EOF
  )
  if [[ $rc -eq 0 ]]; then
    record python ok "$p" "$f" "$s"
  elif [[ $rc -eq 5 ]]; then
    record python ok 0 0 0 "pytest collected no tests"
  elif [[ $f -gt 0 ]]; then
    record python FAILED "$p" "$f" "$s"
  else
    record python FAILED "$p" 1 "$s" "pytest exited $rc with no failing test counted"
  fi
fi

# ---- upstream: the frameworks' own test suites (tests/upstream/) ------------------------------
# One summary row per suite: passed = chosen tests that pass on oxmcp, failed = the failures
# tests/upstream/classified.json does not classify. Classified failures (bug, protocol, security,
# internal) are in the note and the closing lines, not in "failed".
upstream_classified=0
if ! wanted upstream; then
  :
elif [[ ! -f tests/upstream/run.py ]]; then
  record upstream "not present" 0 0 0 "no tests/upstream/run.py"
elif [[ ! -x .venv/bin/python ]]; then
  record upstream FAILED 0 1 0 "no .venv (run scripts/setup.sh)"
else
  banner "upstream: tests/upstream/run.py (FastMCP and mcp SDK suites on oxmcp)"
  run "$LOGS/upstream.log" 900 .venv/bin/python tests/upstream/run.py --jobs "$test_jobs" \
    --json "$LOGS/upstream.json"
  rc=$?
  if [[ ! -f "$LOGS/upstream.json" ]]; then
    record upstream FAILED 0 1 0 "run.py exited $rc before reporting (see $LOGS/upstream.log)"
  else
    while IFS='|' read -r suite p u c note; do
      upstream_classified=$((upstream_classified + c))
      if [[ $u -eq 0 ]]; then record "upstream-$suite" ok "$p" 0 0 "$note"
      else record "upstream-$suite" FAILED "$p" "$u" 0 "$note"; fi
    done < <(python3 - "$LOGS/upstream.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1])):
    rows = r["files"].values()
    chosen = sum(x["chosen"] for x in rows)
    passed = sum(x["passed"] for x in rows)
    by = {c: sum(x["failed"][c] for x in rows) for c in ("bug", "protocol", "security", "internal")}
    unclassified = sum(1 for f in r["failures"] if f["class"] is None)
    pct = f"{100 * passed / chosen:.0f} %" if chosen else "-"
    note = (f"{chosen} chosen, {pct} pass; classified: {by['bug']} bug, {by['protocol']} protocol, "
            f"{by['security']} security, {by['internal']} internal")
    print(f"{r['suite']}|{passed}|{unclassified}|{sum(by.values())}|{note}")
EOF
    )
  fi
fi

# ---- Node ---------------------------------------------------------------------------
if ! wanted node; then
  :
elif ! has_tests tests/node '*.test.mjs' '*.test.js' '*.test.cjs' '*.test.ts' 'test-*.mjs' 'test-*.js' '*_test.mjs' 'test.mjs'; then
  record node "not present" 0 0 0 "no tests/node/*.test.{mjs,js,cjs}"
else
  banner "node: node --test --test-concurrency=$test_jobs tests/node"
  run "$LOGS/node.log" 900 node --test --test-concurrency="$test_jobs" \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$LOGS/node.tap" tests/node/
  rc=$?
  p="$(sum_matches "$LOGS/node.tap" '^# pass [0-9]+')"
  f="$(( $(sum_matches "$LOGS/node.tap" '^# fail [0-9]+') + $(sum_matches "$LOGS/node.tap" '^# cancelled [0-9]+') ))"
  s="$(( $(sum_matches "$LOGS/node.tap" '^# skipped [0-9]+') + $(sum_matches "$LOGS/node.tap" '^# todo [0-9]+') ))"
  if [[ $rc -eq 0 ]]; then
    record node ok "$p" "$f" "$s"
  elif [[ $f -gt 0 ]]; then
    record node FAILED "$p" "$f" "$s"
  else
    record node FAILED "$p" 1 "$s" "node --test exited $rc with no failing test counted"
  fi
fi

# ---- docs ---------------------------------------------------------------------------
# The site built with --strict (a broken link, anchor, page or API reference fails it), then every
# Python and JavaScript sample of the README and docs/ run (tests/docs/; the Rust samples are
# doctests of the rust stage), and the built site opened in headless Chromium (screenshots of the
# home page and a guide in .cache/test-all/site-screenshots/). The list of samples, with the
# skipped ones and why, is in the log.
if ! wanted docs; then
  :
elif [[ ! -f mkdocs.yml ]]; then
  record docs "not present" 0 0 0 "no mkdocs.yml"
elif [[ ! -x .venv/bin/mkdocs ]]; then
  record docs FAILED 0 1 0 "no .venv/bin/mkdocs (run scripts/setup.sh)"
else
  banner "docs: mkdocs build --strict; tests/docs (every sample)"
  t_docs=$SECONDS
  docs_p=0 docs_f=0 docs_s=0 docs_notes=()
  if NO_MKDOCS_2_WARNING=1 run "$LOGS/docs-build.log" 300 .venv/bin/mkdocs build --strict --clean; then
    docs_p=$((docs_p + 1)); docs_notes+=("site built in $((SECONDS - t_docs)) s")
  else
    docs_f=$((docs_f + 1)); docs_notes+=("mkdocs build --strict failed ($LOGS/docs-build.log)")
  fi
  python3 tests/docs/samples.py >"$LOGS/docs-samples.txt" 2>&1
  tail -1 "$LOGS/docs-samples.txt"
  grep ' skipped: ' "$LOGS/docs-samples.txt"
  run "$LOGS/docs-python.log" 600 .venv/bin/python -m pytest tests/docs -p no:cacheprovider \
    --junitxml="$LOGS/docs-junit.xml" -q -rs
  rc=$?
  read -r p f s < <(python3 - "$LOGS/docs-junit.xml" <<'EOF2'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print(0, 0, 0); sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
t = sum(int(x.get("tests", 0)) for x in suites)
f = sum(int(x.get("failures", 0)) + int(x.get("errors", 0)) for x in suites)
s = sum(int(x.get("skipped", 0)) for x in suites)
print(t - f - s, f, s)
EOF2
  )
  if [[ $rc -ne 0 && $f -eq 0 ]]; then f=1; fi
  docs_p=$((docs_p + p)); docs_f=$((docs_f + f)); docs_s=$((docs_s + s))
  run "$LOGS/docs-node.log" 600 node --test --test-reporter=tap tests/docs/
  rc=$?
  p="$(sum_matches "$LOGS/docs-node.log" '^# pass [0-9]+')"
  f="$(( $(sum_matches "$LOGS/docs-node.log" '^# fail [0-9]+') + $(sum_matches "$LOGS/docs-node.log" '^# cancelled [0-9]+') ))"
  s="$(sum_matches "$LOGS/docs-node.log" '^# skipped [0-9]+')"
  if [[ $rc -ne 0 && $f -eq 0 ]]; then f=1; fi
  docs_p=$((docs_p + p)); docs_f=$((docs_f + f)); docs_s=$((docs_s + s))
  if [[ $docs_f -eq 0 ]]; then
    record docs ok "$docs_p" 0 "$docs_s" "${docs_notes[*]}; samples: $LOGS/docs-samples.txt"
  else
    record docs FAILED "$docs_p" "$docs_f" "$docs_s" "${docs_notes[*]}; see $LOGS/docs-*.log"
  fi
fi

# ---- upstream-ts, upstream-py: servers the team did not write --------------------------------
# upstream_servers STAGE SCRIPT CMD...: run the comparison CMD (it writes its rows to
# $LOGS/STAGE.json) and record the stage: passed = servers with no unclassified difference.
upstream_servers() {
  local stage=$1 script=$2; shift 2
  if ! wanted "$stage"; then
    return
  elif [[ ! -f $script ]]; then
    record "$stage" "not present" 0 0 0 "no $script"
    return
  fi
  banner "$stage: $*"
  run "$LOGS/$stage.log" 180 "$@" --json "$LOGS/$stage.json"
  local rc=$? p f note
  read -r p f note < <(python3 - "$LOGS/$stage.json" <<'EOF'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print(0, 0, "no report")
    sys.exit()
bad = sum(1 for r in rows if r["unclassified"])
count = lambda res: sum(1 for r in rows if r["result"] == res)
print(len(rows) - bad, bad, f"{count('same')} same, {count('differs')} differ (classified), {count('fails to start')} fail to start")
EOF
  )
  if [[ $rc -eq 0 ]]; then
    record "$stage" ok "$p" "$f" 0 "$note"
  elif [[ $f -gt 0 ]]; then
    record "$stage" FAILED "$p" "$f" 0 "$note"
  else
    record "$stage" FAILED "$p" 1 0 "$script exited $rc with no server counted"
  fi
}
upstream_servers upstream-ts tests/upstream/ts-examples.mjs node tests/upstream/ts-examples.mjs
upstream_servers upstream-py tests/upstream/py-servers.py .venv/bin/python tests/upstream/py-servers.py

# ---- conformance ----------------------------------------------------------------------
# The three languages' runs go side by side: each mostly waits on its server and the suite's
# client, so on two cores they take about as long together as the longest alone.
# conformance_run LANG CMD... : run the suite against one everything-server, into its log.
conformance_run() {
  local lang="$1"; shift
  local name="conformance-$lang"
  local args=(--require-unscored --require-tasks --require-skills --label "$lang everything server"
    --out "$LOGS/$name" --summary-json "$LOGS/$name.json" --timeout 300)
  # LANG-h2: LANG's server through the HTTP/2 hop, held to LANG's expectations.
  local expect_file="tests/conformance/expected-failures/${lang%-h2}.txt"
  if [[ -f "$expect_file" ]]; then args+=(--expect-file "$expect_file"); fi
  if [[ "$lang" == *-h2 ]]; then args+=(--h2-hop); fi
  echo "tests/conformance/run.sh $* (expected failures: ${expect_file})" >"$LOGS/$name.log"
  timeout --kill-after=15 900 bash tests/conformance/run.sh "${args[@]}" -- "$@" </dev/null >>"$LOGS/$name.log" 2>&1
  echo $? >"$LOGS/$name.rc"
}

# conformance_record LANG: show a finished run's log and count it.
conformance_record() {
  local name="conformance-$1"
  banner "$name"
  cat "$LOGS/$name.log"
  local rc
  rc="$(cat "$LOGS/$name.rc" 2>/dev/null || echo 1)"
  if [[ ! -f "$LOGS/$name.json" ]]; then
    record "$name" FAILED 0 1 0 "the runner exited $rc before reporting (see $LOGS/$name.log)"
    return
  fi
  local p f x u
  read -r p f x u < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["passed"], d["failed"], d["expected_failures"], d["unexpected_failures"])' "$LOGS/$name.json")
  total_xfail=$((total_xfail + x))
  local note="runner: $p passed, $f failed"
  if [[ $x -gt 0 ]]; then note+="; $x expected failures not counted"; fi
  if [[ $rc -eq 0 && $u -eq 0 ]]; then
    record "$name" ok "$p" 0 0 "$note"
  else
    [[ $u -gt 0 ]] || u=1
    record "$name" FAILED "$p" "$u" 0 "$note"
  fi
}

conformance_langs=()
# The HTTP/2 hop runs against the Rust server only: the transport is the core's, the same in
# every language, and a fourth run beside the three costs the stage a few seconds.
for lang in rust rust-h2; do
  if ! wanted "conformance-$lang"; then
    :
  elif has_bin oxmcp-examples everything; then
    banner "conformance-$lang: cargo build -p oxmcp-examples --bin everything"
    if run "$LOGS/build-everything.log" 1200 cargo build -p oxmcp-examples --bin everything; then
      conformance_run "$lang" "$TARGET_DIR/debug/everything" &
      conformance_langs+=("$lang")
    else
      record "conformance-$lang" FAILED 0 1 0 "cargo build of the everything server failed"
    fi
  else
    record "conformance-$lang" "not present" 0 0 0 "no bin 'everything' in package oxmcp-examples"
  fi
done

if ! wanted conformance-python; then
  :
elif [[ -f examples/python/everything.py ]]; then
  if [[ -x .venv/bin/python ]]; then
    conformance_run python "$ROOT/.venv/bin/python" examples/python/everything.py &
    conformance_langs+=(python)
  else
    record conformance-python FAILED 0 1 0 "no .venv (run scripts/setup.sh)"
  fi
else
  record conformance-python "not present" 0 0 0 "no examples/python/everything.py"
fi

if ! wanted conformance-node; then
  :
elif [[ -f examples/node/everything.mjs ]]; then
  conformance_run node node examples/node/everything.mjs &
  conformance_langs+=(node)
else
  record conformance-node "not present" 0 0 0 "no examples/node/everything.mjs"
fi

if [[ ${#conformance_langs[@]} -gt 0 ]]; then
  banner "conformance: ${conformance_langs[*]} side by side"
  wait
  for lang in "${conformance_langs[@]}"; do conformance_record "$lang"; done
fi

# junit_counts FILE: "passed failed skipped" from a pytest JUnit XML file.
junit_counts() {
  python3 - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print(0, 0, 0); sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
t = sum(int(x.get("tests", 0)) for x in suites)
f = sum(int(x.get("failures", 0)) + int(x.get("errors", 0)) for x in suites)
s = sum(int(x.get("skipped", 0)) for x in suites)
print(t - f - s, f, s)
EOF
}

# ---- scale-out ---------------------------------------------------------------------------------
# tests/scaleout/: per language, Redis + 3 everything-server replicas + nginx round-robin (no
# stickiness) on loopback; the official clients and the conformance suite through the balancer.
# Needs Debian's redis-server and nginx (scripts/setup.sh installs them): missing is a failure.
if ! wanted scaleout; then
  :
elif [[ ! -d tests/scaleout ]]; then
  record scaleout "not present" 0 0 0 "no tests/scaleout"
elif ! command -v redis-server >/dev/null || ! { command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]]; }; then
  banner "scaleout"
  echo "scaleout: redis-server or nginx is missing (scripts/setup.sh apt-installs them as root)"
  record scaleout FAILED 0 1 0 "redis-server or nginx missing"
elif [[ ! -x .venv/bin/python ]]; then
  record scaleout FAILED 0 1 0 "no .venv (run scripts/setup.sh)"
else
  banner "scaleout: pytest tests/scaleout (rust, python, node)"
  t0=$SECONDS
  # The Rust replicas are target/debug/everything (the conformance-rust stage built it).
  cargo build -q -p oxmcp-examples --bin everything >"$LOGS/scaleout-build.log" 2>&1
  PATH="/usr/sbin:$PATH" run "$LOGS/scaleout.log" 900 .venv/bin/python -m pytest tests/scaleout \
    -p no:cacheprovider --junitxml="$LOGS/scaleout-junit.xml" -q
  rc=$?
  read -r p f s < <(junit_counts "$LOGS/scaleout-junit.xml")
  # The main paths again over rediss:// (Redis serving TLS only, a test CA, an ACL user), as
  # managed Redis runs; Rust replicas only (the bindings' Redis client is the same core's).
  PATH="/usr/sbin:$PATH" OXMCP_SCALEOUT_REDIS_TLS=1 OXMCP_SCALEOUT_LANGS=rust run "$LOGS/scaleout-tls.log" 300 \
    .venv/bin/python -m pytest tests/scaleout/test_sse.py tests/scaleout/test_legacy.py \
    tests/scaleout/test_modern.py::test_python_client_mrtr_retries_land_on_other_replicas \
    -p no:cacheprovider --junitxml="$LOGS/scaleout-tls-junit.xml" -q
  rc2=$?
  [[ $rc -eq 0 ]] && rc=$rc2
  read -r p2 f2 s2 < <(junit_counts "$LOGS/scaleout-tls-junit.xml")
  p=$((p + p2)) f=$((f + f2)) s=$((s + s2))
  if [[ $rc -eq 0 && $p -gt 0 ]]; then
    record scaleout ok "$p" "$f" "$s" "$((SECONDS - t0)) s"
  elif [[ $f -gt 0 ]]; then
    record scaleout FAILED "$p" "$f" "$s" "$((SECONDS - t0)) s"
  else
    record scaleout FAILED "$p" 1 "$s" "pytest exited $rc with no failing test counted"
  fi
fi

# ---- release artifacts ------------------------------------------------------------------------
# The wheel was built in the background (above); this stage runs the other steps, then adds the
# wheel's outcome to theirs.
if [[ $release_wanted == 0 ]]; then
  if ! wanted release; then
    :
  elif [[ ! -f scripts/release-local.sh ]]; then
    record release "not present" 0 0 0 "no scripts/release-local.sh"
  else
    record release skipped 0 0 0 "OXMCP_SKIP_RELEASE=1"
  fi
else
  banner "release: scripts/release-local.sh (the wheel built in the background)"
  t0=$SECONDS
  await_background "$LOGS/release-wheel.rc"
  cat "$LOGS/release-wheel.log" 2>/dev/null
  read -r pw fw < <(sed -nE 's/^release-local: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$LOGS/release-wheel.log" 2>/dev/null | tail -1)
  OXMCP_RELEASE_STEPS=versions,actionlint,crate,sdist,npm,smoke-python,smoke-node \
    run "$LOGS/release.log" 2400 bash scripts/release-local.sh
  rc=$?
  read -r p f < <(sed -nE 's/^release-local: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$LOGS/release.log" | tail -1)
  [[ "$(cat "$LOGS/release-wheel.rc" 2>/dev/null)" == 0 && -n "${pw:-}" ]] || { rc=1; fw=$((${fw:-0} > 0 ? ${fw:-0} : 1)); }
  p=$((${p:-0} + ${pw:-0})) f=$((${f:-0} + ${fw:-0}))
  if [[ $rc -eq 0 && $f -eq 0 ]]; then
    record release ok "$p" "$f" 0 "$((SECONDS - t0)) s"
  else
    [[ $f -gt 0 ]] || f=1
    record release FAILED "$p" "$f" 0 "see $LOGS/release.log and $LOGS/release-wheel.log"
  fi
fi

# ---- fuzz -----------------------------------------------------------------------------------
# Each cargo-fuzz target for OXMCP_FUZZ_SECONDS (default 60); a target passes when its run
# ends without a crash. OXMCP_FUZZ_SECONDS=0 leaves the stage out. The targets were built in the
# background (above); the build here finds them fresh.
if [[ $fuzz_wanted == 0 ]]; then
  if ! wanted fuzz; then
    :
  elif [[ ! -f fuzz/Cargo.toml || ! -f scripts/fuzz.sh ]]; then
    record fuzz "not present" 0 0 0 "no fuzz/Cargo.toml"
  else
    record fuzz skipped 0 0 0 "OXMCP_FUZZ_SECONDS=0"
  fi
else
  banner "fuzz: scripts/fuzz.sh $fuzz_secs"
  await_background "$LOGS/fuzz-build.rc"
  run "$LOGS/fuzz.log" 1800 bash scripts/fuzz.sh "$fuzz_secs"
  rc=$?
  read -r p f < <(sed -nE 's/^fuzz: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$LOGS/fuzz.log" | tail -1)
  note="$(grep -E '^fuzz: [a-z_]+: [0-9]+ runs' "$LOGS/fuzz.log" | sed -E 's/^fuzz: //' | paste -sd ';' -)"
  if [[ $rc -eq 0 && -n "${p:-}" ]]; then
    record fuzz ok "$p" "$f" 0 "$note"
  else
    [[ "${f:-0}" -gt 0 ]] || f=1
    record fuzz FAILED "${p:-0}" "$f" 0 "see $LOGS/fuzz.log"
  fi
fi

# ---- summary ------------------------------------------------------------------------------
banner "summary"
printf '%-20s %-12s %7s %7s %7s %6s  %s\n' stage result passed failed skipped secs notes
for line in "${summary[@]}"; do echo "$line"; done
echo "logs: $LOGS"
if [[ ${#failed_stages[@]} -gt 0 ]]; then echo "failed stages: ${failed_stages[*]}"; fi
if [[ $total_xfail -gt 0 ]]; then
  echo "not counted below: $total_xfail conformance scenarios that failed as expected (tests/conformance/expected-failures/)"
fi
if [[ $upstream_classified -gt 0 ]]; then
  echo "not counted below: $upstream_classified upstream tests that fail on oxmcp, each classified (tests/upstream/classified.json)"
fi
closing="$total_pass passed, $total_fail failed"
if [[ $total_skip -gt 0 ]]; then closing+=", $total_skip skipped"; fi
echo "$closing"
if [[ $total_fail -gt 0 || ${#failed_stages[@]} -gt 0 ]]; then exit 1; fi
exit 0
