package a2a

/*
#include <stdlib.h>
#include "a2a_core.h"
*/
import "C"

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// ---- idempotency keys and messageIds ------------------------------------------------

// DeriveIdempotencyKey is the version 1 idempotency key of the caller's stable inputs
// (for example conversation id, operation, its arguments): "a2a-ik1-" and 32 lowercase
// hex digits. The same parts give the same key in every language and process; send it as
// Idempotency-Key on every attempt. Errors: CodeKeyEmptyInput when there is no part or
// every part is empty.
func DeriveIdempotencyKey(parts ...[]byte) (string, error) {
	return derive("DeriveIdempotencyKey", parts, func(p *C.struct_a2a_bytes, n C.size_t, b *C.char, bn C.size_t, w *C.size_t) C.a2a_result {
		return C.a2a_derive_idempotency_key(p, n, b, bn, w)
	})
}

// DeriveMessageID is the version 1 messageId of the caller's stable inputs (a lowercase
// RFC 9562 version 8 UUID); keep it across attempts of one send.
func DeriveMessageID(parts ...[]byte) (string, error) {
	return derive("DeriveMessageID", parts, func(p *C.struct_a2a_bytes, n C.size_t, b *C.char, bn C.size_t, w *C.size_t) C.a2a_result {
		return C.a2a_derive_message_id(p, n, b, bn, w)
	})
}

// Code values of the resilience layer.
const (
	CodeInsufficientSize Code = C.A2A_INSUFFICIENT_SIZE
	CodeKeyEmptyInput    Code = C.A2A_KEY_EMPTY_INPUT
	CodeConfigInvalid    Code = C.A2A_CONFIG_INVALID
)

type deriveFn func(*C.struct_a2a_bytes, C.size_t, *C.char, C.size_t, *C.size_t) C.a2a_result

