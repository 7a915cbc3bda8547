"""Server-Sent Events: `SseDecoder` (bytes in, `Event` objects out) and `SseEncoder`.

`SseDecoder.feed` makes ONE foreign call per chunk, the library's copying batch call
(`a2a_sse_decoder_feed_copy`): the library copies every value it hands back into memory it
owns, so it never keeps a pointer into Python memory. Everything it returns is copied out
into Python objects before `feed` returns (the views die at the next call on the decoder).
"""

from __future__ import annotations

import ctypes
import operator
import struct
from dataclasses import dataclass
from typing import Union

from . import _lib
from .errors import (
    SseEventTooLargeError,
    SseLimitError,
    SseLineTooLongError,
    check,
    error_for,
)

__all__ = [
    'Comment',
    'Discarded',
    'Event',
    'Finish',
    'Item',
    'RetryItem',
    'SseDecoder',
    'SseEncoder',
]

_EVENT, _COMMENT, _RETRY, _LIMIT = 1, 2, 3, 4
_DISCARD, _DISPATCH = 1, 2


@dataclass(slots=True)
class Event:
    """One dispatched event. `type` is `message` when the stream named none; `id` is the
    last event ID in effect (empty when none was ever set). Text is UTF-8 decoded with
    U+FFFD for invalid bytes."""

    type: str
    data: str
    id: str


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment line (a keep-alive): the text after the colon, exactly as sent."""

    text: str


@dataclass(frozen=True, slots=True)
class RetryItem:
    """A valid `retry:` field: the server's new reconnection time in milliseconds."""

    ms: int


@dataclass(frozen=True, slots=True)
class Discarded:
    """What the WHATWG end-of-stream rule dropped."""

    #: Bytes after the last line terminator.
    partial_line: int
    #: A blank line there would have dispatched an event.
    event: bool
    #: The dropped block set an event ID that was therefore not committed.
    id: bool


@dataclass(frozen=True, slots=True)
class Finish:
    """The end-of-stream report of `SseDecoder.finish()`."""

    #: With `dispatch_at_eof=True`: the unterminated block, dispatched.
    event: Event | None
    #: With the default rule: what was dropped (None: the stream ended cleanly).
    discarded: Discarded | None
    #: With `dispatch_at_eof=True`: the limit error of the last line (nothing dispatched).
    error: SseLimitError | None


Item = Union[Event, Comment, RetryItem, SseLimitError]

# The item array is read with one memory copy and unpacked as 64-bit words when the struct
# has the layout of every 64-bit platform's C ABI (checked here, else field by field).
_FIELDS = _lib.SseItem._fields_
_FAST_LAYOUT = ctypes.sizeof(_lib.SseItem) == 80 and [
    getattr(_lib.SseItem, f[0]).offset for f in _FIELDS
] == [0, 8, 24, 40, 56, 64, 72] and struct.calcsize('Q') == 8
_ITEM_SIZE = ctypes.sizeof(_lib.SseItem)
# kind, (type ptr, len), (data ptr, len), (id ptr, len), retry_ms, error, limit
_ITEM_STRUCT = struct.Struct('=I4xQQQQQQQI4xQ')
_FAST_LAYOUT = _FAST_LAYOUT and _ITEM_STRUCT.size == 80
_SMALL_BATCH = 12
# ctypes.string_at takes the size as a C int.
_MAX_COPY = 2**31 - 1
_add = operator.add
_string_at = ctypes.string_at


def _limit_error(code: int, limit: int, message: str | None) -> SseLimitError:
    err = error_for(code, message)
    if not isinstance(err, SseLimitError):  # a limit kind newer than this binding
        err = SseLimitError(code, message)
    err.limit = limit
    return err


def _text(b: bytes) -> str:
    return b.decode('utf-8', 'replace')


