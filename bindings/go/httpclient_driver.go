package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"context"
	"runtime"
	"time"
)

// WithReferenceDriver makes the client move its bytes with the library's reference
// driver (its own connection pool, TLS and proxy rules, reached through cgo) instead of
// net/http: each call runs with a2a_call_run, one cgo call per step. Everything else is
// the same: the same methods, the same machine deciding requests, deadlines, retries and
// outcomes, the same contexts (a context that ends triggers the run's abort switch: a
// blocked run returns at once with the call canceled). WithHTTPClient is then ignored.
func WithReferenceDriver() HTTPOption { return func(o *httpOptions) { o.reference = true } }

// referenceLongTimeout is the transport's own call and idle timeouts: a2a_call_run
// applies the machine's deadlines instead, so these are only a backstop.
const referenceLongTimeout = 24 * time.Hour

// newReferenceTransport makes the driver's raw client with the default configuration.
func newReferenceTransport() (*C.a2a_client, error) {
	return newTransport(DefaultClientConfig(), "WithReferenceDriver")
}

// newTransport makes the driver's raw client (no target: the transport that a2a_call_run
// performs the machine's requests on) with cfg's connection settings (connect timeout,
// body limit, pool, TLS files, proxy, resolutions, allowed hosts). What the machine
// decides (timeouts, https rule, interface, breaker, retries) is left out: the machine's
// config carries it.
func newTransport(cfg ClientConfig, op string) (*C.a2a_client, error) {
	cfg.CallTimeout = referenceLongTimeout
	cfg.StreamIdleTimeout = referenceLongTimeout
	cfg.AllowHTTP = true // the machine applies the https rule to the card and interface
	cfg.Protocol, cfg.Binding, cfg.MinProtocol = 0, 0, 0
	cfg.Breaker, cfg.MaxTime = nil, 0
	var pin runtime.Pinner
	defer pin.Unpin()
	var h *C.a2a_client
	if r := C.a2a_client_new_raw(cClientConfig(&pin, &cfg), &h); r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	return h, nil
}

// runNative drives the call on the reference driver's transport (see runOnTransport).
func (c *HTTPClient) runNative(ev *callEvents) { runOnTransport(c.driver, ev) }

// runOnTransport drives the call on a reference driver's transport: one a2a_call_run per
// step (it performs the machine's requests, reads a stream as it arrives, sleeps until
// the machine's deadlines and acts on ABORT events itself, returning once an event is
// queued), the events drained after each. A context that can end gets an abort switch:
// its end triggers it, which ends a blocked run at once with the call canceled (a
// context that never ends, Client's, needs none).
func runOnTransport(driver *C.a2a_client, ev *callEvents) {
	var abort *C.a2a_abort
	if ev.ctx.Done() != nil {
		if r := C.a2a_abort_new(&abort); r != C.A2A_OK {
			ev.cancel(codeErr("WithReferenceDriver", r))
			return
		}
		fired := make(chan struct{})
		stop := context.AfterFunc(ev.ctx, func() {
			C.a2a_abort_trigger(abort)
			close(fired)
		})
		defer func() {
			if !stop() && ev.ctx.Err() != nil {
				<-fired // the trigger runs: the switch must outlive it
			}
			C.a2a_abort_free(abort)
		}()
		if ev.ctx.Err() != nil {
			C.a2a_abort_trigger(abort) // an ended context: the first run cancels, nothing sent
		}
	}
	ev.startClock()
	for !ev.finished {
		if !ev.runStep(driver, abort) {
			return
		}
	}
}

// startClock makes the machine's clock the host's, continued from each run's now_out_ms
// (or a later reading).
func (ev *callEvents) startClock() {
	ev.clock = nowMs()
	ev.now = func() uint64 { return max(ev.clock, nowMs()) }
}

// runStep runs the call once on the transport (a2a_call_run returns once an event is
// queued) and drains its events; false when the library refused the run (the call is
// then canceled, its FINISHED drained).
func (ev *callEvents) runStep(driver *C.a2a_client, abort *C.a2a_abort) bool {
	var out C.uint64_t
	if r := C.a2a_call_run(ev.call, driver, abort, C.uint64_t(ev.now()), &out); r != C.A2A_OK {
		ev.cancel(codeErr("WithReferenceDriver", r))
		return false
	}
	ev.clock = max(ev.clock, uint64(out))
	ev.drain()
	return true
}
