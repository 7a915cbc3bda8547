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
