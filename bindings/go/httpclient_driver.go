package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"context"
)

// WithReferenceDriver makes the client move its bytes with the library's reference
// driver (its own connection pool, TLS and proxy rules, reached through cgo) instead of
// net/http: each call runs with a2a_call_run, one cgo call per step. Everything else is
// the same: the same methods, the same machine deciding requests, deadlines, retries and
// outcomes, the same contexts (a context that ends triggers the run's abort switch: a
// blocked run returns at once with the call canceled). WithHTTPClient is then ignored.
func WithReferenceDriver() HTTPOption { return func(o *httpOptions) { o.reference = true } }

// newReferenceTransport makes the driver's transport with the default connection
// settings (plain http allowed: the machine applies the https rule to the card and the
// interface).
func newReferenceTransport() (*C.a2a_transport, error) {
	b := C.a2a_client_config_builder_new()
	if b == nil {
		return nil, &Error{Op: "WithReferenceDriver", Code: CodeInvalidArgument, Detail: "no builder"}
	}
	defer C.a2a_client_config_builder_free(b)
	if r := setOption(b, C.A2A_CLIENT_OPTION_ALLOW_HTTP, 1); r != C.A2A_OK {
		return nil, codeErr("WithReferenceDriver", r)
	}
	var config *C.a2a_machine_config
	if r := C.a2a_client_config_builder_build(b, &config); r != C.A2A_OK {
		return nil, codeErr("WithReferenceDriver", r)
	}
	defer C.a2a_machine_config_free(config)
	return newTransport(config, "WithReferenceDriver")
}

// newTransport makes the driver's transport (what a2a_call_run performs the machine's
// requests on) from a machine config: its connect timeout, body limit and https rule,
// and the transport options (TLS files, proxy, resolutions, pool, allowed hosts). The
// machine's deadlines bound every run; the config's call timeout does not.
func newTransport(config *C.a2a_machine_config, op string) (*C.a2a_transport, error) {
	var h *C.a2a_transport
	if r := C.a2a_transport_new(config, &h); r != C.A2A_OK {
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
func runOnTransport(driver *C.a2a_transport, ev *callEvents) {
	var abort *C.a2a_abort
	if ev.ctx.Done() != nil {
		var r C.a2a_result
		if abort, r = newAbort(); r != C.A2A_OK {
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

// newAbort is a2a_abort_new's switch (its out-parameter escapes here, not in
// runOnTransport, where it cost an allocation per call even without a context to watch).
func newAbort() (*C.a2a_abort, C.a2a_result) {
	var abort *C.a2a_abort
	r := C.a2a_abort_new(&abort)
	return abort, r
}

// startClock makes the machine's clock the host's, continued from each run's now_out_ms
// (or a later reading).
func (ev *callEvents) startClock() {
	ev.clock = nowMs()
	ev.clocked = true
}

// now is the clock handed to the machine: the host's, or after startClock the later of the
// host's and the last run's now_out_ms.
func (ev *callEvents) now() uint64 {
	if ev.clocked {
		return max(ev.clock, nowMs())
	}
	return nowMs()
}

// runStep runs the call once on the transport (a2a_call_run returns once an event is
// queued) and drains its events; false when the library refused the run (the call is
// then canceled, its FINISHED drained).
func (ev *callEvents) runStep(driver *C.a2a_transport, abort *C.a2a_abort) bool {
	if r := C.a2a_call_run(ev.call, driver, abort, C.uint64_t(ev.now()), &ev.runOut); r != C.A2A_OK {
		ev.cancel(codeErr("WithReferenceDriver", r))
		return false
	}
	ev.clock = max(ev.clock, uint64(ev.runOut))
	ev.drain()
	return true
}
