#!/usr/bin/env python3
"""Prints every criterion result under one or more CRITERION_HOME directories as one markdown
table: benchmark id, then the median time (and throughput when criterion recorded bytes)
per directory, side by side, so the `bench` and `bench-lto` runs of scripts/bench/all.sh
read in one table. SSE results are left to scripts/bench/sse-table.py.

    scripts/bench/criterion-table.py DIR [DIR ...]
"""
import json
import os
import sys


def human(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.1f} ns"


def results(home: str) -> dict[str, tuple[float, float | None]]:
    out = {}
    for root, _dirs, files in os.walk(home):
        if os.path.basename(root) != "new" or "estimates.json" not in files:
            continue
        with open(os.path.join(root, "benchmark.json")) as f:
            b = json.load(f)
        if b["group_id"].startswith("sse/"):
            continue
        with open(os.path.join(root, "estimates.json")) as f:
            e = json.load(f)
        median = e["median"]["point_estimate"]
        tp = b.get("throughput") or {}
        nbytes = tp.get("Bytes") or tp.get("BytesDecimal")
        gib = nbytes / median * 1e9 / 2**30 if nbytes else None
        out[b["full_id"]] = (median, gib)
    return out


def main() -> None:
    homes = sys.argv[1:]
    if not homes:
        sys.exit(__doc__)
    tables = [results(h) for h in homes]
    ids = sorted({k for t in tables for k in t})
    names = [os.path.basename(os.path.normpath(h)) for h in homes]
    print("| benchmark | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for k in ids:
        cells = []
        for t in tables:
            if k not in t:
                cells.append("—")
                continue
            median, gib = t[k]
            cells.append(human(median) + (f" ({gib:.2f} GiB/s)" if gib else ""))
        print(f"| {k} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
