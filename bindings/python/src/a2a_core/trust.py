"""Trust (issue 26): signed agent cards, push notifications checked at the receiving end,
webhook URLs checked at the sending end, and OAuth2 client credentials, over the core's
sans-IO `trust` module (the C ABI's `a2a_trust_*`, `a2a_card_signature_*`, `a2a_card_sign`,
`a2a_push_verifier_*`, `a2a_webhook_url_check`, `a2a_oauth2_*`; docs/trust.md says what each
check does and why).

Nothing here does I/O: keys, cards and notifications come in as bytes, the clock as an
argument (or `time.time()`). The clients fetch what needs fetching (a card's `jku`, OAuth2
tokens) through the caller's httpx client (`fetch_card(..., verify=True)`,
`AsyncClient(..., oauth2=ClientCredentials(...))`).

Refusals raise typed errors (`CardSignatureError`, `WebhookRefused`, `TrustKeyError`,
`TrustJsonError`, `OAuth2Error`) whose `reason` is the core's stable kind; a push
notification is never an exception: `PushVerifier.check` returns a `PushVerdict`. Secrets
(push tokens, client secrets, access tokens) never appear in a repr, a log record or an
exception.
"""

from __future__ import annotations

import ctypes
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from ctypes import c_void_p
from dataclasses import dataclass
from typing import Any, Union

from . import _lib
from ._guard import Owned
from ._lib import Header, Str, lib
from .errors import (CardSignatureError, OAuth2Error, TrustError, TrustJsonError, TrustKeyError,
                     WebhookRefused, code_of, error_for)

__all__ = [
    'CardSignatureError',
    'ClientCredentials',
    'OAuth2Error',
    'TrustError',
    'TrustJsonError',
    'TrustKeyError',
    'WebhookRefused',
    'Keys',
    'PushProof',
    'PushVerdict',
    'PushVerifier',
    'SignatureRejection',
    'VerifiedSignature',
    'canonical',
    'card_key_url',
    'check_webhook_url',
    'sign_card',
    'verify_card',
]

OK, NEED_MORE, NONE, IN_USE = 0, 1, 2, 104

#: What `verify_card` and `PushVerifier` take as keys: a JWKS document, one JWK or PEM public
#: keys (text, bytes, or the parsed JSON object), or a sequence of PEM keys or JWK objects.
Keys = Union[str, bytes, Mapping[str, Any], Sequence[Union[str, bytes, Mapping[str, Any]]]]
#: A JSON document: text, bytes, or the parsed object (written out with `json.dumps`).
JsonDoc = Union[str, bytes, Mapping[str, Any]]


#: The C functions are declared in `_lib` (with every other one the header has).
OAuth2Config = _lib.OAuth2Config


# --- helpers ---------------------------------------------------------------------------------


class _Buffer:
    """An `a2a_buffer` for one call (freed on exit)."""

    __slots__ = ('h',)

    def __init__(self) -> None:
        h = c_void_p()
        rc = lib.a2a_buffer_new(ctypes.byref(h))
        if rc:
            raise error_for(rc)
        self.h = h.value

    def __enter__(self) -> _Buffer:
        return self

    def __exit__(self, *_: object) -> None:
        lib.a2a_buffer_free(self.h)

    def bytes(self) -> bytes:
        return _lib.view_bytes(lib.a2a_buffer_bytes(self.h)) or b''


