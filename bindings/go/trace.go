package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"crypto/rand"
	"unsafe"
)

// Traceparent is a W3C trace context traceparent (version 00).
type Traceparent struct {
	TraceID  [16]byte
	ParentID [8]byte
	Flags    byte // bit 0: sampled
}

func (t *Traceparent) c() C.struct_a2a_traceparent {
	var c C.struct_a2a_traceparent
	for i, b := range t.TraceID {
		c.trace_id[i] = C.uint8_t(b)
	}
	for i, b := range t.ParentID {
		c.parent_id[i] = C.uint8_t(b)
	}
	c.flags = C.uint8_t(t.Flags)
	return c
}

func fromCTraceparent(c *C.struct_a2a_traceparent) Traceparent {
	var t Traceparent
	for i := range t.TraceID {
		t.TraceID[i] = byte(c.trace_id[i])
	}
	for i := range t.ParentID {
		t.ParentID[i] = byte(c.parent_id[i])
	}
	t.Flags = byte(c.flags)
	return t
}

// ParseTraceparent reads a traceparent header value.
func ParseTraceparent(s string) (Traceparent, error) {
	p, n := cText(s)
	var c C.struct_a2a_traceparent
	if r := C.a2a_traceparent_parse(p, n, &c); r != C.A2A_OK {
		return Traceparent{}, codeErr("ParseTraceparent", r)
	}
	return fromCTraceparent(&c), nil
}

// NewTraceparent is a fresh traceparent header value (a new sampled trace, ids from
// crypto/rand), for HTTPCallOptions.Traceparent or WithTraceparent: the same value in the
// agent's logs finds the call.
func NewTraceparent() string {
	t, err := NewTrace(true)
	if err != nil {
		panic("a2a: crypto/rand failed: " + err.Error()) // crypto/rand.Read does not fail on Linux
	}
	s, err := t.Format()
	if err != nil {
		panic("a2a: a fresh traceparent does not format: " + err.Error())
	}
	return s
}

// WithTraceparent is call options that send the traceparent tp (from NewTraceparent, or
// the incoming request's, to join its trace).
func WithTraceparent(tp string) *HTTPCallOptions { return &HTTPCallOptions{Traceparent: tp} }

// NewTrace starts a new trace with ids from crypto/rand (NewTraceparent formats one).
func NewTrace(sampled bool) (Traceparent, error) {
	for {
		var random [24]byte
		if _, err := rand.Read(random[:]); err != nil {
			return Traceparent{}, err
		}
		t, ok, err := TraceparentFromRandom(random, sampled)
		if err != nil || ok {
			return t, err
		}
	}
}

// TraceparentFromRandom starts a new trace from 24 caller-supplied random bytes; ok is
// false in the negligible case that an id came out all zero (draw again).
func TraceparentFromRandom(random [24]byte, sampled bool) (t Traceparent, ok bool, err error) {
	var c C.struct_a2a_traceparent
	switch r := C.a2a_traceparent_new(nil, (*C.uint8_t)(unsafe.Pointer(&random[0])), 24, C.bool(sampled), &c); r {
	case C.A2A_OK:
		return fromCTraceparent(&c), true, nil
	case C.A2A_NONE:
		return Traceparent{}, false, nil
	default:
		return Traceparent{}, false, codeErr("TraceparentFromRandom", r)
	}
}

// Child is a child span in the same trace with the caller's new span id; ok is false
// when spanID is all zero.
func (t Traceparent) Child(spanID [8]byte) (child Traceparent, ok bool, err error) {
	p := t.c()
	var c C.struct_a2a_traceparent
	switch r := C.a2a_traceparent_new(&p, (*C.uint8_t)(unsafe.Pointer(&spanID[0])), 8, false, &c); r {
	case C.A2A_OK:
		return fromCTraceparent(&c), true, nil
	case C.A2A_NONE:
		return Traceparent{}, false, nil
	default:
		return Traceparent{}, false, codeErr("Traceparent.Child", r)
	}
}

// Format is the 55-character header value (00-<trace>-<parent>-<flags>).
func (t Traceparent) Format() (string, error) {
	p := t.c()
	var out [C.A2A_TRACEPARENT_LEN]byte
	if r := C.a2a_traceparent_format(&p, (*C.uint8_t)(unsafe.Pointer(&out[0]))); r != C.A2A_OK {
		return "", codeErr("Traceparent.Format", r)
	}
	return string(out[:]), nil
}

// TallyEntry is one counter of a Tally.
type TallyEntry struct {
	Agent, Method string
	Channel       Channel
	Code          string // error name, HTTP status or task state
	Count         uint64
}

// Entries are every counter, sorted by agent, method, channel, code.
func (t *Tally) Entries() ([]TallyEntry, error) {
	if t.h == nil {
		return nil, ErrClosed
	}
	n := int(C.a2a_tally_entry_count(t.h))
	out := make([]TallyEntry, 0, n)
	for i := range n {
		var e C.struct_a2a_tally_entry
		if r := C.a2a_tally_get_entry(t.h, C.size_t(i), &e); r != C.A2A_OK {
			return nil, codeErr("Tally.Entries", r)
		}
		out = append(out, TallyEntry{Agent: goStr(e.agent), Method: goStr(e.method),
			Channel: Channel(e.channel), Code: goStr(e.code), Count: uint64(e.count)})
	}
	return out, nil
}
