"""Writes the `edges` of tests/config/cases.json: every numeric option at its edge values, with the
outcome the core decides for each (accepted with its effective value, or the exact error). The
table, not this script, is what the Rust, Python and Node tests read; run this after changing an
option's rule, and review the diff of cases.json.

    python3 tests/config/make_edges.py
"""

from __future__ import annotations

import json
from pathlib import Path

MAX = 9007199254740991  # the largest integer every host holds exactly

# (option, Rust type, what 0 means, default (effective, None: not reported), extra config)
# zero: "min1" (refused: "must be at least 1") or "ok" (a documented meaning, accepted as 0),
# or a custom error text.
SERVER = [
    ("cache_ttl_ms", "u64", "ok", 0, {}),
    ("page_size", "u64", "min1", 100, {}),
    ("state_ttl_ms", "u64", "min1", 600000, {}),
    ("tool_timeout_ms", "u64", "min1", None, {}),
    ("max_listeners", "usize", "min1", 1024, {}),
    ("session_idle_ms", "u64", "min1", 1800000, {}),
    ("max_sessions", "usize", "min1", 10000, {}),
    ("max_sessions_per_caller", "usize", "min1", 100, {}),
    ("max_in_flight", "usize", "min1", None, {}),
    ("max_uri_len", "usize", "min1", 8192, {}),
    ("max_subscriptions", "usize", "min1", 1000, {}),
    ("max_subscription_bytes", "usize", "min1", 262144, {}),
    ("max_client_info_bytes", "usize", "min1", 65536, {}),
    ("max_listen_task_ids", "usize", "min1", 100, {}),
    ("max_listeners_per_caller", "usize", "min1", 32, {}),
    ("max_batch_len", "usize", "min1", 100, {}),
    ("task_ttl_ms", "u64", "min1", "-", {}),
    ("task_poll_interval_ms", "u64", "min1", "-", {}),
    ("max_tasks_per_caller", "usize", "min1", 100, {}),
    ("max_task_result_bytes", "usize", "min1", 1048576, {}),
    ("max_running_tasks_per_caller", "usize", "min1", 16, {}),
    ("task_lease_ms", "u64", "task_lease_ms must be at least 100 (milliseconds)", "-", {}),
    ("redis_timeout_ms", "u64", "redis_timeout_ms must be 1 to 60000 (milliseconds)", "-", {}),
    ("tool_search_max_results", "usize", "tool_search_max_results must be 1 to 50", "-", {"tool_search": "bm25"}),
]
LISTEN = [
    ("max_body_bytes", "usize", "min1", 4194304, {}),
    ("max_string_bytes", "usize", "min1", 1048576, {}),
    ("max_line_bytes", "usize", "min1", 4194304, {}),
    ("keep_alive_ms", "u64", "min1", 15000, {}),
    ("header_timeout_ms", "u64", "min1", 10000, {}),
    ("body_timeout_ms", "u64", "min1", 30000, {}),
    ("drain_timeout_ms", "u64", "ok", 5000, {}),
    ("max_headers", "usize", "min1", 100, {}),
    ("max_header_bytes", "usize", "min1", 16384, {}),
    ("max_connections", "usize", "ok", 1024, {}),
    ("max_connections_per_client", "usize", "ok", 256, {}),
    ("sse_max_queued_bytes", "usize", "min1", 16777216, {"sse": True}),
    ("http2_max_concurrent_streams", "u32", "min1", 100, {}),
    ("http2_max_pending_accept_reset_streams", "usize", "min1", 20, {}),
    ("http2_max_local_error_reset_streams", "usize", "min1", 100, {}),
]
# The listener options the stdio transport reads too (given to the constructor, as stdio takes them).
STDIO = {"max_line_bytes", "max_string_bytes", "drain_timeout_ms"}
RANGED = {"redis_timeout_ms": (1, 60000), "tool_search_max_results": (1, 50)}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def rows(option: str, ty: str, zero: str, default: object, extra: dict, at: list[str],
         accept_at: list[str]) -> tuple[list[dict], list[dict]]:
    refused: list[dict] = []
    accepted: list[dict] = []

    def refuse(value: object, error: str, spell: str = option) -> None:
        for a in at:
            refused.append({"at": a, "config": {**extra, spell: value}, "kind": "invalid", "error": error})

    def accept(value: object, effective: object, spell: str = option) -> None:
        for a in accept_at:
            row: dict = {"at": a, "config": {**extra, spell: value}}
            if default != "-":  # an option `Config::effective` reports
                row["effective"] = {option: effective}
            accepted.append(row)

    if zero == "min1":
        refuse(0, f"{option} must be at least 1")
        refuse(0, f"{camel(option)} must be at least 1", camel(option))
    elif zero == "ok":
        accept(0, 0)
    else:
        refuse(0, zero)
    refuse(-1, f"{option}: invalid value: integer `-1`, expected {ty}")
    refuse(MAX + 1, f"{option} must be at most {MAX}")
    refuse(1e300, f"{option} must be at most {MAX}")
    refuse(-1e300, f"{option} must be at least -{MAX}")
    refuse(1.5, f"{option}: invalid type: floating point `1.5`, expected {ty}")
    refuse("10", f"{option}: invalid type: string \"10\", expected {ty}")
    refuse(True, f"{option}: invalid type: boolean `true`, expected {ty}")
    refuse([1], f"{option}: invalid type: sequence, expected {ty}")
    accept(None, default)
    accept(7.0 if option not in ("task_lease_ms",) else 700.0, 7 if option != "task_lease_ms" else 700)
    if option in RANGED:
        lo, hi = RANGED[option]
        refuse(MAX, zero)
    elif ty == "u32":
        refuse(MAX, f"{option}: invalid value: integer `{MAX}`, expected u32")
    else:
        accept(MAX, MAX)
    return refused, accepted


def main() -> None:
    path = Path(__file__).with_name("cases.json")
    table = json.loads(path.read_text())
    refused: list[dict] = []
    accepted: list[dict] = []
    for option, ty, zero, default, extra in SERVER:
        r, a = rows(option, ty, zero, default, extra, ["server"], ["server"])
        refused += r
        accepted += a
    for option, ty, zero, default, extra in LISTEN:
        at = ["listen", "mount"] + (["server"] if option in STDIO else [])
        r, a = rows(option, ty, zero, default, extra, at, ["mount"] + (["server"] if option in STDIO else []))
        refused += r
        accepted += a
    table["edges"] = {"refused": refused, "accepted": accepted}
    path.write_text(dump(table))


def dump(table: dict) -> str:
    """The table with one row a line, as it is written by hand."""
    def rows(items: list[dict], indent: str) -> str:
        return ",\n".join(indent + json.dumps(r) for r in items)

    out = ["{"]
    parts = []
    for k, v in table.items():
        if k == "edges":
            inner = [f'    "{n}": [\n{rows(r, "      ")}\n    ]' for n, r in v.items()]
            parts.append(f'  "edges": {{\n' + ",\n".join(inner) + "\n  }")
        elif isinstance(v, list):
            parts.append(f'  {json.dumps(k)}: [\n{rows(v, "    ")}\n  ]')
        else:
            parts.append(f"  {json.dumps(k)}: {json.dumps(v)}")
    out.append(",\n".join(parts))
    out.append("}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
