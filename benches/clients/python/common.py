"""What the Python clients of the client-overhead harness share: the run parameters from
the environment, the process CPU clock, the resident set size and the one JSON line each
client prints (the contract is in benches/clients/rust/src/lib.rs)."""

from __future__ import annotations

import gc
import json
import os
import time
from dataclasses import dataclass, field


def _num(name: str, default: int) -> int:
    v = os.environ.get(name)
    return default if v is None else int(v)


@dataclass
class Params:
    url: str = field(default_factory=lambda: os.environ['BENCH_URL'])
    sends: int = field(default_factory=lambda: _num('BENCH_SENDS', 2000))
    warmup: int = field(default_factory=lambda: _num('BENCH_WARMUP', 200))
    events: int = field(default_factory=lambda: _num('BENCH_EVENTS', 10000))
    warmup_events: int = field(default_factory=lambda: _num('BENCH_WARMUP_EVENTS', 1000))
    idle: int = field(default_factory=lambda: _num('BENCH_IDLE', 100))


def rss_kib() -> int:
    """VmRSS of /proc/self/status, after a garbage collection."""
    gc.collect()
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


class Section:
    """Wall clock and process CPU time (every thread) of one measured section."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time_ns()

    def stop(self) -> tuple[float, int]:
        return time.perf_counter() - self.wall, time.process_time_ns() - self.cpu


def check(ok: bool, what: object) -> None:
    if not ok:
        raise AssertionError(f'wrong answer: {what() if callable(what) else what}')


@dataclass
class Report:
    client: str
    sends: int = 0
    events: int = 0
    idle: int = 0
    send_wall: float = 0.0
    send_cpu: int = 0
    stream_wall: float = 0.0
    stream_cpu: int = 0
    rss_before: int = 0
    rss_after: int = 0

    def print(self) -> None:
        per = lambda ns, n: ns / 1000 / n if n else 0.0  # noqa: E731
        rate = lambda n, s: n / s if s > 0 else 0.0  # noqa: E731
        print(json.dumps({
            'client': self.client, 'sends': self.sends,
            'sends_per_s': rate(self.sends, self.send_wall),
            'cpu_us_per_send': per(self.send_cpu, self.sends), 'events': self.events,
            'events_per_s': rate(self.events, self.stream_wall),
            'cpu_us_per_event': per(self.stream_cpu, self.events),
            'idle_streams': self.idle, 'rss_before_kib': self.rss_before,
            'rss_after_kib': self.rss_after,
            'rss_kib_per_stream': (self.rss_after - self.rss_before) / self.idle if self.idle else 0.0,
        }), flush=True)
