#!/usr/bin/env python3
"""Start and stop the real A2A peers (tests/peers/python and tests/peers/js) for tests.

Standard library only; run it with the repository's .venv python (scripts/ci/05-setup.sh
creates it), which the Python peer needs anyway.

As a library (pytest and other Python code):

    from launch import peer
    with peer('python', '--version', '1.0', '--ping', '1') as p:
        httpx.get(p.url + '/.well-known/agent-card.json')

As a command, for tests in other languages:

    launch.py KINDS [PEER OPTIONS...] -- CMD [ARGS...]
        Starts each peer of KINDS (`python`, `js`, or both comma-separated: `python,js`) with
        the given peer options, runs CMD with the environment below, stops the peers
        (SIGTERM, then SIGKILL after --stop-timeout) and exits with CMD's exit status.
        A2A_PEER_URL_PYTHON / A2A_PEER_URL_JS   base URL of each peer started
        A2A_PEER_URL, A2A_PEER_KIND             the same, when exactly one kind is started
    launch.py KINDS [PEER OPTIONS...]
        Starts the peers, prints `READY <kind> <base_url>` per peer, and keeps them running
        until SIGINT/SIGTERM (or until a peer dies: exit status 1).

Launcher options (before KINDS): --ready-timeout SECONDS (default 20), --stop-timeout
SECONDS (default 5). Exit status 125 when a peer could not be started (its stderr is shown).

Peer options are the peers' own (both accept the same ones): --port N (0 = free port, the
default), --host H, --version both|1.0|0.3, --ping SECONDS (Python only; the JS SDK has no
keep-alives), --cancel-wait SECONDS, --grace SECONDS.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
KINDS = ('python', 'js')
DEFAULT_READY_TIMEOUT = 20.0
DEFAULT_STOP_TIMEOUT = 5.0


class PeerStartError(RuntimeError):
    """A peer did not print READY in time, or exited first. The message carries its stderr."""


def _python() -> str:
    """The interpreter for the Python peer: $A2A_PEER_PYTHON, else the repo's .venv, else ours."""
    explicit = os.environ.get('A2A_PEER_PYTHON')
    if explicit:
        return explicit
    venv = REPO / '.venv' / 'bin' / 'python'
    return str(venv) if venv.exists() else sys.executable


def command(kind: str, args: Sequence[str] = ()) -> list[str]:
    """The argv that starts a peer of `kind` with peer options `args`."""
    if kind == 'python':
        return [_python(), '-u', str(HERE / 'python' / 'peer.py'), *args]
    if kind == 'js':
        if not (HERE / 'js' / 'node_modules' / '@a2a-js' / 'sdk').is_dir():
            raise PeerStartError(
                'tests/peers/js/node_modules is missing: run scripts/ci/05-setup.sh '
                '(npm ci in tests/peers/js)'
            )
        return [os.environ.get('A2A_PEER_NODE', 'node'), str(HERE / 'js' / 'peer.mjs'), *args]
    raise ValueError(f'unknown peer kind {kind!r}; expected one of {", ".join(KINDS)}')


@dataclass
class Peer:
    """A running peer: its kind, base URL (no trailing slash) and process."""

    kind: str
    url: str
    proc: subprocess.Popen[bytes]
    stderr_path: Path
    _stdout_rest: list[bytes] = field(default_factory=list)

    def stderr(self) -> str:
        """Everything the peer has written to standard error so far (its log)."""
        try:
            return self.stderr_path.read_text(errors='replace')
        except OSError:
            return ''

    def stop(self, timeout: float = DEFAULT_STOP_TIMEOUT) -> int | None:
        """SIGTERM, wait up to `timeout`, then SIGKILL. Returns the exit status."""
        return _stop(self.proc, timeout)


def _stop(proc: subprocess.Popen[bytes], timeout: float) -> int | None:
    if proc.poll() is not None:
        return proc.returncode
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait(timeout=timeout)


def _tail(path: Path, limit: int = 4000) -> str:
    try:
        text = path.read_text(errors='replace')
    except OSError:
        return ''
    return text[-limit:]


