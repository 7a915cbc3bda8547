"""Trust in the clients, on loopback: OAuth2 client credentials in `AsyncClient` and in
`Client(http_client=...)` against a token endpoint that counts its requests (one token for
many calls, concurrent calls share one fetch, a refresh when the token is due, a 401 answered
by forgetting the token and retrying once, a refused secret, the token URL from the card, the
token never sent to the card fetch, the token endpoint or another host), and cards verified
while fetching (`fetch_card` / `afetch_card` / the clients' `verify_card=`: the keys given,
or the card's `jku` fetched over HTTPS from the card's own host only)."""

from __future__ import annotations

import asyncio
import base64
import datetime
import http.server
import ipaddress
import json
import logging
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import REPO

from a2a_core import (
    AsyncClient,
    CardResolutionError,
    CardSignatureError,
    Client,
    ClientCredentials,
    ClientStreamEnd,
    OAuth2Error,
    afetch_card,
    fetch_card,
    sign_card,
)

KEYS = REPO / 'core' / 'src' / 'trust' / 'testdata'
SECRET = 'sup3r-s3cret-value'
FAST = {'connect_timeout': 3.0, 'timeout': 20.0}


def serve(handler: type, tls: ssl.SSLContext | None = None) -> http.server.ThreadingHTTPServer:
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    if tls is not None:
        srv.socket = tls.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def stop(srv: http.server.ThreadingHTTPServer) -> None:
    srv.shutdown()
    srv.server_close()


