"""Real networks through the Python client (issue 14): a private CA (`ca_file`), a client
certificate, a CONNECT proxy with credentials, fixed resolutions and the total deadline,
all on 127.0.0.1. The test CA and certificates are made by the openssl command line (Debian's
`openssl` package: the Rust tests use rcgen, which Python cannot call); the TLS agent is
Python's own `ssl` + `http.server`."""

from __future__ import annotations

import base64
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from a2a_core import CardResolutionError, Client, ClientStreamEnd, ErrorName, RequestSent

pytestmark = pytest.mark.skipif(shutil.which('openssl') is None, reason='needs openssl')


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(['openssl', *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope='module')
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ca.pem, agent.pem/agent.key (localhost, 127.0.0.1), client.pem/client.key."""
    d = tmp_path_factory.mktemp('pki')
    _openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
             '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=a2a-core py CA',
             '-addext', 'basicConstraints=critical,CA:TRUE',
             '-addext', 'keyUsage=critical,keyCertSign,cRLSign', cwd=d)
    for name, ext in (('agent', 'subjectAltName=DNS:localhost,IP:127.0.0.1\n'
                                'extendedKeyUsage=serverAuth\n'),
                      ('client', 'subjectAltName=DNS:client\nextendedKeyUsage=clientAuth\n')):
        (d / f'{name}.ext').write_text('basicConstraints=CA:FALSE\n' + ext)
        _openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
                 '-keyout', f'{name}.key', '-out', f'{name}.csr', '-subj', f'/CN={name}', cwd=d)
        _openssl('x509', '-req', '-in', f'{name}.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key',
                 '-CAcreateserial', '-out', f'{name}.pem', '-days', '2',
                 '-extfile', f'{name}.ext', cwd=d)
    return d


class _Agent(BaseHTTPRequestHandler):
    """GET: a 0.3 card naming this server; POST /sse: keep-alive comments only (bounded);
    POST: a JSON-RPC message saying pong."""

    protocol_version = 'HTTP/1.1'

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: bytes, ctype: str = 'application/json') -> None:
        self.send_response(200)
        self.send_header('content-type', ctype)
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        base = self.server.base  # type: ignore[attr-defined]
        card = {'protocolVersion': '0.3.0', 'name': 'py-agent', 'description': 'd',
                'url': base + '/', 'preferredTransport': 'JSONRPC', 'version': '1',
                'capabilities': {'streaming': True}, 'defaultInputModes': ['text/plain'],
                'defaultOutputModes': ['text/plain'], 'skills': []}
        self._send(json.dumps(card).encode())

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get('content-length', '0')))
        if self.path.startswith('/sse'):
            self.send_response(200)
            self.send_header('content-type', 'text/event-stream')
            self.end_headers()
            for _ in range(300):  # at most 30 s
                try:
                    self.wfile.write(b': keep-alive\n\n')
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.1)
            return
        rid = json.loads(body).get('id')
        reply = {'jsonrpc': '2.0', 'id': rid, 'result': {
            'kind': 'message', 'messageId': 'm1', 'role': 'agent',
            'parts': [{'kind': 'text', 'text': 'pong'}]}}
        self._send(json.dumps(reply).encode())


def _serve(pki: Path | None, client_ca: bool = False) -> Iterator[str]:
    srv = ThreadingHTTPServer(('127.0.0.1', 0), _Agent)
    srv.daemon_threads = True
    port = srv.server_address[1]
    scheme = 'http'
    if pki is not None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(pki / 'agent.pem', pki / 'agent.key')
        if client_ca:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(pki / 'ca.pem')
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        scheme = 'https'
    srv.base = f'{scheme}://localhost:{port}'  # type: ignore[attr-defined]
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield srv.base  # type: ignore[attr-defined]
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.fixture
def tls_agent(pki: Path) -> Iterator[str]:
    yield from _serve(pki)


@pytest.fixture
def mtls_agent(pki: Path) -> Iterator[str]:
    yield from _serve(pki, client_ca=True)


@pytest.fixture
def http_agent() -> Iterator[str]:
    yield from _serve(None)


class _Proxy:
    """A CONNECT proxy on 127.0.0.1 asking for Basic `creds` when given."""

    def __init__(self, creds: str | None) -> None:
        self.sock = socket.create_server(('127.0.0.1', 0))
        self.port = self.sock.getsockname()[1]
        self.creds = creds
        self.seen: list[str] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._tunnel, args=(c,), daemon=True).start()

    def _tunnel(self, c: socket.socket) -> None:
        c.settimeout(10)
        head = b''
        while b'\r\n\r\n' not in head and len(head) < 65536:
            chunk = c.recv(1)
            if not chunk:
                return
            head += chunk
        lines = head.decode('latin-1').split('\r\n')
        target = lines[0].split(' ')[1]
        auth = next((ln.split(':', 1)[1].strip() for ln in lines[1:]
                     if ln.lower().startswith('proxy-authorization:')), '')
        self.seen.append(target)
        if self.creds is not None and auth != 'Basic ' + base64.b64encode(
                self.creds.encode()).decode():
            c.sendall(b'HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n')
            c.close()
            return
        host, port = target.rsplit(':', 1)
        up = socket.create_connection((host, int(port)), timeout=10)
        c.sendall(b'HTTP/1.1 200 Connection established\r\n\r\n')

        def pipe(a: socket.socket, b: socket.socket) -> None:
            try:
                while data := a.recv(65536):
                    b.sendall(data)
            except OSError:
                pass
            finally:
                try:
                    b.shutdown(socket.SHUT_WR)
                except OSError:
                    pass

        threading.Thread(target=pipe, args=(up, c), daemon=True).start()
        pipe(c, up)

    def close(self) -> None:
        self.sock.close()


def test_private_ca_is_trusted_with_ca_file_and_named_without(pki: Path, tls_agent: str) -> None:
    with Client(tls_agent, ca_file=str(pki / 'ca.pem'), proxy='') as c:
        o = c.send('ping')
        assert o.text == 'pong', o
    with pytest.raises(CardResolutionError) as e:
        Client(tls_agent, proxy='')
    o = e.value.outcome
    assert o is not None
    assert o.error == ErrorName.TLS
    assert o.reason == 'unknown_issuer'
    assert o.request_sent == RequestSent.NO
    assert o.hint and 'cacert' in o.hint


def test_client_certificate(pki: Path, mtls_agent: str) -> None:
    with pytest.raises(CardResolutionError) as e:
        Client(mtls_agent, ca_file=str(pki / 'ca.pem'), proxy='')
    assert e.value.outcome is not None
    assert e.value.outcome.reason == 'client_cert_refused', e.value.outcome
    with Client(mtls_agent, ca_file=str(pki / 'ca.pem'), proxy='',
                client_cert_file=str(pki / 'client.pem'),
                client_key_file=str(pki / 'client.key')) as c:
        assert c.send('ping').text == 'pong'


def test_connect_proxy_with_credentials(pki: Path, tls_agent: str) -> None:
    proxy = _Proxy('user:secret')
    try:
        url = f'http://user:secret@127.0.0.1:{proxy.port}'
        with Client(tls_agent, ca_file=str(pki / 'ca.pem'), proxy=url) as c:
            assert c.send('ping').text == 'pong'
        port = tls_agent.rsplit(':', 1)[1]
        assert proxy.seen and all(t == f'localhost:{port}' for t in proxy.seen)
        with pytest.raises(CardResolutionError) as e:
            Client(tls_agent, ca_file=str(pki / 'ca.pem'), proxy=f'http://127.0.0.1:{proxy.port}')
        o = e.value.outcome
        assert o is not None
        assert o.error == ErrorName.PROXY
        assert o.reason == 'auth_required'
        assert o.http_status is None
        # no_proxy: the agent is reached directly, the proxy sees nothing more.
        before = len(proxy.seen)
        with Client(tls_agent, ca_file=str(pki / 'ca.pem'),
                    proxy=f'http://127.0.0.1:{proxy.port}', no_proxy='localhost') as c:
            assert c.send('ping').text == 'pong'
        assert len(proxy.seen) == before
    finally:
        proxy.close()


def test_resolve_and_max_time_bound_a_stream(http_agent: str) -> None:
    port = http_agent.rsplit(':', 1)[1]
    c = Client.with_target(f'http://agent.test:{port}/sse', '0.3', 'JSONRPC', allow_http=True,
                           proxy='', resolve=[f'agent.test:{port}:127.0.0.1'],
                           max_time_ms=800, stream_resubscribe_attempts=2)
    started = time.monotonic()
    events = list(c.stream('hello'))
    elapsed = time.monotonic() - started
    end = events[-1]
    assert isinstance(end, ClientStreamEnd)
    assert end.outcome.error == ErrorName.TIMEOUT, end.outcome
    assert end.outcome.request_sent == RequestSent.UNKNOWN
    assert end.resubscribes == 0
    assert 0.7 < elapsed < 15, elapsed
    c.close()
