"""The `a2a` command line (the reference driver) against both real peers, every protocol
version and binding each offers, every subcommand: card, send, stream, get, cancel,
resubscribe. Exit statuses and `--json` keys come from the outcome table (README, issue 5).

At the end of the session an interop matrix (peer x version x binding x subcommand,
passed/failed) is printed to the terminal.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator

import pytest

VERSIONS = ['0.3', '1.0']
BINDINGS = ['jsonrpc', 'http+json']
SUBCOMMANDS = ['card', 'send', 'stream', 'get', 'cancel', 'resubscribe']
MATRIX: dict[tuple[str, str, str, str], str] = {}
TIMEOUT = 30


@pytest.fixture(scope='module', autouse=True)
def interop_matrix(request: pytest.FixtureRequest) -> Iterator[None]:
    """Prints the matrix when the module is done (to the terminal, not the capture)."""
    yield
    if not MATRIX:
        return
    out = ['', 'a2a CLI interop matrix (peer x version x binding x subcommand)',
           f"{'peer':<8}{'version':<9}{'binding':<11}" + ''.join(f'{s:<13}' for s in SUBCOMMANDS)]
    for peer in ['python', 'js']:
        for v in VERSIONS:
            for b in BINDINGS:
                cells = [MATRIX.get((peer, v, b, s), 'not run') for s in SUBCOMMANDS]
                out.append(f'{peer:<8}{v:<9}{b:<11}' + ''.join(f'{c:<13}' for c in cells))
    capture = request.config.pluginmanager.get_plugin('capturemanager')
    if capture is not None:
        with capture.global_and_fixture_disabled():
            print('\n'.join(out), flush=True)
    else:
        print('\n'.join(out), flush=True)


def run(a2a_bin: str, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([a2a_bin, *args], capture_output=True, text=True, timeout=timeout)


def opts(version: str, binding: str) -> list[str]:
    return ['--allow-http', '--protocol', version, '--binding', binding]


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def first_task_id(proc: subprocess.Popen[str], deadline: float) -> str:
    """Reads `--json` stream lines until one carries a task id (bounded by `deadline`)."""
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        obj = json.loads(line)
        if obj.get('task_id'):
            return obj['task_id']
    raise AssertionError('the stream produced no task id in time')


@pytest.mark.parametrize('binding', BINDINGS)
@pytest.mark.parametrize('version', VERSIONS)
def test_every_subcommand(a2a_bin: str, peer, request: pytest.FixtureRequest, version: str, binding: str) -> None:
    kind = request.node.callspec.params['peer']
    url = peer.url
    o = opts(version, binding)
    want_binding = 'JSON-RPC' if binding == 'jsonrpc' else 'HTTP+JSON'

    def record(sub: str, ok: bool) -> None:
        MATRIX[(kind, version, binding, sub)] = 'passed' if ok else 'FAILED'

    failures: list[str] = []

    def check(sub: str, cond: bool, detail: str) -> None:
        if sub not in {k[3] for k in MATRIX if k[:3] == (kind, version, binding)}:
            record(sub, cond)
        elif not cond:
            record(sub, False)
        if not cond:
            failures.append(f'{sub}: {detail}')

    # card
    r = run(a2a_bin, 'card', url, *o, '--json')
    card = json.loads(r.stdout) if r.returncode == 0 else {}
    check('card', r.returncode == 0 and card.get('version') == version and card.get('binding') == want_binding,
          f'exit {r.returncode} {r.stdout[:300]} {r.stderr[-300:]}')

    # send: a completed task, with its text on stdout (human mode) and the ids in --json
    r = run(a2a_bin, 'send', url, 'echo interop hello', *o, '--json')
    ok = r.returncode == 0
    task_id = ''
    if ok:
        out = json.loads(r.stdout)
        task_id = out['correlation']['task_id'] or ''
        ok = out['channel'] == 'task' and out['state'] == 'completed' and bool(task_id)
        ok = ok and out['correlation']['traceparent'].startswith('00-')
    h = run(a2a_bin, 'send', url, 'echo interop hello', *o)
    ok = ok and h.returncode == 0 and h.stdout.strip() == 'interop hello'
    check('send', ok, f'exit {r.returncode}/{h.returncode} {r.stdout[:300]} {h.stdout[:100]} {r.stderr[-300:]}')

    # send fail: exit 5 with the ADK error_id; reject: exit 6; message: exit 0
    r = run(a2a_bin, 'send', url, 'fail', *o, '--json')
    failed = json.loads(r.stdout) if r.stdout.strip() else {}
    check('send', r.returncode == 5 and failed.get('state') == 'failed' and len(failed.get('error_id') or '') == 12,
          f'fail: exit {r.returncode} {r.stdout[:300]}')
    r = run(a2a_bin, 'send', url, 'reject', *o)
    check('send', r.returncode == 6, f'reject: exit {r.returncode} {r.stderr[-300:]}')
    r = run(a2a_bin, 'send', url, 'message direct reply', *o)
    check('send', r.returncode == 0 and 'direct reply' in r.stdout, f'message: exit {r.returncode} {r.stdout[:200]}')

    # stream: every artifact chunk, then the end object, exit 0
    r = run(a2a_bin, 'stream', url, 'stream 3', *o, '--json')
    items = lines(r.stdout) if r.returncode == 0 else []
    arts = [i for i in items if i.get('item') == 'artifact-update']
    end = items[-1] if items else {}
    check('stream', r.returncode == 0 and len(arts) == 3 and end.get('end') == 'completed'
          and end.get('state') == 'completed',
          f'exit {r.returncode} {len(arts)} artifacts, end {end} {r.stderr[-300:]}')

    # get the task the send created
    r = run(a2a_bin, 'get', url, task_id or 'missing', *o, '--json')
    got = json.loads(r.stdout) if r.stdout.strip() else {}
    check('get', r.returncode == 0 and got.get('task_id') == task_id and got.get('state') == 'completed',
          f'exit {r.returncode} {r.stdout[:300]} {r.stderr[-300:]}')
    r = run(a2a_bin, 'get', url, 'no-such-task-id', *o, '--json')
    got = json.loads(r.stdout) if r.stdout.strip() else {}
    check('get', r.returncode == 4 and got.get('error') == 'TaskNotFound',
          f'unknown task: exit {r.returncode} {r.stdout[:300]}')

    # cancel a running task: exit 6 (canceled), and the stream that started it ends canceled
    deadline = time.monotonic() + TIMEOUT
    proc = subprocess.Popen([a2a_bin, 'stream', url, 'cancel-me', *o, '--json'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        tid = first_task_id(proc, deadline)
        r = run(a2a_bin, 'cancel', url, tid, *o, '--json')
        canceled = json.loads(r.stdout) if r.stdout.strip() else {}
        rest, _ = proc.communicate(timeout=TIMEOUT)
        last = lines(rest)[-1] if rest.strip() else {}
        check('cancel', r.returncode == 6 and canceled.get('state') == 'canceled'
              and proc.returncode == 6 and last.get('state') == 'canceled',
              f'cancel exit {r.returncode} {r.stdout[:200]}; stream exit {proc.returncode} {last}')
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    # resubscribe to a running task: its remaining events and the completed end, exit 0
    deadline = time.monotonic() + TIMEOUT
    proc = subprocess.Popen([a2a_bin, 'stream', url, 'ticks 4 0.4', *o, '--json'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        tid = first_task_id(proc, deadline)
        r = run(a2a_bin, 'resubscribe', url, tid, *o, '--json')
        items = lines(r.stdout) if r.stdout.strip() else []
        end = items[-1] if items else {}
        proc.communicate(timeout=TIMEOUT)
        check('resubscribe', r.returncode == 0 and end.get('end') == 'completed' and end.get('task_id') == tid
              and end['correlation']['method'] == 'SubscribeToTask' and proc.returncode == 0,
              f'exit {r.returncode} end {end} {r.stderr[-300:]}')
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    assert not failures, '\n'.join(failures)


def test_version_mismatch_is_reported_not_hung(a2a_bin: str, py_peer_v1, js_peer_v1) -> None:
    """A 1.0-only peer asked for 0.3: the card offers no 0.3 interface, so the client refuses
    before sending (card resolution, exit 3) with a clear reason, in well under a second."""
    for p in (py_peer_v1, js_peer_v1):
        t = time.monotonic()
        r = run(a2a_bin, 'send', p.url, 'echo x', '--allow-http', '--protocol', '0.3', '--json')
        out = json.loads(r.stdout)
        assert r.returncode == 3, r.stderr
        assert out['error'] == 'CardResolution'
        assert 'interface' in out['message'].lower()
        assert time.monotonic() - t < 10


def test_python_keepalives_count_as_activity(a2a_bin: str, py_peer) -> None:
    """The Python peer pings every second: a 3 s silence between ticks survives a 2 s idle
    timeout because the pings keep the stream alive."""
    r = run(a2a_bin, 'stream', py_peer.url, 'ticks 2 3', '--allow-http', '--idle-timeout', '2', '--json')
    items = lines(r.stdout)
    assert r.returncode == 0, r.stderr
    assert items[-1]['end'] == 'completed'


def test_js_silence_hits_the_idle_timeout(a2a_bin: str, js_peer) -> None:
    """The JS peer sends no keep-alives: 3 s of silence is cut by a 1 s idle timeout, with
    advice to resubscribe (the task id is known), exit 3."""
    t = time.monotonic()
    r = run(a2a_bin, 'stream', js_peer.url, 'slow 3', '--allow-http', '--idle-timeout', '1', '--json')
    items = lines(r.stdout)
    assert r.returncode == 3, r.stderr
    assert items[-1]['end'] == 'timed_out'
    assert items[-1]['retry'] == 'resubscribe'
    assert time.monotonic() - t < 2.9


def interface(url: str, binding: str) -> str:
    """The peer's interface URL for a binding (both peers: JSON-RPC on `/`, REST on `/rest`)."""
    base = url.rstrip('/')
    return base + '/' if binding == 'jsonrpc' else base + '/rest'


