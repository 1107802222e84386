#!/usr/bin/env bash
# Build and smoke-test the linux x86_64 release artifacts the way .github/workflows/release.yml
# does for every platform, and check what the workflow's other jobs check:
#
#   bash scripts/release-local.sh
#
#   versions   scripts/check-versions.py: one version for the crate, the wheel and npm
#   actionlint .github/workflows/*.yml (actionlint from PyPI, in .venv)
#   crate      cargo publish --dry-run -p oxmcp; cargo doc -p oxmcp --all-features, no warnings
#   wheel      maturin + zig: the abi3 wheel for manylinux2014 x86_64, checked by auditwheel
#   sdist      maturin sdist, checked to hold the workspace the wheel builds from
#   npm        the @oxmcp/linux-x64-gnu tarball (the checkout's addon) and the root tarball
#              The wheel's extension and the addon are each built, profiled by scripts/hot-code.py
#              into a linker script in the target directory, built again with it
#              (OXMCP_HOT_CODE_LD) and checked to hold the profiled functions together, as the
#              workflow does (docs/PERFORMANCE.md, "Hot code together")
#   smoke      scripts/release-smoke.py: each installed with no cargo/rustc on PATH into a fresh
#              venv / an empty npm project, serving the quick start to the official client
#
# Environment:
#   OXMCP_RELEASE_PROFILE  dev (default: what CI uses, fast to build, reusing target/) or release
#                          (optimised, what the workflow publishes)
#   OXMCP_RELEASE_OUT      where the artifacts go (default dist/, ignored by git)
#   OXMCP_RELEASE_STEPS    the steps to run, comma-separated (default: all of them, in the order
#                          above); scripts/test-all.sh builds the wheel in the background while its
#                          test stages run, then runs the others
# It ends with "release-local: N passed, M failed" and the artifact sizes and install times.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
PROFILE="${OXMCP_RELEASE_PROFILE:-dev}"
OUT="${OXMCP_RELEASE_OUT:-$ROOT/dist}"
LOGS="$ROOT/.cache/release-local"
mkdir -p "$LOGS" "$OUT"
steps=",${OXMCP_RELEASE_STEPS:-versions,actionlint,crate,wheel,sdist,npm,smoke-python,smoke-node},"
# maturin finds zig through the venv's `ziglang`; actionlint and auditwheel are there too.
export VIRTUAL_ENV="$ROOT/.venv" PATH="$ROOT/.venv/bin:$PATH"
# A dev build runs ten times as many (uninlined) functions as a release build, and each one named
# costs the link time: the dev profile names as many as a release build's profile does.
case "$PROFILE" in
  dev) node_profile=debug hot_limit=(--limit 2000) ;;
  release) node_profile=release hot_limit=() ;;
  *) echo "release-local: OXMCP_RELEASE_PROFILE must be dev or release" >&2; exit 2 ;;
esac

passed=0 failed=0 failures=()
# check NAME CMD...: run CMD with its output in $LOGS/NAME.log (shown when it fails), timed; a step
# OXMCP_RELEASE_STEPS leaves out is not run.
check() {
  local name="$1"; shift
  [[ $steps == *",$name,"* ]] || return 0
  local t0=$SECONDS
  if "$@" >"$LOGS/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "release-local: PASS $name ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1)); failures+=("$name")
    echo "release-local: FAIL $name ($((SECONDS - t0)) s); its output:"
    sed 's/^/  | /' "$LOGS/$name.log" | tail -60
  fi
}

# first_file GLOB...: the first existing file a glob expands to (nothing when none does).
first_file() { local f; for f in "$@"; do [[ -f "$f" ]] && { printf '%s' "$f"; return; }; done; }

