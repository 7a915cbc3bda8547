#!/usr/bin/env python3
"""Client overhead, side by side (issue 17 item 4): every client against one loopback bench
server, in one run, printing the table of benches/README.md.

    scripts/bench/clients.py                 # 3 rotated rounds, defaults below
    scripts/bench/clients.py --smoke         # a few calls per client, answers asserted (CI)
    scripts/bench/clients.py --only raw,driver --rounds 5 --json out.json

What it does:
1. Builds what it runs: `cargo build --release -p a2a-bench-clients -p a2a-core-ffi` (the
   `release` profile, what `pip install`, `mvn install` and the Go binding's default build
   link; ${CARGO_TARGET_DIR:-target}), the Go clients (`go build`, the Go binding linked to
   that release library), the Java clients (`mvn -q -o compile` in benches/clients/java,
   after the bindings' jars were installed by scripts/ci/55-java.sh).
2. Starts `a2a-bench-server` (benches/clients/rust/src/bin/server.rs) on 127.0.0.1.
3. Runs every client as its own process, one after the other, in rounds; each round starts
   one client later in the list (rotation), so a burst of load falls on a different client
   each time. Each client warms up, measures, asserts every answer and prints one JSON line
   (contract: benches/clients/rust/src/lib.rs). Around each client the server's `/stats`
   is read, giving the server's own CPU per send and per event during that client's run.
4. Prints the median over the rounds with the spread [min-max] for each figure.

CPU placement (`--pin`): a send is a strict ping-pong between the client and the server, so
its rate depends less on either side's work than on where the kernel puts the two: on one
CPU a send is two context switches; on two CPUs it is two cross-CPU wake-ups, and on a
virtual machine whose idle CPU halts (a KVM guest, `cpuidle` haltpoll with
`guest_halt_poll_ns=0` here) each wake-up of a halted vCPU costs far more than the work
(benches/README.md, branch h-drv: the raw floor made 55-62k sends/s on one CPU and 6-7k
split over two). Unpinned (`none`, the default) each client process lands in either regime
by the scheduler's choice, and a client with spare threads (the Go runtime's) keeps the
other vCPU awake; `same` puts the server and every client on one CPU (the work-bound
figure), `split` the server on one CPU and the client on the others (the wake-up-bound
figure). A Go process limited to one CPU runs with GOMAXPROCS=1, where the Go binding's
blocking cgo call keeps the runtime's sysmon waking and taking its P (benches/README.md,
branch h-gopin); `--only go-binding-procs2` adds the Go binding run with GOMAXPROCS=2 (a
row of its own, not in the default table).

Standard library only; needs scripts/ci/05-setup.sh's .venv (Python a2a-sdk) and
tests/peers/js/node_modules (@a2a-js/sdk), Go >= 1.24 with the a2a-go v0.3.3 module in the
module cache (scripts/ci/65-go-sdk.sh fetched it), for the Go SDK v2 client Go >= 1.25 and
a2a-go/v2 v2.3.1 in the cache (scripts/ci/66-go-sdk-v2.sh), JDK 17 + Maven with a2a-java 0.3.2.Final
and the bindings' jars in ~/.m2 (scripts/ci/55-java.sh).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENTS_DIR = ROOT / 'benches' / 'clients'

# name, table label, what it is
CLIENTS = [
    ('raw', 'raw keep-alive POST loop (floor)', 'Rust std TCP, hand-written request, httparse head, substring checks'),
    ('driver', 'Rust driver', 'a2a_core::driver::Client, 0.3'),
    ('go-binding', 'Go binding', 'bindings/go Client (cgo over the C ABI), 0.3'),
    ('go-binding-procs2', 'Go binding, GOMAXPROCS=2', 'bindings/go Client in a process run with GOMAXPROCS=2 (bindings/go/README.md, one CPU), 0.3'),
    ('go-nethttp', 'Go HTTPClient', 'bindings/go HTTPClient (the client machine over net/http), its choice: 1.0'),
    ('go-nethttp-0.3', 'Go HTTPClient, 0.3', 'bindings/go HTTPClient, WithInterface(V0_3, JSON_RPC): 0.3'),
    ('python-binding', 'Python binding', 'bindings/python a2a_core.Client (ctypes over the C ABI), 0.3'),
    ('python-async', 'Python AsyncClient', 'bindings/python a2a_core.AsyncClient (the client machine over its own HTTP/1.1 on asyncio, the default), 0.3'),
    ('python-async-1.0', 'Python AsyncClient, 1.0', 'bindings/python a2a_core.AsyncClient, prefer=client: 1.0'),
    ('python-async-httpx', 'Python AsyncClient over httpx', 'bindings/python a2a_core.AsyncClient(http_client=httpx.AsyncClient(...)), 0.3'),
    ('python-async-1.0-httpx', 'Python AsyncClient over httpx, 1.0', 'bindings/python a2a_core.AsyncClient(http_client=...), prefer=client: 1.0'),
    ('java-binding', 'Java binding', 'bindings/java A2aClient (JNA over the C ABI), 0.3'),
    ('java-async', 'Java binding, async calls', 'bindings/java A2aAsyncClient (the client machine over java.net.http), 0.3'),
    ('go-sdk', 'Go SDK client', 'a2a-go v0.3.3 a2aclient, 0.3'),
    ('go-sdk-v2', 'Go SDK v2 client', 'a2a-go/v2 v2.3.1 a2aclient, its choice: 1.0'),
    ('python-sdk', 'Python SDK client', 'a2a-sdk 1.3.0 ClientFactory, its choice: 1.0'),
    ('python-sdk-0.3', 'Python SDK client, 0.3 compat', 'a2a-sdk 1.3.0, card without 1.0 interfaces: 0.3'),
    ('js-sdk', 'JS SDK client', '@a2a-js/sdk 1.3.0 ClientFactory, its choice: 1.0'),
    ('js-sdk-0.3', 'JS SDK client, 0.3 compat', '@a2a-js/sdk 1.3.0, card without 1.0 interfaces, legacy compat transport: 0.3'),
    ('java-sdk-jdk', 'a2a-java Client + JdkA2AHttpClient', 'a2a-java 0.3.2.Final, stock HTTP client, 0.3'),
    ('java-sdk-a2a-core', 'a2a-java Client + A2aCoreHttpClient', 'a2a-java 0.3.2.Final over the drop-in (bindings/java/a2a-java-http), 0.3'),
]

# Rows run only when --only names them (not part of the default table).
OPT_IN = {'go-binding-procs2'}

# The clients that speak 1.0 (their SDK's own choice on the bench server's card); every
# other client speaks 0.3. The harness checks it against the server's count.
V1_CLIENTS = {'python-sdk', 'js-sdk', 'python-async-1.0', 'python-async-1.0-httpx', 'go-nethttp', 'go-sdk-v2'}

# Warm-up: 1000 sends and a stream of 2000 events, enough for the JVM's JIT to compile the
# send and stream paths before the measured section.
FULL = {'BENCH_SENDS': 2000, 'BENCH_WARMUP': 1000, 'BENCH_EVENTS': 10000,
        'BENCH_WARMUP_EVENTS': 2000, 'BENCH_IDLE': 100}
SMOKE = {'BENCH_SENDS': 20, 'BENCH_WARMUP': 5, 'BENCH_EVENTS': 60,
         'BENCH_WARMUP_EVENTS': 20, 'BENCH_IDLE': 5}


def log(msg: str) -> None:
    print(f'clients: {msg}', file=sys.stderr, flush=True)


def run(cmd: list[str], **kw) -> None:
    """Runs a build command; its output goes to standard error (standard output is the table)."""
    log('$ ' + ' '.join(str(c) for c in cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr, **kw)


def find_go(minor: int = 24) -> tuple[str, dict[str, str]]:
    """Go >= 1.MINOR: the one on PATH or the toolchain scripts/ci/50-go.sh fetched."""
    cands = [shutil.which('go') or ''] + sorted(str(p) for p in (ROOT / 'build' / 'go-toolchain').glob('go*/bin/go'))
    for g in cands:
        if not g or not os.access(g, os.X_OK):
            continue
        env = dict(os.environ, GOTOOLCHAIN='local')
        if str(ROOT / 'build') in g:
            env['GOROOT'] = str(Path(g).parent.parent)
        try:
            v = subprocess.run([g, 'env', 'GOVERSION'], capture_output=True, text=True, env=env).stdout.strip()
        except OSError:
            continue
        parts = v.removeprefix('go').split('.')
        if len(parts) >= 2 and (int(parts[0]), int(''.join(c for c in parts[1] if c.isdigit()) or 0)) >= (1, minor):
            return g, env
    raise SystemExit(f'clients: Go >= 1.{minor} is required (scripts/ci/50-go.sh fetches one)')


class Built:
    """Paths of everything the clients need."""

    def __init__(self, target: Path, tmp: Path) -> None:
        self.target = target
        self.release = target / 'release'
        self.tmp = tmp
        self.java_cp: str | None = None


def build(names: list[str], tmp: Path) -> Built:
    target = Path(os.environ.get('CARGO_TARGET_DIR') or ROOT / 'target').resolve()
    b = Built(target, tmp)
    run(['cargo', 'build', '--release', '--locked', '-p', 'a2a-bench-clients', '-p', 'a2a-core-ffi'], cwd=ROOT)
    if any(n.startswith('go-') and n != 'go-sdk-v2' for n in names):
        go, env = find_go()
        # The binding's a2a_system tag links whatever CGO_LDFLAGS names: the release
        # library of this target directory (wherever CARGO_TARGET_DIR puts it).
        env['CGO_LDFLAGS'] = f'-L{b.release} -Wl,-rpath,{b.release}'
        run([go, 'vet', '-tags', 'a2a_system', './...'], cwd=CLIENTS_DIR / 'go', env=env)
        run([go, 'build', '-tags', 'a2a_system', '-o', str(tmp) + '/', './binding', './nethttp', './gosdk'],
            cwd=CLIENTS_DIR / 'go', env=env)
    if 'go-sdk-v2' in names:
        # Its own module (benches/clients/go-v2): a2a-go/v2 needs Go >= 1.25 and would
        # raise the v0.3 client's a2a-go to the v0.3.15 it requires, were they one module.
        go, env = find_go(25)
        run([go, 'vet', './...'], cwd=CLIENTS_DIR / 'go-v2', env=env)
        run([go, 'build', '-o', str(tmp) + '/', './gosdk2'], cwd=CLIENTS_DIR / 'go-v2', env=env)
    if any(n.startswith('java-') for n in names):
        java_dir = CLIENTS_DIR / 'java'
        run(['mvn', '-B', '-q', '-o', '-Dstyle.color=never', 'compile', 'dependency:build-classpath',
             f'-Dmdep.outputFile={tmp}/java-cp.txt'], cwd=java_dir)
        b.java_cp = f"{java_dir / 'target' / 'classes'}:{(tmp / 'java-cp.txt').read_text().strip()}"
    return b


def command(name: str, b: Built, python_installed: bool,
            memory: bool = False) -> tuple[list[str], dict[str, str], Path]:
    env: dict[str, str] = {}
    py = str(ROOT / '.venv' / 'bin' / 'python')
    pydir = CLIENTS_DIR / 'python'
    if name == 'raw':
        return [str(b.release / 'bench-raw')], env, ROOT
    if name == 'driver':
        return [str(b.release / 'bench-driver')], env, ROOT
    if name == 'go-binding':
        return [str(b.tmp / 'binding')], env, ROOT
    if name == 'go-binding-procs2':
        # The same client; GOMAXPROCS=2 keeps an idle P beside the one blocked in the
        # driver's cgo call, so the runtime's sysmon does not take it over (only differs
        # from go-binding where GOMAXPROCS would be 1: --pin same).
        return [str(b.tmp / 'binding')], {'GOMAXPROCS': '2'}, ROOT
    if name in ('go-nethttp', 'go-nethttp-0.3'):
        return [str(b.tmp / 'nethttp'), *name.split('-')[2:]], env, ROOT
    if name == 'go-sdk':
        return [str(b.tmp / 'gosdk')], env, ROOT
    if name == 'go-sdk-v2':
        return [str(b.tmp / 'gosdk2')], env, ROOT
    if name == 'python-binding':
        if not python_installed:
            env['PYTHONPATH'] = str(ROOT / 'bindings' / 'python' / 'src')
            env['A2A_CORE_LIB'] = str(b.release / 'liba2a_core.so')
        return [py, 'binding.py'], env, pydir
    if name.startswith('python-async'):
        if not python_installed:
            env['PYTHONPATH'] = str(ROOT / 'bindings' / 'python' / 'src')
            env['A2A_CORE_LIB'] = str(b.release / 'liba2a_core.so')
        return [py, 'async_binding.py', *name.split('-')[2:]], env, pydir
    if name == 'python-sdk':
        return [py, 'sdk.py'], env, pydir
    if name == 'python-sdk-0.3':
        return [py, 'sdk.py', '0.3'], env, pydir
    if name == 'js-sdk':
        return ['node', '--expose-gc', str(CLIENTS_DIR / 'js' / 'sdk.mjs')], env, ROOT
    if name == 'js-sdk-0.3':
        return ['node', '--expose-gc', str(CLIENTS_DIR / 'js' / 'sdk.mjs'), '0.3'], env, ROOT
    if name.startswith('java-'):
        env['A2A_CORE_LIB'] = str(b.release / 'liba2a_core.so')
        main = {'java-binding': 'BindingClient', 'java-async': 'AsyncClient', 'java-sdk-jdk': 'SdkClient',
                'java-sdk-a2a-core': 'SdkClient'}[name]
        args = {'java-sdk-jdk': ['jdk'], 'java-sdk-a2a-core': ['a2a-core']}.get(name, [])
        assert b.java_cp
        # A fixed, pre-touched heap: the memory figure counts native memory plus live heap
        # (Bench.rssKiB in benches/clients/java), which heap resizing would otherwise swamp.
        # The memory run (see IDLE_RUN) also names its collector and runs interpreted, the
        # same for every Java row: the JIT compiles the streams' code while they are opened,
        # and its code cache and compiler arenas (1-6 MB, taken and given back as the CPU
        # allows) moved the figure by tens of KiB per stream from run to run, and by CPU
        # placement; on one CPU the JVM's ergonomics also pick SerialGC instead of G1
        # (benches/README.md, branch h-mem). What the streams keep, their objects and native
        # buffers, is the same interpreted.
        flags = ['-XX:+UseG1GC', '-Xint'] if memory else []
        return ['java', '-Xms256m', '-Xmx256m', '-XX:+AlwaysPreTouch', *flags, '-cp', b.java_cp,
                f'dev.a2acore.bench.{main}', *args], env, ROOT
    raise SystemExit(f'clients: unknown client {name}')


def installed_python_binding(tmp: Path) -> tuple[str, bool] | None:
    """The .venv's installed a2a_core: (its directory, whether its .py files are exactly
    bindings/python/src/a2a_core's), or None when it is not installed."""
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'A2A_CORE_LIB')}
    p = subprocess.run([str(ROOT / '.venv' / 'bin' / 'python'), '-c',
                        'import a2a_core, os; print(os.path.dirname(a2a_core.__file__))'],
                       cwd=tmp, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return None
    where = Path(p.stdout.strip())
    src = ROOT / 'bindings' / 'python' / 'src' / 'a2a_core'
    names = sorted(f.name for f in src.glob('*.py'))
    same = names == sorted(f.name for f in where.glob('*.py')) and all(
        (src / n).read_bytes() == (where / n).read_bytes() for n in names)
    return str(where), same


def placement(pin: str) -> tuple[set[int] | None, set[int] | None]:
    """The CPUs of the server and of the clients for `--pin` (None: the scheduler's choice)."""
    if pin == 'none':
        return None, None
    cpus = sorted(os.sched_getaffinity(0))
    if pin == 'same':
        return {cpus[0]}, {cpus[0]}
    if len(cpus) < 2:
        raise SystemExit('clients: --pin split needs at least 2 CPUs')
    return {cpus[0]}, set(cpus[1:])


def pinned(cpus: set[int] | None):
    """A preexec_fn setting the child's CPUs before it starts (its threads inherit them)."""
    if cpus is None:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


class Server:
    def __init__(self, b: Built, cpus: set[int] | None = None) -> None:
        self.proc = subprocess.Popen([str(b.release / 'a2a-bench-server')], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, preexec_fn=pinned(cpus))
        line = self.proc.stdout.readline() if self.proc.stdout else ''
        if not line.startswith('READY '):
            self.stop()
            raise SystemExit(f'clients: the bench server did not start ({line!r})')
        self.url = line.split()[1]

    def stats(self) -> dict:
        with urllib.request.urlopen(self.url + '/stats', timeout=10) as r:
            return json.load(r)

    def prime(self, sizes: list[int]) -> None:
        """Streams each size once in both versions, so the server's stream templates exist
        before any client is measured (building one costs the server about a microsecond
        and a half per event, once)."""
        for n in sizes:
            for method, headers in (('message/stream', {}), ('SendStreamingMessage', {'A2A-Version': '1.0'})):
                v03 = method == 'message/stream'
                part = {'kind': 'text', 'text': f'stream {n}'} if v03 else {'text': f'stream {n}'}
                msg = {'messageId': f'prime-{n}', 'role': 'user' if v03 else 'ROLE_USER', 'parts': [part]}
                if v03:
                    msg['kind'] = 'message'
                body = json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': method, 'params': {'message': msg}})
                req = urllib.request.Request(self.url + '/', data=body.encode(), method='POST',
                                             headers={'Content-Type': 'application/json', **headers})
                with urllib.request.urlopen(req, timeout=60) as r:
                    got = r.read().count(b'\n\n')
                if got != n:
                    raise SystemExit(f'clients: priming stream {n} ({method}) gave {got} events')

    def stop(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()  # the server exits when its standard input closes
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


# The memory figure is taken in a process of its own that has done almost nothing before it
# opens the idle streams: in the process that just read a 10,000-event stream, the C heap
# keeps the memory that stream freed (glibc does not return it), and the idle streams' buffers
# reuse it, so RSS hardly grows (the Python binding read 0.2 KiB per stream that way against
# about 100 KiB in a fresh process). One warm-up send and a short stream first, so that what
# a client sets up once (code pages, pools, threads) is not counted per stream. The Java rows'
# memory run is interpreted, on G1 (see `command`).
IDLE_RUN = {'BENCH_SENDS': 1, 'BENCH_WARMUP': 1, 'BENCH_EVENTS': 8, 'BENCH_WARMUP_EVENTS': 8}


def run_client(name: str, b: Built, server: Server, params: dict, python_installed: bool,
               timeout: float, cpus: set[int] | None = None) -> dict:
    """The client's throughput run (no idle streams), then, when idle streams are asked for,
    its memory run (see IDLE_RUN); one result with the memory figure of the second."""
    r = run_once(name, b, server, dict(params, BENCH_IDLE=0), python_installed, timeout, cpus)
    if params['BENCH_IDLE']:
        m = run_once(name, b, server, dict(params, **IDLE_RUN), python_installed, timeout, cpus)
        for k in ('idle_streams', 'rss_before_kib', 'rss_after_kib', 'rss_kib_per_stream'):
            r[k] = m[k]
    return r


def run_once(name: str, b: Built, server: Server, params: dict, python_installed: bool,
             timeout: float, cpus: set[int] | None = None) -> dict:
    cmd, extra, cwd = command(name, b, python_installed, memory=bool(params['BENCH_IDLE']))
    env = dict(os.environ, BENCH_URL=server.url, **{k: str(v) for k, v in params.items()}, **extra)
    before = server.stats()
    started = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                       preexec_fn=pinned(cpus))
    took = time.monotonic() - started
    after = server.stats()
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith('{')]
    if p.returncode != 0 or len(lines) != 1:
        raise SystemExit(f'clients: {name} failed (exit {p.returncode})\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr[-4000:]}')
    r = json.loads(lines[-1])
    d = {k: after[k] - before[k] for k in after}
    # Every send reached the server once: nothing retried, batched or answered elsewhere.
    want = params['BENCH_WARMUP'] + params['BENCH_SENDS']
    if d['sends'] != want:
        raise SystemExit(f'clients: {name}: the server answered {d["sends"]} sends, the client made {want}')
    # ... in the version the table says the client speaks.
    v1 = name in V1_CLIENTS
    if d['sends_v1'] != (want if v1 else 0):
        raise SystemExit(f'clients: {name}: {d["sends_v1"]} of {want} sends were 1.0, expected {"all" if v1 else "none"}')
    r['server_us_per_send'] = d['send_cpu_ns'] / 1000 / d['sends'] if d['sends'] else 0.0
    r['server_us_per_event'] = d['stream_cpu_ns'] / 1000 / d['events'] if d['events'] else 0.0
    r['seconds'] = took
    return r


