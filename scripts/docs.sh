#!/usr/bin/env bash
# The documentation site (mkdocs.yml, pages in docs/), with the tools scripts/setup.sh installs
# into .venv:
#
#   bash scripts/docs.sh serve    # http://127.0.0.1:8001, rebuilt on change
#   bash scripts/docs.sh build    # mkdocs build --strict into .cache/site (what CI runs)
#   bash scripts/docs.sh samples  # build, then run every Python and JavaScript sample and screenshot the
#                                 # site in Chromium (Rust samples: cargo test --doc -p oxmcp)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MKDOCS=.venv/bin/mkdocs
[[ -x "$MKDOCS" ]] || { echo "docs.sh: $MKDOCS is missing; run scripts/setup.sh" >&2; exit 1; }
# Material's notice about its successor, printed on every run, is not a finding.
export NO_MKDOCS_2_WARNING=1
case "${1:-build}" in
  serve) exec "$MKDOCS" serve --strict -a 127.0.0.1:8001 ;;
  build) exec "$MKDOCS" build --strict --clean ;;
  samples)
    "$MKDOCS" build --strict --clean
    python3 tests/docs/samples.py
    .venv/bin/python -m pytest tests/docs -q -rs -p no:cacheprovider
    node --test tests/docs/ ;;
  *) echo "usage: bash scripts/docs.sh [serve|build|samples]" >&2; exit 2 ;;
esac