def last_json(r: subprocess.CompletedProcess[str]) -> dict:
    assert r.stdout.strip(), f'no output; exit {r.returncode}; stderr {r.stderr[-500:]}'
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize('binding', BINDINGS)
@pytest.mark.parametrize('sub', ['send', 'stream'])
def test_a_03_call_to_a_10_only_server_is_a_version_error(
        a2a_bin: str, py_peer_v1, js_peer_v1, sub: str, binding: str) -> None:
    """Issue 5: a 0.3 call to a server in 1.0-only mode ends in a protocol outcome with a
    version hint (exit 4), never a hang or a generic error. The card of a 1.0-only peer
    offers no 0.3 interface (test_version_mismatch_is_reported_not_hung), so `--no-card`
    sends the 0.3 request to the interface directly. What each peer answers (transcribed in
    tests/peers/README.md): Python JSON-RPC -32601 Method not found, Python REST 400
    VERSION_NOT_SUPPORTED, JS -32009 / 400 VERSION_NOT_SUPPORTED."""
    want = {
        ('python', 'jsonrpc'): 'MethodNotFound',
        ('python', 'http+json'): 'VersionNotSupported',
        ('js', 'jsonrpc'): 'VersionNotSupported',
        ('js', 'http+json'): 'VersionNotSupported',
    }
    for kind, p in (('python', py_peer_v1), ('js', js_peer_v1)):
        t = time.monotonic()
        r = run(a2a_bin, sub, interface(p.url, binding), 'echo x', '--no-card', '--protocol', '0.3',
                '--binding', binding, '--allow-http', '--json', timeout=15)
        out = last_json(r)
        where = f'{kind} {binding} {sub}: {out}'
        assert r.returncode == 4, where
        assert out['channel'] == 'protocol', where
        assert out['error'] == want[(kind, binding)], where
        assert out['retry'] == 'fix_version', where
        assert 'version mismatch' in (out['hint'] or ''), where
        if sub == 'stream':
            assert out['end'] == 'not_a_stream', where
        assert time.monotonic() - t < 10, where


