package a2a

/*
#include <stdlib.h>
#include "a2a_core.h"
*/
import "C"

import (
	"runtime"
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

func msDur(ms C.uint64_t) time.Duration { return time.Duration(ms) * time.Millisecond }

func durMS(d time.Duration) C.uint64_t {
	if d < 0 {
		return 0
	}
	return C.uint64_t(d / time.Millisecond)
}

// ---- circuit breaker ---------------------------------------------------------------------

// BreakerConfig configures the circuit breaker a client keeps per agent
// (ClientConfig.Breaker). Start from DefaultBreakerConfig.
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
