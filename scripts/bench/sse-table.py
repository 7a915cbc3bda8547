#!/usr/bin/env python3
"""Prints the SSE criterion results under CRITERION_HOME (default target/criterion) as the
markdown table of benches/README.md: median time per contender, ratios against sse-core and
the memchr2 floor. Usage: scripts/bench/sse-table.py [CRITERION_HOME]"""
import json
import os
import sys

home = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CRITERION_HOME", "target/criterion")
rows = {}
for root, _dirs, files in os.walk(home):
    if os.path.basename(root) != "new" or "estimates.json" not in files:
        continue
    with open(os.path.join(root, "benchmark.json")) as f:
        b = json.load(f)
    with open(os.path.join(root, "estimates.json")) as f:
        e = json.load(f)
    group = b["group_id"]
    if not group.startswith("sse/"):
        continue
    _, scenario, chunks = group.split("/")
    rows.setdefault((scenario, chunks), {})[b["function_id"] or b["value_str"]] = e["median"]["point_estimate"]

order = ["large", "medium", "small", "small-crlf", "small-cr", "structured", "multiline",
         "keepalives", "keepalives-crlf", "keepalives-cr", "hugeline", "a2a-crlf"]
chunk_order = ["whole", "1460", "4"]


def human(ns):
    if ns is None:
        return "—"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def ratio(num, den):
    if num is None or den is None:
        return "—"
    return f"{num / den:.2f}x"


print("| scenario | chunks | a2a-core | + UTF-8 | + comment text | sse-core | eventsource-stream | floor "
      "| a2a-protocol-client | vs sse-core | + UTF-8 vs sse-core | vs floor | vs a2a-protocol-client |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (scenario, chunks) in sorted(rows, key=lambda k: (order.index(k[0]) if k[0] in order else 99,
                                                      chunk_order.index(k[1]))):
    r = rows[(scenario, chunks)]
    a, u, t = r.get("a2a-core"), r.get("a2a-core+utf8"), r.get("a2a-core+comment-text")
    s, es, fl = r.get("sse-core"), r.get("eventsource-stream"), r.get("memchr2-floor")
    sdk = r.get("a2a-protocol-client")
    print(f"| {scenario} | {chunks} | {human(a)} | {human(u)} | {human(t)} | {human(s)} | {human(es)} "
          f"| {human(fl)} | {human(sdk)} | {ratio(s, a)} | {ratio(s, u)} | {ratio(a, fl)} "
          f"| {ratio(sdk, a)} |")
