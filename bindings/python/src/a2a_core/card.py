"""Agent cards: parse a card (0.3, 1.0 or the hybrid deployed servers send), choose the
interface to call for the client's preferences, and validate its URL against the URL the
card was fetched from (same origin unless allowed; https unless plain http is allowed)."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass

from . import _lib
from ._guard import Owned
from .errors import check, error_for
from .vocab import Binding, ProtocolVersion, _num, _word, parse_binding, parse_protocol_version

__all__ = [
    'AgentCard',
    'CredentialNeed',
    'CredentialPlan',
    'CardChoice',
    'CardInfo',
    'CardInterface',
    'ResolvedInterface',
    'card_location',
    'validate_interface_url',
]

_SHAPES = {1: '1.0', 2: '0.3', 3: 'hybrid'}
_ORDERS = {'client': 1, 'card': 2}
_ORDER_WORDS = {v: k for k, v in _ORDERS.items()}
_ADDRESS = {1: 'public', 2: 'localhost_name', 3: 'loopback', 4: 'private',
            5: 'shared_address_space', 6: 'link_local', 7: 'unique_local', 8: 'unspecified',
            9: 'multicast'}
_LISTS = {1: 'supportedInterfaces', 2: 'url/preferredTransport', 3: 'additionalInterfaces'}


def _origin(lst: int, index: int) -> str:
    """Where an interface was declared: `supportedInterfaces[2]`, `url/preferredTransport`."""
    name = _LISTS.get(lst, f'list{lst}')
    return name if lst == 2 else f'{name}[{index}]'


@dataclass(frozen=True, slots=True)
class CardInterface:
    """One interface a card declares, as written."""

    url: str
    #: The binding as written (`JSONRPC`, `HTTP+JSON`, `GRPC`, ...).
    binding: str
    protocol_version: str | None
    tenant: str | None
    #: Where it was declared (`supportedInterfaces[0]`, `url/preferredTransport`, ...).
    origin: str
    #: The binding / wire version this core speaks it in (None: not spoken).
    known_binding: Binding | None
    wire_version: ProtocolVersion | None


@dataclass(frozen=True, slots=True)
class CardInfo:
    """A summary of a parsed card."""

    name: str
    description: str
    version: str
    streaming: bool
    push_notifications: bool
    extended_card: bool
    #: Which shape was read: `1.0`, `0.3` or `hybrid`.
    shape: str
    interfaces: tuple[CardInterface, ...]


@dataclass(frozen=True, slots=True)
class CardChoice:
    """The interface chosen for the client's preferences, and why."""

    url: str
    version: ProtocolVersion
    declared_version: str | None
    binding: Binding
    tenant: str | None
    #: Index into `CardInfo.interfaces`.
    index: int
    origin: str
    version_rank: int
    binding_rank: int
    #: The order that decided: `client` or `card`.
    order: str
    #: Interfaces passed over.
    skipped: int
    #: One line for logs: what was chosen, by which rule, what was skipped and why.
    explanation: str


@dataclass(frozen=True, slots=True)
class ResolvedInterface:
    """A chosen interface whose URL was validated against the card's URL."""

    choice: CardChoice
    #: True when the URL has the card's origin; False when the allow-list admitted it.
    same_origin: bool
    scheme: str
    host: str
    port: int
    path: str
    #: What kind of address the host is (`public`, `loopback`, `private`, ...).
    host_class: str


_CREDENTIAL_KINDS = {1: 'bearer', 2: 'api_key', 3: 'basic', 4: 'other_http',
                     5: 'client_certificate', 6: 'unknown'}
_BEARER_SOURCES = {1: 'http', 2: 'oauth2', 3: 'openid_connect'}
_KEY_LOCATIONS = {1: 'header', 2: 'query', 3: 'cookie'}


@dataclass(frozen=True, slots=True)
class CredentialNeed:
    """One credential a card asks for."""

    #: The scheme name in the card.
    scheme: str
    #: `bearer`, `api_key`, `basic`, `other_http`, `client_certificate` or `unknown` (the
    #: requirement names a scheme the card does not declare, or one of unknown type).
    kind: str
    #: Bearer: how the token is obtained (`http`, `oauth2`, `openid_connect`).
    bearer_source: str | None = None
    #: Bearer: `bearerFormat` (e.g. `JWT`).
    bearer_format: str | None = None
    #: API key: `header`, `query` or `cookie`.
    api_key_location: str | None = None
    #: API key: the header, query parameter or cookie name.
    api_key_name: str | None = None
    #: Other HTTP scheme: the scheme as declared.
    http_scheme: str | None = None
    #: The header the credential travels in (`Authorization` or the API key's header).
    header_name: str | None = None
    #: OAuth scopes requested.
    scopes: tuple[str, ...] = ()

    @property
    def word(self) -> str:
        """`bearer`, `basic`, `client_certificate`, `api_key:<in>:<name>`,
        `other_http:<scheme>` or `unknown` (the words of bindings/fixtures/cards.json)."""
        if self.kind == 'api_key':
            return f'api_key:{self.api_key_location}:{self.api_key_name}'
        if self.kind == 'other_http':
            return f'other_http:{self.http_scheme}'
        return self.kind