def fmt_rate(v: float) -> str:
    if v >= 100_000:
        return f'{v / 1000:.0f}k'
    if v >= 10_000:
        return f'{v / 1000:.1f}k'
    return f'{v:,.0f}'


def fmt_us(v: float) -> str:
    return f'{v:,.0f} µs' if v >= 100 else f'{v:.1f} µs'


def fmt_kib(v: float) -> str:
    return f'{v:,.0f} KiB' if abs(v) >= 100 else f'{v:.1f} KiB'


def cell(values: list[float], f) -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return f(med)
    return f'{f(med)} [{f(min(values))}–{f(max(values))}]'


def table(results: dict[str, list[dict]], names: list[str]) -> str:
    labels = {n: lbl for n, lbl, _ in CLIENTS}
    out = ['| client | sends/s | CPU per send | stream events/s | CPU per event | memory per open stream | server CPU per send | server CPU per event |',
           '|---|---|---|---|---|---|---|---|']
    for n in names:
        rs = results[n]
        col = lambda key: [r[key] for r in rs]  # noqa: E731
        out.append('| ' + ' | '.join([
            labels[n],
            cell(col('sends_per_s'), fmt_rate),
            cell(col('cpu_us_per_send'), fmt_us),
            cell(col('events_per_s'), fmt_rate),
            cell(col('cpu_us_per_event'), fmt_us),
            cell(col('rss_kib_per_stream'), fmt_kib),
            cell(col('server_us_per_send'), fmt_us),
            cell(col('server_us_per_event'), fmt_us),
        ]) + ' |')
    return '\n'.join(out)