def _doc(value: JsonDoc, what: str) -> bytes:
    """A JSON document as bytes."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode('utf-8')
    if isinstance(value, Mapping):
        return json.dumps(value, ensure_ascii=False, separators=(',', ':')).encode('utf-8')
    card_json = getattr(value, 'card_json', None)  # a FetchedCard
    if isinstance(card_json, str):
        return card_json.encode('utf-8')
    raise TypeError(f'{what} must be JSON text, bytes or a mapping, not {type(value).__name__}')


def _keys(keys: Keys) -> bytes:
    """Keys as the library reads them: a JWKS/JWK document or PEM text."""
    if isinstance(keys, (bytearray, memoryview)):
        return bytes(keys)
    if isinstance(keys, (str, bytes, Mapping)):
        return _doc(keys, 'keys')
    items = list(keys)
    if not items:
        return b''
    jwks = [k for k in items if isinstance(k, Mapping) and 'keys' not in k]
    if len(jwks) == len(items):  # JWKs: one set
        return _doc({'keys': [dict(k) for k in jwks]}, 'keys')
    pems = [k.encode('utf-8') if isinstance(k, str) else k for k in items
            if isinstance(k, (str, bytes))]
    if len(pems) == len(items):
        return b'\n'.join(pems)
    raise TypeError('keys: a JWKS, a JWK, PEM text, or a sequence of PEM keys or of JWKs')


def _report(data: bytes) -> dict[str, Any]:
    """The JSON report a refusal wrote (an empty dict when it is not one)."""
    try:
        doc = json.loads(data) if data else {}
    except ValueError:
        return {'detail': data.decode('utf-8', 'replace')}
    return doc if isinstance(doc, dict) else {}


def _raise(code: int, data: bytes, buf: _Buffer | None = None) -> None:
    """Raises the typed error of a refusal, with the report the library wrote."""
    report = _report(data)
    message = report.get('detail')
    if not message and buf is not None:
        message = _lib.view_str(lib.a2a_buffer_last_error(buf.h))
    e = error_for(code, str(message) if message else None)
    if isinstance(e, TrustError):
        e = type(e)(code, str(message) if message else None, report)
    raise e


def _text(s: str | None) -> tuple[bytes | None, int]:
    return _lib.enc(s) if s else (None, 0)


def _refusal(name: str, reason: str, detail: str) -> TrustError:
    """A typed refusal the binding makes itself (no library report), e.g. a card without
    a `jku` when its keys were to be fetched."""
    code = code_of(name)
    e = error_for(code, detail)
    assert isinstance(e, TrustError)
    return type(e)(code, detail, {'reason': reason, 'detail': detail})


# --- canonical JSON and card signatures ------------------------------------------------------


def canonical(json_doc: JsonDoc, /, *, card_form: bool = False) -> bytes:
    """The RFC 8785 canonical form of any JSON document, or with `card_form=True` an agent
    card's signing payload (A2A 1.0 §8.4.1: defaults removed, `signatures` excluded; what
    `a2a card canonical` prints). Raises TrustJsonError (`reason` `json`,
    `duplicate_name`, ...)."""
    data = _doc(json_doc, 'json_doc')
    with _Buffer() as buf:
        rc = lib.a2a_trust_canonical(data, len(data), card_form, buf.h)
        out = buf.bytes()
        if rc:
            _raise(rc, out, buf)
        return out


@dataclass(frozen=True, slots=True)
class VerifiedSignature:
    """The card signature that verified: its algorithm, `kid` and protected `jku`."""

    alg: str
    kid: str | None
    jku: str | None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> VerifiedSignature:
        """From the library's report."""
        return cls(alg=str(d.get('alg') or ''), kid=d.get('kid'), jku=d.get('jku'))


@dataclass(frozen=True, slots=True)
class SignatureRejection:
    """Why one of a card's signatures did not verify: `rejected` is the core's kind
    (`unknown_key`, `bad_signature`, `alg_none`, `alg_symmetric`, `malformed`, ...), with
    the signature's `kid` and `alg`, its `index` in `signatures` and the core's `detail`."""

    kid: str | None
    alg: str | None
    rejected: str
    #: Its position in the card's `signatures`.
    index: int | None = None
    #: The core's text for it.
    detail: str | None = None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SignatureRejection:
        """From one entry of the library's report."""
        index = d.get('index')
        return cls(kid=d.get('kid'), alg=d.get('alg'), rejected=str(d.get('rejected') or ''),
                   index=index if isinstance(index, int) else None, detail=d.get('detail'))


def verify_card(card: JsonDoc, keys: Keys) -> VerifiedSignature:
    """Verifies an agent card's JWS signatures (A2A 1.0 §8.4.3) against trusted `keys` (a
    JWKS document, one JWK, PEM public keys, or a sequence of PEM keys or JWKs): returns the
    signature that verified. `card` is its JSON (text, bytes, a mapping, or a
    `FetchedCard`). Raises CardSignatureError when none verifies or the card has none
    (`reason`, `detail`, and `signatures`: each one's rejection), TrustKeyError for keys
    that cannot be read, TrustJsonError for a card that is not JSON."""
    c = _doc(card, 'card')
    k = _keys(keys)
    with _Buffer() as buf:
        rc = lib.a2a_card_signature_verify(c, len(c), k, len(k), buf.h)
        out = buf.bytes()
        if rc:
            _raise(rc, out, buf)
    return VerifiedSignature.from_json(_report(out))