class Quiet(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args: Any) -> None:
        pass

    def reply(self, status: int, body: bytes, kind: str = 'application/json',
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header('content-type', kind)
        self.send_header('content-length', str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)


# --- the token endpoint and the agent ------------------------------------------------------------


class TokenEndpoint:
    """`POST /oauth2/token`: client credentials by HTTP Basic (or form post); issues
    `tok-1`, `tok-2`, ... valid `expires_in` seconds; counts and records its requests."""

    def __init__(self, expires_in: int = 3600) -> None:
        self.expires_in = expires_in
        self.requests: list[dict[str, Any]] = []
        self.issued: list[str] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(Quiet):
            def do_POST(self) -> None:  # noqa: N802
                form = self.rfile.read(int(self.headers['content-length'])).decode()
                owner.requests.append({'path': self.path, 'form': form,
                                       'authorization': self.headers.get('authorization')})
                auth = self.headers.get('authorization') or ''
                ok = auth == 'Basic ' + base64.b64encode(f'agent:{SECRET}'.encode()).decode() \
                    or f'client_secret={SECRET}' in form
                if not ok or 'grant_type=client_credentials' not in form:
                    self.reply(401, b'{"error":"invalid_client","error_description":"who?"}')
                    return
                with owner.lock:
                    token = f'tok-{len(owner.issued) + 1}'
                    owner.issued.append(token)
                self.reply(200, json.dumps({'access_token': token, 'token_type': 'Bearer',
                                            'expires_in': owner.expires_in}).encode(),
                           extra={'cache-control': 'no-store'})

        self.srv = serve(Handler)
        self.url = f'http://127.0.0.1:{self.srv.server_address[1]}/oauth2/token'


class Agent:
    """A 0.3 JSON-RPC agent whose card names an OAuth2 client-credentials flow at `token`:
    A2A calls need a Bearer token the endpoint issued (and not revoked); every request is
    recorded with its Authorization header."""

    def __init__(self, token: TokenEndpoint, interface_host: str = '127.0.0.1') -> None:
        self.token = token
        self.revoked: set[str] = set()
        self.seen: list[tuple[str, str, str | None]] = []
        # tasks/get: the first `working_gets` answered ones say `working`; with
        # `revoke_after_get` each answered one revokes the token it carried.
        self.working_gets = 0
        self.revoke_after_get = False
        owner = self

        class Handler(Quiet):
            def do_GET(self) -> None:  # noqa: N802
                owner.seen.append(('GET', self.path, self.headers.get('authorization')))
                port = self.server.server_address[1]
                card = {'protocolVersion': '0.3.0', 'name': 'oauth-agent', 'description': 'd',
                        'url': f'http://{interface_host}:{port}/a2a',
                        'preferredTransport': 'JSONRPC', 'version': '1',
                        'capabilities': {'streaming': True}, 'skills': [],
                        'defaultInputModes': ['text/plain'],
                        'defaultOutputModes': ['text/plain'],
                        'securitySchemes': {'oauth': {'type': 'oauth2', 'flows': {
                            'clientCredentials': {'tokenUrl': owner.token.url,
                                                  'scopes': {'a2a': 'call'}}}}},
                        'security': [{'oauth': ['a2a']}]}
                self.reply(200, json.dumps(card).encode())

            def do_POST(self) -> None:  # noqa: N802
                auth = self.headers.get('authorization')
                owner.seen.append(('POST', self.path, auth))
                req = json.loads(self.rfile.read(int(self.headers['content-length'])))
                token = (auth or '')[len('Bearer '):] if (auth or '').startswith('Bearer ') \
                    else None
                if token not in owner.token.issued or token in owner.revoked:
                    self.reply(401, b'{"error":"unauthorized"}',
                               extra={'www-authenticate': 'Bearer error="invalid_token"'})
                    return
                state = 'completed'
                if req['method'] == 'tasks/get':
                    if owner.working_gets > 0:
                        owner.working_gets -= 1
                        state = 'working'
                    if owner.revoke_after_get:
                        owner.revoked.add(token)
                task = {'kind': 'task', 'id': 't-1', 'contextId': 'c-1',
                        'status': {'state': state}}
                doc = json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': task})
                if req['method'] == 'message/stream':
                    self.reply(200, f'data: {doc}\n\n'.encode(), 'text/event-stream')
                else:
                    self.reply(200, doc.encode())

        self.srv = serve(Handler)
        self.url = f'http://127.0.0.1:{self.srv.server_address[1]}'

    def posts(self) -> list[str | None]:
        return [a for m, _, a in self.seen if m == 'POST']


@pytest.fixture
def endpoint() -> Iterator[TokenEndpoint]:
    t = TokenEndpoint()
    yield t
    stop(t.srv)


@pytest.fixture
def agent(endpoint: TokenEndpoint) -> Iterator[Agent]:
    a = Agent(endpoint)
    yield a
    stop(a.srv)


class Clock:
    def __init__(self) -> None:
        self.now = 1_767_000_000.0

    def __call__(self) -> float:
        return self.now


def creds(clock: Clock | None = None, **kw: Any) -> ClientCredentials:
    return ClientCredentials('agent', SECRET, allow_http_loopback=True,
                             clock=clock, **kw)


def no_secret_anywhere(endpoint: TokenEndpoint, agent: Agent) -> None:
    """The token went to the A2A requests only: never the card fetch, never the token
    endpoint (which gets the client credentials only)."""
    assert all(a is None for m, _, a in agent.seen if m == 'GET')
    assert all(not (r['authorization'] or '').startswith('Bearer')
               for r in endpoint.requests)
    assert all(r['path'] == '/oauth2/token' for r in endpoint.requests)


# --- AsyncClient -------------------------------------------------------------------------------


def test_async_client_fetches_one_token_and_refreshes_it_when_due(
        endpoint: TokenEndpoint, agent: Agent, caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    endpoint.expires_in = 600

    async def main() -> list[Any]:
        async with AsyncClient(agent.url, allow_http=True, **FAST,
                               oauth2=creds(clock, refresh_early=30.0)) as c:
            first = [await c.send('echo hi') for _ in range(3)]
            clock.now += 600 - 30  # inside the early-refresh margin
            after = await c.send('echo again')
            ended = [e async for e in c.stream('echo stream')]
            return first + [after, ended[-1].outcome]

    with caplog.at_level(logging.DEBUG):
        outcomes = asyncio.run(main())
    assert all(o.success for o in outcomes), outcomes
    assert endpoint.issued == ['tok-1', 'tok-2']
    assert agent.posts() == ['Bearer tok-1'] * 3 + ['Bearer tok-2'] * 2
    assert endpoint.requests[0]['form'] == 'grant_type=client_credentials'
    no_secret_anywhere(endpoint, agent)
    assert SECRET not in caplog.text and 'tok-1' not in caplog.text


def test_concurrent_calls_share_one_token_fetch(endpoint: TokenEndpoint, agent: Agent) -> None:
    async def main() -> list[Any]:
        async with AsyncClient(agent.url, allow_http=True, **FAST, oauth2=creds()) as c:
            return list(await asyncio.gather(*(c.send(f'echo {i}') for i in range(8))))

    outcomes = asyncio.run(main())
    assert all(o.success for o in outcomes)
    assert endpoint.issued == ['tok-1'], 'single flight: one fetch for eight calls'
    assert agent.posts() == ['Bearer tok-1'] * 8


def test_a_401_forgets_the_token_and_retries_once(endpoint: TokenEndpoint, agent: Agent) -> None:
    async def main() -> list[Any]:
        async with AsyncClient(agent.url, allow_http=True, **FAST, oauth2=creds()) as c:
            ok = await c.send('echo one')
            agent.revoked.add('tok-1')  # the agent no longer takes it
            retried = await c.send('echo two')
            got = await c.get('t-1')
            agent.revoked.update(endpoint.issued + ['tok-3', 'tok-4'])  # every token refused
            refused = await c.send('echo three')
            events = [e async for e in c.stream('echo four')]
            return [ok, retried, got, refused, events]

    ok, retried, got, refused, events = asyncio.run(main())
    assert ok.success and retried.success and got.success
    assert refused.http_status == 401 and not refused.success  # retried once, not forever
    end = events[-1]
    assert isinstance(end, ClientStreamEnd) and end.outcome.http_status == 401
    # one, 401 + retry, get, 401 + 401, stream 401 + 401
    assert agent.posts() == ['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2', 'Bearer tok-2',
                             'Bearer tok-2', 'Bearer tok-3', 'Bearer tok-3', 'Bearer tok-4']
    assert endpoint.issued == ['tok-1', 'tok-2', 'tok-3', 'tok-4']
    no_secret_anywhere(endpoint, agent)


def test_a_token_expiring_twice_during_a_wait_does_not_end_it(endpoint: TokenEndpoint,
                                                              agent: Agent) -> None:
    # Each answered poll revokes its token: every later poll is refused once, made again
    # with a new token and goes on; the third answered poll finds the task completed.
    agent.working_gets, agent.revoke_after_get = 2, True

    async def main() -> Any:
        async with AsyncClient(agent.url, allow_http=True, **FAST, oauth2=creds()) as c:
            return await c.wait('t-1', poll_interval=0.05, timeout=5.0)

    waited = asyncio.run(main())
    assert waited.success and waited.state == 'completed', waited
    assert agent.posts() == ['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2', 'Bearer tok-2',
                             'Bearer tok-3']
    assert endpoint.issued == ['tok-1', 'tok-2', 'tok-3']


def test_a_refused_secret_raises_oauth2_error_and_nothing_reaches_the_agent(
        endpoint: TokenEndpoint, agent: Agent) -> None:
    async def main() -> None:
        bad = ClientCredentials('agent', 'wrong-s3cret', allow_http_loopback=True)
        async with AsyncClient(agent.url, allow_http=True, **FAST, oauth2=bad) as c:
            await c.send('echo hi')

    with pytest.raises(OAuth2Error) as e:
        asyncio.run(main())
    assert e.value.reason == 'refused' and e.value.error == 'invalid_client'
    assert 'wrong-s3cret' not in str(e.value) and 'wrong-s3cret' not in repr(e.value)
    assert 'wrong-s3cret' not in json.dumps(e.value.report)
    assert e.value.__cause__ is None
    assert agent.posts() == []


def test_an_unreachable_token_endpoint_is_a_transport_refusal(agent: Agent) -> None:
    import socket

    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()

    async def main() -> None:
        c = creds(token_url=f'http://127.0.0.1:{port}/token')
        async with AsyncClient(agent.url, allow_http=True, **FAST, oauth2=c) as client:
            await client.send('echo hi')

    with pytest.raises(OAuth2Error) as e:
        asyncio.run(main())
    assert e.value.reason == 'transport' and SECRET not in str(e.value)
    assert agent.posts() == []


def test_explicit_token_url_and_form_post(endpoint: TokenEndpoint, agent: Agent) -> None:
    other = TokenEndpoint()
    other.issued = endpoint.issued  # the agent takes the tokens either endpoint issued
    try:
        async def main() -> Any:
            c = creds(token_url=other.url, basic_auth=False, scope='a2a')
            async with AsyncClient(agent.url, allow_http=True, **FAST, oauth2=c) as client:
                return await client.send('echo hi')

        assert asyncio.run(main()).success
        assert endpoint.requests == [] and len(other.requests) == 1
        r = other.requests[0]
        assert r['authorization'] is None
        assert r['form'] == ('grant_type=client_credentials&scope=a2a&client_id=agent'
                             f'&client_secret={SECRET}')
        assert agent.posts() == ['Bearer tok-1']
    finally:
        stop(other.srv)


def test_a_token_is_never_fetched_for_an_interface_on_another_host(
        endpoint: TokenEndpoint) -> None:
    elsewhere = Agent(endpoint, interface_host='127.0.0.2')
    try:
        async def main() -> None:
            async with AsyncClient(elsewhere.url, allow_http=True, **FAST, oauth2=creds()):
                pass

        with pytest.raises(CardResolutionError):
            asyncio.run(main())
        with httpx.Client() as http, pytest.raises(CardResolutionError):
            Client(elsewhere.url, allow_http=True, http_client=http, oauth2=creds())
        assert endpoint.requests == [] and elsewhere.posts() == []
    finally:
        stop(elsewhere.srv)


def test_with_target_needs_a_token_url(endpoint: TokenEndpoint, agent: Agent) -> None:
    async def main(c: ClientCredentials) -> Any:
        async with AsyncClient.with_target(f'{agent.url}/a2a', '0.3', 'jsonrpc', allow_http=True,
                                           **FAST, oauth2=c) as client:
            return await client.send('echo hi')

    with pytest.raises(ValueError):
        asyncio.run(main(creds()))
    assert asyncio.run(main(creds(token_url=endpoint.url))).success
    assert agent.posts() == ['Bearer tok-1']


# --- the blocking Client over httpx --------------------------------------------------------------


def test_blocking_client_caches_refreshes_and_retries(endpoint: TokenEndpoint,
                                                      agent: Agent) -> None:
    clock = Clock()
    endpoint.expires_in = 120
    with httpx.Client() as http, Client(agent.url, allow_http=True, http_client=http,
                                        oauth2=creds(clock), **FAST) as c:
        assert all(c.send('echo hi').success for _ in range(3))
        assert endpoint.issued == ['tok-1']
        clock.now += 120  # expired
        assert c.send('echo later').success
        agent.revoked.add('tok-2')
        assert c.get('t-1').success  # 401, then a new token
        events = list(c.stream('echo s'))
        assert isinstance(events[-1], ClientStreamEnd) and events[-1].outcome.success
        waited = c.wait('t-1', poll_interval=0.05, timeout=5.0)
        assert waited.success
    assert endpoint.issued == ['tok-1', 'tok-2', 'tok-3']
    assert agent.posts() == ['Bearer tok-1'] * 3 + ['Bearer tok-2'] * 2 + ['Bearer tok-3'] * 3
    no_secret_anywhere(endpoint, agent)


def test_blocking_wait_survives_a_token_expiring_twice(endpoint: TokenEndpoint,
                                                      agent: Agent) -> None:
    agent.working_gets, agent.revoke_after_get = 2, True
    with httpx.Client() as http, Client(agent.url, allow_http=True, http_client=http,
                                        oauth2=creds(), **FAST) as c:
        waited = c.wait('t-1', poll_interval=0.05, timeout=5.0)
    assert waited.success and waited.state == 'completed', waited
    assert agent.posts() == ['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2', 'Bearer tok-2',
                             'Bearer tok-3']


def test_blocking_client_threads_share_one_fetch(endpoint: TokenEndpoint, agent: Agent) -> None:
    with httpx.Client() as http, Client(agent.url, allow_http=True, http_client=http,
                                        oauth2=creds(), **FAST) as c:
        results: list[bool] = []
        threads = [threading.Thread(target=lambda: results.append(c.send('echo').success))
                   for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert results == [True] * 6 and endpoint.issued == ['tok-1']


def test_oauth2_needs_the_machine_path() -> None:
    with pytest.raises(TypeError):
        Client('http://127.0.0.1:9/', allow_http=True, oauth2=creds(),
               defer_card_resolution=True)
    with pytest.raises(TypeError):
        AsyncClient('http://127.0.0.1:9/', oauth2='token')  # type: ignore[arg-type]


# --- cards verified while fetching (HTTPS on loopback) -------------------------------------------


def tls_pair(tmp: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A self-signed certificate for 127.0.0.1: (server context, client context)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, '127.0.0.1')])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address('127.0.0.1'))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp / 'cert.pem', tmp / 'key.pem'
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert_file, key_file)
    client = ssl.create_default_context(cafile=str(cert_file))
    return server, client