class SseDecoder:
    """An incremental SSE decoder (WHATWG event-stream interpretation), bounded by limits.

    Feed the response body in chunks of any size, split anywhere; `feed` returns the
    events each chunk completed. Comments are counted (`comments`), valid `retry` values
    kept (`retry`), and limit errors (a line over `max_line`, event data over `max_event`:
    the event is dropped and decoding goes on) appended to `errors`. `feed_items` returns
    all four kinds in stream order instead. Not thread-safe (one decoder per stream).
    """

    __slots__ = (
        '_h',
        '_items',
        '_count',
        '_ref_items',
        '_ref_count',
        'comments',
        'errors',
        '__weakref__',
    )

    def __init__(
        self,
        *,
        max_line: int | None = None,
        max_event: int | None = None,
        dispatch_at_eof: bool = False,
    ) -> None:
        """Default limits: 16 MiB per line and per event. `dispatch_at_eof=True` makes
        `finish()` dispatch an unterminated last block (what the Java, JS and Go SDKs do)
        instead of dropping it (the WHATWG rule)."""
        self._h = 0
        h = ctypes.c_void_p()
        if max_line is None and max_event is None and not dispatch_at_eof:
            check(_lib.lib.a2a_sse_decoder_new(ctypes.byref(h)))
        else:
            big = 16 * 1024 * 1024
            ml = big if max_line is None else max_line
            me = big if max_event is None else max_event
            if ml <= 0 or me <= 0:
                raise ValueError('max_line and max_event must be positive')
            at_eof = _DISPATCH if dispatch_at_eof else _DISCARD
            check(_lib.lib.a2a_sse_decoder_new_with(ml, me, at_eof, ctypes.byref(h)))
        self._h = h.value or 0
        self._items = ctypes.c_void_p()
        self._count = ctypes.c_size_t()
        self._ref_items = ctypes.byref(self._items)
        self._ref_count = ctypes.byref(self._count)
        #: Comment lines seen so far (keep-alives).
        self.comments = 0
        #: Limit errors seen so far, in order (not raised: decoding went on).
        self.errors: list[SseLimitError] = []

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """Frees the library decoder now (also done when the object is collected)."""
        h, self._h = getattr(self, '_h', 0), 0
        if h:
            _lib.lib.a2a_sse_decoder_free(h)

    def __enter__(self) -> SseDecoder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handle(self) -> int:
        if not self._h:
            raise ValueError('the decoder is closed')
        return self._h

    def _last_error(self) -> str | None:
        return _lib.view_str(_lib.lib.a2a_sse_decoder_last_error(self._h))

    def _feed_raw(self, chunk: bytes | bytearray | memoryview) -> int:
        if not isinstance(chunk, bytes):
            chunk = bytes(chunk)
        rc = _lib.lib.a2a_sse_decoder_feed_copy(
            self._handle(), chunk, len(chunk), self._ref_items, self._ref_count
        )
        if rc:
            raise error_for(rc, self._last_error())
        return self._count.value

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Event]:
        """Decodes one chunk of the body; returns the events it completed, in order."""
        n = self._feed_raw(chunk)
        if not n:
            return []
        if _FAST_LAYOUT:
            events = self._events_small(n) if n <= _SMALL_BATCH else self._events_fast(n)
            if events is not None:
                return events
        out: list[Event] = []
        for it in self._collect(n):
            if type(it) is Event:
                out.append(it)
        return out

    def feed_items(self, chunk: bytes | bytearray | memoryview) -> list[Item]:
        """Like `feed`, but returns every item in stream order: `Event`, `Comment`,
        `RetryItem` and `SseLimitError` (an exception instance, not raised). The decoder's
        `comments` and `errors` are updated as by `feed`."""
        n = self._feed_raw(chunk)
        return self._collect(n) if n else []

    def _events_small(self, n: int) -> list[Event] | None:
        """The batch path for a few items: the same tiling rule as `_events_fast`, checked
        in one pass over the unpacked structs (fewer fixed costs than the list operations,
        which pay off from a dozen events per chunk on)."""
        rows = list(_ITEM_STRUCT.iter_unpack(_string_at(self._items.value or 0, n * 80)))
        base = pos = rows[0][1]
        for kind, tp, tl, dp, dl, ip, il, _r, _e, _l in rows:
            if kind != _EVENT or tp != pos or dp != tp + tl or ip != dp + dl:
                return None
            pos = ip + il
        if pos - base > _MAX_COPY:
            return None
        block = _string_at(base, pos - base) if pos != base else b''
        if block.isascii():
            t = block.decode('ascii')
            return [
                Event(t[tp - base : dp - base], t[dp - base : ip - base],
                      t[ip - base : ip - base + il] if il else '')
                for _k, tp, _tl, dp, _dl, ip, il, _r, _e, _l in rows
            ]
        return [
            Event(_text(block[tp - base : dp - base]), _text(block[dp - base : ip - base]),
                  _text(block[ip - base : ip - base + il]) if il else '')
            for _k, tp, _tl, dp, _dl, ip, il, _r, _e, _l in rows
        ]

    def _events_fast(self, n: int) -> list[Event] | None:
        """All-event batches whose values tile one block of library memory: one copy of the
        item array, one copy of the values, slicing. None: use the general path."""
        raw = _string_at(self._items.value or 0, n * 80)
        kinds = memoryview(raw).cast('I')[0::20]
        if kinds.tolist().count(_EVENT) != n:
            return None
        w = memoryview(raw).cast('Q')
        tp, tl, dp, dl, ip, il = (w[k::10].tolist() for k in range(1, 7))
        te = list(map(_add, tp, tl))
        de = list(map(_add, dp, dl))
        ie = list(map(_add, ip, il))
        # Every value must start exactly where the previous one ended (type, data, id, next
        # event's type, ...). Then every byte between the first start and the last end
        # belongs to a view this call handed out, and one copy of that block reads only
        # memory the library vouched for. Otherwise: the general path.
        if te != dp or de != ip or ie[:-1] != tp[1:]:
            return None
        base = tp[0]
        total = ie[-1] - base
        if total > _MAX_COPY:
            return None
        block = _string_at(base, total) if total else b''
        if block.isascii():
            t = block.decode('ascii')
            return [
                Event(t[a - base : c - base], t[c - base : e - base],
                      t[e - base : g - base] if e != g else '')
                for a, c, e, g in zip(tp, dp, ip, ie)
            ]
        return [
            Event(_text(block[a - base : c - base]), _text(block[c - base : e - base]),
                  _text(block[e - base : g - base]) if e != g else '')
            for a, c, e, g in zip(tp, dp, ip, ie)
        ]

    def _collect(self, n: int) -> list[Item]:
        """Every item of the last feed, field by field (the general path)."""
        arr = ctypes.cast(self._items, ctypes.POINTER(_lib.SseItem * n)).contents
        out: list[Item] = []
        last_error = None
        for it in arr:
            k = it.kind
            if k == _EVENT:
                out.append(_event(it))
            elif k == _COMMENT:
                self.comments += 1
                out.append(Comment(_view_text(it.data)))
            elif k == _RETRY:
                out.append(RetryItem(int(it.retry_ms)))
            elif k == _LIMIT:
                if last_error is None:
                    last_error = self._last_error()
                err = _limit_error(it.error, int(it.limit), None)
                self.errors.append(err)
                out.append(err)
        # The library keeps the message of the last limit error only; give it to that one.
        if last_error is not None:
            for e in reversed(out):
                if isinstance(e, SseLimitError):
                    e.args = (f'{last_error} ({e.name})',)
                    e.message = last_error
                    break
        return out

    def finish(self) -> Finish:
        """Ends the stream (end of the response body) and reports what the end-of-stream
        rule did. The decoder is then ready for a new stream; the last event ID and retry
        value are kept. Calling it twice is harmless."""
        f = _lib.SseFinish()
        h = self._handle()
        rc = _lib.lib.a2a_sse_decoder_finish(h, ctypes.byref(f))
        if rc:
            raise error_for(rc, self._last_error())
        event = _event(f.event) if f.has_event else None
        discarded = (
            Discarded(int(f.discarded_partial_line), bool(f.discarded_event), bool(f.discarded_id))
            if f.discarded
            else None
        )
        error = None
        if f.error:
            error = _limit_error(f.error, int(f.limit), self._last_error())
            self.errors.append(error)
        return Finish(event, discarded, error)

    @property
    def last_event_id(self) -> str:
        """The last event ID (send it as `Last-Event-ID` when reconnecting); '' when none."""
        b = _lib.view_bytes(_lib.lib.a2a_sse_decoder_last_event_id(self._handle()))
        return _text(b or b'')

    @last_event_id.setter
    def last_event_id(self, value: str) -> None:
        b, n = _lib.enc(value)
        h = self._handle()
        rc = _lib.lib.a2a_sse_decoder_set_last_event_id(h, b if n else None, n)
        if rc:
            raise error_for(rc, self._last_error())

    @property
    def retry(self) -> int | None:
        """The last valid `retry` value (ms) seen on any stream of this decoder, or None."""
        out = ctypes.c_uint64()
        ok = _lib.lib.a2a_sse_decoder_retry(self._handle(), ctypes.byref(out))
        return out.value if ok else None

    def reset_for_reconnect(self) -> None:
        """Forgets the stream in progress for a new connection; keeps the last event ID
        and the retry value."""
        check(_lib.lib.a2a_sse_decoder_reset_for_reconnect(self._handle()))