def card_key_url(card: JsonDoc, card_url: str, extra_hosts: Iterable[str] = ()) -> str | None:
    """Where the card's verifying keys may be fetched from: the `jku` its signatures name,
    checked (https only, no userinfo, the host `card_url` names or one of `extra_hosts`).
    None when no signature names a `jku`; CardSignatureError when one is named but
    refused."""
    c = _doc(card, 'card')
    u, un = _lib.enc(card_url)
    hosts = ','.join(h.strip() for h in extra_hosts if h.strip())
    h, hn = _text(hosts)
    with _Buffer() as buf:
        rc = lib.a2a_card_signature_key_url(c, len(c), u, un, h, hn, buf.h)
        out = buf.bytes()
        if rc == NONE:
            return None
        if rc:
            _raise(rc, out, buf)
    return out.decode('utf-8')


def sign_card(card: JsonDoc, private_key_pem: str | bytes, kid: str,
              jku: str | None = None) -> bytes:
    """Signs a card (the server side, §8.4.2): the card's JSON with one more entry in
    `signatures`, over its canonical form, with the private key in PEM (PKCS#8 EC P-256 /
    P-384, RSA, Ed25519; PKCS#1 RSA), named `kid`, and `jku` (the URL of the JWKS that
    holds the public key) when given. Raises TrustKeyError for a key that cannot be used,
    TrustJsonError for a card that is not JSON."""
    c = _doc(card, 'card')
    pem = private_key_pem.encode('utf-8') if isinstance(private_key_pem, str) \
        else bytes(private_key_pem)
    k, kn = _lib.enc(kid)
    j, jn = _text(jku)
    with _Buffer() as buf:
        rc = lib.a2a_card_sign(c, len(c), pem, len(pem), k, kn, j, jn, buf.h)
        out = buf.bytes()
        if rc:
            _raise(rc, out, buf)
        return out


# --- push notifications, receiving end -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PushProof:
    """What an accepted notification was checked with: `type` `token` (the config's token)
    or `jwt` (with its `alg`, `kid`, `iss`, `jti`)."""

    type: str
    alg: str | None = None
    kid: str | None = None
    iss: str | None = None
    jti: str | None = None


@dataclass(frozen=True, slots=True)
class PushVerdict:
    """One notification's verdict. `accepted`: authentic, about the expected task, and new
    (process it, answer 2xx); otherwise `reason` is the core's kind (`token_mismatch`,
    `jwt`, `expired`, `too_old`, `wrong_audience`, `task_mismatch`, `replayed`,
    `not_configured`, ...) and `detail` its text (answer 4xx, do not process it)."""

    accepted: bool
    reason: str | None
    detail: str | None
    #: The task it is about (accepted notifications).
    task_id: str | None
    #: The `StreamResponse` member it carried: `task`, `message`, `statusUpdate`,
    #: `artifactUpdate`.
    event: str | None
    proofs: tuple[PushProof, ...]
    #: The id the replay window remembers it by (`jti:...` or `sha256:...`).
    replay_id: str | None
    #: The verdict object as the library wrote it (`a2a push verify`'s output).
    report: Mapping[str, Any]

    @classmethod
    def from_json(cls, accepted: bool, d: Mapping[str, Any]) -> PushVerdict:
        """From the library's verdict object."""
        proofs = tuple(PushProof(type=str(p.get('type') or ''), alg=p.get('alg'),
                                 kid=p.get('kid'), iss=p.get('iss'), jti=p.get('jti'))
                       for p in d.get('proofs') or () if isinstance(p, Mapping))
        detail = d.get('detail', d.get('message'))
        return cls(accepted=accepted, reason=None if accepted else str(d.get('reason') or ''),
                   detail=None if accepted else (str(detail) if detail is not None else None),
                   task_id=d.get('taskId'), event=d.get('event'), proofs=proofs,
                   replay_id=d.get('replayId'), report=d)


def _secs(value: float, name: str) -> int:
    if not value >= 0:
        raise ValueError(f'{name} must be a non-negative number of seconds, not {value!r}')
    return int(round(value))


