#!/usr/bin/env bash
# Generate oxmcp.types (bindings-python/python/oxmcp/types/_generated.py) from the spec's schema.json
# with datamodel-code-generator (pinned in scripts/setup.sh), on a base (types/_base.py) that also
# takes mcp 2.x's snake_case field names. tests/python/test_lowlevel.py checks that
# running this again changes nothing.
#   bash scripts/gen-types.sh [OUT]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/bindings-python/python/oxmcp/types/_generated.py}"
cd "$ROOT/bindings-python/spec"
"$ROOT/.venv/bin/datamodel-codegen" --input schema-2025-11-25.json --input-file-type jsonschema \
  --output-model-type pydantic_v2.BaseModel --target-python-version 3.10 --disable-timestamp \
  --base-class oxmcp.types._base.SpecModel --collapse-root-models \
  --allow-extra-fields --allow-population-by-field-name --use-union-operator --use-standard-collections --field-constraints --use-subclass-enum --use-one-literal-as-default --type-mappings "string+byte=string" \
  --formatters black isort --output "$OUT" 2>/dev/null
# The SDKs' request models (``ListToolsRequest(params=...)``) carry no JSON-RPC id: it belongs to the
# envelope. The schema's request types extend JSONRPCRequest, so their id is made optional here
# (JSONRPCRequest's own stays required).
"$ROOT/.venv/bin/python" - "$OUT" <<'PY'
import re
import sys

path = sys.argv[1]
text = open(path).read()
required = re.compile(r"    id: str \| int = Field\(\n        \.\.\., (description='A uniquely identifying ID for a "
                      r"request in JSON-RPC\.')\n    \)\n(    jsonrpc: Literal\['2\.0'\] = '2\.0'\n    method: Literal\[)")
text = required.sub(r"    id: str | int | None = Field(\n        None, \1\n    )\n\2", text)
# An icon's src and an implementation's websiteUrl stay the text they were given (both SDKs type
# them `str`): a URL model would add a trailing slash and compare unequal to that text.
text = text.replace("    src: AnyUrl = Field(", "    src: str = Field(", 1)
text = text.replace("    websiteUrl: AnyUrl | None = Field(", "    websiteUrl: str | None = Field(", 1)
open(path, "w").write(text)
PY
