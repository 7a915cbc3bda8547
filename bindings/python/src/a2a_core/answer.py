"""The agent's answer as typed values: `Task` (status, artifacts, history), `Message`,
`Artifact`, and parts of three kinds — `TextPart`, `DataPart` (the JSON value as Python
values) and `FilePart` (bytes decoded, or a URI) — each with its metadata.

The library hands the answer over as one canonical JSON text (the same for protocol 0.3
and 1.0, JSON-RPC and HTTP+JSON; see ffi/README.md); this module turns it into frozen
dataclasses. `Client.send` returns it as `outcome.result`; a stream's end carries the
answer put together from its events (`ClientStreamEnd.answer`), each item the event it
was (`item.outcome.result`). `read_answer` reads it from a body you fetched yourself.
"""

from __future__ import annotations

import base64
import ctypes
import json
import json.scanner
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from . import _lib
from .errors import check, error_for
from .vocab import Binding, ProtocolVersion, _num

__all__ = [
    'Answer', 'Artifact', 'ArtifactUpdate', 'DataPart', 'FilePart', 'Message', 'Part',
    'StatusUpdate', 'Task', 'TaskStatus', 'TextPart', 'UnreadableAnswerError',
    'answer_from_json', 'message_json', 'read_answer',
]

_NONE = 2
_UNREADABLE = 1100


@dataclass(frozen=True, slots=True)
class TextPart:
    """A text part."""

    text: str
    metadata: Mapping[str, Any] | None = None
    media_type: str | None = None
    name: str | None = None
    kind: str = field(default='text', init=False)


@dataclass(frozen=True, slots=True)
class DataPart:
    """A structured data part: any JSON value, as Python values (a 0.3 peer only carries
    objects)."""

    data: Any
    metadata: Mapping[str, Any] | None = None
    media_type: str | None = None
    name: str | None = None
    kind: str = field(default='data', init=False)


@dataclass(frozen=True, slots=True)
class FilePart:
    """A file: inline `data` (bytes, decoded) or a `uri` (never fetched by the library)."""

    data: bytes | None = None
    uri: str | None = None
    media_type: str | None = None
    name: str | None = None
    metadata: Mapping[str, Any] | None = None
    kind: str = field(default='file', init=False)

    def __post_init__(self) -> None:
        if (self.data is None) == (self.uri is None):
            raise ValueError('a FilePart carries exactly one of data and uri')

    @property
    def size(self) -> int | None:
        """Length of the inline bytes."""
        return None if self.data is None else len(self.data)


Part = Union[TextPart, DataPart, FilePart]


def _text_of(parts: tuple[Part, ...]) -> str | None:
    if len(parts) == 1:  # the usual case (a stream's chunks): no list, no join
        p = parts[0]
        return p.text if isinstance(p, TextPart) else None
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    return '\n'.join(texts) if texts else None


@dataclass(frozen=True, slots=True)
class Message:
    """A message (the agent's direct answer, a status message, a history entry)."""

    message_id: str
    role: str
    parts: tuple[Part, ...]
    context_id: str | None = None
    task_id: str | None = None
    metadata: Mapping[str, Any] | None = None
    kind: str = field(default='message', init=False)

    @property
    def text(self) -> str | None:
        """The text parts joined with newlines; None without a text part."""
        parts = self.parts
        if len(parts) == 1:  # _text_of's usual case, without its call
            p = parts[0]
            return p.text if isinstance(p, TextPart) else None
        return _text_of(parts)


@dataclass(frozen=True, slots=True)
class TaskStatus:
    """A task's state (the CLI's words: `completed`, `input-required`, ...), the agent's
    status message and its timestamp."""

    state: str
    message: Message | None = None
    timestamp: str | None = None


@dataclass(frozen=True, slots=True)
class Artifact:
    """An output of a task."""

    artifact_id: str
    parts: tuple[Part, ...]
    name: str | None = None
    description: str | None = None
    metadata: Mapping[str, Any] | None = None

    @property
    def text(self) -> str | None:
        """The text parts joined with newlines."""
        parts = self.parts
        if len(parts) == 1:  # _text_of's usual case (a stream's chunks), without its call
            p = parts[0]
            return p.text if isinstance(p, TextPart) else None
        return _text_of(parts)


@dataclass(frozen=True, slots=True)
class Task:
    """A task: its status, artifacts (put together when streamed) and history."""

    id: str
    context_id: str | None
    status: TaskStatus
    artifacts: tuple[Artifact, ...] = ()
    history: tuple[Message, ...] = ()
    metadata: Mapping[str, Any] | None = None
    kind: str = field(default='task', init=False)

    @property
    def text(self) -> str | None:
        """The answer's text: the artifacts' text parts joined with newlines, else the
        status message's."""
        texts = []
        for a in self.artifacts:  # each artifact's text read once
            t = a.text
            if t is not None:
                texts.append(t)
        if texts:
            return '\n'.join(texts)
        return self.status.message.text if self.status.message else None

    @property
    def parts(self) -> tuple[Part, ...]:
        """Every artifact's parts, in order."""
        return tuple(p for a in self.artifacts for p in a.parts)


@dataclass(frozen=True, slots=True)
class StatusUpdate:
    """A stream item: a status change."""

    task_id: str
    context_id: str | None
    status: TaskStatus
    final: bool = False
    metadata: Mapping[str, Any] | None = None
    kind: str = field(default='status-update', init=False)


@dataclass(frozen=True, slots=True)
class ArtifactUpdate:
    """A stream item: a new artifact or a chunk of one (`append`, `last_chunk`)."""

    task_id: str
    context_id: str | None
    artifact: Artifact
    append: bool = False
    last_chunk: bool = False
    metadata: Mapping[str, Any] | None = None
    kind: str = field(default='artifact-update', init=False)


