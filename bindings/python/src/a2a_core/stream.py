"""`StreamItem`: one typed event of a stream, as the clients' `stream` and `resubscribe`
yield it (the library's client machine types each event, watches the idle deadline and
says how the stream ended)."""

from __future__ import annotations

from dataclasses import dataclass

from . import _lib
from .outcome import Outcome
from .vocab import StreamItemKind, _word

__all__ = ['StreamItem']


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
    #: This item ends the interaction.
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