@dataclass(frozen=True, slots=True)
class CredentialPlan:
    """What a card asks the client to present: alternatives (satisfy any one), each a
    tuple of needs that must all be met. No alternatives: no credential needed; an empty
    alternative: anonymous access is one option."""

    alternatives: tuple[tuple[CredentialNeed, ...], ...]
    #: False when the card declares schemes but no requirement, so each scheme is offered
    #: as an alternative on its own (a guess; many deployed cards do this).
    stated: bool


class _Prefs:
    """Keeps the C arrays of a preferences/policy struct alive during a call."""

    def __init__(
        self,
        versions: Sequence[str | ProtocolVersion] | None,
        bindings: Sequence[str | Binding] | None,
        order: str,
    ) -> None:
        vs = [_num(ProtocolVersion)[parse_protocol_version(v)] for v in versions or ()]
        bs = [_num(Binding)[parse_binding(b)] for b in bindings or ()]
        if order not in _ORDERS:
            raise ValueError(f'order {order!r}: expected client or card')
        self.v = (ctypes.c_uint32 * max(len(vs), 1))(*vs)
        self.b = (ctypes.c_uint32 * max(len(bs), 1))(*bs)
        self.c = _lib.CardPreferences(
            self.v if vs else None, len(vs), self.b if bs else None, len(bs), _ORDERS[order]
        )


class _Policy:
    def __init__(self, allow_http: bool, allowed_origins: Sequence[str]) -> None:
        self.keep = [o.encode('utf-8') for o in allowed_origins]
        arr = (_lib.Str * max(len(self.keep), 1))()
        for i, b in enumerate(self.keep):
            arr[i].ptr = ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p).value
            arr[i].len = len(b)
        self.arr = arr
        self.c = _lib.CardPolicy(allow_http, arr if self.keep else None, len(self.keep))


def _new_handle() -> int:
    h = ctypes.c_void_p()
    check(_lib.lib.a2a_card_new(ctypes.byref(h)))
    return h.value or 0


