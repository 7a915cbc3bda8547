"""`Tally`: outcome counters per (agent, method, channel, code-or-state), rendered in the
Prometheus text format as `a2a_outcomes_total`."""

from __future__ import annotations

import ctypes

from . import _guard, _lib
from .errors import check
from .outcome import Outcome
from .vocab import Channel, _num, _word

__all__ = ['Tally']


class Tally(_guard.OwnedHandle):
    """Outcome counts. Not thread-safe."""

    __slots__ = ('_h', '__weakref__')
    _free = _lib.lib.a2a_tally_free
    _what = 'tally'

    def __init__(self) -> None:
        self._h = 0
        h = ctypes.c_void_p()
        check(_lib.lib.a2a_tally_new(ctypes.byref(h)))
        self._h = h.value or 0

    def record(self, agent: str, method: str, outcome: Outcome) -> None:
        """Counts one outcome of `method` on `agent` (the outcome must come from classify,
        Outcome.transport, or a client's call or stream end)."""
        a, an = _lib.enc(agent)
        m, mn = _lib.enc(method)
        check(_lib.lib.a2a_tally_record(self._handle(), a, an, m, mn, outcome._ptr()))

    def add(self, agent: str, method: str, channel: Channel | str, code: str, n: int = 1) -> None:
        """Adds `n` to one counter directly (e.g. to merge tallies)."""
        a, an = _lib.enc(agent)
        m, mn = _lib.enc(method)
        c, cn = _lib.enc(code)
        ch = _num(Channel)[Channel(channel)]
        check(_lib.lib.a2a_tally_add(self._handle(), a, an, m, mn, ch, c, cn, n))

    def count(self, agent: str, method: str, channel: Channel | str, code: str) -> int:
        """One counter's value (0 when never recorded)."""
        a, an = _lib.enc(agent)
        m, mn = _lib.enc(method)
        c, cn = _lib.enc(code)
        ch = _num(Channel)[Channel(channel)]
        out = ctypes.c_uint64()
        check(
            _lib.lib.a2a_tally_count(self._handle(), a, an, m, mn, ch, c, cn, ctypes.byref(out))
        )
        return out.value

    @property
    def total(self) -> int:
        """The sum of every counter."""
        return int(_lib.lib.a2a_tally_total(self._handle()))

    def entries(self) -> list[tuple[str, str, Channel, str, int]]:
        """Every counter as (agent, method, channel, code, count), sorted."""
        h = self._handle()
        out = []
        e = _lib.TallyEntry()
        for i in range(_lib.lib.a2a_tally_entry_count(h)):
            check(_lib.lib.a2a_tally_get_entry(h, i, ctypes.byref(e)))
            out.append((_lib.view_str(e.agent) or '', _lib.view_str(e.method) or '',
                        _word(Channel, e.channel), _lib.view_str(e.code) or '', int(e.count)))
        return out

    def render_prometheus(self) -> str:
        """The Prometheus text exposition (0.0.4)."""
        out = _lib.Str()
        check(_lib.lib.a2a_tally_render_prometheus(self._handle(), ctypes.byref(out)))
        return _lib.view_str(out) or ''
