"""Agent cards: parse a card (0.3, 1.0 or the hybrid deployed servers send), choose the
interface to call for the client's preferences, and validate its URL against the URL the
card was fetched from (same origin unless allowed; https unless plain http is allowed)."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass

from . import _lib
from .errors import check, error_for
from .vocab import Binding, ProtocolVersion, _num, _word, parse_binding, parse_protocol_version

__all__ = [
    'AgentCard',
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


class AgentCard:
    """A parsed agent card. Raises CardError (with `.kind`) when the body is not a card."""

    __slots__ = ('_h', 'info', '__weakref__')

    def __init__(self, body: bytes | str) -> None:
        self._h = _new_handle()
        b = body.encode('utf-8') if isinstance(body, str) else bytes(body)
        rc = _lib.lib.a2a_card_parse(self._h, b, len(b))
        if rc:
            raise error_for(rc, self._last_error())
        self.info: CardInfo = self._read_info()

    def __del__(self) -> None:
        h, self._h = getattr(self, '_h', 0), 0
        if h:
            _lib.lib.a2a_card_free(h)

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
