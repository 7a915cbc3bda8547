package a2a

/*
#include "a2a_core.h"
*/
import "C"

// Tally counts outcomes per (agent, method, channel, code-or-state) and renders them in
// the Prometheus text format as a2a_outcomes_total.
type Tally struct {
	owned[*C.a2a_tally]
}

// NewTally returns an empty tally.
func NewTally() (*Tally, error) {
	var h *C.a2a_tally
	if r := C.a2a_tally_new(&h); r != C.A2A_OK {
		return nil, codeErr("NewTally", r)
	}
	t := &Tally{}
	own(t, &t.owned, h, func(h *C.a2a_tally) { C.a2a_tally_free(h) })
	return t, nil
}

// Record counts one outcome of method on agent. The outcome must still own its handle
// (not closed; outcomes of stream items own none).
func (t *Tally) Record(agent, method string, o *Outcome) error {
	if t.h == nil {
		return ErrClosed
	}
	oh, err := o.handle()
	if err != nil {
		return err
	}
	ap, an := cText(agent)
	mp, mn := cText(method)
	if r := C.a2a_tally_record(t.h, ap, an, mp, mn, oh); r != C.A2A_OK {
		return codeErr("Tally.Record", r)
	}
	return nil
}

// Add adds n to one counter directly (e.g. to merge tallies).
func (t *Tally) Add(agent, method string, ch Channel, code string, n uint64) error {
	if t.h == nil {
		return ErrClosed
	}
	ap, an := cText(agent)
	mp, mn := cText(method)
	cp, cn := cText(code)
	if r := C.a2a_tally_add(t.h, ap, an, mp, mn, C.uint32_t(ch), cp, cn, C.uint64_t(n)); r != C.A2A_OK {
		return codeErr("Tally.Add", r)
	}
	return nil
}

// Count is the count of one counter (0 when never recorded).
func (t *Tally) Count(agent, method string, ch Channel, code string) (uint64, error) {
	if t.h == nil {
		return 0, ErrClosed
	}
	ap, an := cText(agent)
	mp, mn := cText(method)
	cp, cn := cText(code)
	var out C.uint64_t
	if r := C.a2a_tally_count(t.h, ap, an, mp, mn, C.uint32_t(ch), cp, cn, &out); r != C.A2A_OK {
		return 0, codeErr("Tally.Count", r)
	}
	return uint64(out), nil
}

// Total is the sum of every counter.
func (t *Tally) Total() uint64 {
	if t.h == nil {
		return 0
	}
	return uint64(C.a2a_tally_total(t.h))
}

// Prometheus renders the tally in the Prometheus text exposition format (0.0.4).
func (t *Tally) Prometheus() (string, error) {
	if t.h == nil {
		return "", ErrClosed
	}
	var out C.struct_a2a_str
	if r := C.a2a_tally_render_prometheus(t.h, &out); r != C.A2A_OK {
		return "", codeErr("Tally.Prometheus", r)
	}
	return goStr(out), nil
}