HeaderPairs = Union[Mapping[str, str], Iterable[tuple[Union[str, bytes], Union[str, bytes]]]]


def _header_pairs(headers: HeaderPairs) -> list[tuple[bytes, bytes]]:
    """Every header as (name, value) bytes, repeated names kept (httpx's and Starlette's
    `multi_items()`, a mapping's items, or pairs)."""
    multi = getattr(headers, 'multi_items', None)
    if callable(multi):
        items: Iterable[Any] = multi()
    elif isinstance(headers, Mapping):
        items = headers.items()
    else:
        items = headers
    out = []
    for k, v in items:
        out.append((k.encode('latin-1') if isinstance(k, str) else bytes(k),
                    v.encode('utf-8') if isinstance(v, str) else bytes(v)))
    return out


class PushVerifier:
    """Checks push notifications at the receiving end (A2A 1.0 §4.3.3, §13.2): the config's
    `token` (in `X-A2A-Notification-Token`), and/or a JWT in `Authorization: Bearer` signed
    by one of `keys` (the sender's JWKS) with `aud` containing `audience` (your webhook
    URL), `iss` equal to `issuer` when given, `iat`/`exp` within `skew` and `max_age`
    (seconds); the body about `task_id`; and never the same notification twice (a replay
    window of `replay_capacity` ids, 0: 4096). With neither a token nor keys every
    notification is refused (`not_configured`).

    Thread-safe. `close()` (or leaving a `with` block) frees it; `check` after that raises
    ClosedError."""

    __slots__ = ('_h', '_lock', '_desc', '_clock', '__weakref__')

    def __init__(self, token: str | None = None, audience: str | None = None,
                 issuer: str | None = None, task_id: str | None = None,
                 keys: Keys | None = None, skew: float = 60.0, max_age: float = 300.0,
                 replay_capacity: int = 0, *,
                 clock: Callable[[], float] | None = None) -> None:
        self._h = 0
        self._lock = threading.Lock()
        self._clock = clock or time.time
        policy: dict[str, Any] = {'skewSecs': _secs(skew, 'skew'),
                                  'maxAgeSecs': _secs(max_age, 'max_age')}
        for key, value in (('token', token), ('audience', audience), ('issuer', issuer),
                           ('taskId', task_id)):
            if value is not None:
                policy[key] = value
        if replay_capacity < 0:
            raise ValueError(f'replay_capacity must be >= 0, not {replay_capacity!r}')
        p = json.dumps(policy).encode('utf-8')
        k = _keys(keys) if keys is not None else b''
        out = c_void_p()
        rc = lib.a2a_push_verifier_new(p, len(p), k or None, len(k), replay_capacity,
                                       ctypes.byref(out))
        if rc:
            # the policy carries the token: the error says only what the library said
            raise error_for(rc, 'the push verifier cannot be made (its keys or policy are '
                                'refused)')
        self._h = out.value or 0
        self._desc = (f'audience={audience!r}, issuer={issuer!r}, task_id={task_id!r}, '
                      f'token={"<redacted>" if token is not None else None}, '
                      f'keys={"yes" if k else "no"}')

    def __repr__(self) -> str:
        return f'PushVerifier({self._desc}{", closed" if not self._h else ""})'

    def check(self, headers: HeaderPairs, body: bytes | str,
              now: float | None = None) -> PushVerdict:
        """Checks one notification: the request's `headers` (a mapping, httpx's or
        Starlette's headers, or pairs), its raw `body`, and the wall clock `now` (seconds
        since the epoch; default `time.time()`). Never raises for a rejection: the verdict
        says. An accepted notification is remembered (a replay of it is rejected)."""
        pairs = _header_pairs(headers)
        arr = (Header * max(len(pairs), 1))()
        for i, (n, v) in enumerate(pairs):
            arr[i] = Header(n, len(n), v, len(v))
        b = body.encode('utf-8') if isinstance(body, str) else bytes(body)
        at = int(self._clock() if now is None else now)
        with self._lock:
            if not self._h:
                from ._guard import closed

                raise closed('push verifier')
            with _Buffer() as buf:
                rc = lib.a2a_push_verifier_check(self._h, arr, len(pairs), b, len(b), at,
                                                 buf.h)
                out = buf.bytes()
        if rc not in (OK, code_of('A2A_PUSH_REJECTED')):
            raise error_for(rc)
        return PushVerdict.from_json(rc == OK, _report(out))

    def close(self) -> None:
        """Frees the verifier (after a `check` in progress on another thread); a second
        close does nothing."""
        with self._lock:
            h, self._h = self._h, 0
        if h:
            lib.a2a_push_verifier_free(h)

    @property
    def closed(self) -> bool:
        """Whether `close()` has run."""
        return not self._h

    def __enter__(self) -> PushVerifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        h, self._h = getattr(self, '_h', 0), 0
        if h:
            lib.a2a_push_verifier_free(h)

    def __reduce__(self) -> Any:
        raise TypeError('a PushVerifier holds a library handle: it cannot be pickled')


