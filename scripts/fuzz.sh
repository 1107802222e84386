#!/usr/bin/env bash
# Run each cargo-fuzz target for a bounded time (default 60 s each, two at a time), stopping a
# target at its first crash:
#
#   bash scripts/fuzz.sh [SECONDS]
#   bash scripts/fuzz.sh --build-only   # build the targets, run none (scripts/test-all.sh builds
#                                       # them in the background while its test stages run)
#
# Prints one line per target ("fuzz: TARGET: N runs in S s, no crash") and closes with
# "fuzz: P passed, F failed" (a target passes when its run ends without a crash).
#
# cargo-fuzz comes from crates.io: scripts/setup.sh installs it into .cache/cargo-tools
# (a `cargo fuzz` already on PATH is used as it is). The targets are built with the
# machine's stable toolchain and `-s none`: libFuzzer's coverage-guided search without a
# sanitizer (AddressSanitizer needs nightly, which a fresh machine cannot fetch; the code
# under test is safe Rust, so a panic or an abort is what a crash looks like here).
# OXMCP_FUZZ_SANITIZER=address (with a nightly toolchain) runs under ASan instead.
#
# Leak detection is off for stdio_framer: its stdin reader thread is detached by design, and
# LeakSanitizer reports that live thread's TLS-destructor record (64 bytes in glibc) as a leak.
# A crash leaves its input in fuzz/artifacts/TARGET/ (replay: cargo fuzz run TARGET FILE).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
build_only=0
[[ "${1:-}" == --build-only ]] && { build_only=1; shift; }
secs="${1:-60}"
export PATH="$PWD/.cache/cargo-tools/bin:$PATH"
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: cargo-fuzz is not installed (bash scripts/setup.sh installs it)"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
sanitizer="${OXMCP_FUZZ_SANITIZER:-none}"
toolchain=()
[[ $sanitizer == none ]] || toolchain=(+nightly)

cd fuzz || exit 2
targets=(http_handle stdio_framer uri_template host_origin)
# Runs go two at a time (OXMCP_FUZZ_JOBS): each libFuzzer run is one process on one core, so on
# two cores every target still gets its full SECONDS of one core.
jobs="${OXMCP_FUZZ_JOBS:-2}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# run_one TARGET: fuzz it for SECONDS; its output goes to $logs/TARGET.log, its exit code to .rc.
run_one() {
  local t="$1" leaks=1
  [[ $t == stdio_framer ]] && leaks=0
  cargo "${toolchain[@]}" fuzz run -s "$sanitizer" -O --debug-assertions "$t" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -detect_leaks=$leaks >"$logs/$t.log" 2>&1
  echo $? >"$logs/$t.rc"
}

passed=0 failed=0 built=()
for t in "${targets[@]}"; do
  echo "fuzz: building $t (sanitizer: $sanitizer)"
  if cargo "${toolchain[@]}" fuzz build -s "$sanitizer" -O --debug-assertions "$t"; then
    built+=("$t")
  else
    echo "fuzz: $t: build failed"; failed=$((failed + 1))
  fi
done
if [[ $build_only == 1 ]]; then
  echo "fuzz: built ${#built[@]}, $failed failed to build"
  [[ $failed -eq 0 ]]; exit
fi
running=0
for t in "${built[@]}"; do
  echo "fuzz: running $t for $secs s"
  run_one "$t" &
  running=$((running + 1))
  if [[ $running -ge $jobs ]]; then wait -n; running=$((running - 1)); fi
done
wait
for t in "${built[@]}"; do
  log="$logs/$t.log"
  rc="$(cat "$logs/$t.rc" 2>/dev/null || echo 1)"
  done_line="$(sed -nE 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\1 runs in \2 s/p' "$log" | tail -1)"
  if [[ $rc -eq 0 && -n $done_line ]]; then
    cov="$(sed -nE 's/^#[0-9]+[[:space:]]+DONE[[:space:]]+cov: ([0-9]+).*/\1/p' "$log" | tail -1)"
    echo "fuzz: $t: $done_line, coverage ${cov:-?} counters, no crash"
    passed=$((passed + 1))
  else
    grep -E 'ERROR|panicked|SUMMARY|Test unit written|artifact' "$log" | head -20
    echo "fuzz: $t: crashed or failed (exit $rc); see fuzz/artifacts/$t"
    failed=$((failed + 1))
  fi
done
echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
