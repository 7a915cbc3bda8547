package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"context"
	"errors"
	"time"
)

// Waiting for a task on the HTTPClient: the library's wait planner (a2a_task_wait) says
// which GetTask to make and when; each poll is an ordinary call driven as any other, and
// this file only sleeps (a time.Timer, the context's Done beside it) until the planner's
// time.

// WaitOptions pace HTTPClient.WaitTask (nil or zero fields: the defaults).
type WaitOptions struct {
	// PollInterval is the delay before the second poll (the first goes out at once);
	// each delay is 1.5 times the one before. 0: 500 ms.
	PollInterval time.Duration
	// MaxInterval is the longest delay between two polls. 0: 5 s.
	MaxInterval time.Duration
	// Timeout is the whole wait: no poll starts after it. 0: 10 minutes. The context's
	// deadline, when earlier, bounds the wait as well.
	Timeout time.Duration
	// HistoryLength asks each poll for that many history messages (nil: the agent's
	// default).
	HistoryLength *int
	// Traceparent and Headers are sent with every poll, as in HTTPCallOptions.
	Traceparent string
	Headers     map[string]string
}

// WaitTask waits for a task to settle (typically one sent with
// HTTPCallOptions.ReturnImmediately): it polls the task with GetTask, first at once, then
// at growing, bounded intervals, until the task reaches a terminal state or an
// interrupted one (input-required, auth-required: the caller must act), a poll fails in
// a way another poll would not change (TaskNotFound, a 4xx), or the wait's time runs out.
// The Outcome is the last poll's; at the deadline it is a transport Timeout naming the
// task and its last state (Retry poll, Result the last poll's task). The error is nil for
// a success, an *OutcomeError otherwise. A context that ends first ends the poll in flight
// at once; the error then wraps the context's error (the Outcome is the last poll's, or
// nil before the first answered).
func (c *HTTPClient) WaitTask(ctx context.Context, taskID string, opts *WaitOptions) (*Outcome, error) {
	if c.state == nil {
		return nil, ErrClosed
	}
	c.called.Store(true)
	if opts == nil {
		opts = &WaitOptions{}
	}
	maxTime := uint64(opts.Timeout / time.Millisecond)
	if dl, ok := ctx.Deadline(); ok {
		left := uint64(max(time.Until(dl)/time.Millisecond, 1))
		if maxTime == 0 || left < maxTime {
			maxTime = left
		}
	}
	history := C.int32_t(-1)
	if opts.HistoryLength != nil {
		history = C.int32_t(*opts.HistoryLength)
	}
	p, n := cText(taskID)
	var w *C.a2a_task_wait
	if r := C.a2a_task_wait_new(p, n, history, C.uint64_t(opts.PollInterval/time.Millisecond),
		C.uint64_t(opts.MaxInterval/time.Millisecond), C.uint64_t(maxTime), C.uint64_t(nowMs()), &w); r != C.A2A_OK {
		return nil, codeErr("HTTPClient.WaitTask", r)
	}
	defer C.a2a_task_wait_free(w)
	callOpts := &HTTPCallOptions{Traceparent: opts.Traceparent, Headers: opts.Headers}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var last *Outcome
	retried := false // this poll was answered 401 once and is made again with a fresh token
	for {
		s, err := c.callSettings(ctx, callOpts)
		if err != nil {
			return last, err
		}
		var call *C.a2a_call
		r := C.a2a_task_wait_poll(w, c.state, s, C.uint64_t(nowMs()), &call)
		C.a2a_call_settings_free(s)
		if r != C.A2A_OK {
			return last, codeErr("HTTPClient.WaitTask", r)
		}
		var step C.struct_a2a_wait_step
		read, again := false, false
		res := c.drive(ctx, call, func(*C.struct_a2a_event) bool { return true }, func(e *C.struct_a2a_event) {
			if e.outcome == nil || ctx.Err() != nil {
				return
			}
			if c.oauth2 != nil && !retried && outcomeHTTPStatus(e.outcome) == 401 {
				again = true // not read: the poll is made once more with a fresh token
				return
			}
			read = C.a2a_task_wait_read(w, e.outcome, C.uint64_t(nowMs()), &step) == C.A2A_OK
		})
		C.a2a_call_free(call)
		if c.oauth2 != nil && unauthorized(res.outcome) {
			c.oauth2.invalidate() // the next call fetches a fresh token
		}
		if again && ctx.Err() == nil {
			// As every other call: a 401 forgets the token and the same poll is made once
			// more (a token that expired during a long wait must not end the wait).
			retried = true
			continue
		}
		retried = false
		if ctx.Err() != nil {
			// The context ended, perhaps just as this poll was answered: the error says so
			// whatever the poll's own outcome was.
			return res.outcome, waitEnded(ctx, res.outcome, res.err)
		}
		if !read {
			return res.outcome, res.err
		}
		last = res.outcome
		switch step.kind {
		case C.A2A_WAIT_STEP_KIND_DONE:
			return res.outcome, res.err
		case C.A2A_WAIT_STEP_KIND_GAVE_UP:
			o := readOutcome(step.outcome)
			C.a2a_outcome_free(step.outcome)
			return &o, &OutcomeError{Outcome: &o}
		}
		timer.Reset(time.Duration(max(int64(step.poll_at_ms)-int64(nowMs()), 0)) * time.Millisecond)
		select {
		case <-ctx.Done():
			return last, waitEnded(ctx, last, nil)
		case <-timer.C:
		}
	}
}

// waitEnded is WaitTask's error when ctx ended: err when it already wraps the context's
// cause, else the outcome's error wrapping it (the cause alone before any outcome).
func waitEnded(ctx context.Context, o *Outcome, err error) error {
	cause := context.Cause(ctx)
	if err != nil && errors.Is(err, cause) {
		return err
	}
	if o == nil {
		return cause
	}
	return &OutcomeError{Outcome: o, cause: cause}
}
