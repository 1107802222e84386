#!/usr/bin/env bash
# Run each fuzz target for a bounded time (default 60 s): bash scripts/fuzz.sh [SECONDS]
# Needs the nightly toolchain and cargo-fuzz (cargo install cargo-fuzz). Without them it runs
# the bounded randomized run of the same harnesses (core/tests/fuzz_smoke.rs) instead.
# Leak detection is off for stdio_framer: its stdin reader thread is detached by design, and
# LeakSanitizer reports that live thread's TLS-destructor record (64 bytes in glibc) as a leak.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs="${1:-60}"
if ! command -v cargo-fuzz >/dev/null || ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "cargo-fuzz or nightly missing: running the bounded randomized harness run instead"
  exec cargo test -p oxmcp --test fuzz_smoke
fi
cd fuzz
for t in http_handle stdio_framer; do
  leaks=1; [[ $t == stdio_framer ]] && leaks=0
  echo "== $t for ${secs}s"
  cargo +nightly fuzz run "$t" -O --debug-assertions -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -detect_leaks=$leaks 2>&1 | grep -E '^#[0-9]+ +(INITED|DONE)|^Done|ERROR|panicked' || true
  [[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "$t found a crash (see fuzz/artifacts/$t)"; exit 1; }
done