def _view_text(v: _lib.Bytes) -> str:
    return _text(_string_at(v.ptr, v.len)) if v.ptr and v.len else ''


def _event(it: _lib.SseItem) -> Event:
    return Event(_view_text(it.event_type), _view_text(it.data), _view_text(it.id))


class SseEncoder:
    """Writes events, comments and keep-alives into a buffer (for servers and tests)."""

    __slots__ = ('_h', '__weakref__')

    def __init__(self) -> None:
        self._h = 0
        h = ctypes.c_void_p()
        check(_lib.lib.a2a_sse_encoder_new(ctypes.byref(h)))
        self._h = h.value or 0

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """Frees the library encoder now (also done when the object is collected)."""
        h, self._h = getattr(self, '_h', 0), 0
        if h:
            _lib.lib.a2a_sse_encoder_free(h)

    def _check(self, rc: int) -> None:
        if rc:
            raise error_for(rc, _lib.view_str(_lib.lib.a2a_sse_encoder_last_error(self._h)))

    def event(
        self,
        data: str | bytes,
        type: str | None = None,
        id: str | None = None,
        retry_ms: int | None = None,
    ) -> SseEncoder:
        """Appends one event (line breaks in `data` become separate `data:` lines). An
        `id` of '' resets the client's last event ID; None writes no `id:` line."""
        if not self._h:
            raise ValueError('the encoder is closed')
        d, dn = _lib.enc(data)
        t, tn = _lib.enc(type or '')
        i, ino = _lib.enc(id if id is not None else '')
        self._check(
            _lib.lib.a2a_sse_encoder_event(
                self._h, d, dn, t, tn, id is not None, i, ino, retry_ms is not None,
                retry_ms or 0,
            )
        )
        return self

    def comment(self, text: str = '') -> SseEncoder:
        """Appends a comment (`: text`)."""
        b, n = _lib.enc(text)
        self._check(_lib.lib.a2a_sse_encoder_comment(self._h, b, n))
        return self

    def keep_alive(self) -> SseEncoder:
        """Appends `: keep-alive` and a blank line."""
        self._check(_lib.lib.a2a_sse_encoder_keep_alive(self._h))
        return self

    def output(self) -> bytes:
        """Everything written since creation or the last `clear()` (a copy)."""
        return _lib.view_bytes(_lib.lib.a2a_sse_encoder_output(self._h)) or b''

    def clear(self) -> None:
        """Empties the buffer."""
        self._check(_lib.lib.a2a_sse_encoder_clear(self._h))
