"""Acting on outcomes (issue 8): idempotency keys and messageIds derived from stable
inputs, the one-line failure text for an orchestrating model, and the circuit breaker's
configuration. Retries, resubscribes and the breaker itself run inside the library's client
machine, which every client of this package drives (`Client`, `AsyncClient`:
`send_retries=`, `stream_resubscribe_attempts=`, `breaker=BreakerConfig(...)`).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass, fields

from . import _lib
from .errors import check, error_for
from .outcome import Outcome

__all__ = [
    'MODEL_INSTRUCTION',
    'BreakerConfig',
    'counts_toward_breaker',
    'derive_idempotency_key',
    'derive_message_id',
    'model_prefix',
    'model_text',
]


_INSUFFICIENT_SIZE = 103


#: The recommended instruction sentence for the orchestrating model (how to read the
#: `REMOTE_...` lines of `model_text`).
MODEL_INSTRUCTION: str = _lib.view_str(_lib.lib.a2a_model_instruction()) or ''


@dataclass(slots=True)
class BreakerConfig:
    """A circuit breaker's configuration. `BreakerConfig()` has the library's defaults."""

    failure_threshold: int = 0
    failure_rate_percent: int = 0
    min_calls: int = 0
    window_ms: int = 0
    buckets: int = 0
    cool_down_ms: int = 0
    half_open_trials: int = 0

    def __init__(self, **overrides: int) -> None:
        c = _lib.BreakerConfig()
        check(_lib.lib.a2a_breaker_config_default(ctypes.byref(c)))
        names = [f.name for f in fields(self)]
        for f in names:
            setattr(self, f, getattr(c, f))
        for k, v in overrides.items():
            if k not in names:
                raise TypeError(f'BreakerConfig has no field {k!r}')
            setattr(self, k, v)

    def _c(self) -> _lib.BreakerConfig:
        for name, top in (('failure_rate_percent', 0xFF), ('buckets', 0xFFFF)):
            if not 0 <= getattr(self, name) <= top:
                raise error_for(907, f'{name} = {getattr(self, name)} is out of range')
        return _lib.BreakerConfig(*(getattr(self, f.name) for f in fields(self)))


def counts_toward_breaker(outcome: Outcome) -> bool:
    """Whether an outcome counts as a failure toward opening a breaker."""
    return bool(_lib.lib.a2a_counts_toward_breaker(outcome._ptr()))


def _into_buffer(call: Callable[[object, int, ctypes.c_size_t], int], size: int) -> str | None:
    """Runs a writer into a caller buffer, growing it once on A2A_INSUFFICIENT_SIZE."""
    for _ in range(2):
        buf = ctypes.create_string_buffer(size)
        written = ctypes.c_size_t()
        rc = call(buf, size, written)
        if rc == _INSUFFICIENT_SIZE:
            size = written.value
            continue
        if rc == 2:  # A2A_NONE
            return None
        check(rc)
        return buf.raw[: written.value].decode('utf-8')
    raise error_for(_INSUFFICIENT_SIZE, 'the library asked for a larger buffer twice')


def _parts(parts: tuple[str | bytes, ...]) -> tuple[ctypes.Array[_lib.Bytes], list[bytes]]:
    keep = [p.encode('utf-8') if isinstance(p, str) else bytes(p) for p in parts]
    arr = (_lib.Bytes * max(len(keep), 1))()
    for i, b in enumerate(keep):
        arr[i].ptr = ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p).value if b else None
        arr[i].len = len(b)
    return arr, keep


def _derive(fname: str, parts: tuple[str | bytes, ...], size: int) -> str:
    arr, keep = _parts(parts)
    f = getattr(_lib.lib, fname)
    out = _into_buffer(lambda buf, n, w: f(arr, len(keep), buf, n, ctypes.byref(w)), size)
    assert out is not None
    return out


def derive_idempotency_key(*parts: str | bytes) -> str:
    """The version 1 idempotency key of stable inputs (`a2a-ik1-` + 32 hex digits): the
    same parts give the same key in every language. Raises KeyInputError when there is no
    part or every part is empty."""
    return _derive('a2a_derive_idempotency_key', parts, 40)


def derive_message_id(*parts: str | bytes) -> str:
    """The version 1 messageId of stable inputs (a lowercase UUIDv8)."""
    return _derive('a2a_derive_message_id', parts, 36)


def model_text(agent: str, outcome: Outcome) -> str | None:
    """The one deterministic line the orchestrating model should read for a non-success
    outcome of a call to `agent` (None for a success)."""
    a, an = _lib.enc(agent)
    ptr = outcome._ptr()
    return _into_buffer(
        lambda buf, n, w: _lib.lib.a2a_model_text(a, an, ptr, buf, n, ctypes.byref(w)), 512
    )


def model_prefix(outcome: Outcome) -> str | None:
    """The prefix word of the model text (`REMOTE_UNKNOWN`, ...); None for a success."""
    return _lib.view_str(_lib.lib.a2a_model_prefix(outcome._ptr()))