def goals(results: dict[str, list[dict]]) -> list[str]:
    """Issue 28's client goals as ratios taken inside each round (both clients ran in it),
    median [min-max] over the rounds; only those whose clients ran."""
    out = []

    def ratio(what: str, a: str, b: str, key: str, goal: str) -> None:
        ra, rb = results.get(a), results.get(b)
        if not ra or not rb:
            return
        rs = [x[key] / y[key] for x, y in zip(ra, rb) if y[key]]
        if rs:
            spread = f' [{min(rs):.2f}–{max(rs):.2f}]' if len(rs) > 1 else ''
            out.append(f'- {what}: {statistics.median(rs):.2f}x{spread} (goal: {goal})')

    for sdk in ('go-sdk', 'go-sdk-v2'):
        for c in ('driver', 'go-binding', 'go-binding-procs2'):
            ratio(f'{c} sends/s ÷ {sdk} sends/s', c, sdk, 'sends_per_s', 'at least 2x')
    ratio('raw sends/s ÷ driver sends/s', 'raw', 'driver', 'sends_per_s', 'at most 1.5x')
    for c, sdk in (('go-nethttp-0.3', 'go-sdk'), ('go-nethttp', 'go-sdk'), ('go-nethttp', 'go-sdk-v2')):
        ratio(f'{c} sends/s ÷ {sdk} sends/s', c, sdk, 'sends_per_s', 'at least 1.5x')
    for sdk in ('python-sdk', 'python-sdk-0.3'):
        ratio(f'python-binding sends/s ÷ {sdk} sends/s', 'python-binding', sdk, 'sends_per_s', 'at least 10x')
        ratio(f'python-binding events/s ÷ {sdk} events/s', 'python-binding', sdk, 'events_per_s', 'at least 5x')
    for mine, sdk in (('python-async', 'python-sdk-0.3'), ('python-async-1.0', 'python-sdk')):
        ratio(f'{mine} sends/s ÷ {sdk} sends/s', mine, sdk, 'sends_per_s', 'at least 3x')
        ratio(f'{mine} events/s ÷ {sdk} events/s', mine, sdk, 'events_per_s', 'at least 3x')
    for mine in ('java-async', 'java-sdk-a2a-core'):
        ratio(f'{mine} sends/s ÷ java-sdk-jdk sends/s', mine, 'java-sdk-jdk', 'sends_per_s', 'at least 1x')
        ratio(f'{mine} events/s ÷ java-sdk-jdk events/s', mine, 'java-sdk-jdk', 'events_per_s', 'at least 1x')
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--smoke', action='store_true', help='a few calls per client, one round (CI)')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--only', help='comma-separated client names: ' + ','.join(n for n, _, _ in CLIENTS))
    ap.add_argument('--sends', type=int)
    ap.add_argument('--events', type=int)
    ap.add_argument('--idle', type=int)
    ap.add_argument('--python', choices=['auto', 'src', 'installed'], default='auto',
                    help="which Python binding: the .venv's installed wheel (pip install ./bindings/python, "
                         "with any compiled fast path it builds), bindings/python/src over the release "
                         "library (pure ctypes), or auto (default): the installed wheel when its Python "
                         "files are those of bindings/python/src, else src")
    ap.add_argument('--json', help='also write every client run as JSON to this file')
    ap.add_argument('--pin', choices=['none', 'same', 'split'], default='none',
                    help='CPU placement (see above): none (default, the scheduler decides), same '
                         '(server and clients on one CPU) or split (the server on one, the clients on '
                         'the others)')
    a = ap.parse_args()
    names = [n for n, _, _ in CLIENTS]
    if a.only:
        wanted = a.only.split(',')
        unknown = [w for w in wanted if w not in names]
        if unknown:
            ap.error(f'unknown clients {unknown}; known: {names}')
        names = [n for n in names if n in wanted]
    else:
        names = [n for n in names if n not in OPT_IN]
    params = dict(SMOKE if a.smoke else FULL)
    for key, v in (('BENCH_SENDS', a.sends), ('BENCH_EVENTS', a.events), ('BENCH_IDLE', a.idle)):
        if v is not None:
            params[key] = v
    rounds = 1 if a.smoke else a.rounds
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='a2a-bench-clients-') as tmp:
        b = build(names, Path(tmp))
        # Only a run with a Python binding client looks for the .venv's installed package.
        uses_binding = any(n.startswith('python-') and 'sdk' not in n for n in names)
        installed = installed_python_binding(Path(tmp)) if uses_binding else None
        if a.python == 'installed' and 'python-binding' in names and installed is None:
            raise SystemExit('clients: --python installed: a2a_core is not installed in .venv '
                             '(scripts/ci/40-python.sh, or .venv/bin/python -m pip install ./bindings/python)')
        python_installed = a.python == 'installed' or (a.python == 'auto' and installed is not None
                                                       and installed[1])
        built = time.monotonic()
        server_cpus, client_cpus = placement(a.pin)
        server = Server(b, server_cpus)
        server.prime([params['BENCH_WARMUP_EVENTS'], params['BENCH_EVENTS']])
        log(f'server {server.url}; {rounds} round(s) of {len(names)} clients; {params}')
        results: dict[str, list[dict]] = {n: [] for n in names}
        try:
            for rnd in range(rounds):
                order = names[rnd % len(names):] + names[:rnd % len(names)]
                for n in order:
                    r = run_client(n, b, server, params, python_installed, 180 if a.smoke else 1800,
                                   client_cpus)
                    log(f'round {rnd + 1} {n}: {r["sends_per_s"]:.0f} sends/s, {r["events_per_s"]:.0f} events/s ({r["seconds"]:.1f} s)')
                    results[n].append(r)
            final = server.stats()
        finally:
            server.stop()
    load = os.getloadavg()
    print(('Smoke run' if a.smoke else f'{rounds} rotated rounds') +
          f' ({params["BENCH_SENDS"]} sends, a stream of {params["BENCH_EVENTS"]} events,'
          f' {params["BENCH_IDLE"]} idle streams per client); load average at the end'
          f' {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} CPUs;'
          f' build {built - started:.0f} s, clients {time.monotonic() - built:.0f} s.'
          + ('' if a.pin == 'none' else f' Pinned ({a.pin}): server on CPUs {sorted(server_cpus or [])},'
             f' clients on {sorted(client_cpus or [])}.')
          + (' Python binding: ' + (f"the .venv's installed package ({installed[0] if installed else '?'})"
                                    if python_installed
                                    else 'bindings/python/src over the release library (pure ctypes)')
             + '.' if 'python-binding' in names else '') + '\n')
    print(table(results, names))
    g = goals(results)
    if g:
        print('\nIssue 28 goals (ratios inside each round, median [min–max]):\n' + '\n'.join(g))
    print(f'\nServer process CPU over the whole run: {final["process_cpu_ns"] / 1e9:.2f} s for'
          f' {final["sends"]} sends and {final["events"]} stream events.')
    if a.json:
        Path(a.json).write_text(json.dumps({'params': params, 'results': results}, indent=1))
    return 0


if __name__ == '__main__':
    sys.exit(main())
