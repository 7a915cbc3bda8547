"""a2a_core.trust without a network: canonical JSON, signed agent cards (signed and verified
here and by the Python a2a-sdk's signer and verifier, both ways, ES256, RS256 and EdDSA),
the `jku` rule, push notifications at the receiving end (token, JWT, expired, replayed, wrong
task, wrong audience; notifications sent by the a2a-sdk's own push sender), webhook URLs at
the sending end (loopback, private, link-local refused), and that no secret reaches a repr
or an exception."""

from __future__ import annotations

import asyncio
import base64
import http.server
import json
import pickle
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from conftest import REPO
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key, load_pem_public_key

import a2a_core
from a2a_core import trust
from a2a_core.trust import (
    CardSignatureError,
    PushVerifier,
    TrustJsonError,
    TrustKeyError,
    WebhookRefused,
    canonical,
    card_key_url,
    check_webhook_url,
    sign_card,
    verify_card,
)

KEYS = REPO / 'core' / 'src' / 'trust' / 'testdata'
ALGS = [('p256', 'ES256'), ('rsa2048', 'RS256'), ('ed25519', 'EdDSA')]


def pem(name: str) -> bytes:
    return (KEYS / name).read_bytes()


def b64u(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b'=').decode()


def jwk_of(public: Any, kid: str) -> dict[str, str]:
    """The public JWK of a `cryptography` public key (written here, by RFC 7517/7518/8037)."""
    if isinstance(public, ec.EllipticCurvePublicKey):
        n = public.public_numbers()
        size = (public.curve.key_size + 7) // 8
        return {'kty': 'EC', 'crv': 'P-256' if size == 32 else 'P-384', 'kid': kid,
                'x': b64u(n.x.to_bytes(size, 'big')), 'y': b64u(n.y.to_bytes(size, 'big'))}
    if isinstance(public, rsa.RSAPublicKey):
        n = public.public_numbers()
        return {'kty': 'RSA', 'kid': kid,
                'n': b64u(n.n.to_bytes((n.n.bit_length() + 7) // 8, 'big')),
                'e': b64u(n.e.to_bytes((n.e.bit_length() + 7) // 8, 'big'))}
    assert isinstance(public, ed25519.Ed25519PublicKey)
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return {'kty': 'OKP', 'crv': 'Ed25519', 'kid': kid,
            'x': b64u(public.public_bytes(Encoding.Raw, PublicFormat.Raw))}


def jwks(name: str, kid: str) -> dict[str, Any]:
    return {'keys': [jwk_of(load_pem_public_key(pem(f'{name}.pub.pem')), kid)]}


def card_dict(base: str = 'https://agent.example') -> dict[str, Any]:
    return {
        'name': 'Signed Echo',
        'description': 'Says it back, signed',
        'version': '1.0.0',
        'supportedInterfaces': [
            {'url': f'{base}/a2a', 'protocolBinding': 'JSONRPC', 'protocolVersion': '1.0'}
        ],
        'capabilities': {'streaming': True, 'pushNotifications': False},
        'defaultInputModes': ['text/plain'],
        'defaultOutputModes': ['text/plain'],
        'skills': [{'id': 'echo', 'name': 'Echo', 'description': 'Echoes', 'tags': ['demo']}],
    }


# --- canonical JSON ---------------------------------------------------------------------------


def test_canonical_is_rfc_8785() -> None:
    # RFC 8785 §3.2.2's example: numbers, escapes and literals
    doc = ('{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
           '"string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
           '"literals": [null, true, false]}')
    want = ('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
            '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}').encode('utf-8')
    assert canonical(doc) == want
    assert canonical(json.loads(doc)) == want  # a parsed object is written out first
    assert canonical(b'{"b":1,"a":-0}') == b'{"a":0,"b":1}'


def test_the_card_form_keeps_required_empty_fields_and_drops_signatures() -> None:
    # A2A 1.0 §8.4.1: defaults of optional fields go, REQUIRED ones stay, signatures excluded
    card = card_dict()
    card['description'] = ''
    card['skills'] = []
    card['capabilities'] = {'streaming': False, 'extensions': []}
    card['signatures'] = [{'protected': 'x', 'signature': 'y'}]
    form = json.loads(canonical(card, card_form=True))
    assert 'signatures' not in form
    assert form['description'] == '' and form['skills'] == []
    assert form['capabilities'] == {'streaming': False}
    assert canonical(card, card_form=True) == canonical(form)


def test_canonical_refuses_what_is_not_i_json() -> None:
    with pytest.raises(TrustJsonError) as e:
        canonical('{"a":1,"a":2}')
    assert e.value.reason and e.value.reason != 'invalid'
    assert isinstance(e.value, ValueError) and e.value.name == 'A2A_TRUST_JSON'
    with pytest.raises(TrustJsonError):
        canonical('{"a":')


# --- signing and verifying cards ---------------------------------------------------------------


@pytest.mark.parametrize(('key', 'alg'), ALGS)
def test_a_card_signed_here_verifies_here_with_pem_and_jwks(key: str, alg: str) -> None:
    signed = sign_card(card_dict(), pem(f'{key}.pem'), 'k-1',
                       jku='https://agent.example/jwks.json')
    doc = json.loads(signed)
    assert len(doc['signatures']) == 1
    v = verify_card(signed, pem(f'{key}.pub.pem'))
    assert (v.alg, v.kid, v.jku) == (alg, 'k-1', 'https://agent.example/jwks.json')
    assert verify_card(doc, jwks(key, 'k-1')).alg == alg  # a JWKS object
    assert verify_card(signed.decode(), [jwks(key, 'k-1')['keys'][0]]).kid == 'k-1'  # JWKs
    # A second signature keeps the first valid (signatures are outside the payload).
    twice = sign_card(signed, pem('p256.pem'), 'k-2')
    assert len(json.loads(twice)['signatures']) == 2
    assert verify_card(twice, pem(f'{key}.pub.pem')).kid == 'k-1'
    assert verify_card(twice, jwks('p256', 'k-2')).kid == 'k-2'


def test_a_tampered_card_is_refused_with_each_signature_s_reason() -> None:
    doc = json.loads(sign_card(card_dict(), pem('p256.pem'), 'k-1'))
    doc['skills'][0]['description'] = 'Echoes, tampered'
    with pytest.raises(CardSignatureError) as e:
        verify_card(doc, pem('p256.pub.pem'))
    err = e.value
    assert err.reason == 'no_valid_signature' and err.name == 'A2A_CARD_SIGNATURE'
    assert [(s.index, s.kid, s.alg, s.rejected) for s in err.signatures] == [
        (0, 'k-1', 'ES256', 'bad_signature')]
    assert err.signatures[0].detail
    assert 'signature' in str(err)


def test_the_wrong_key_is_refused() -> None:
    signed = sign_card(card_dict(), pem('p256.pem'), 'k-1')
    # a key of another type, without a kid: nothing to try it with
    with pytest.raises(CardSignatureError) as e:
        verify_card(signed, pem('ed25519.pub.pem'))
    assert e.value.signatures[0].rejected in ('unknown_key', 'alg_key_mismatch')
    # the right kid, another P-256 key: the signature does not verify
    other = ec.generate_private_key(ec.SECP256R1()).public_key()
    with pytest.raises(CardSignatureError) as e:
        verify_card(signed, {'keys': [jwk_of(other, 'k-1')]})
    assert e.value.signatures[0].rejected == 'bad_signature'
    # the right key under another kid: unknown key
    with pytest.raises(CardSignatureError) as e:
        verify_card(signed, jwks('p256', 'k-other'))
    assert e.value.signatures[0].rejected == 'unknown_key'


def test_unsigned_cards_unreadable_keys_and_bad_private_keys() -> None:
    with pytest.raises(CardSignatureError) as e:
        verify_card(card_dict(), pem('p256.pub.pem'))
    assert e.value.reason == 'unsigned' and e.value.signatures == ()
    with pytest.raises(TrustKeyError) as k:
        verify_card(sign_card(card_dict(), pem('p256.pem'), 'k'), b'not a key')
    assert isinstance(k.value, ValueError) and k.value.reason
    with pytest.raises(TrustKeyError) as k:
        sign_card(card_dict(), pem('p256-sec1.pem'), 'k')  # SEC1: refused with the hint
    assert 'pkcs8' in k.value.detail.lower()
    with pytest.raises(TrustJsonError):
        sign_card('[1, 2', pem('p256.pem'), 'k')
    with pytest.raises(TypeError):
        verify_card(card_dict(), 42)  # type: ignore[arg-type]


def test_card_key_url_follows_only_an_https_jku_on_the_card_s_host() -> None:
    def signed(jku: str | None) -> bytes:
        return sign_card(card_dict(), pem('p256.pem'), 'k', jku=jku)

    card_url = 'https://agent.example/.well-known/agent-card.json'
    assert card_key_url(signed('https://agent.example/keys.json'), card_url) == \
        'https://agent.example/keys.json'
    assert card_key_url(signed(None), card_url) is None
    with pytest.raises(CardSignatureError) as e:
        card_key_url(signed('https://evil.example/keys.json'), card_url)
    assert e.value.reason == 'jku_refused' and 'evil.example' in e.value.detail
    assert card_key_url(signed('https://keys.example/k.json'), card_url,
                        extra_hosts=['keys.example']) == 'https://keys.example/k.json'
    for bad in ('http://agent.example/keys.json', 'https://user@agent.example/keys.json'):
        # (the signer itself refuses such a jku: a hand-made signature entry names it)
        header = b64u(json.dumps({'alg': 'ES256', 'kid': 'k', 'jku': bad}).encode())
        card = card_dict() | {'signatures': [{'protected': header, 'signature': 'AAAA'}]}
        with pytest.raises(CardSignatureError) as e:
            card_key_url(card, card_url)
        assert e.value.reason == 'jku_refused'
    with pytest.raises(a2a_core.InvalidArgumentError):
        signed('http://agent.example/keys.json')


# --- against the Python a2a-sdk's signer and verifier (a2a.utils.signing) ----------------------


@pytest.mark.parametrize(('key', 'alg'), ALGS)
def test_a_card_signed_by_the_sdk_verifies_here(key: str, alg: str) -> None:
    from a2a.types import AgentCard
    from a2a.utils import signing
    from google.protobuf import json_format

    private = load_pem_private_key(pem(f'{key}.pem'), password=None)
    signer = signing.create_agent_card_signer(
        signing_key=private,
        protected_header={'alg': alg, 'kid': 'sdk-1', 'typ': 'JOSE', 'jku': None})
    signed = json_format.MessageToDict(signer(json_format.ParseDict(card_dict(), AgentCard())))
    v = verify_card(signed, jwks(key, 'sdk-1'))
    assert (v.alg, v.kid, v.jku) == (alg, 'sdk-1', None)
    assert verify_card(json.dumps(signed), pem(f'{key}.pub.pem')).alg == alg
    signed['description'] = 'Says something else'
    with pytest.raises(CardSignatureError) as e:
        verify_card(signed, jwks(key, 'sdk-1'))
    assert e.value.signatures[0].rejected == 'bad_signature'


@pytest.mark.parametrize(('key', 'alg'), ALGS)
def test_a_card_signed_here_verifies_with_the_sdk(key: str, alg: str) -> None:
    from a2a.types import AgentCard
    from a2a.utils import signing
    from google.protobuf import json_format

    signed = json.loads(sign_card(card_dict(), pem(f'{key}.pem'), 'py-1'))
    public = load_pem_public_key(pem(f'{key}.pub.pem'))
    seen = []

    def key_provider(kid: str | None, jku: str | None) -> Any:
        seen.append((kid, jku))
        return public

    verify = signing.create_signature_verifier(key_provider, ['ES256', 'RS256', 'EdDSA'])
    verify(json_format.ParseDict(signed, AgentCard()))
    assert seen == [('py-1', None)]
    signed['skills'][0]['description'] = 'Echoes, tampered'
    with pytest.raises(signing.InvalidSignaturesError):
        verify(json_format.ParseDict(signed, AgentCard()))


def test_the_sdk_and_the_core_agree_on_a_card_without_empty_values() -> None:
    from a2a.types import AgentCard
    from a2a.utils import signing
    from google.protobuf import json_format

    sdk = signing._canonicalize_agent_card(json_format.ParseDict(card_dict(), AgentCard()))
    assert canonical(card_dict(), card_form=True).decode() == sdk


# --- push notifications, receiving end ---------------------------------------------------------

HOOK = 'https://receiver.example/hook'
NOW = 1_767_000_000


def body(task_id: str = 't-1', state: str = 'TASK_STATE_WORKING') -> bytes:
    return json.dumps({'statusUpdate': {'taskId': task_id, 'contextId': 'c-1',
                                        'status': {'state': state}}}).encode()


def push_jwt(**claims: Any) -> str:
    base = {'iss': 'https://agent.example', 'aud': HOOK, 'iat': NOW, 'exp': NOW + 120,
            'jti': 'n-1', 'taskId': 't-1'}
    base.update(claims)
    base = {k: v for k, v in base.items() if v is not None}
    key = load_pem_private_key(pem('p256.pem'), password=None)
    return jwt.encode(base, key, algorithm='ES256', headers={'kid': 'push-1'})


def test_a_token_notification_is_accepted_once() -> None:
    with PushVerifier(token='s3cret-token', task_id='t-1') as v:
        ok = v.check({'X-A2A-Notification-Token': 's3cret-token'}, body(), now=NOW)
        assert ok.accepted and ok.reason is None and ok.task_id == 't-1'
        assert ok.event == 'statusUpdate' and [p.type for p in ok.proofs] == ['token']
        assert ok.replay_id and ok.replay_id.startswith('sha256:')
        again = v.check({'x-a2a-notification-token': 's3cret-token'}, body(), now=NOW + 1)
        assert not again.accepted and again.reason == 'replayed'
        wrong = v.check({'X-A2A-Notification-Token': 'guess'}, body('t-1', 'x'), now=NOW)
        assert not wrong.accepted and wrong.reason == 'token_mismatch'
        assert 's3cret-token' not in json.dumps(dict(wrong.report))
        missing = v.check({}, body('t-1', 'TASK_STATE_COMPLETED'), now=NOW)
        assert missing.reason == 'token_missing'
        other = v.check([('X-A2A-Notification-Token', 's3cret-token')], body('t-2'), now=NOW)
        assert not other.accepted and other.reason == 'task_mismatch'
        assert v.check({'X-A2A-Notification-Token': 's3cret-token'}, b'{"nope":1}',
                       now=NOW).reason == 'body'


def test_a_jwt_notification_is_checked_claim_by_claim() -> None:
    keys = jwks('p256', 'push-1')
    with PushVerifier(audience=HOOK, issuer='https://agent.example', task_id='t-1',
                      keys=keys) as v:
        def check(token: str, b: bytes = body(), now: float = NOW) -> Any:
            return v.check({'Authorization': f'Bearer {token}'}, b, now=now)

        ok = check(push_jwt())
        assert ok.accepted, ok
        assert [(p.type, p.alg, p.kid, p.iss, p.jti) for p in ok.proofs] == [
            ('jwt', 'ES256', 'push-1', 'https://agent.example', 'n-1')]
        assert check(push_jwt()).reason == 'replayed'
        assert check(push_jwt(jti='n-2', exp=NOW - 3600, iat=NOW - 3700)).reason in (
            'expired', 'too_old')
        assert check(push_jwt(jti='n-3'), now=NOW + 3600).reason in ('expired', 'too_old')
        assert check(push_jwt(jti='n-4', aud='https://other.example/hook')).reason == \
            'wrong_audience'
        assert check(push_jwt(jti='n-5', iss='https://evil.example')).reason == 'wrong_issuer'
        assert check(push_jwt(jti='n-6', taskId='t-9')).reason == 'task_mismatch'
        assert check(push_jwt(jti='n-7'), body('t-2')).reason == 'task_mismatch'
        assert check(push_jwt(jti='n-8', iat=NOW + 3600, exp=NOW + 4000)).reason == \
            'not_yet_valid'
        forged = jwt.encode({'aud': HOOK, 'iat': NOW, 'exp': NOW + 60, 'jti': 'n-9'},
                            ec.generate_private_key(ec.SECP256R1()), algorithm='ES256',
                            headers={'kid': 'push-1'})
        assert check(forged).reason == 'jwt'
        assert check('not.a.jwt').reason == 'jwt'
        assert v.check({}, body(), now=NOW).reason == 'jwt_missing'
        # a rejected copy is not remembered: the real one still passes
        assert check(push_jwt(jti='n-10')).accepted


def test_the_clock_and_a_verifier_that_checks_nothing() -> None:
    now = [float(NOW)]
    with PushVerifier(keys=jwks('p256', 'push-1'), audience=HOOK, clock=lambda: now[0]) as v:
        assert v.check({'Authorization': f'Bearer {push_jwt()}'}, body()).accepted
        now[0] += 10_000
        assert v.check({'Authorization': f'Bearer {push_jwt(jti="n-2")}'},
                       body()).reason in ('expired', 'too_old')
    with PushVerifier() as nothing:
        assert nothing.check({}, body(), now=NOW).reason == 'not_configured'


def test_the_verifier_keeps_its_token_secret_and_closes() -> None:
    v = PushVerifier(token='s3cret-token', audience=HOOK)
    assert 's3cret' not in repr(v) and '<redacted>' in repr(v)
    with pytest.raises(TypeError):
        pickle.dumps(v)
    v.close()
    v.close()
    assert v.closed
    with pytest.raises(a2a_core.ClosedError):
        v.check({}, body(), now=NOW)
    with pytest.raises(TrustKeyError):
        PushVerifier(keys='not a key')
    with pytest.raises(ValueError):
        PushVerifier(token='t', skew=-1.0)


def test_the_verifier_is_shared_by_threads() -> None:
    v = PushVerifier(token='tok', task_id='t-1')
    results: list[bool] = []

    def worker(i: int) -> None:
        for k in range(20):
            b = body('t-1', f'state-{i}-{k}')
            results.append(v.check({'X-A2A-Notification-Token': 'tok'}, b, now=NOW).accepted)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    v.close()
    assert results == [True] * 80


class _Receiver(http.server.BaseHTTPRequestHandler):
    """A webhook: records every POST (headers and body) and answers 200."""

    got: list[tuple[list[tuple[str, str]], bytes]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        data = self.rfile.read(int(self.headers['content-length']))
        type(self).got.append((list(self.headers.items()), data))
        self.send_response(200)
        self.send_header('content-length', '0')
        self.end_headers()


@pytest.fixture
def receiver() -> Iterator[str]:
    _Receiver.got = []
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Receiver)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}/hook'
    finally:
        srv.shutdown()
        srv.server_close()


def test_notifications_sent_by_the_sdk_s_push_sender_are_verified(receiver: str) -> None:
    """The Python a2a-sdk's BasePushNotificationSender (the other side) POSTs to a loopback
    webhook: with the config's token, and with a JWT as its Bearer authentication."""
    import httpx
    from a2a.server.context import ServerCallContext
    from a2a.server.tasks import BasePushNotificationSender, InMemoryPushNotificationConfigStore
    from a2a.types.a2a_pb2 import (AuthenticationInfo, TaskPushNotificationConfig, TaskState,
                                   TaskStatus, TaskStatusUpdateEvent)

    now = int(time.time())
    token = push_jwt(aud=receiver, iat=now, exp=now + 60, jti='sdk-n-1')

    async def send() -> None:
        store = InMemoryPushNotificationConfigStore()
        await store.set_info('t-1', TaskPushNotificationConfig(
            id='cfg-1', task_id='t-1', url=receiver, token='tok-1',
            authentication=AuthenticationInfo(scheme='Bearer', credentials=token)),
            ServerCallContext())
        async with httpx.AsyncClient() as http:
            sender = BasePushNotificationSender(http, store)
            event = TaskStatusUpdateEvent(task_id='t-1', context_id='c-1', status=TaskStatus(
                state=TaskState.TASK_STATE_WORKING))
            await sender.send_notification('t-1', event)
            await sender.send_notification('t-1', event)  # the same notification again

    asyncio.run(send())
    assert len(_Receiver.got) == 2
    (headers, data), (headers2, data2) = _Receiver.got
    assert json.loads(data)['statusUpdate']['taskId'] == 't-1'
    with PushVerifier(token='tok-1', audience=receiver, task_id='t-1',
                      keys=jwks('p256', 'push-1')) as v:
        first = v.check(headers, data)
        assert first.accepted, first
        assert {p.type for p in first.proofs} == {'token', 'jwt'}
        assert v.check(headers2, data2).reason == 'replayed'
    with PushVerifier(token='tok-1', task_id='t-2') as wrong_task:
        assert wrong_task.check(headers, data).reason == 'task_mismatch'
    with PushVerifier(token='another', task_id='t-1') as wrong_token:
        assert wrong_token.check(headers, data).reason == 'token_mismatch'


# --- webhook URLs, sending end -------------------------------------------------------------------


@pytest.mark.parametrize('url', [
    'https://127.0.0.1/hook', 'https://10.1.2.3/hook', 'https://169.254.169.254/latest',
    'https://192.168.1.1/', 'https://[::1]/hook', 'https://localhost/hook',
    'https://2130706433/hook', 'https://[::ffff:10.0.0.1]/x', 'https://0.0.0.0/',
])
def test_webhooks_to_internal_addresses_are_refused(url: str) -> None:
    with pytest.raises(WebhookRefused) as e:
        check_webhook_url(url)
    assert e.value.reason == 'internal' and e.value.name == 'A2A_WEBHOOK_REFUSED'
    assert isinstance(e.value, ValueError)


def test_webhook_scheme_userinfo_and_resolved_addresses() -> None:
    import ipaddress

    assert check_webhook_url('https://hooks.example/x') is None
    with pytest.raises(WebhookRefused) as e:
        check_webhook_url('http://hooks.example/x')
    assert e.value.reason == 'scheme'
    assert check_webhook_url('http://hooks.example/x', allow_http=True) is None
    with pytest.raises(WebhookRefused) as e:
        check_webhook_url('https://user:pw@hooks.example/x')
    assert e.value.reason == 'userinfo'
    assert check_webhook_url('https://hooks.example/x', resolved=['93.184.216.34']) is None
    for internal in (['93.184.216.34', '10.0.0.7'], [ipaddress.ip_address('169.254.169.254')],
                     ['127.0.0.1']):
        with pytest.raises(WebhookRefused) as e:
            check_webhook_url('https://hooks.example/x', resolved=internal)
        assert e.value.reason == 'internal'


def test_the_sdk_s_url_validator_and_the_core_agree_on_literal_addresses() -> None:
    from a2a.utils.push_url_validator import validate_push_notification_url

    for url in ('https://127.0.0.1/h', 'https://10.1.2.3/h', 'https://169.254.169.254/h',
                'https://100.64.0.1/h', 'https://[::1]/h', 'https://93.184.216.34/h'):
        sdk = asyncio.run(validate_push_notification_url(url))
        try:
            check_webhook_url(url)
            core = True
        except WebhookRefused:
            core = False
        assert core == sdk, url


# --- secrets -----------------------------------------------------------------------------------


def test_client_credentials_keep_their_secret() -> None:
    c = trust.ClientCredentials('agent-client', 'sup3r-s3cret',
                                token_url='https://auth.example/token', scope=['a', 'b'])
    assert 'sup3r' not in repr(c) and '<redacted>' in repr(c) and c.scope == 'a b'
    with pytest.raises(TypeError):
        pickle.dumps(c)
    with pytest.raises(ValueError):
        trust.ClientCredentials('', 'x')
    t = c._handle()
    assert 'sup3r' not in repr(t)
    url, form, auth = t.request()
    assert url == 'https://auth.example/token'
    assert form == b'grant_type=client_credentials&scope=a+b'
    assert auth is not None and base64.b64decode(auth.split()[1]) == b'agent-client:sup3r-s3cret'
    post = trust.ClientCredentials('agent-client', 'sup3r-s3cret', basic_auth=False,
                                   token_url='https://auth.example/token')._handle()
    _, form, auth = post.request()
    assert auth is None and b'client_secret=sup3r-s3cret' in form
    with pytest.raises(a2a_core.A2AError):  # plain http is refused unless on loopback, allowed
        trust.ClientCredentials('x', 'y', token_url='http://auth.example/token')._handle()
    with pytest.raises(ValueError):  # no token URL and no card to take it from
        trust.ClientCredentials('x', 'y')._handle()


def test_the_token_tracker_over_the_c_abi() -> None:
    clock = [1_000.0]
    c = trust.ClientCredentials('id', 'secret', token_url='https://auth.example/t',
                                refresh_early=10.0, clock=lambda: clock[0])
    t = c._handle()
    assert t.token(c._now_ms()) == (trust.NEED_MORE, None)
    assert t.token(c._now_ms()) == (trust.IN_USE, None)  # single flight
    t.handle_response(200, b'{"access_token":"tok-1","token_type":"Bearer","expires_in":60}',
                      c._now_ms())
    assert t.token(c._now_ms()) == (trust.OK, 'tok-1')
    clock[0] += 55  # inside the early-refresh margin: one caller fetches, others use it
    assert t.token(c._now_ms()) == (trust.NEED_MORE, None)
    assert t.token(c._now_ms()) == (trust.OK, 'tok-1')
    with pytest.raises(a2a_core.OAuth2Error) as e:
        t.handle_response(401, b'{"error":"invalid_client","error_description":"bad"}',
                          c._now_ms())
    assert e.value.reason == 'refused' and e.value.error == 'invalid_client'
    assert t.token(c._now_ms()) == (trust.NEED_MORE, None)  # may fetch again
    with pytest.raises(a2a_core.OAuth2Error) as e:
        t.handle_response(200, b'{"access_token":"x","token_type":"mac"}', c._now_ms())
    assert e.value.reason == 'token_type' and e.value.error is None
    assert t.token(c._now_ms()) == (trust.NEED_MORE, None)
    t.handle_response(200, b'{"access_token":"tok-2","token_type":"bearer"}', c._now_ms())
    assert t.token(c._now_ms()) == (trust.OK, 'tok-2')
    t.invalidate()
    assert t.token(c._now_ms()) == (trust.NEED_MORE, None)
    t.free()
    with pytest.raises(a2a_core.ClosedError):
        t.token(0)


def test_every_public_name_is_exported() -> None:
    for name in trust.__all__:
        assert getattr(trust, name) is not None
    for name in ('PushVerifier', 'ClientCredentials', 'verify_card', 'CardSignatureError',
                 'WebhookRefused', 'check_webhook_url', 'sign_card', 'canonical'):
        assert getattr(a2a_core, name) is getattr(trust, name)