@pytest.mark.parametrize('binding', BINDINGS)
@pytest.mark.parametrize('sub', ['send', 'stream'])
def test_a_10_call_without_the_version_header(a2a_bin: str, py_peer, js_peer, sub: str, binding: str) -> None:
    """Issue 5: a 1.0 call without `A2A-Version` (`--no-version-header`, a testing aid that
    reproduces clients that omit it). The Python server reads it as 0.3 and refuses it with
    VERSION_NOT_SUPPORTED on both bindings: a protocol outcome with a hint naming the header
    (exit 4). The JS server (both versions) answers JSON-RPC with -32601 `Method not found:
    SendMessage` (a protocol outcome with a version hint), but its REST routes accept 1.0
    without the header: the call completes (exit 0). Asserted as each really behaves."""
    for kind, p in (('python', py_peer), ('js', js_peer)):
        t = time.monotonic()
        r = run(a2a_bin, sub, p.url, 'echo no header', '--protocol', '1.0', '--binding', binding,
                '--allow-http', '--no-version-header', '--json', timeout=15)
        out = last_json(r)
        where = f'{kind} {binding} {sub}: {out}'
        if kind == 'js' and binding == 'http+json':
            assert r.returncode == 0, where
            assert out['channel'] == 'task' and out['state'] == 'completed', where
            continue
        assert r.returncode == 4, where
        assert out['channel'] == 'protocol', where
        assert out['retry'] == 'fix_version', where
        hint = out['hint'] or ''
        assert 'version mismatch' in hint, where
        if kind == 'python':
            assert out['error'] == 'VersionNotSupported', where
            assert 'A2A-Version: 1.0' in hint, where
        else:
            assert out['error'] == 'MethodNotFound', where
            assert 'A2A-Version' in hint, where
        if sub == 'stream':
            assert out['end'] == 'not_a_stream', where
        assert time.monotonic() - t < 10, where
    # Control: the same calls with the header succeed on both peers.
    for p in (py_peer, js_peer):
        r = run(a2a_bin, sub, p.url, 'echo with header', '--protocol', '1.0', '--binding', binding,
                '--allow-http', '--json', timeout=15)
        assert r.returncode == 0, f'{p.url} {binding} {sub}: {r.stdout[-400:]} {r.stderr[-400:]}'
