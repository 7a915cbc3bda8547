"""Acting on outcomes (issue 8), sans-IO like the core: a retry policy, a circuit breaker,
idempotency keys and messageIds derived from stable inputs, and the one-line failure text
for an orchestrating model.

Time: the library reads no clock. Every method takes `now_ms` on the caller's monotonic
clock; when omitted, the object's `clock` is used (default `time.monotonic()` in ms).
Randomness (backoff jitter) is supplied by the caller; by default `random.getrandbits(64)`.
"""

from __future__ import annotations

import ctypes
import random as _random
from collections.abc import Callable
from dataclasses import dataclass, fields

from . import _guard, _lib
from .errors import check, error_for
from .outcome import Outcome
from .stream import monotonic_ms
from .vocab import _Word

__all__ = [
    'MODEL_INSTRUCTION',
    'ActionKind',
    'Breaker',
    'BreakerConfig',
    'BreakerSnapshot',
    'BreakerState',
    'CallKind',
    'IdRule',
    'RetryAction',
    'RetryConfig',
    'RetryPolicy',
    'counts_toward_breaker',
    'derive_idempotency_key',
    'derive_message_id',
    'model_prefix',
    'model_text',
]


class CallKind(_Word):
    """What retrying a call risks (the policy's rule for `unknown_outcome`)."""

    READ = 'read'
    IDEMPOTENT = 'idempotent'
    WITH_IDEMPOTENCY_KEY = 'with_idempotency_key'
    SIDE_EFFECTING = 'side_effecting'


class ActionKind(_Word):
    """What the policy says to do next."""

    DONE = 'done'
    RETRY_AFTER = 'retry_after'
    RESUBSCRIBE = 'resubscribe'
    POLL = 'poll'
    START_NEW_TASK = 'start_new_task'
    GIVE_UP = 'give_up'


class IdRule(_Word):
    """What to do with an identifier on the next request."""

    KEEP = 'keep'
    NEW = 'new'
    NOT_SENT = 'not_sent'


class BreakerState(_Word):
    """A circuit breaker's state."""

    CLOSED = 'closed'
    OPEN = 'open'
    HALF_OPEN = 'half_open'


# C numbers of include/a2a_core.h (tests/test_abi.py checks them against the header).
_CALL_KIND = {CallKind.READ: 1, CallKind.IDEMPOTENT: 2, CallKind.WITH_IDEMPOTENCY_KEY: 3,
              CallKind.SIDE_EFFECTING: 4}
_ACTION = dict(zip(range(1, 7), ActionKind))
_ID_RULE = {1: IdRule.KEEP, 2: IdRule.NEW, 3: IdRule.NOT_SENT}
_BREAKER_STATE = {1: BreakerState.CLOSED, 2: BreakerState.OPEN, 3: BreakerState.HALF_OPEN}
_INSUFFICIENT_SIZE = 103


def _give_up_word(n: int) -> str | None:
    return _lib.view_str(_lib.lib.a2a_vocab_name(_lib.A2A_VOCAB_GIVE_UP_REASON, n))


#: The recommended instruction sentence for the orchestrating model (how to read the
#: `REMOTE_...` lines of `model_text`).
MODEL_INSTRUCTION: str = _lib.view_str(_lib.lib.a2a_model_instruction()) or ''


@dataclass(slots=True)
class RetryConfig:
    """A retry policy's configuration (milliseconds). `RetryConfig()` has the library's
    defaults; change fields, or pass them as keywords."""

    kind: CallKind = CallKind.SIDE_EFFECTING
    max_attempts: int = 0
    max_follow_ups: int = 0
    max_new_tasks: int = 0
    base_delay_ms: int = 0
    max_delay_ms: int = 0
    honour_retry_after: bool = True
    max_retry_after_ms: int = 0
    #: The overall deadline on the caller's clock (None: none).
    deadline_ms: int | None = None
    attempt_estimate_ms: int = 0
    streaming: bool = True

    def __init__(self, kind: CallKind | str | None = None, **overrides: object) -> None:
        c = _lib.RetryConfig()
        check(_lib.lib.a2a_retry_config_default(ctypes.byref(c)))
        by_num = {v: k for k, v in _CALL_KIND.items()}
        self.kind = by_num[c.kind]
        for f in ('max_attempts', 'max_follow_ups', 'max_new_tasks', 'base_delay_ms',
                  'max_delay_ms', 'honour_retry_after', 'max_retry_after_ms',
                  'attempt_estimate_ms', 'streaming'):
            setattr(self, f, getattr(c, f))
        self.deadline_ms = c.deadline_ms if c.has_deadline else None
        if kind is not None:
            self.kind = CallKind(kind)
        names = {f.name for f in fields(self)}
        for k, v in overrides.items():
            if k not in names:
                raise TypeError(f'RetryConfig has no field {k!r}')
            setattr(self, k, v)

    def _c(self) -> _lib.RetryConfig:
        return _lib.RetryConfig(
            _CALL_KIND[CallKind(self.kind)], self.max_attempts, self.max_follow_ups,
            self.max_new_tasks, self.base_delay_ms, self.max_delay_ms,
            self.honour_retry_after, self.max_retry_after_ms, self.deadline_ms is not None,
            self.deadline_ms or 0, self.attempt_estimate_ms, self.streaming,
        )