# --- webhook URLs, sending end ---------------------------------------------------------------


def check_webhook_url(url: str, *, allow_http: bool = False,
                      resolved: Iterable[Any] = ()) -> None:
    """May a push config's webhook URL be called (§13.2, server-side request forgery)?
    Returns None when it may; raises WebhookRefused (`reason` `scheme`, `userinfo`,
    `internal`, `invalid`) for a URL that is not https (unless `allow_http`), carries
    userinfo, or names a loopback, private, link-local (cloud metadata), unique-local,
    shared, unspecified or multicast host. `resolved`: the addresses the host resolved to
    (strings or `ipaddress` objects), checked with the same rules right before connecting,
    since a public name can resolve to an internal address."""
    u, un = _lib.enc(url)
    r, rn = _text(','.join(str(a).strip() for a in resolved))
    with _Buffer() as buf:
        rc = lib.a2a_webhook_url_check(u, un, allow_http, r, rn, buf.h)
        out = buf.bytes()
        if rc:
            _raise(rc, out, buf)


# --- OAuth2 client credentials ---------------------------------------------------------------


class ClientCredentials:
    """OAuth 2.0 client credentials (RFC 6749 §4.4) for a client: `AsyncClient(url,
    oauth2=ClientCredentials(...))` or `Client(url, http_client=..., oauth2=...)`.

    The client fetches a token from `token_url` (or, when None, the token URL of the card's
    `clientCredentials` flow) through its own httpx client, authenticating with HTTP Basic
    (`basic_auth=False`: id and secret in the form body), asking for `scope` when given;
    keeps it until `refresh_early` seconds before it expires (one fetch at a time); sends
    it as `Authorization: Bearer` on the A2A requests only (the validated interface: never
    the card fetch, never another host); and on a 401 forgets it and retries the call once
    with a new one. `allow_http_loopback=True` lets a plain-http token URL on loopback
    through (tests). `clock`: the wall clock in seconds (default `time.time`).

    Each client keeps its own token (a token is for the agent it was fetched for). The
    secret never appears in a repr, a log record or an exception."""

    __slots__ = ('client_id', '_secret', 'token_url', 'scope', 'basic_auth', 'refresh_early',
                 'allow_http_loopback', 'clock')

    def __init__(self, client_id: str, client_secret: str, *, token_url: str | None = None,
                 scope: str | Sequence[str] | None = None, basic_auth: bool = True,
                 refresh_early: float = 30.0, allow_http_loopback: bool = False,
                 clock: Callable[[], float] | None = None) -> None:
        if not client_id:
            raise ValueError('client_id must not be empty')
        if not isinstance(client_secret, str):
            raise TypeError('client_secret must be a str')
        if not refresh_early >= 0:
            raise ValueError(f'refresh_early must be >= 0 seconds, not {refresh_early!r}')
        self.client_id = client_id
        self._secret = client_secret
        self.token_url = token_url
        self.scope = scope if scope is None or isinstance(scope, str) else ' '.join(scope)
        self.basic_auth = basic_auth
        self.refresh_early = float(refresh_early)
        self.allow_http_loopback = allow_http_loopback
        self.clock = clock or time.time

    def __repr__(self) -> str:
        return (f'ClientCredentials(client_id={self.client_id!r}, client_secret=<redacted>, '
                f'token_url={self.token_url!r}, scope={self.scope!r})')

    def __reduce__(self) -> Any:
        raise TypeError('ClientCredentials holds a secret: it is not pickled')

    def _now_ms(self) -> int:
        return max(0, int(self.clock() * 1000))

    def _handle(self, card: Any = None) -> OAuth2Token:
        """A token holder for one client (`card`: the client's AgentCard, for its token URL
        when `token_url` is None)."""
        return OAuth2Token(self, card)


