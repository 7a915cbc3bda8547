"""The I/O the trust layer needs, over the clients' own httpx clients: OAuth2 tokens
(`bearer` / `abearer`: fetched, cached and refreshed by the core's `a2a_oauth2` handle, one
fetch at a time) and a fetched card's verification (`verify_fetched` / `averify_fetched`:
the card's `jku` fetched only after `card_key_url` allowed it). Every decision is the
core's; this module only moves bytes. Never logs a token or a secret.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Generator, Mapping
from typing import Any, Union

import httpx

from ._drive import Headers
from .errors import A2AError, OAuth2Error
from .trust import (
    NEED_MORE,
    OK,
    Keys,
    OAuth2Token,
    VerifiedSignature,
    _refusal,
    card_key_url,
    verify_card,
)

#: How long a caller waits between two looks while another fetches the token (seconds).
_WAIT_STEP = 0.01
#: The largest JWKS document read from a card's `jku` (bytes).
MAX_JWKS_BYTES = 256 * 1024


def _token_request(t: OAuth2Token) -> tuple[str, bytes, dict[str, str]]:
    url, form, authorization = t.request()
    headers = {'Content-Type': 'application/x-www-form-urlencoded', 'Accept': 'application/json'}
    if authorization:
        headers['Authorization'] = authorization
    return url, form, headers


def _timed_out() -> OAuth2Error:
    e = _refusal('A2A_OAUTH2_REFUSED', 'timeout',
                 'another caller is fetching the OAuth2 token and it did not arrive in time')
    assert isinstance(e, OAuth2Error)
    return e


#: A token request to perform (URL, form body, headers, seconds left), or a pause (seconds).
_Step = Union[tuple[str, bytes, dict[str, str], float], float]


def _bearer_steps(t: OAuth2Token, timeout: float) -> Generator[_Step, tuple[int, bytes] | None,
                                                                  str]:
    """The token loop of `bearer` and `abearer` without I/O: yields a request to perform
    (answered with its status and body, or an exception thrown in) or a pause while another
    caller fetches; returns the token. The core decides every step."""
    deadline = time.monotonic() + timeout
    while True:
        rc, token = t.token(t.creds._now_ms())
        if rc == OK:
            assert token is not None
            return token
        if rc == NEED_MORE:
            url, form, headers = _token_request(t)
            try:
                answer = yield url, form, headers, max(deadline - time.monotonic(), 0.001)
            except httpx.HTTPError as e:
                _transport_failure(t, e)
                continue
            except BaseException:
                _release(t)
                raise
            assert answer is not None
            t.handle_response(answer[0], answer[1], t.creds._now_ms())
            continue
        if time.monotonic() >= deadline:
            raise _timed_out()
        yield _WAIT_STEP


def bearer(t: OAuth2Token, http: httpx.Client, timeout: float) -> str:
    """The access token to send (BLOCKS while one is fetched), within `timeout` seconds.
    Raises OAuth2Error when the token endpoint refuses or cannot be reached."""
    steps = _bearer_steps(t, timeout)
    try:
        step = next(steps)
        while True:
            if isinstance(step, float):
                time.sleep(step)
                step = next(steps)
                continue
            url, form, headers, left = step
            try:
                r = http.post(url, content=form, headers=headers, timeout=left,
                              follow_redirects=False)
                answer = (r.status_code, r.content)
            except BaseException as e:
                step = steps.throw(e)
                continue
            step = steps.send(answer)
    except StopIteration as done:
        return str(done.value)


async def abearer(t: OAuth2Token, http: httpx.AsyncClient, timeout: float) -> str:
    """`bearer` on the event loop (awaits the fetch; a cancelled fetch releases the
    flight so that the next caller fetches)."""
    steps = _bearer_steps(t, timeout)
    try:
        step = next(steps)
        while True:
            if isinstance(step, float):
                await asyncio.sleep(step)
                step = next(steps)
                continue
            url, form, headers, left = step
            try:
                r = await http.post(url, content=form, headers=headers, timeout=left,
                                    follow_redirects=False)
                answer = (r.status_code, r.content)
            except BaseException as e:
                step = steps.throw(e)
                continue
            step = steps.send(answer)
    except StopIteration as done:
        return str(done.value)


def _transport_failure(t: OAuth2Token, e: BaseException) -> None:
    """The token request failed in transport: the flight ends, OAuth2Error (`transport`)
    raised without the httpx exception chained (its request carries the credentials)."""
    try:
        t.handle_response(0, b'', t.creds._now_ms(), type(e).__name__)
    except OAuth2Error as err:
        raise err from None


def _release(t: OAuth2Token) -> None:
    """Ends a fetch that was abandoned (cancelled, interrupted) as a transport failure, so
    that the next caller fetches again."""
    try:
        t.handle_response(0, b'', t.creds._now_ms())
    except A2AError:  # the refusal it is meant to be (or no fetch was outstanding)
        pass


def status_of(result: Any) -> int | None:
    """The HTTP status of a finished call's value (an Outcome, a CallResult or a stream's
    end), for the 401 retry."""
    outcome = getattr(result, 'outcome', result)
    status = getattr(outcome, 'http_status', None)
    return int(status) if status is not None else None


def with_bearer(headers: Headers, token: str | None) -> Headers:
    """A call's headers with `Authorization: Bearer <token>` added (the call settings'
    headers: sent on that call's requests to the validated interface only)."""
    if token is None:
        return headers
    given = headers.items() if isinstance(headers, Mapping) else headers or ()
    pairs = [(k, v) for k, v in given if k.lower() != 'authorization']
    pairs.append(('Authorization', f'Bearer {token}'))
    return pairs