@dataclass(frozen=True, slots=True)
class RetryAction:
    """The policy's answer: what to do next and what to do with each identifier."""

    kind: ActionKind
    #: How long to wait before the next request (every kind but done and give_up).
    delay_ms: int | None
    #: Resubscribe and poll: the task id.
    task_id: str | None
    #: Start-new-task: the new task's generation (1 for the first).
    generation: int
    #: Give-up: the reason's code word (`attempts_exhausted`, ...) and an English sentence.
    give_up: str | None
    give_up_text: str | None
    message_id: IdRule | None
    idempotency_key: IdRule | None
    jsonrpc_id: IdRule | None


class RetryPolicy(_guard.OwnedHandle):
    """A retry policy for one logical call: feed every attempt's outcome to `next()`."""

    __slots__ = ('_h', 'clock', 'rng', '__weakref__')
    _free = _lib.lib.a2a_retry_policy_free
    _what = 'policy'

    def __init__(
        self,
        config: RetryConfig | None = None,
        *,
        now_ms: int | None = None,
        clock: Callable[[], int] = monotonic_ms,
        rng: Callable[[], int] = lambda: _random.getrandbits(64),
    ) -> None:
        self._h = 0
        self.clock = clock
        self.rng = rng
        c = (config or RetryConfig())._c()
        h = ctypes.c_void_p()
        check(_lib.lib.a2a_retry_policy_new(
            ctypes.byref(c), clock() if now_ms is None else now_ms, ctypes.byref(h)))
        self._h = h.value or 0

    def _now(self, now_ms: int | None) -> int:
        return self.clock() if now_ms is None else now_ms

    def begin_attempt(self, now_ms: int | None = None) -> None:
        """Marks the start of an attempt (the policy learns how long attempts take)."""
        check(_lib.lib.a2a_retry_policy_begin_attempt(self._handle(), self._now(now_ms)))

    @property
    def task_id(self) -> str | None:
        """The task id known to the policy (from earlier outcomes or set by the caller)."""
        return _lib.view_str(_lib.lib.a2a_retry_policy_task_id(self._handle()))

    @task_id.setter
    def task_id(self, value: str) -> None:
        b, n = _lib.enc(value)
        check(_lib.lib.a2a_retry_policy_set_task_id(self._handle(), b, n))

    @property
    def attempts(self) -> int:
        """Sends of the request so far."""
        return int(_lib.lib.a2a_retry_policy_attempts(self._handle()))

    @property
    def follow_ups(self) -> int:
        """Resubscribe and poll calls so far."""
        return int(_lib.lib.a2a_retry_policy_follow_ups(self._handle()))

    @property
    def new_tasks(self) -> int:
        """New tasks started so far."""
        return int(_lib.lib.a2a_retry_policy_new_tasks(self._handle()))

    @property
    def estimate_ms(self) -> int:
        """The policy's estimate of one attempt's duration."""
        return int(_lib.lib.a2a_retry_policy_estimate(self._handle()))

    def remaining(self, now_ms: int | None = None) -> int | None:
        """Time left before the deadline (None: no deadline)."""
        out = ctypes.c_uint64()
        ok = _lib.lib.a2a_retry_policy_remaining(self._handle(), self._now(now_ms),
                                                 ctypes.byref(out))
        return out.value if ok else None

    @property
    def is_finished(self) -> bool:
        """The policy has answered done or give_up."""
        return bool(_lib.lib.a2a_retry_policy_is_finished(self._handle()))

    def next(
        self, outcome: Outcome, now_ms: int | None = None, random_bits: int | None = None
    ) -> RetryAction:
        """Feeds the outcome of the attempt that just ended; returns what to do next.
        `outcome` must own a library handle (classify, Outcome.transport, a tracker's
        finish or on_timeout, a breaker's refusal)."""
        a = _lib.RetryAction()
        bits = self.rng() if random_bits is None else random_bits
        check(_lib.lib.a2a_retry_policy_next(
            self._handle(), outcome._ptr(), self._now(now_ms), bits & (2**64 - 1),
            ctypes.byref(a)))
        return RetryAction(
            kind=_ACTION[a.kind],
            delay_ms=int(a.delay_ms) if a.has_delay else None,
            task_id=_lib.view_str(a.task_id),
            generation=int(a.generation),
            give_up=_give_up_word(a.give_up) if a.give_up else None,
            give_up_text=_lib.view_str(a.give_up_text),
            message_id=_ID_RULE.get(a.message_id),
            idempotency_key=_ID_RULE.get(a.idempotency_key),
            jsonrpc_id=_ID_RULE.get(a.jsonrpc_id),
        )


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