def jwks_of(name: str, kid: str) -> bytes:
    from test_trust import jwks

    return json.dumps(jwks(name, kid)).encode()


class SignedCards:
    """An HTTPS agent on 127.0.0.1 serving a card signed with p256.pem (kid `k-1`, `jku`
    `/jwks.json` on the same host unless told) and that JWKS; records every request."""

    def __init__(self, tls: ssl.SSLContext) -> None:
        self.jku_host: str | None = None  # None: the card's own host
        self.tamper = False
        self.seen: list[tuple[str, str | None]] = []
        owner = self

        class Handler(Quiet):
            def do_GET(self) -> None:  # noqa: N802
                owner.seen.append((self.path, self.headers.get('authorization')))
                base = f'https://127.0.0.1:{self.server.server_address[1]}'
                if self.path == '/jwks.json':
                    self.reply(200, jwks_of('p256', 'k-1'))
                    return
                card = {'protocolVersion': '0.3.0', 'name': 'signed', 'description': 'd',
                        'url': f'{base}/a2a', 'preferredTransport': 'JSONRPC',
                        'version': '1', 'capabilities': {}, 'skills': [],
                        'defaultInputModes': ['text/plain'],
                        'defaultOutputModes': ['text/plain']}
                jku = f'https://{owner.jku_host}/jwks.json' if owner.jku_host \
                    else f'{base}/jwks.json'
                signed = json.loads(sign_card(card, (KEYS / 'p256.pem').read_bytes(), 'k-1',
                                              jku=jku))
                if owner.tamper:
                    signed['description'] = 'tampered'
                self.reply(200, json.dumps(signed).encode())

        self.srv = serve(Handler, tls)
        self.url = f'https://127.0.0.1:{self.srv.server_address[1]}'