def start(
    kind: str,
    args: Sequence[str] = (),
    *,
    ready_timeout: float = DEFAULT_READY_TIMEOUT,
    env: dict[str, str] | None = None,
) -> Peer:
    """Start a peer and wait (at most `ready_timeout` s) for its `READY <url>` line.

    The peer runs in its own process group; its stderr goes to a temporary file
    (`Peer.stderr()`). The caller must call `Peer.stop()` (or use `peer()`).
    """
    argv = command(kind, args)
    err_fd, err_name = tempfile.mkstemp(prefix=f'a2a-peer-{kind}-', suffix='.log')
    stderr_path = Path(err_name)
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=err_fd,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )
    os.close(err_fd)
    assert proc.stdout is not None
    deadline = time.monotonic() + ready_timeout
    buf = b''
    url = None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        while url is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise PeerStartError(
                    f'{kind} peer printed no READY line within {ready_timeout} s\n'
                    f'argv: {argv}\nstderr:\n{_tail(stderr_path)}'
                )
            if not sel.select(timeout=min(remaining, 0.2)):
                if proc.poll() is not None:
                    raise PeerStartError(
                        f'{kind} peer exited with status {proc.returncode} before READY\n'
                        f'argv: {argv}\nstderr:\n{_tail(stderr_path)}'
                    )
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                proc.wait(timeout=ready_timeout)
                raise PeerStartError(
                    f'{kind} peer closed stdout (status {proc.returncode}) before READY\n'
                    f'argv: {argv}\nstderr:\n{_tail(stderr_path)}'
                )
            buf += chunk
            while b'\n' in buf and url is None:
                line, buf = buf.split(b'\n', 1)
                text = line.decode(errors='replace').strip()
                if text.startswith('READY '):
                    url = text[len('READY ') :].strip().rstrip('/')
    except BaseException:
        sel.close()
        _stop(proc, DEFAULT_STOP_TIMEOUT)
        raise
    sel.close()
    p = Peer(kind=kind, url=url, proc=proc, stderr_path=stderr_path)
    # Keep draining stdout so a chatty peer can never block on a full pipe.
    threading.Thread(target=_drain, args=(proc,), daemon=True).start()
    return p


def _drain(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdout is not None
    with contextlib.suppress(OSError, ValueError):
        while proc.stdout.read(65536):
            pass


@contextlib.contextmanager
def peer(
    kind: str,
    *args: str,
    ready_timeout: float = DEFAULT_READY_TIMEOUT,
    stop_timeout: float = DEFAULT_STOP_TIMEOUT,
    env: dict[str, str] | None = None,
) -> Iterator[Peer]:
    """Context manager: a running peer for the duration of the `with` block."""
    p = start(kind, args, ready_timeout=ready_timeout, env=env)
    try:
        yield p
    finally:
        p.stop(stop_timeout)
        with contextlib.suppress(OSError):
            p.stderr_path.unlink()


def _usage(msg: str) -> int:
    print(f'launch.py: {msg}\n', file=sys.stderr)
    print(__doc__.split('As a command', 1)[1].split('Peer options are', 1)[0], file=sys.stderr)
    return 2


def main(argv: Sequence[str]) -> int:
    """The command-line entry point; see the module doc."""
    argv = list(argv)
    ready_timeout = DEFAULT_READY_TIMEOUT
    stop_timeout = DEFAULT_STOP_TIMEOUT
    while argv and argv[0] in ('--ready-timeout', '--stop-timeout'):
        if len(argv) < 2:
            return _usage(f'{argv[0]} needs a value')
        try:
            value = float(argv[1])
        except ValueError:
            return _usage(f'{argv[0]}: not a number: {argv[1]!r}')
        if argv[0] == '--ready-timeout':
            ready_timeout = value
        else:
            stop_timeout = value
        argv = argv[2:]
    if not argv or argv[0] in ('-h', '--help'):
        return _usage('which peers? (python, js or python,js)')
    kinds = argv[0].split(',')
    if any(k not in KINDS for k in kinds) or len(set(kinds)) != len(kinds):
        return _usage(f'bad peer kinds {argv[0]!r}')
    rest = argv[1:]
    cmd: list[str] | None = None
    if '--' in rest:
        i = rest.index('--')
        rest, cmd = rest[:i], rest[i + 1 :]
        if not cmd:
            return _usage('nothing to run after --')

    with contextlib.ExitStack() as stack:
        peers = []
        for kind in kinds:
            try:
                peers.append(
                    stack.enter_context(
                        peer(kind, *rest, ready_timeout=ready_timeout, stop_timeout=stop_timeout)
                    )
                )
            except PeerStartError as e:
                print(f'launch.py: {e}', file=sys.stderr)
                return 125
        env = dict(os.environ)
        for p in peers:
            env[f'A2A_PEER_URL_{p.kind.upper()}'] = p.url
        if len(peers) == 1:
            env['A2A_PEER_URL'] = peers[0].url
            env['A2A_PEER_KIND'] = peers[0].kind
        if cmd is not None:
            try:
                return subprocess.run(cmd, env=env, check=False).returncode
            except FileNotFoundError:
                print(f'launch.py: command not found: {cmd[0]}', file=sys.stderr)
                return 127
        for p in peers:
            print(f'READY {p.kind} {p.url}', flush=True)
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        while not stop.wait(0.5):
            for p in peers:
                if p.proc.poll() is not None:
                    print(
                        f'launch.py: {p.kind} peer exited with status {p.proc.returncode}\n'
                        f'{_tail(p.stderr_path)}',
                        file=sys.stderr,
                    )
                    return 1
        return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