@dataclass(frozen=True, slots=True)
class BreakerSnapshot:
    """A point-in-time view of a breaker, for metrics and logs."""

    state: BreakerState
    calls_in_window: int
    failures_in_window: int
    half_open_at_ms: int | None
    trials_in_flight: int
    trial_successes: int
    times_opened: int
    refused: int



#: One outcome per breaker effect, made once: `record_result` records one of them with
#: `a2a_breaker_record` (which records exactly `a2a_counts_toward_breaker(outcome)`).
_RESULT_OUTCOMES: dict[bool, Outcome] = {}


def _result_outcome(counted_failure: bool) -> Outcome:
    """An outcome that counts toward opening a breaker exactly when `counted_failure`: an
    HTTP 503 (counted) or a JSON-RPC reply carrying a message (a success)."""
    o = _RESULT_OUTCOMES.get(counted_failure)
    if o is None:
        from .outcome import classify

        if counted_failure:
            o = classify(503, b'')
        else:
            o = classify(
                200,
                b'{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m",'
                b'"role":"agent","parts":[]}}',
                'application/json',
            )
        if bool(_lib.lib.a2a_counts_toward_breaker(o._ptr())) != counted_failure:
            raise RuntimeError('the library classified the breaker outcome unexpectedly')
        o = _RESULT_OUTCOMES.setdefault(counted_failure, o)
    return o


class Breaker(_guard.OwnedHandle):
    """A circuit breaker for one remote agent: ask `allow()` before each call, `record()`
    its outcome after; a refused call gets `refusal()` (transport, CircuitOpen, not sent)."""

    __slots__ = ('_h', 'clock', '__weakref__')
    _free = _lib.lib.a2a_breaker_free
    _what = 'breaker'

    def __init__(
        self,
        agent: str,
        config: BreakerConfig | None = None,
        *,
        clock: Callable[[], int] = monotonic_ms,
    ) -> None:
        self._h = 0
        self.clock = clock
        c = (config or BreakerConfig())._c()
        b, n = _lib.enc(agent)
        h = ctypes.c_void_p()
        check(_lib.lib.a2a_breaker_new(b, n, ctypes.byref(c), ctypes.byref(h)))
        self._h = h.value or 0

    def _now(self, now_ms: int | None) -> int:
        return self.clock() if now_ms is None else now_ms

    @property
    def agent(self) -> str:
        """The agent name given at creation."""
        return _lib.view_str(_lib.lib.a2a_breaker_agent(self._handle())) or ''

    def allow(self, now_ms: int | None = None) -> bool:
        """Whether a call may go out (half-open: takes a trial permit; report the call
        with `record`, or `release` if it was never made)."""
        return bool(_lib.lib.a2a_breaker_allow(self._handle(), self._now(now_ms)))

    def refusal(self, now_ms: int | None = None) -> Outcome:
        """The outcome to report for a refused call (transport, CircuitOpen, not sent)."""
        out = ctypes.c_void_p()
        check(_lib.lib.a2a_breaker_refusal(self._handle(), self._now(now_ms),
                                           ctypes.byref(out)))
        return Outcome._from_ptr(out.value or 0, owned=True)

    def record(self, outcome: Outcome, now_ms: int | None = None) -> None:
        """Records the outcome of a call `allow` let through."""
        check(_lib.lib.a2a_breaker_record(self._handle(), outcome._ptr(), self._now(now_ms)))

    def record_result(self, counted_failure: bool, now_ms: int | None = None) -> None:
        """Records a call's result directly (True: a failure that counts toward opening)."""
        check(_lib.lib.a2a_breaker_record(self._handle(), _result_outcome(counted_failure)._ptr(),
                                          self._now(now_ms)))

    def release(self, now_ms: int | None = None) -> None:
        """Returns a trial permit for a call that was never made."""
        check(_lib.lib.a2a_breaker_release(self._handle(), self._now(now_ms)))

    def state(self, now_ms: int | None = None) -> BreakerState:
        """The state at `now_ms`."""
        return self.snapshot(now_ms).state

    def snapshot(self, now_ms: int | None = None) -> BreakerSnapshot:
        """A snapshot for metrics."""
        s = _lib.BreakerSnapshot()
        check(_lib.lib.a2a_breaker_snapshot_at(self._handle(), self._now(now_ms),
                                               ctypes.byref(s)))
        return BreakerSnapshot(
            state=_BREAKER_STATE[s.state],
            calls_in_window=int(s.calls_in_window),
            failures_in_window=int(s.failures_in_window),
            half_open_at_ms=int(s.half_open_at_ms) if s.has_half_open_at else None,
            trials_in_flight=int(s.trials_in_flight),
            trial_successes=int(s.trial_successes),
            times_opened=int(s.times_opened),
            refused=int(s.refused),
        )

    def reset(self) -> None:
        """Closes the breaker and forgets its window (keeps the lifetime counters)."""
        check(_lib.lib.a2a_breaker_reset(self._handle()))


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