class AgentCard(Owned):
    """A parsed agent card. Raises CardError (with `.kind`) when the body is not a card."""

    __slots__ = ('_h', 'info', '__weakref__')
    _slot = '_h'
    _free = _lib.lib.a2a_card_free

    def __init__(self, body: bytes | str) -> None:
        self._h = _new_handle()
        b = body.encode('utf-8') if isinstance(body, str) else bytes(body)
        rc = _lib.lib.a2a_card_parse(self._h, b, len(b))
        if rc:
            raise error_for(rc, self._last_error())
        self.info: CardInfo = self._read_info()

    def _last_error(self) -> str | None:
        return _lib.view_str(_lib.lib.a2a_card_last_error(self._h))

    def _read_info(self) -> CardInfo:
        i = _lib.CardInfo()
        check(_lib.lib.a2a_card_get_info(self._h, ctypes.byref(i)))
        s = _lib.view_str
        ifaces = []
        for k in range(i.interface_count):
            f = _lib.CardInterface()
            check(_lib.lib.a2a_card_get_interface(self._h, k, ctypes.byref(f)))
            ifaces.append(CardInterface(
                url=s(f.url) or '', binding=s(f.binding) or '',
                protocol_version=s(f.protocol_version), tenant=s(f.tenant),
                origin=_origin(f.origin_list, f.origin_index),
                known_binding=_word(Binding, f.known_binding) if f.known_binding else None,
                wire_version=_word(ProtocolVersion, f.wire_version) if f.wire_version else None,
            ))
        return CardInfo(
            name=s(i.name) or '', description=s(i.description) or '', version=s(i.version) or '',
            streaming=bool(i.streaming), push_notifications=bool(i.push_notifications),
            extended_card=bool(i.extended_card), shape=_SHAPES.get(i.shape, str(i.shape)),
            interfaces=tuple(ifaces),
        )

    def credentials(self) -> CredentialPlan:
        """Which credentials the card asks for (`securitySchemes` with `security` in 0.3,
        `securityRequirements` in 1.0)."""
        L, ref, s = _lib.lib, ctypes.byref, _lib.view_str
        plan = _lib.CardCredentialPlan()
        check(L.a2a_card_credentials(self._h, ref(plan)))
        alternatives = []
        n, need, scope = ctypes.c_size_t(), _lib.CardCredential(), _lib.Str()
        for a in range(plan.alternative_count):
            check(L.a2a_card_credential_alternative(self._h, a, ref(n)))
            needs = []
            for i in range(n.value):
                check(L.a2a_card_credential_need(self._h, a, i, ref(need)))
                scopes = []
                for k in range(need.scope_count):
                    check(L.a2a_card_credential_scope(self._h, a, i, k, ref(scope)))
                    scopes.append(s(scope) or '')
                needs.append(CredentialNeed(
                    scheme=s(need.scheme) or '',
                    kind=_CREDENTIAL_KINDS.get(need.kind, 'unknown'),
                    bearer_source=_BEARER_SOURCES.get(need.bearer_source),
                    bearer_format=s(need.bearer_format),
                    api_key_location=_KEY_LOCATIONS.get(need.api_key_location),
                    api_key_name=s(need.api_key_name),
                    http_scheme=s(need.http_scheme),
                    header_name=s(need.header_name),
                    scopes=tuple(scopes),
                ))
            alternatives.append(tuple(needs))
        return CredentialPlan(tuple(alternatives), bool(plan.stated))

    def _choice(self, c: _lib.CardChoice) -> CardChoice:
        s = _lib.view_str
        return CardChoice(
            url=s(c.url) or '', version=_word(ProtocolVersion, c.version),
            declared_version=s(c.declared_version), binding=_word(Binding, c.binding),
            tenant=s(c.tenant), index=int(c.index), origin=_origin(c.origin_list, c.origin_index),
            version_rank=int(c.version_rank), binding_rank=int(c.binding_rank),
            order=_ORDER_WORDS.get(c.order, str(c.order)), skipped=int(c.skipped_count),
            explanation=s(_lib.lib.a2a_card_choice_explain(self._h)) or '',
        )

    def select(
        self,
        versions: Sequence[str | ProtocolVersion] | None = None,
        bindings: Sequence[str | Binding] | None = None,
        order: str = 'client',
    ) -> CardChoice:
        """Chooses the interface to call. Defaults: versions 1.0 then 0.3, bindings
        JSON-RPC then HTTP+JSON, the client's order first (`order='card'`: card order,
        the client's lists only filter). Raises CardError `no_usable_interface`."""
        p = _Prefs(versions, bindings, order)
        out = _lib.CardChoice()
        rc = _lib.lib.a2a_card_select(self._h, ctypes.byref(p.c), ctypes.byref(out))
        if rc:
            raise error_for(rc, self._last_error())
        return self._choice(out)

    def resolve(
        self,
        card_url: str,
        versions: Sequence[str | ProtocolVersion] | None = None,
        bindings: Sequence[str | Binding] | None = None,
        order: str = 'client',
        *,
        allow_http: bool = False,
        allowed_origins: Sequence[str] = (),
    ) -> ResolvedInterface:
        """Selects as `select`, then validates the chosen URL against `card_url` (where the
        card was fetched from, after redirects): https only and the card's origin unless
        `allow_http` / `allowed_origins` say otherwise. A chosen interface that fails is
        an error, never a reason to fall back."""
        p = _Prefs(versions, bindings, order)
        pol = _Policy(allow_http, allowed_origins)
        u, un = _lib.enc(card_url)
        out = _lib.CardResolved()
        rc = _lib.lib.a2a_card_resolve(self._h, u, un, ctypes.byref(p.c), ctypes.byref(pol.c),
                                       ctypes.byref(out))
        if rc:
            raise error_for(rc, self._last_error())
        s = _lib.view_str
        return ResolvedInterface(
            choice=self._choice(out.choice), same_origin=bool(out.same_origin),
            scheme=s(out.scheme) or '', host=s(out.host) or '', port=int(out.port),
            path=s(out.path) or '', host_class=_ADDRESS.get(out.host_class, str(out.host_class)),
        )


def card_location(url: str) -> tuple[str, str | None]:
    """The card URL(s) to fetch for a base URL or a full card URL: the primary, and a
    fallback (or None) to try when the primary answers 404."""
    h = _new_handle()
    try:
        u, un = _lib.enc(url)
        primary, fallback = _lib.Str(), _lib.Str()
        rc = _lib.lib.a2a_card_location(h, u, un, ctypes.byref(primary), ctypes.byref(fallback))
        if rc:
            raise error_for(rc, _lib.view_str(_lib.lib.a2a_card_last_error(h)))
        return _lib.view_str(primary) or '', _lib.view_str(fallback)
    finally:
        _lib.lib.a2a_card_free(h)


def validate_interface_url(
    interface_url: str,
    card_url: str,
    *,
    allow_http: bool = False,
    allowed_origins: Sequence[str] = (),
) -> bool:
    """Validates an interface URL against its card's URL; returns True for the same
    origin, False when the allow-list admitted it; raises CardError otherwise."""
    h = _new_handle()
    try:
        pol = _Policy(allow_http, allowed_origins)
        i, n = _lib.enc(interface_url)
        c, cn = _lib.enc(card_url)
        same = ctypes.c_bool()
        rc = _lib.lib.a2a_card_validate_interface_url(h, i, n, c, cn, ctypes.byref(pol.c),
                                                      ctypes.byref(same))
        if rc:
            raise error_for(rc, _lib.view_str(_lib.lib.a2a_card_last_error(h)))
        return bool(same.value)
    finally:
        _lib.lib.a2a_card_free(h)