Answer = Union[Task, Message]


class UnreadableAnswerError(ValueError):
    """`read_answer`: the body's content cannot be read; the message says what and where."""


def _part(d: Mapping[str, Any]) -> Part:
    k = d.get('kind')
    if k == 'text':
        return TextPart(d['text'], d.get('metadata'), d.get('media_type'), d.get('name'))
    if k == 'data':
        return DataPart(d['data'], d.get('metadata'), d.get('media_type'), d.get('name'))
    if k == 'file':
        common = {'metadata': d.get('metadata'), 'media_type': d.get('media_type'),
                  'name': d.get('name')}
        if d.get('bytes') is not None:
            raw = d['bytes']
            pad = '=' * (-len(raw) % 4)
            try:
                data = base64.b64decode(raw + pad, validate=True)
            except ValueError:
                data = base64.urlsafe_b64decode(raw + pad)
            return FilePart(data=data, **common)
        return FilePart(uri=d['uri'], **common)
    raise ValueError(f'unknown part kind {k!r}')


def _message(d: Mapping[str, Any]) -> Message:
    return Message(d['message_id'], d['role'], tuple(_part(p) for p in d['parts']),
                   d.get('context_id'), d.get('task_id'), d.get('metadata'))


def _status(d: Mapping[str, Any]) -> TaskStatus:
    m = d.get('message')
    return TaskStatus(d['state'], _message(m) if m else None, d.get('timestamp'))


def _artifact(d: Mapping[str, Any]) -> Artifact:
    return Artifact(d['artifact_id'], tuple(_part(p) for p in d['parts']), d.get('name'),
                    d.get('description'), d.get('metadata'))


def answer_from_json(d: Mapping[str, Any]) -> Any:
    """Typed values from the canonical JSON (already parsed): a Task, Message,
    StatusUpdate or ArtifactUpdate."""
    k = d.get('kind')
    if k == 'task':
        return Task(d['id'], d.get('context_id'), _status(d['status']),
                    tuple(_artifact(a) for a in d['artifacts']),
                    tuple(_message(m) for m in d['history']), d.get('metadata'))
    if k == 'message':
        return _message(d)
    if k == 'status-update':
        return StatusUpdate(d['task_id'], d.get('context_id'), _status(d['status']),
                            bool(d.get('final')), d.get('metadata'))
    if k == 'artifact-update':
        return ArtifactUpdate(d['task_id'], d.get('context_id'), _artifact(d['artifact']),
                              bool(d.get('append')), bool(d.get('last_chunk')),
                              d.get('metadata'))
    raise ValueError(f'unknown answer kind {k!r}')


# The json module's own (C) scanner, called directly: `json.loads` would also run two
# whitespace regexes and two Python frames around it per call, for texts (the library's
# canonical JSON) that never have whitespace around the value.
# (typeshed types make_scanner's argument as its own class; any JSONDecoder is what it reads)
_SCAN: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(
    json.JSONDecoder())  # type: ignore[arg-type]


def _parse(text: str) -> Any:
    """`json.loads(text)` for a canonical JSON text, through the scanner alone when the value
    fills the whole text (else json.loads, which raises what it raises)."""
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


def _result_from_text(text: str) -> Any:
    """The answer from its canonical JSON text (the compiled fast path's fallback reader)."""
    return answer_from_json(_parse(text))


def _part_json(p: Part | str) -> dict[str, Any]:
    if isinstance(p, str):
        return {'kind': 'text', 'text': p}
    d: dict[str, Any] = {'kind': p.kind}
    if isinstance(p, TextPart):
        d['text'] = p.text
    elif isinstance(p, DataPart):
        d['data'] = p.data
    elif isinstance(p, FilePart):
        if p.data is not None:
            d['bytes'] = base64.b64encode(p.data).decode('ascii')
        else:
            d['uri'] = p.uri
    else:
        raise TypeError(f'not a part: {p!r}')
    for k in ('media_type', 'name', 'metadata'):
        if getattr(p, k) is not None:
            d[k] = getattr(p, k)
    return d


def message_json(parts: list[Part | str] | tuple[Part | str, ...],
                 metadata: Mapping[str, Any] | None = None) -> str:
    """The canonical JSON of a message to send (`a2a_client_send_message`); a str is a
    text part."""
    doc: dict[str, Any] = {'parts': [_part_json(p) for p in parts]}
    if metadata is not None:
        doc['metadata'] = dict(metadata)
    return json.dumps(doc, ensure_ascii=False, separators=(',', ':'))


def read_answer(body: bytes | str, version: ProtocolVersion | str, binding: Binding | str,
                *, stream: bool = False) -> Answer | None:
    """The answer in a response body you received yourself (send, get or cancel), or, with
    `stream=True`, in a whole `text/event-stream` body (its events put together). None for
    a stream without events. Raises UnreadableAnswerError saying what and where."""
    b = body.encode('utf-8') if isinstance(body, str) else bytes(body)
    buf = ctypes.c_void_p()
    check(_lib.lib.a2a_buffer_new(ctypes.byref(buf)))
    try:
        rc = _lib.lib.a2a_answer_read(b, len(b), _num(ProtocolVersion)[ProtocolVersion(version)],
                                      _num(Binding)[Binding(binding)], stream, buf)
        if rc == _NONE:
            return None
        if rc == _UNREADABLE:
            raise UnreadableAnswerError(_lib.view_str(_lib.lib.a2a_buffer_last_error(buf)))
        if rc != 0:
            raise error_for(rc, 'a2a_answer_read')
        text = _lib.view_str(_lib.lib.a2a_buffer_bytes(buf)) or 'null'
        answer: Answer | None = answer_from_json(_parse(text))
        return answer
    finally:
        _lib.lib.a2a_buffer_free(buf)