func derive(op string, parts [][]byte, fn deriveFn) (string, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	views := make([]C.struct_a2a_bytes, len(parts))
	for i, p := range parts {
		views[i].ptr, views[i].len = pinBytes(&pin, p)
	}
	var vp *C.struct_a2a_bytes
	if len(views) > 0 {
		vp = &views[0]
	}
	var buf [64]byte
	var written C.size_t
	r := fn(vp, C.size_t(len(views)), (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &written)
	if r != C.A2A_OK {
		return "", codeErr(op, r)
	}
	return string(buf[:written]), nil
}

// ---- model-facing text ------------------------------------------------------------------

// ModelText is the one deterministic line an orchestrating model should read for a
// non-success outcome of a call to agent (e.g. "REMOTE_UNKNOWN booking: the request may or
// may not have been received ..."); ok is false for a success (no line).
func ModelText(agent string, o *Outcome) (line string, ok bool, err error) {
	oh, err := o.handle()
	if err != nil {
		return "", false, err
	}
	ap, an := cText(agent)
	buf := make([]byte, 512)
	for {
		var written C.size_t
		r := C.a2a_model_text(ap, an, oh, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &written)
		switch r {
		case C.A2A_OK:
			return string(buf[:written]), true, nil
		case C.A2A_NONE:
			return "", false, nil
		case C.A2A_INSUFFICIENT_SIZE:
			buf = make([]byte, int(written))
		default:
			return "", false, codeErr("ModelText", r)
		}
	}
}

// ModelPrefix is the prefix word of the model text (REMOTE_FAILED, REMOTE_UNKNOWN, ...);
// "" for a success or an outcome without a handle.
func (o *Outcome) ModelPrefix() string {
	oh, err := o.handle()
	if err != nil {
		return ""
	}
	return goStr(C.a2a_model_prefix(oh))
}

// CountsTowardBreaker reports whether the outcome counts as a failure toward opening a
// circuit breaker (transport failures, 408/5xx; not protocol errors or FAILED tasks).
func (o *Outcome) CountsTowardBreaker() (bool, error) {
	oh, err := o.handle()
	if err != nil {
		return false, err
	}
	return bool(C.a2a_counts_toward_breaker(oh)), nil
}

// ModelInstruction is the recommended instruction sentence for the orchestrating model
// (how to read the REMOTE_ lines).
func ModelInstruction() string { return goStr(C.a2a_model_instruction()) }

// ---- retry policy -------------------------------------------------------------------------

// CallKind says how safe a call is to repeat.
type CallKind uint32

// Call kinds (a2a_call_kind).
const (
	CallRead               CallKind = C.A2A_CALL_KIND_READ                 // get task, get card
	CallIdempotent         CallKind = C.A2A_CALL_KIND_IDEMPOTENT           // cancel
	CallWithIdempotencyKey CallKind = C.A2A_CALL_KIND_WITH_IDEMPOTENCY_KEY // a send with a key
	CallSideEffecting      CallKind = C.A2A_CALL_KIND_SIDE_EFFECTING       // a send without a key
)

// RetryConfig configures a RetryPolicy. Start from DefaultRetryConfig.
type RetryConfig struct {
	Kind             CallKind
	MaxAttempts      uint32        // sends of the request, the first included (>= 1)
	MaxFollowUps     uint32        // resubscribe and poll calls after the sends
	MaxNewTasks      uint32        // new tasks after a terminal task (0: never)
	BaseDelay        time.Duration // backoff ceiling of the first retry
	MaxDelay         time.Duration // cap on any backoff delay
	HonourRetryAfter bool          // Retry-After is a floor for the delay
	MaxRetryAfter    time.Duration // the longest Retry-After the policy waits for
	Deadline         time.Time     // overall deadline (the turn budget); zero: none
	AttemptEstimate  time.Duration // expected duration of one attempt (a floor)
	Streaming        bool          // the task can be resubscribed to (else poll)
}

// DefaultRetryConfig is the library's default configuration for a call of kind k.
func DefaultRetryConfig(k CallKind) RetryConfig {
	var c C.struct_a2a_retry_config
	C.a2a_retry_config_default(&c)
	return RetryConfig{
		Kind:             k,
		MaxAttempts:      uint32(c.max_attempts),
		MaxFollowUps:     uint32(c.max_follow_ups),
		MaxNewTasks:      uint32(c.max_new_tasks),
		BaseDelay:        msDur(c.base_delay_ms),
		MaxDelay:         msDur(c.max_delay_ms),
		HonourRetryAfter: bool(c.honour_retry_after),
		MaxRetryAfter:    msDur(c.max_retry_after_ms),
		AttemptEstimate:  msDur(c.attempt_estimate_ms),
		Streaming:        bool(c.streaming),
	}
}

func msDur(ms C.uint64_t) time.Duration { return time.Duration(ms) * time.Millisecond }

func durMS(d time.Duration) C.uint64_t {
	if d < 0 {
		return 0
	}
	return C.uint64_t(d / time.Millisecond)
}

// ActionKind is what to do after an attempt.
type ActionKind uint32

// Action kinds (a2a_retry_action_kind).
const (
	ActionDone         ActionKind = C.A2A_RETRY_ACTION_KIND_DONE           // stop: final answer
	ActionRetryAfter   ActionKind = C.A2A_RETRY_ACTION_KIND_RETRY_AFTER    // resend after Delay
	ActionResubscribe  ActionKind = C.A2A_RETRY_ACTION_KIND_RESUBSCRIBE    // resubscribe to TaskID
	ActionPoll         ActionKind = C.A2A_RETRY_ACTION_KIND_POLL           // get-task TaskID
	ActionStartNewTask ActionKind = C.A2A_RETRY_ACTION_KIND_START_NEW_TASK // new messageId and key
	ActionGiveUp       ActionKind = C.A2A_RETRY_ACTION_KIND_GIVE_UP        // stop: GiveUp says why
)

var actionNames = map[ActionKind]string{ActionDone: "done", ActionRetryAfter: "retry_after",
	ActionResubscribe: "resubscribe", ActionPoll: "poll", ActionStartNewTask: "start_new_task", ActionGiveUp: "give_up"}

// String names the action ("retry_after", "give_up", ...).
func (k ActionKind) String() string { return actionNames[k] }

// GiveUpReason says why a policy gave up.
type GiveUpReason uint32

// Give-up reasons (a2a_give_up_reason); 0 means "not a give-up".
const (
	GiveUpNotRetryable             GiveUpReason = C.A2A_GIVE_UP_REASON_NOT_RETRYABLE
	GiveUpReauthenticate           GiveUpReason = C.A2A_GIVE_UP_REASON_REAUTHENTICATE
	GiveUpFixVersion               GiveUpReason = C.A2A_GIVE_UP_REASON_FIX_VERSION
	GiveUpRemoteSaysNotRetryable   GiveUpReason = C.A2A_GIVE_UP_REASON_REMOTE_SAYS_NOT_RETRYABLE
	GiveUpUnknownOutcomeWithoutKey GiveUpReason = C.A2A_GIVE_UP_REASON_UNKNOWN_OUTCOME_WITHOUT_KEY
	GiveUpTaskEnded                GiveUpReason = C.A2A_GIVE_UP_REASON_TASK_ENDED
	GiveUpNewTaskWithoutKey        GiveUpReason = C.A2A_GIVE_UP_REASON_NEW_TASK_WITHOUT_KEY
	GiveUpCircuitOpen              GiveUpReason = C.A2A_GIVE_UP_REASON_CIRCUIT_OPEN
	GiveUpAttemptsExhausted        GiveUpReason = C.A2A_GIVE_UP_REASON_ATTEMPTS_EXHAUSTED
	GiveUpFollowUpsExhausted       GiveUpReason = C.A2A_GIVE_UP_REASON_FOLLOW_UPS_EXHAUSTED
	GiveUpNewTasksExhausted        GiveUpReason = C.A2A_GIVE_UP_REASON_NEW_TASKS_EXHAUSTED
	GiveUpDeadlineExhausted        GiveUpReason = C.A2A_GIVE_UP_REASON_DEADLINE_EXHAUSTED
	GiveUpRetryAfterBeyondDeadline GiveUpReason = C.A2A_GIVE_UP_REASON_RETRY_AFTER_BEYOND_DEADLINE
	GiveUpRetryAfterTooLong        GiveUpReason = C.A2A_GIVE_UP_REASON_RETRY_AFTER_TOO_LONG
	GiveUpFinished                 GiveUpReason = C.A2A_GIVE_UP_REASON_FINISHED
	GiveUpOther                    GiveUpReason = C.A2A_GIVE_UP_REASON_OTHER
)

// String is the reason's code word ("attempts_exhausted", ...); "" for none and other.
func (g GiveUpReason) String() string { return vocabName(C.A2A_VOCAB_GIVE_UP_REASON, uint32(g)) }

// IDRule says what to do with an id on the next request.
type IDRule uint32

// Id rules (a2a_id_rule).
const (
	IDNone    IDRule = C.A2A_ID_RULE_NONE     // no next request
	IDKeep    IDRule = C.A2A_ID_RULE_KEEP     // send the same value again
	IDNew     IDRule = C.A2A_ID_RULE_NEW      // send a new value
	IDNotSent IDRule = C.A2A_ID_RULE_NOT_SENT // the next request does not carry it
)

var idRuleNames = map[IDRule]string{IDNone: "none", IDKeep: "keep", IDNew: "new", IDNotSent: "not_sent"}

// String names the rule.
func (r IDRule) String() string { return idRuleNames[r] }

// RetryAction is the policy's answer after an attempt.
type RetryAction struct {
	Kind           ActionKind
	Delay          time.Duration // wait this long before the next request (HasDelay)
	HasDelay       bool
	TaskID         string       // resubscribe and poll
	Generation     uint32       // start-new-task: 1 for the first new task
	GiveUp         GiveUpReason // give-up
	GiveUpText     string       // give-up: an English sentence
	MessageID      IDRule
	IdempotencyKey IDRule
	JSONRPCID      IDRule
}

// RetryPolicy decides, attempt by attempt, what one logical call does next.
type RetryPolicy struct {
	owned[*C.a2a_retry_policy]
	clk clock
}

// NewRetryPolicy returns a policy whose first attempt starts at now.
func NewRetryPolicy(cfg RetryConfig, now time.Time) (*RetryPolicy, error) {
	clk := clock{origin: now}
	c := C.struct_a2a_retry_config{
		kind:                C.uint32_t(cfg.Kind),
		max_attempts:        C.uint32_t(cfg.MaxAttempts),
		max_follow_ups:      C.uint32_t(cfg.MaxFollowUps),
		max_new_tasks:       C.uint32_t(cfg.MaxNewTasks),
		base_delay_ms:       durMS(cfg.BaseDelay),
		max_delay_ms:        durMS(cfg.MaxDelay),
		honour_retry_after:  C.bool(cfg.HonourRetryAfter),
		max_retry_after_ms:  durMS(cfg.MaxRetryAfter),
		has_deadline:        C.bool(!cfg.Deadline.IsZero()),
		attempt_estimate_ms: durMS(cfg.AttemptEstimate),
		streaming:           C.bool(cfg.Streaming),
	}
	if !cfg.Deadline.IsZero() {
		c.deadline_ms = clk.ms(cfg.Deadline)
	}
	var h *C.a2a_retry_policy
	if r := C.a2a_retry_policy_new(&c, clk.ms(now), &h); r != C.A2A_OK {
		return nil, codeErr("NewRetryPolicy", r)
	}
	p := &RetryPolicy{clk: clk}
	own(p, &p.owned, h, func(h *C.a2a_retry_policy) { C.a2a_retry_policy_free(h) })
	return p, nil
}

// BeginAttempt marks the start of an attempt (the policy learns how long attempts take).
func (p *RetryPolicy) BeginAttempt(now time.Time) error {
	if p.h == nil {
		return ErrClosed
	}
	if r := C.a2a_retry_policy_begin_attempt(p.h, p.clk.ms(now)); r != C.A2A_OK {
		return codeErr("RetryPolicy.BeginAttempt", r)
	}
	return nil
}

// SetTaskID records the task id the call created (for resubscribe and poll).
func (p *RetryPolicy) SetTaskID(id string) error {
	if p.h == nil {
		return ErrClosed
	}
	ip, in := cText(id)
	if r := C.a2a_retry_policy_set_task_id(p.h, ip, in); r != C.A2A_OK {
		return codeErr("RetryPolicy.SetTaskID", r)
	}
	return nil
}

// TaskID is the task id known to the policy.
func (p *RetryPolicy) TaskID() (string, bool) {
	if p.h == nil {
		return "", false
	}
	s := goOptStr(C.a2a_retry_policy_task_id(p.h))
	if s == nil {
		return "", false
	}
	return *s, true
}

// Attempts is the number of sends so far; FollowUps the resubscribe/poll calls; NewTasks
// the new tasks started.
func (p *RetryPolicy) Attempts() uint32 {
	if p.h == nil {
		return 0
	}
	return uint32(C.a2a_retry_policy_attempts(p.h))
}

// FollowUps is the number of resubscribe and poll calls so far.
func (p *RetryPolicy) FollowUps() uint32 {
	if p.h == nil {
		return 0
	}
	return uint32(C.a2a_retry_policy_follow_ups(p.h))
}

// NewTasks is the number of new tasks started so far.
func (p *RetryPolicy) NewTasks() uint32 {
	if p.h == nil {
		return 0
	}
	return uint32(C.a2a_retry_policy_new_tasks(p.h))
}

// Estimate is the policy's estimate of one attempt's duration.
func (p *RetryPolicy) Estimate() time.Duration {
	if p.h == nil {
		return 0
	}
	return msDur(C.a2a_retry_policy_estimate(p.h))
}

// Remaining is the time left before the deadline at now; ok is false without a deadline.
func (p *RetryPolicy) Remaining(now time.Time) (time.Duration, bool) {
	if p.h == nil {
		return 0, false
	}
	var out C.uint64_t
	if !C.a2a_retry_policy_remaining(p.h, p.clk.ms(now), &out) {
		return 0, false
	}
	return msDur(out), true
}

// IsFinished reports whether the policy has answered done or give-up.
func (p *RetryPolicy) IsFinished() bool {
	return p.h != nil && bool(C.a2a_retry_policy_is_finished(p.h))
}

// Next feeds the outcome of the attempt that just ended at now and returns what to do;
// the backoff jitter comes from math/rand/v2.
func (p *RetryPolicy) Next(o *Outcome, now time.Time) (RetryAction, error) {
	return p.NextWithRandom(o, now, rand.Uint64())
}

// NextWithRandom is Next with caller-supplied random bits for the jitter (reproducible).
func (p *RetryPolicy) NextWithRandom(o *Outcome, now time.Time, random uint64) (RetryAction, error) {
	if p.h == nil {
		return RetryAction{}, ErrClosed
	}
	oh, err := o.handle()
	if err != nil {
		return RetryAction{}, err
	}
	var a C.struct_a2a_retry_action
	if r := C.a2a_retry_policy_next(p.h, oh, p.clk.ms(now), C.uint64_t(random), &a); r != C.A2A_OK {
		return RetryAction{}, codeErr("RetryPolicy.Next", r)
	}
	return RetryAction{
		Kind: ActionKind(a.kind), HasDelay: bool(a.has_delay), Delay: msDur(a.delay_ms),
		TaskID: goStr(a.task_id), Generation: uint32(a.generation), GiveUp: GiveUpReason(a.give_up),
		GiveUpText: goStr(a.give_up_text), MessageID: IDRule(a.message_id),
		IdempotencyKey: IDRule(a.idempotency_key), JSONRPCID: IDRule(a.jsonrpc_id),
	}, nil
}

// ---- circuit breaker ---------------------------------------------------------------------

// BreakerConfig configures a Breaker. Start from DefaultBreakerConfig.
type BreakerConfig struct {
	FailureThreshold   uint32        // open at this many counted failures (0: rule off)
	FailureRatePercent uint8         // open at this failure percentage (0: rule off)
	MinCalls           uint32        // the rate rule applies from this many calls
	Window             time.Duration // the sliding window
	Buckets            uint16        // buckets of the window (1..1000)
	CoolDown           time.Duration // how long the breaker stays open
	HalfOpenTrials     uint32        // trial calls when half-open
}

// DefaultBreakerConfig is the library's default (5 failures, or 50% of at least 10
// calls, in 30 s open it for 15 s; then 1 trial call decides).
func DefaultBreakerConfig() BreakerConfig {
	var c C.struct_a2a_breaker_config
	C.a2a_breaker_config_default(&c)
	return BreakerConfig{
		FailureThreshold: uint32(c.failure_threshold), FailureRatePercent: uint8(c.failure_rate_percent),
		MinCalls: uint32(c.min_calls), Window: msDur(c.window_ms), Buckets: uint16(c.buckets),
		CoolDown: msDur(c.cool_down_ms), HalfOpenTrials: uint32(c.half_open_trials),
	}
}

// c is the C mirror of the configuration.
func (cfg BreakerConfig) c() C.struct_a2a_breaker_config {
	return C.struct_a2a_breaker_config{
		failure_threshold: C.uint32_t(cfg.FailureThreshold), failure_rate_percent: C.uint8_t(cfg.FailureRatePercent),
		min_calls: C.uint32_t(cfg.MinCalls), window_ms: durMS(cfg.Window), buckets: C.uint16_t(cfg.Buckets),
		cool_down_ms: durMS(cfg.CoolDown), half_open_trials: C.uint32_t(cfg.HalfOpenTrials),
	}
}

// BreakerState is closed, open or half-open.
type BreakerState uint32

// Breaker states (a2a_breaker_state).
const (
	BreakerClosed   BreakerState = C.A2A_BREAKER_STATE_CLOSED
	BreakerOpen     BreakerState = C.A2A_BREAKER_STATE_OPEN
	BreakerHalfOpen BreakerState = C.A2A_BREAKER_STATE_HALF_OPEN
)

var breakerStateNames = map[BreakerState]string{BreakerClosed: "closed", BreakerOpen: "open", BreakerHalfOpen: "half_open"}

// String names the state.
func (s BreakerState) String() string { return breakerStateNames[s] }

// BreakerSnapshot is a point-in-time view of a breaker (metrics, logs).
type BreakerSnapshot struct {
	State            BreakerState
	CallsInWindow    uint32
	FailuresInWindow uint32
	HalfOpenAt       time.Time // open state: when trial calls may go out (zero otherwise)
	TrialsInFlight   uint32
	TrialSuccesses   uint32
	TimesOpened      uint64
	Refused          uint64
}

// Breaker is a circuit breaker for one remote agent. Its clock's origin is the first time
// passed to it; pass times from one monotonic source (time.Now()).
type Breaker struct {
	owned[*C.a2a_breaker]
	clk     clock
	started bool
}

// NewBreaker returns a closed breaker for agent.
func NewBreaker(agent string, cfg BreakerConfig) (*Breaker, error) {
	c := cfg.c()
	ap, an := cText(agent)
	var h *C.a2a_breaker
	if r := C.a2a_breaker_new(ap, an, &c, &h); r != C.A2A_OK {
		return nil, codeErr("NewBreaker", r)
	}
	b := &Breaker{}
	own(b, &b.owned, h, func(h *C.a2a_breaker) { C.a2a_breaker_free(h) })
	return b, nil
}

func (b *Breaker) ms(now time.Time) C.uint64_t {
	if !b.started {
		b.clk, b.started = clock{origin: now}, true
	}
	return b.clk.ms(now)
}

// Agent is the agent name given at creation.
func (b *Breaker) Agent() string {
	if b.h == nil {
		return ""
	}
	return goStr(C.a2a_breaker_agent(b.h))
}

// Allow says whether a call may go out at now. When half-open this takes a trial permit:
// report the call with Record, or Release it if the call was never made.
func (b *Breaker) Allow(now time.Time) bool {
	return b.h != nil && bool(C.a2a_breaker_allow(b.h, b.ms(now)))
}

// Refusal is the transport outcome (CircuitOpen, request not sent) for a refused call.
func (b *Breaker) Refusal(now time.Time) (*Outcome, error) {
	if b.h == nil {
		return nil, ErrClosed
	}
	var h *C.a2a_outcome
	if r := C.a2a_breaker_refusal(b.h, b.ms(now), &h); r != C.A2A_OK {
		return nil, codeErr("Breaker.Refusal", r)
	}
	return ownOutcome(h), nil
}

// Record reports the outcome of a call Allow let through.
func (b *Breaker) Record(o *Outcome, now time.Time) error {
	if b.h == nil {
		return ErrClosed
	}
	oh, err := o.handle()
	if err != nil {
		return err
	}
	if r := C.a2a_breaker_record(b.h, oh, b.ms(now)); r != C.A2A_OK {
		return codeErr("Breaker.Record", r)
	}
	return nil
}

// RecordResult reports a call's result directly (countedFailure: see CountsTowardBreaker).
func (b *Breaker) RecordResult(countedFailure bool, now time.Time) error {
	if b.h == nil {
		return ErrClosed
	}
	o, err := resultOutcome(countedFailure)
	if err != nil {
		return err
	}
	oh, err := o.handle()
	if err != nil {
		return err
	}
	r := C.a2a_breaker_record(b.h, oh, b.ms(now))
	runtime.KeepAlive(o)
	if r != C.A2A_OK {
		return codeErr("Breaker.RecordResult", r)
	}
	return nil
}

// resultOutcomes are one outcome per breaker effect, made once and never closed:
// RecordResult records one of them with a2a_breaker_record, which records exactly
// a2a_counts_toward_breaker(outcome). [1] counts (an HTTP 503), [0] is a success (a
// JSON-RPC reply carrying a message).
var resultOutcomes = sync.OnceValues(func() ([2]*Outcome, error) {
	failure, err := Classify(Response{Status: 503})
	if err != nil {
		return [2]*Outcome{}, err
	}
	success, err := Classify(Response{Status: 200, ContentType: "application/json",
		Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m","role":"agent","parts":[]}}`)})
	if err != nil {
		return [2]*Outcome{}, err
	}
	for i, o := range [2]*Outcome{success, failure} {
		h, err := o.handle()
		if err != nil {
			return [2]*Outcome{}, err
		}
		if bool(C.a2a_counts_toward_breaker(h)) != (i == 1) {
			return [2]*Outcome{}, &Error{Op: "Breaker.RecordResult", Code: CodeInvalidArgument,
				Detail: "the library classified the breaker outcome unexpectedly"}
		}
	}
	return [2]*Outcome{success, failure}, nil
})

func resultOutcome(countedFailure bool) (*Outcome, error) {
	pair, err := resultOutcomes()
	if err != nil {
		return nil, err
	}
	if countedFailure {
		return pair[1], nil
	}
	return pair[0], nil
}

// Release returns a trial permit taken by Allow for a call that was never made.
func (b *Breaker) Release(now time.Time) error {
	if b.h == nil {
		return ErrClosed
	}
	if r := C.a2a_breaker_release(b.h, b.ms(now)); r != C.A2A_OK {
		return codeErr("Breaker.Release", r)
	}
	return nil
}

// State is the state at now.
func (b *Breaker) State(now time.Time) BreakerState {
	s, err := b.Snapshot(now)
	if err != nil {
		return 0
	}
	return s.State
}

// Snapshot is a view of the breaker at now.
func (b *Breaker) Snapshot(now time.Time) (BreakerSnapshot, error) {
	if b.h == nil {
		return BreakerSnapshot{}, ErrClosed
	}
	var s C.struct_a2a_breaker_snapshot
	if r := C.a2a_breaker_snapshot_at(b.h, b.ms(now), &s); r != C.A2A_OK {
		return BreakerSnapshot{}, codeErr("Breaker.Snapshot", r)
	}
	out := BreakerSnapshot{
		State: BreakerState(s.state), CallsInWindow: uint32(s.calls_in_window),
		FailuresInWindow: uint32(s.failures_in_window), TrialsInFlight: uint32(s.trials_in_flight),
		TrialSuccesses: uint32(s.trial_successes), TimesOpened: uint64(s.times_opened), Refused: uint64(s.refused),
	}
	if s.has_half_open_at {
		out.HalfOpenAt = b.clk.at(s.half_open_at_ms)
	}
	return out, nil
}

// Reset closes the breaker and forgets its window (lifetime counters are kept).
func (b *Breaker) Reset() error {
	if b.h == nil {
		return ErrClosed
	}
	if r := C.a2a_breaker_reset(b.h); r != C.A2A_OK {
		return codeErr("Breaker.Reset", r)
	}
	return nil
}