# --- card verification -----------------------------------------------------------------------


def _keys_or_url(fetched: Any, verify: Any, key_hosts: Any) -> tuple[Keys | None, str | None]:
    if verify is True:
        url = card_key_url(fetched.card_json, fetched.card_url, key_hosts)
        if url is None:
            raise _refusal('A2A_CARD_SIGNATURE', 'no_jku',
                           'the card names no jku to fetch its keys from: pass the keys '
                           '(verify=JWKS or PEM)')
        return None, url
    return verify, None


def _jwks_body(url: str, status: int, body: bytes) -> bytes:
    if status != 200:
        raise _refusal('A2A_CARD_SIGNATURE', 'jku_fetch',
                       f'the card\'s key set {url} answered HTTP {status}')
    if len(body) > MAX_JWKS_BYTES:
        raise _refusal('A2A_CARD_SIGNATURE', 'jku_fetch',
                       f'the card\'s key set {url} is larger than {MAX_JWKS_BYTES} bytes')
    return body


def _fetch_failed(url: str, e: BaseException) -> Exception:
    return _refusal('A2A_CARD_SIGNATURE', 'jku_fetch',
                    f'the card\'s key set {url} could not be fetched ({type(e).__name__})')


def verify_fetched(fetched: Any, verify: Any, key_hosts: Any, http: httpx.Client,
                   timeout: float) -> VerifiedSignature:
    """Verifies a fetched card with the keys given, or (`verify=True`) with the key set its
    `jku` names, fetched through `http` once `card_key_url` allowed it. Raises
    CardSignatureError."""
    keys, url = _keys_or_url(fetched, verify, key_hosts)
    if url is not None:
        try:
            r = http.get(url, headers={'Accept': 'application/json'}, timeout=timeout,
                         follow_redirects=False)
        except httpx.HTTPError as e:
            raise _fetch_failed(url, e) from None
        keys = _jwks_body(url, r.status_code, r.content)
    assert keys is not None
    return verify_card(fetched.card_json, keys)


async def averify_fetched(fetched: Any, verify: Any, key_hosts: Any, http: httpx.AsyncClient,
                          timeout: float) -> VerifiedSignature:
    """`verify_fetched` on the event loop."""
    keys, url = _keys_or_url(fetched, verify, key_hosts)
    if url is not None:
        try:
            r = await http.get(url, headers={'Accept': 'application/json'}, timeout=timeout,
                               follow_redirects=False)
        except httpx.HTTPError as e:
            raise _fetch_failed(url, e) from None
        keys = _jwks_body(url, r.status_code, r.content)
    assert keys is not None
    return verify_card(fetched.card_json, keys)


__all__ = ['abearer', 'averify_fetched', 'bearer', 'status_of', 'verify_fetched',
           'with_bearer']
