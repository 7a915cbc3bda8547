"""W3C `traceparent` values: parse, start a trace, make a child span, format."""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass

from . import _lib
from .errors import check, error_for

__all__ = ['Traceparent']


@dataclass(frozen=True, slots=True)
class Traceparent:
    """A `traceparent` (version 00): 16-byte trace id, 8-byte parent (span) id, flags."""

    trace_id: bytes
    parent_id: bytes
    flags: int

    @property
    def sampled(self) -> bool:
        """Bit 0 of the flags."""
        return bool(self.flags & 1)

    @classmethod
    def _from_c(cls, tp: _lib.Traceparent) -> Traceparent:
        return cls(bytes(tp.trace_id), bytes(tp.parent_id), int(tp.flags))

    def _c(self) -> _lib.Traceparent:
        if len(self.trace_id) != 16 or len(self.parent_id) != 8 or not 0 <= self.flags <= 255:
            raise ValueError('a traceparent has a 16-byte trace id, an 8-byte parent id and '
                             'one flags byte')
        c = _lib.Traceparent()
        c.trace_id[:] = list(self.trace_id)
        c.parent_id[:] = list(self.parent_id)
        c.flags = self.flags
        return c

    @classmethod
    def parse(cls, text: str) -> Traceparent:
        """Parses a header value (raises TraceparentError saying what is wrong)."""
        b, n = _lib.enc(text)
        out = _lib.Traceparent()
        check(_lib.lib.a2a_traceparent_parse(b, n, ctypes.byref(out)))
        return cls._from_c(out)

    @classmethod
    def new(cls, sampled: bool = True) -> Traceparent:
        """A new trace from `os.urandom` (the library has no random source)."""
        out = _lib.Traceparent()
        for _ in range(4):  # an all-zero id (NONE) is drawn again
            rc = _lib.lib.a2a_traceparent_new(None, os.urandom(24), 24, sampled, ctypes.byref(out))
            if rc == 0:
                return cls._from_c(out)
            if rc != 2:
                check(rc)
        raise error_for(102, 'os.urandom returned all-zero ids four times')

    def child(self) -> Traceparent:
        """A child span: same trace id and flags, a new random parent id."""
        parent = self._c()
        out = _lib.Traceparent()
        for _ in range(4):
            rc = _lib.lib.a2a_traceparent_new(ctypes.byref(parent), os.urandom(8), 8, False,
                                              ctypes.byref(out))
            if rc == 0:
                return Traceparent._from_c(out)
            if rc != 2:
                check(rc)
        raise error_for(102, 'os.urandom returned an all-zero id four times')

    def __str__(self) -> str:
        """The 55-character header value `00-<trace>-<parent>-<flags>`."""
        c = self._c()
        buf = ctypes.create_string_buffer(55)
        check(_lib.lib.a2a_traceparent_format(ctypes.byref(c), buf))
        return buf.raw.decode('ascii')
