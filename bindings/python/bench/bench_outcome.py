#!/usr/bin/env python3
"""The Python cost of copying results out of the library, pure-ctypes path against the
compiled fast path, side by side in one run (no network: the client-overhead harness with a
server is benches/clients/, another program).

  copy outcome    `Outcome._from_ptr` on one classified task outcome (what every send, get
                  and cancel does with its result: one `a2a_outcome_get_info` and the
                  dataclass built from it)
  classify        `classify(200, body, ...)` of a 1.0 JSON-RPC task response, whole call

Each operation runs on both paths in this process on the same library; the results of the
two paths must be equal (every field) or the script exits with an error. CPU time, best of
--repeat runs.

    .venv/bin/python bindings/python/bench/bench_outcome.py [--n N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import a2a_core
from a2a_core import Outcome, _lib, classify

TASK = json.dumps({'jsonrpc': '2.0', 'id': 1, 'result': {
    'id': '3f1c7d6e-1111-4b7e-9a3b-2c8d5e6f7a8b', 'contextId': '9e2f4c1a-2222-4d3b-8c5a-1f2e3d4c5b6a',
    'status': {'state': 'TASK_STATE_COMPLETED', 'message': {
        'messageId': 'm-1', 'role': 'ROLE_AGENT', 'parts': [{'text': 'done'}]}}}}).encode()


def classify_task() -> Outcome:
    return classify(200, TASK, 'application/json', '1.0', 'jsonrpc', 'SendMessage', 1)


def ops(n: int) -> dict[str, Callable[[], list[Any]]]:
    kept = classify_task()
    ptr = kept._ptr()

    def copy() -> list[Any]:
        return [Outcome._from_ptr(ptr, owned=False) for _ in range(n)]

    def whole() -> list[Any]:
        return [classify_task() for _ in range(n)]

    return {'copy outcome': copy, 'classify': whole}


def best(fn: Callable[[], list[Any]], repeat: int) -> tuple[float, list[Any]]:
    t_best, out = float('inf'), []
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        t_best = min(t_best, time.process_time() - t0)
    return t_best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--n', type=int, default=20000)
    ap.add_argument('--repeat', type=int, default=5)
    args = ap.parse_args()
    fast = _lib.SPEEDUPS
    if fast is None:
        sys.exit(f'bench_outcome: the compiled extension is not in use ({a2a_core.speedups_status()})')
    print(f'# python {platform.python_version()}, {platform.machine()}, library '
          f'{a2a_core.library_path()}, {args.n} operations, best of {args.repeat} (CPU time)')
    print('| operation | ctypes (µs/op) | ext (µs/op) | ctypes / ext |')
    print('|---|---|---|---|')
    for name, fn in ops(args.n).items():
        _lib.SPEEDUPS = None
        try:
            t_slow, slow = best(fn, args.repeat)
        finally:
            _lib.SPEEDUPS = fast
        t_fast, quick = best(fn, args.repeat)
        if slow != quick or len(quick) != args.n or quick[0] is None:
            sys.exit(f'bench_outcome: the two paths disagree on {name!r}')
        print(f'| {name} | {t_slow / args.n * 1e6:.2f} | {t_fast / args.n * 1e6:.2f} | '
              f'{t_slow / t_fast:.1f}x |')


if __name__ == '__main__':
    main()