class OAuth2Token(Owned):
    """One client's token (`a2a_oauth2`): ask with `token(now_ms)`; fetch as it says
    (`request`, then `handle_response`); `invalidate` after a 401. Not public API: the
    clients drive it (`_oauth2_io`)."""

    __slots__ = ('_h', 'creds', 'token_url', '_card')
    _slot = '_h'
    _free = lib.a2a_oauth2_free

    def __init__(self, creds: ClientCredentials, card: Any = None) -> None:
        self._h = 0
        self.creds = creds
        self._card = card  # keeps the card handle alive while the library may read it
        keep: list[bytes] = []

        def view(s: str | None) -> Str:
            if not s:
                return Str()
            b = s.encode('utf-8')
            keep.append(b)
            return Str(ctypes.cast(ctypes.c_char_p(b), c_void_p).value, len(b))

        card_h = getattr(card, '_h', None) if card is not None else None
        if not creds.token_url and not card_h:
            raise ValueError('ClientCredentials: no token_url, and no card to take it from')
        cfg = OAuth2Config(token_url=view(creds.token_url), card=card_h or None,
                           client_id=view(creds.client_id),
                           client_secret=view(creds._secret), scope=view(creds.scope),
                           basic_auth=creds.basic_auth,
                           refresh_early_ms=max(1, round(creds.refresh_early * 1000)),
                           allow_http_loopback=creds.allow_http_loopback)
        out = c_void_p()
        rc = lib.a2a_oauth2_new(ctypes.byref(cfg), ctypes.byref(out))
        del cfg, keep
        if rc:
            what = ('the token URL is refused or the card names no clientCredentials flow'
                    if not creds.token_url else f'the token URL {creds.token_url!r} is refused '
                    '(https only; plain http on loopback needs allow_http_loopback=True)')
            raise error_for(rc, f'OAuth2 client credentials: {what}')
        self._h = out.value or 0
        self.token_url = creds.token_url

    def __repr__(self) -> str:
        return f'OAuth2Token(client_id={self.creds.client_id!r}, token=<redacted>)'

    def token(self, now_ms: int) -> tuple[int, str | None]:
        """(OK, the token) / (NEED_MORE, None): fetch one / (IN_USE, None): another caller
        is fetching."""
        with _Buffer() as buf:
            rc = lib.a2a_oauth2_token(self._live(), now_ms, buf.h)
            if rc == OK:
                return OK, buf.bytes().decode('utf-8')
        if rc in (NEED_MORE, IN_USE):
            return rc, None
        raise error_for(rc)

    def request(self) -> tuple[str, bytes, str | None]:
        """The token request: (url, form body, Authorization value or None). Secret."""
        with _Buffer() as url, _Buffer() as form, _Buffer() as auth:
            rc = lib.a2a_oauth2_request(self._live(), url.h, form.h, auth.h)
            if rc:
                raise error_for(rc)
            a = auth.bytes()
            return url.bytes().decode('utf-8'), form.bytes(), a.decode('utf-8') if a else None

    def handle_response(self, status: int, body: bytes, now_ms: int,
                        transport: str | None = None) -> None:
        """The token endpoint's answer (status 0: transport failure, `transport` saying
        which); raises OAuth2Error when it is no token."""
        with _Buffer() as buf:
            rc = lib.a2a_oauth2_handle_response(self._live(), status, body, len(body), now_ms,
                                                buf.h)
            out = buf.bytes()
        if rc == OK:
            return
        report = _report(out)
        if transport is not None:
            report['reason'] = 'transport'
            report['detail'] = f'token endpoint not reached: {transport}'
        e = error_for(rc, str(report.get('detail') or '') or None)
        if isinstance(e, TrustError):
            e = type(e)(rc, None, report)
        raise e

    def invalidate(self) -> None:
        """Forgets the token (the agent answered 401 with it)."""
        lib.a2a_oauth2_invalidate(self._live())

    def _live(self) -> int:
        if not self._h:
            from ._guard import closed

            raise closed('OAuth2 token')
        return self._h

    def free(self) -> None:
        """Frees the token's library handle now (also done when it is collected)."""
        self._release()