@pytest.fixture
def signed(tmp_path: Path) -> Iterator[tuple[SignedCards, ssl.SSLContext]]:
    server_tls, client_tls = tls_pair(tmp_path)
    s = SignedCards(server_tls)
    yield s, client_tls
    stop(s.srv)


def test_fetch_card_verifies_with_the_keys_given_or_the_jku(
        signed: tuple[SignedCards, ssl.SSLContext]) -> None:
    s, tls = signed
    with httpx.Client(verify=tls) as http:
        plain = fetch_card(s.url, http_client=http)
        assert plain.signature is None
        card = fetch_card(s.url, http_client=http, verify=(KEYS / 'p256.pub.pem').read_text())
        assert card.signature is not None and card.signature.kid == 'k-1'
        assert card.signature.alg == 'ES256' and card.signature.jku == f'{s.url}/jwks.json'
        assert '/jwks.json' not in [p for p, _ in s.seen]  # keys given: nothing fetched
        fetched = fetch_card(s.url, http_client=http, verify=True)
        assert fetched.signature is not None and fetched.signature.kid == 'k-1'
        assert [p for p, _ in s.seen][-1] == '/jwks.json'
        s.tamper = True
        with pytest.raises(CardSignatureError) as e:
            fetch_card(s.url, http_client=http, verify=True)
        assert e.value.reason == 'no_valid_signature'
        assert e.value.signatures[0].rejected == 'bad_signature'
    assert all(a is None for _, a in s.seen)