actionlint_all() { actionlint -no-color .github/workflows/*.yml; }

crate() {
  # --allow-dirty: a worktree with uncommitted edits still checks what would be published.
  # Both crates at once: cargo packages the macros crate first and resolves `oxmcp`'s dependency on
  # it from that package, as crates.io will once the macros crate is published ahead of it.
  cargo publish --dry-run -p oxmcp-macros -p oxmcp --locked --allow-dirty &&
    RUSTDOCFLAGS="-D warnings" cargo doc -p oxmcp --all-features --no-deps --locked
}

# hot_code_check WHEEL SCRIPT: scripts/hot-code.py check on the extension inside WHEEL.
hot_code_check() {
  local dir="$LOGS/wheel-check"
  rm -rf "$dir" && python3 -m zipfile -e "$1" "$dir" &&
    python3 scripts/hot-code.py check "$(first_file "$dir"/oxmcp/_oxmcp*.so)" "$2"
}

wheel() {
  rm -f "$OUT"/oxmcp-*.whl
  # Its own target dir: zig as the C compiler and linker changes the dependencies' fingerprints, so
  # sharing a target dir with the checkout's other builds would rebuild both every time.
  local target="$ROOT/target/wheel"
  local ld="$target/hot-code/python-$PROFILE.ld" profiled="$target/hot-code/wheel-$PROFILE"
  local build=(maturin build --profile "$PROFILE" --zig --target x86_64-unknown-linux-gnu
    --compatibility manylinux2014 --locked)
  # Built with its symbol table (into a wheel stored uncompressed: only the profile reads it),
  # profiled, then built again with the script and stripped (the symbol names stay: only the
  # binding crate is rebuilt, with the same metadata).
  rm -rf "$profiled" &&
    CARGO_TARGET_DIR="$target" "${build[@]}" --compression-method stored --out "$profiled" &&
    python3 scripts/hot-code.py profile python "$(first_file "$profiled"/oxmcp-*.whl)" \
      --python "$ROOT/.venv/bin/python" --out "$ld" "${hot_limit[@]}" &&
    CARGO_TARGET_DIR="$target" OXMCP_HOT_CODE_LD="$ld" "${build[@]}" --strip --out "$OUT" &&
    hot_code_check "$(first_file "$OUT"/oxmcp-*.whl)" "$ld" &&
    auditwheel show "$OUT"/oxmcp-*-cp310-abi3-*manylinux_2_17_x86_64*.whl | tee "$LOGS/auditwheel.txt" &&
    grep -q '"manylinux_2_17_x86_64"' "$LOGS/auditwheel.txt"
}

sdist() {
  rm -f "$OUT"/oxmcp-*.tar.gz
  maturin sdist --out "$OUT" &&
    python3 - "$OUT"/oxmcp-*.tar.gz <<'PY'
import sys, tarfile
names = tarfile.open(sys.argv[1]).getnames()
need = ["pyproject.toml", "Cargo.toml", "Cargo.lock", "core/src/lib.rs", "bindings-python/Cargo.toml",
        "bindings-python/python/oxmcp/__init__.py", "bindings-python/python/oxmcp/_cli/__init__.py"]
top = names[0].split("/")[0]
missing = [n for n in need if f"{top}/{n}" not in names]
print(f"{sys.argv[1]}: {len(names)} files; missing: {missing or 'none'}")
sys.exit(1 if missing else 0)
PY
}

npm_tarballs() {
  rm -f "$OUT"/oxmcp-*.tgz
  # The workflow builds the addon with `napi build --platform --release --target ...`; here the
  # checkout's build (scripts/setup.sh built it; a no-op when nothing changed), profiled, built
  # again with the script and checked, then stripped of debug info as a release build is.
  local ld="${CARGO_TARGET_DIR:-$ROOT/target}/hot-code/node-$PROFILE.ld"
  OXMCP_NATIVE_PROFILE="$node_profile" node bindings-node/scripts/build-native.cjs &&
    python3 scripts/hot-code.py profile node bindings-node/oxmcp.node --out "$ld" "${hot_limit[@]}" &&
    OXMCP_HOT_CODE_LD="$ld" OXMCP_NATIVE_PROFILE="$node_profile" node bindings-node/scripts/build-native.cjs &&
    python3 scripts/hot-code.py check bindings-node/oxmcp.node "$ld" &&
    strip --strip-debug -o "$OUT/oxmcp.linux-x64-gnu.node" bindings-node/oxmcp.node &&
    node bindings-node/scripts/pack.cjs platform linux-x64-gnu "$OUT/oxmcp.linux-x64-gnu.node" --out "$OUT" &&
    node bindings-node/scripts/pack.cjs root --out "$OUT" &&
    rm -f "$OUT/oxmcp.linux-x64-gnu.node"
}

t_all=$SECONDS
check versions python3 scripts/check-versions.py
check actionlint actionlint_all
check crate crate
check wheel wheel
check sdist sdist
check npm npm_tarballs
check smoke-python python3 scripts/release-smoke.py python "$(first_file "$OUT"/oxmcp-*.whl)"
check smoke-node python3 scripts/release-smoke.py node "$(first_file "$OUT"/oxmcp-[0-9]*.tgz)" \
  "$(first_file "$OUT"/oxmcp-linux-x64-gnu-*.tgz)"

echo "release-local: artifacts in $OUT ($PROFILE profile):"
for f in "$OUT"/oxmcp-*; do [[ -f "$f" ]] && printf '  %-80s %6.1f MB\n' "$(basename "$f")" "$(($(stat -c %s "$f") / 1000))e-3"; done
grep -h -E 'release-smoke: (pip|npm) install' "$LOGS"/smoke-*.log 2>/dev/null | sed 's/^/  /'
echo "release-local: took $((SECONDS - t_all)) s"
if [[ $failed -gt 0 ]]; then echo "release-local: failed: ${failures[*]} (logs in $LOGS)"; fi
echo "release-local: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
