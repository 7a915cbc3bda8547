"""`StreamTracker`: follows one streaming call (message/stream, SendStreamingMessage,
resubscribe) to its end: types each event, watches the idle deadline, says how it ended.

Time: the library reads no clock. Every method takes `now_ms` on the caller's monotonic
clock; when omitted, the tracker's `clock` is used (default `time.monotonic()` in ms).
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import _guard, _lib
from .errors import check
from .outcome import Outcome, _asked, _response
from .sse import Comment, Event, SseDecoder
from .vocab import (
    Binding,
    ProtocolVersion,
    StreamEndKind,
    StreamItemKind,
    TaskState,
    _word,
)

__all__ = ['StreamEnd', 'StreamItem', 'StreamTracker']


def monotonic_ms() -> int:
    """Milliseconds on the monotonic clock."""
    return time.monotonic_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class StreamItem:
    """One typed event of a stream."""

    kind: StreamItemKind
    #: The event classified like a whole response (a copy; it has no library handle).
    outcome: Outcome
    #: 0.3 `final` flag of a status update, when present.
    final: bool | None
    #: Artifact updates: artifact id, `append`, `lastChunk`.
    artifact_id: str | None
    append: bool
    last_chunk: bool
    #: This item ends the interaction (stop reading, then call `finish()`).
    ends_stream: bool

    @staticmethod
    def _from_c(item: _lib.StreamItem, outcome: object) -> StreamItem:
        """The item a C `a2a_stream_item` describes, its borrowed outcome (`outcome`, the
        pointer the event carries) copied out: the one place that reads the C struct."""
        return StreamItem(
            kind=_word(StreamItemKind, item.kind),
            outcome=Outcome._from_ptr(outcome, owned=False),
            final=bool(item.final_flag) if item.has_final else None,
            artifact_id=_lib.view_str(item.artifact_id),
            append=bool(item.append),
            last_chunk=bool(item.last_chunk),
            ends_stream=bool(item.ends_stream),
        )


@dataclass(frozen=True, slots=True)
class StreamEnd:
    """How the stream ended and the outcome of the whole call."""

    kind: StreamEndKind
    outcome: Outcome


class StreamTracker(_guard.OwnedHandle):
    """Tracks one streaming call. Feed it decoded events (`on_event`), keep-alives
    (`on_comment`), arrival of bytes (`on_bytes`), or whole chunks through a decoder
    (`on_chunk`); then `finish()` when the body ends. Not thread-safe."""

    __slots__ = ('_h', 'clock', '__weakref__')
    _free = _lib.lib.a2a_stream_tracker_free
    _what = 'tracker'

    def __init__(
        self,
        version: str | ProtocolVersion | None = None,
        binding: str | Binding | None = None,
        method: str | None = None,
        request_id: str | int | None = None,
        *,
        idle_timeout_ms: int | None = None,
        now_ms: int | None = None,
        clock: Callable[[], int] = monotonic_ms,
    ) -> None:
        """What was asked (None: unknown, detected from the events), the idle timeout in
        ms (None: none) and the start time."""
        self._h = 0
        self.clock = clock
        keep: list[object] = []
        asked = _asked(version, binding, method, request_id, keep)
        if idle_timeout_ms is not None and idle_timeout_ms <= 0:
            raise ValueError('idle_timeout_ms must be positive (None: no idle timeout)')
        h = ctypes.c_void_p()
        check(
            _lib.lib.a2a_stream_tracker_new(
                ctypes.byref(asked), idle_timeout_ms or 0, self._now(now_ms), ctypes.byref(h)
            )
        )
        self._h = h.value or 0

    def _now(self, now_ms: int | None) -> int:
        return self.clock() if now_ms is None else now_ms

    def on_bytes(self, now_ms: int | None = None) -> None:
        """Bytes arrived (any bytes prove the connection alive; pushes the deadline)."""
        check(_lib.lib.a2a_stream_tracker_on_bytes(self._handle(), self._now(now_ms)))

    def on_comment(self, now_ms: int | None = None) -> None:
        """A comment (keep-alive) arrived."""
        check(_lib.lib.a2a_stream_tracker_on_comment(self._handle(), self._now(now_ms)))

    def on_event(
        self,
        event: Event | str | bytes,
        type: str | None = None,
        now_ms: int | None = None,
    ) -> StreamItem | None:
        """A decoded event arrived: an `Event`, or its data with an optional type. Returns
        the typed item, or None for an event with empty data (nothing to classify)."""
        etype: str | bytes | None = type
        data: str | bytes
        if isinstance(event, Event):
            etype, data = event.type, event.data
        else:
            data = event
        t, tn = _lib.enc(etype)
        d, dn = _lib.enc(data)
        out = _lib.StreamItem()
        rc = _lib.lib.a2a_stream_tracker_on_event(
            self._handle(), self._now(now_ms), t, tn, d, dn, ctypes.byref(out)
        )
        if rc == 2:  # A2A_NONE
            return None
        check(rc)
        # The item's outcome is borrowed until the next call: copy it out now.
        return StreamItem._from_c(out, out.outcome)

    def on_chunk(
        self, decoder: SseDecoder, chunk: bytes, now_ms: int | None = None
    ) -> list[StreamItem]:
        """Convenience: `on_bytes`, then every item `decoder` makes of `chunk` (comments to
        `on_comment`, events to `on_event`). Returns the stream items, in order."""
        now = self._now(now_ms)
        self.on_bytes(now)
        return self._items(decoder.feed_items(chunk), now)

    def on_finish(self, decoder: SseDecoder, now_ms: int | None = None) -> list[StreamItem]:
        """Convenience: ends `decoder`'s stream and tracks an event its end-of-stream rule
        dispatched (with `dispatch_at_eof=True`). Call `finish()` afterwards."""
        f = decoder.finish()
        return self._items([f.event] if f.event is not None else [], self._now(now_ms))

    def _items(self, items: Iterable[object], now: int) -> list[StreamItem]:
        out = []
        for it in items:
            if isinstance(it, Event):
                si = self.on_event(it, now_ms=now)
                if si is not None:
                    out.append(si)
            elif isinstance(it, Comment):
                self.on_comment(now)
        return out

    @property
    def next_deadline(self) -> int | None:
        """When `on_timeout` must be called at the latest (ms on the caller's clock), or
        None (no idle timeout, or the stream has ended)."""
        out = ctypes.c_uint64()
        ok = _lib.lib.a2a_stream_tracker_next_deadline(self._handle(), ctypes.byref(out))
        return out.value if ok else None

    def on_timeout(self, now_ms: int | None = None) -> Outcome | None:
        """The idle deadline may have passed: the transport outcome (advice `resubscribe`
        when the task id is known) if it has, else None."""
        out = ctypes.c_void_p()
        rc = _lib.lib.a2a_stream_tracker_on_timeout(
            self._handle(), self._now(now_ms), ctypes.byref(out)
        )
        if rc == 2:
            return None
        check(rc)
        return Outcome._from_ptr(out.value or 0, owned=True)

    def on_non_sse_body(
        self,
        status: int,
        body: bytes | str,
        content_type: str | None = None,
        retry_after: str | None = None,
        now_unix_seconds: int | None = None,
    ) -> Outcome:
        """The response was not `text/event-stream` (an up-front error): classifies it as a
        whole response and ends the tracker. `now_unix_seconds` as for `classify`."""
        keep: list[object] = []
        resp = _response(
            status, body, content_type, retry_after, _lib.Asked(), keep, now_unix_seconds
        )
        out = ctypes.c_void_p()
        check(
            _lib.lib.a2a_stream_tracker_on_non_sse_body(
                self._handle(), ctypes.byref(resp), ctypes.byref(out)
            )
        )
        return Outcome._from_ptr(out.value or 0, owned=True)

    def finish(self) -> StreamEnd:
        """The body ended: how the stream ended and the call's outcome. Idempotent."""
        kind = ctypes.c_uint32()
        out = ctypes.c_void_p()
        check(
            _lib.lib.a2a_stream_tracker_finish(
                self._handle(), ctypes.byref(kind), ctypes.byref(out)
            )
        )
        return StreamEnd(
            _word(StreamEndKind, kind.value), Outcome._from_ptr(out.value or 0, owned=True)
        )

    @property
    def is_over(self) -> bool:
        """The interaction is over (stop reading and close)."""
        return bool(_lib.lib.a2a_stream_tracker_is_over(self._handle()))

    @property
    def task_id(self) -> str | None:
        """The task id seen so far."""
        return _lib.view_str(_lib.lib.a2a_stream_tracker_task_id(self._handle()))

    @property
    def last_state(self) -> TaskState | None:
        """The last task state seen so far."""
        out = ctypes.c_uint32()
        ok = _lib.lib.a2a_stream_tracker_last_state(self._handle(), ctypes.byref(out))
        return _word(TaskState, out.value) if ok else None

    @property
    def events(self) -> int:
        """Events that produced an item so far."""
        return int(_lib.lib.a2a_stream_tracker_events(self._handle()))