def test_a_jku_on_another_host_is_never_fetched(
        signed: tuple[SignedCards, ssl.SSLContext]) -> None:
    s, tls = signed
    port = s.srv.server_address[1]
    s.jku_host = f'localhost:{port}'
    with httpx.Client(verify=tls) as http:
        with pytest.raises(CardSignatureError) as e:
            fetch_card(s.url, http_client=http, verify=True)
        assert e.value.reason == 'jku_refused'
        assert '/jwks.json' not in [p for p, _ in s.seen]

    async def main() -> Any:
        async with httpx.AsyncClient(verify=tls) as ahttp:
            return await afetch_card(s.url, http_client=ahttp, verify=True,
                                     key_hosts=['localhost'])

    # the same host under another name, allowed by key_hosts: fetched (TLS then fails:
    # the certificate names 127.0.0.1 only), refused as a key fetch failure
    with pytest.raises(CardSignatureError) as e:
        asyncio.run(main())
    assert e.value.reason == 'jku_fetch'


def test_async_fetch_and_the_clients_refuse_an_unverified_card(
        signed: tuple[SignedCards, ssl.SSLContext]) -> None:
    s, tls = signed

    async def main(**kw: Any) -> Any:
        async with httpx.AsyncClient(verify=tls) as ahttp:
            card = await afetch_card(s.url, http_client=ahttp, verify=True)
            async with AsyncClient(s.url, http_client=ahttp, **FAST, **kw) as c:
                return card, c.card

    card, client_card = asyncio.run(main(verify_card=True))
    assert card.signature is not None and client_card.signature is not None
    with pytest.raises(CardSignatureError) as e:
        asyncio.run(main(verify_card=(KEYS / 'ed25519.pub.pem').read_bytes()))
    assert e.value.reason == 'no_valid_signature'
    with httpx.Client(verify=tls) as http:
        with Client(s.url, http_client=http, verify_card=True) as c:
            assert c.card.signature.kid == 'k-1'
        s.tamper = True
        with pytest.raises(CardSignatureError):
            Client(s.url, http_client=http, verify_card=True)


def test_verify_true_needs_a_jku(tmp_path: Path) -> None:
    server_tls, client_tls = tls_pair(tmp_path)

    class Unsigned(Quiet):
        def do_GET(self) -> None:  # noqa: N802
            base = f'https://127.0.0.1:{self.server.server_address[1]}'
            card = {'protocolVersion': '0.3.0', 'name': 'n', 'description': 'd',
                    'url': f'{base}/a2a', 'preferredTransport': 'JSONRPC', 'version': '1',
                    'capabilities': {}, 'skills': [], 'defaultInputModes': ['text/plain'],
                    'defaultOutputModes': ['text/plain']}
            self.reply(200, json.dumps(card).encode())

    srv = serve(Unsigned, server_tls)
    try:
        url = f'https://127.0.0.1:{srv.server_address[1]}'
        with httpx.Client(verify=client_tls) as http:
            with pytest.raises(CardSignatureError) as e:
                fetch_card(url, http_client=http, verify=True)
            assert e.value.reason == 'no_jku'
            with pytest.raises(CardSignatureError) as e:
                fetch_card(url, http_client=http, verify=(KEYS / 'p256.pub.pem').read_bytes())
            assert e.value.reason == 'unsigned'
    finally:
        stop(srv)
