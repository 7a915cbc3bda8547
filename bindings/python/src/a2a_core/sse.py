"""Server-Sent Events: `SseDecoder` (bytes in, `Event` objects out) and `SseEncoder`.

`SseDecoder.feed` makes ONE foreign call per chunk, the library's packed batch call
(`a2a_sse_decoder_feed_packed`): the library copies the chunk's events into one buffer it
owns (every type, data and id ended by a CR, a byte no decoded value contains), so it never
keeps a pointer into Python memory, and the binding copies that buffer once, decodes it once
and splits it at CR. Everything is copied into Python objects before `feed` returns (the
library's buffer dies at the next call on the decoder).
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass
from itertools import repeat
from typing import NamedTuple, Union

from . import _guard, _lib
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


class Event(NamedTuple):
    """One dispatched event. `type` is `message` when the stream named none; `id` is the
    last event ID in effect (empty when none was ever set). Text is UTF-8 decoded with
    U+FFFD for invalid bytes. An immutable named tuple: `Event('message', 'x', '')`,
    `ev.data`, and it unpacks as `type, data, id = ev`."""

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

# The packed struct is read as eight machine words in one slice of a ctypes array laid over
# it, when it has the layout of every 64-bit platform's C ABI (checked here, else by field):
# bytes.ptr, bytes.len, offsets, event_count, comment_count, limit_error_count, items,
# item_count.
_P = _lib.SsePacked
_WORDS = ctypes.sizeof(_P) == 64 and ctypes.sizeof(ctypes.c_size_t) == 8 and [
    _P.bytes.offset, _P.offsets.offset, _P.event_count.offset, _P.comment_count.offset,
    _P.limit_error_count.offset, _P.items.offset, _P.item_count.offset,
] == [0, 16, 24, 32, 40, 48, 56]
_ITEM_SIZE = ctypes.sizeof(_lib.SseItem)
# Item kinds are read as the first uint32 of each item, in one copy of the item array.
_KIND_STRIDE = _ITEM_SIZE // 4 if _lib.SseItem.kind.offset == 0 and _ITEM_SIZE % 4 == 0 else 0
# ctypes.string_at takes the size as a C int.
_MAX_COPY = 2**31 - 1
_string_at = ctypes.string_at
_tuple_new = tuple.__new__
_feed_packed = _lib.lib.a2a_sse_decoder_feed_packed
# The per-chunk hot path calls the same function through a prototype without argtypes,
# with arguments already of the C types (c_void_p handle, bytes, c_size_t, byref of the
# struct): ctypes then skips its per-argument conversion, about a third of the call's cost.
# A second CDLL object of the same file (dlopen returns the same library) keeps the checked
# declaration of `_lib` intact for every other caller.
_feed_packed_raw = ctypes.CDLL(str(_lib.LIB_PATH)).a2a_sse_decoder_feed_packed
_feed_packed_raw.restype = ctypes.c_uint32
_size_t = ctypes.c_size_t
_unpack_words = struct.Struct('8Q').unpack if _WORDS and struct.calcsize('8Q') == 64 else None


def _limit_error(code: int, limit: int, message: str | None) -> SseLimitError:
    err = error_for(code, message)
    if not isinstance(err, SseLimitError):  # a limit kind newer than this binding
        err = SseLimitError(code, message)
    err.limit = limit
    return err


def _text(b: bytes) -> str:
    return b.decode('utf-8', 'replace')


def _copy(ptr: int, size: int) -> bytes:
    if size <= _MAX_COPY:
        return _string_at(ptr, size)
    return bytes((ctypes.c_char * size).from_address(ptr))


def _events(ptr: int, size: int, n: int) -> list[Event]:
    """The `n` events of a packed buffer: one copy, one decode, one split at CR (exact: CR
    is in no value, and lossy UTF-8 decoding never swallows an ASCII byte, so each piece
    equals its value decoded alone), then one tuple per event, all in C loops. When every
    event of the batch has the same type (nearly always `message`) or the same id, the
    events share one `str` for it instead of holding equal copies (less memory kept alive,
    which is most of the cost of keeping events)."""
    parts = _copy(ptr, size).decode('utf-8', 'replace').split('\r')
    types, datas, ids = parts[0::3], parts[1::3], parts[2::3]
    first = types[0]
    if types.count(first) == n:
        types = repeat(first, n)  # type: ignore[assignment]
    first = ids[0]
    if ids.count(first) == n:
        ids = repeat(first, n)  # type: ignore[assignment]
    return list(map(_tuple_new, repeat(Event, n), zip(types, datas, ids)))


class SseDecoder:
    """An incremental SSE decoder (WHATWG event-stream interpretation), bounded by limits.

    Feed the response body in chunks of any size, split anywhere; `feed` returns the
    events each chunk completed. Comments are counted (`comments`), valid `retry` values
    kept (`retry`), and limit errors (a line over `max_line`, event data over `max_event`:
    the event is dropped and decoding goes on) appended to `errors`. `feed_items` returns
    all four kinds in stream order instead.

    Not thread-safe (one decoder per stream): a call while another thread is inside one
    raises InUseError and changes nothing; `close()` from another thread waits for the call
    in progress; calls after `close()` raise ClosedError.
    """

    __slots__ = (
        '_busy',
        '_h',
        '_hv',
        '_packed',
        '_ref_packed',
        '_words',
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
        # Held (never waited for, except by close) for the whole of each method: the call
        # and the copying of its results out of the library's buffers.
        self._busy = _guard.Exclusive('decoder')
        self._h = 0
        h = ctypes.c_void_p()
        big = 16 * 1024 * 1024
        ml = big if max_line is None else max_line
        me = big if max_event is None else max_event
        if ml <= 0 or me <= 0:
            raise ValueError('max_line and max_event must be positive')
        at_eof = _DISPATCH if dispatch_at_eof else _DISCARD
        check(_lib.lib.a2a_sse_decoder_new_with(ml, me, at_eof, ctypes.byref(h)))
        self._h = h.value or 0
        self._hv = ctypes.c_void_p(self._h)
        self._packed = _P()
        self._ref_packed = ctypes.byref(self._packed)
        self._words = (ctypes.c_uint64 * 8).from_buffer(self._packed) if _WORDS else None
        #: Comment lines seen so far (keep-alives).
        self.comments = 0
        #: Limit errors seen so far, in order (not raised: decoding went on).
        self.errors: list[SseLimitError] = []

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """Frees the library decoder now (also done when the object is collected); waits
        for a call in progress on another thread. A second close does nothing."""
        busy = getattr(self, '_busy', None)
        if busy is None:
            return
        busy.wait()
        try:
            h, self._h = self._h, 0
            if h:
                _lib.lib.a2a_sse_decoder_free(h)
        finally:
            busy.give(True)

    def _enter(self) -> int:
        """Takes the decoder for one method (InUseError when another thread has it) and
        returns the live handle (ClosedError after close); `_busy.give(True)` in a finally."""
        self._busy.enter()
        if not self._h:
            self._busy.give(True)
            raise _guard.closed('decoder')
        return self._h

    def __enter__(self) -> SseDecoder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _last_error(self) -> str | None:
        return _lib.view_str(_lib.lib.a2a_sse_decoder_last_error(self._h))

    def _feed_packed(self, chunk: bytes | bytearray | memoryview) -> list[int]:
        """One packed feed: [bytes ptr, bytes len, offsets, events, comments, limit errors,
        items ptr, items]. Counts the comments and records the limit errors. The caller
        holds `_busy`."""
        if type(chunk) is not bytes:
            chunk = bytes(chunk)
        rc = _feed_packed(self._h, chunk, len(chunk), self._ref_packed)
        if rc:
            raise error_for(rc, self._last_error())
        if self._words is not None:
            w = self._words[:]
        else:
            p = self._packed
            w = [p.bytes.ptr or 0, p.bytes.len, p.offsets or 0, p.event_count,
                 p.comment_count, p.limit_error_count, p.items or 0, p.item_count]
        if w[4]:
            self.comments += w[4]
        if w[5]:
            self._record_errors(w[6], w[7])
        return w

    def _feed_fast(self, sp: object, chunk: bytes) -> tuple[list[Event], int, int, int]:
        """One packed feed through the compiled fast path (events built in C): (events,
        limit errors, items ptr, items). Counts the comments and records the limit errors.
        The caller holds `_busy`."""
        r = sp.sse_feed(self._h, chunk)  # type: ignore[attr-defined]
        if r[0]:
            raise error_for(r[0], self._last_error())
        _rc, events, nc, nl, ip, ni = r
        if nc:
            self.comments += nc
        if nl:
            self._record_errors(ip, ni)
        return events, nl, ip, ni

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Event]:
        """Decodes one chunk of the body; returns the events it completed, in order."""
        # The body of _feed_packed and _enter, inlined: this is the per-chunk hot path.
        if type(chunk) is not bytes:
            chunk = bytes(chunk)
        busy = self._busy
        try:
            busy.take()
        except IndexError:
            raise _guard.in_use('decoder') from None
        try:
            if not self._h:
                raise _guard.closed('decoder')
            sp = _lib.SPEEDUPS
            if sp is not None:
                return self._feed_fast(sp, chunk)[0]
            rc = _feed_packed_raw(self._hv, chunk, _size_t(len(chunk)), self._ref_packed)
            if rc:
                raise error_for(rc, self._last_error())
            if _unpack_words is not None:
                bp, bl, _o, n, nc, nl, ip, ni = _unpack_words(self._packed)
            elif self._words is None:
                p = self._packed
                bp, bl, n, nc, nl = p.bytes.ptr or 0, p.bytes.len, p.event_count, \
                    p.comment_count, p.limit_error_count
                ip, ni = p.items or 0, p.item_count
            else:
                bp, bl, _o, n, nc, nl, ip, ni = self._words[:]
            if nc:
                self.comments += nc
            if nl:
                self._record_errors(ip, ni)
            return _events(bp, bl, n) if n else []
        finally:
            busy.give(True)

    def feed_items(self, chunk: bytes | bytearray | memoryview) -> list[Item]:
        """Like `feed`, but returns every item in stream order: `Event`, `Comment`,
        `RetryItem` and `SseLimitError` (an exception instance, not raised). The decoder's
        `comments` and `errors` are updated as by `feed`."""
        self._enter()
        try:
            sp = _lib.SPEEDUPS
            if sp is not None:
                if type(chunk) is not bytes:
                    chunk = bytes(chunk)
                events, _nl, ip, ni = self._feed_fast(sp, chunk)
                n = len(events)
            else:
                bp, bl, _o, n, _nc, _nl, ip, ni = self._feed_packed(chunk)
                events = _events(bp, bl, n) if n else []
            if ni == n:
                return events  # type: ignore[return-value]
            next_event = iter(events).__next__
            out: list[Item] = []
            errors = iter(self.errors[len(self.errors) - _nl :]).__next__
            for k, kind in enumerate(self._kinds(ip, ni)):
                if kind == _EVENT:
                    out.append(next_event())
                elif kind == _LIMIT:
                    out.append(errors())
                else:
                    it = self._item_at(ip, k)
                    if it is not None:
                        out.append(it)
            return out
        finally:
            self._busy.give(True)

    @staticmethod
    def _kinds(ip: int, ni: int) -> list[int]:
        """The kind of each item of the last feed."""
        if _KIND_STRIDE:
            return memoryview(_copy(ip, ni * _ITEM_SIZE)).cast('I')[0::_KIND_STRIDE].tolist()
        return [_lib.SseItem.from_address(ip + k * _ITEM_SIZE).kind for k in range(ni)]

    @staticmethod
    def _item_at(ip: int, k: int) -> Item | None:
        """Item `k` of the last feed, field by field (comments and retry values; events too,
        for the tests that compare the two paths). None for a limit error."""
        it = _lib.SseItem.from_address(ip + k * _ITEM_SIZE)
        kind = it.kind
        if kind == _EVENT:
            return _event(it)
        if kind == _COMMENT:
            return Comment(_view_text(it.data))
        if kind == _RETRY:
            return RetryItem(int(it.retry_ms))
        return None

    def _record_errors(self, ip: int, ni: int) -> None:
        """Appends the limit errors among the items of the last feed to `errors`; the
        library keeps the message of the last one only, which goes to that one."""
        new = []
        for k, kind in enumerate(self._kinds(ip, ni)):
            if kind == _LIMIT:
                it = _lib.SseItem.from_address(ip + k * _ITEM_SIZE)
                new.append(_limit_error(it.error, int(it.limit), None))
        message = self._last_error()
        if new and message is not None:
            last = new[-1]
            last.args = (f'{message} ({last.name})',)
            last.message = message
        self.errors.extend(new)

    def finish(self) -> Finish:
        """Ends the stream (end of the response body) and reports what the end-of-stream
        rule did. The decoder is then ready for a new stream; the last event ID and retry
        value are kept. Calling it twice is harmless."""
        f = _lib.SseFinish()
        h = self._enter()
        try:
            rc = _lib.lib.a2a_sse_decoder_finish(h, ctypes.byref(f))
            if rc:
                raise error_for(rc, self._last_error())
            event = _event(f.event) if f.has_event else None
            discarded = (
                Discarded(int(f.discarded_partial_line), bool(f.discarded_event),
                          bool(f.discarded_id))
                if f.discarded
                else None
            )
            error = None
            if f.error:
                error = _limit_error(f.error, int(f.limit), self._last_error())
                self.errors.append(error)
            return Finish(event, discarded, error)
        finally:
            self._busy.give(True)

    @property
    def last_event_id(self) -> str:
        """The last event ID (send it as `Last-Event-ID` when reconnecting); '' when none."""
        h = self._enter()
        try:
            b = _lib.view_bytes(_lib.lib.a2a_sse_decoder_last_event_id(h))
        finally:
            self._busy.give(True)
        return _text(b or b'')

    @last_event_id.setter
    def last_event_id(self, value: str) -> None:
        b, n = _lib.enc(value)
        h = self._enter()
        try:
            rc = _lib.lib.a2a_sse_decoder_set_last_event_id(h, b if n else None, n)
            if rc:
                raise error_for(rc, self._last_error())
        finally:
            self._busy.give(True)

    @property
    def retry(self) -> int | None:
        """The last valid `retry` value (ms) seen on any stream of this decoder, or None."""
        out = ctypes.c_uint64()
        h = self._enter()
        try:
            ok = _lib.lib.a2a_sse_decoder_retry(h, ctypes.byref(out))
        finally:
            self._busy.give(True)
        return out.value if ok else None

    def reset_for_reconnect(self) -> None:
        """Forgets the stream in progress for a new connection; keeps the last event ID
        and the retry value."""
        h = self._enter()
        try:
            check(_lib.lib.a2a_sse_decoder_reset_for_reconnect(h))
        finally:
            self._busy.give(True)


def _view_text(v: _lib.Bytes) -> str:
    return _text(_string_at(v.ptr, v.len)) if v.ptr and v.len else ''


def _event(it: _lib.SseItem) -> Event:
    return Event(_view_text(it.event_type), _view_text(it.data), _view_text(it.id))


class SseEncoder(_guard.OwnedHandle):
    """Writes events, comments and keep-alives into a buffer (for servers and tests)."""

    __slots__ = ('_h', '__weakref__')
    _free = _lib.lib.a2a_sse_encoder_free
    _what = 'encoder'

    def __init__(self) -> None:
        self._h = 0
        h = ctypes.c_void_p()
        check(_lib.lib.a2a_sse_encoder_new(ctypes.byref(h)))
        self._h = h.value or 0

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
            raise _guard.closed('encoder')
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
