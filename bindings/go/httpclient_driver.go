package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"context"
	"net/http"
	"runtime"
	"time"
)

// WithReferenceDriver makes the client move its bytes with the library's reference
// driver (its own connection pool, TLS and proxy rules, reached through cgo) instead of
// net/http. Everything else is the same: the same methods, the same machine deciding
// requests, deadlines, retries and outcomes, the same contexts (a cancelled context
// aborts the driver's exchange at once). WithHTTPClient is then ignored.
func WithReferenceDriver() HTTPOption { return func(o *httpOptions) { o.reference = true } }

// referenceLongTimeout bounds the driver's own call and idle timeouts: the machine
// enforces the call's deadlines and aborts the exchange, so these are only a backstop.
const referenceLongTimeout = 24 * time.Hour

// newReferenceTransport makes the driver's raw client (no target: raw exchanges only).
func newReferenceTransport() (*C.a2a_client, error) {
	cfg := DefaultClientConfig()
	cfg.CallTimeout = referenceLongTimeout
	cfg.StreamIdleTimeout = referenceLongTimeout
	cfg.AllowHTTP = true // the machine applies the https rule to the card and interface
	var pin runtime.Pinner
	defer pin.Unpin()
	var h *C.a2a_client
	if r := C.a2a_client_new_raw(cClientConfig(&pin, &cfg), &h); r != C.A2A_OK {
		return nil, codeErr("WithReferenceDriver", r)
	}
	return h, nil
}

// transportFailure reads a driver transport outcome (and frees it) as the machine's
// failure input: the error name and whether request bytes may have been written.
func transportFailure(h *C.a2a_outcome, fallback string) exchangeMsg {
	if h == nil {
		return exchangeMsg{err: errDriver(fallback), written: true}
	}
	o := readOutcome(h)
	C.a2a_outcome_free(h)
	msg := fallback
	if o.Message != nil {
		msg = *o.Message
	}
	name := o.Error
	if name == 0 {
		name = NameReset
	}
	return exchangeMsg{err: errDriver(msg), name: name, written: o.RequestSent != RequestSentNo}
}

type errDriver string

func (e errDriver) Error() string { return string(e) }

// driverExchange performs one request with the reference driver: the head, the body's
// chunks as they arrive and the end (or the failure) go to out. The request's context
// ending triggers the driver's abort switch, which ends a blocked open or read at once.
func (c *HTTPClient) driverExchange(ctx context.Context, tx transmitCopy, id uint32, out chan<- exchangeMsg) {
	send := func(m exchangeMsg) bool {
		m.id = id
		select {
		case out <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var abort *C.a2a_abort
	if r := C.a2a_abort_new(&abort); r != C.A2A_OK {
		send(exchangeMsg{err: codeErr("WithReferenceDriver", r), name: NameReset})
		return
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		C.a2a_abort_trigger(abort)
		close(fired)
	})
	var stream *C.a2a_raw_stream
	defer func() {
		if !stop() && ctx.Err() != nil {
			<-fired // the trigger runs: the switch must outlive it
		}
		if stream != nil {
			C.a2a_raw_stream_free(stream)
		}
		C.a2a_abort_free(abort)
	}()
	var pin runtime.Pinner
	hs := make([]C.struct_a2a_header, len(tx.headers))
	for i, h := range tx.headers {
		hs[i].name, hs[i].name_len = pinText(&pin, h[0])
		hs[i].value, hs[i].value_len = pinText(&pin, h[1])
	}
	var hp *C.struct_a2a_header
	if len(hs) > 0 {
		pin.Pin(&hs[0])
		hp = &hs[0]
	}
	mp, mn := pinText(&pin, tx.method)
	up, un := pinText(&pin, tx.url)
	bp, bn := pinBytes(&pin, tx.body)
	var errOut *C.a2a_outcome
	r := C.a2a_client_open_stream(c.driver, mp, mn, up, un, hp, C.size_t(len(hs)), bp, bn, 0, abort, &stream, &errOut)
	pin.Unpin()
	if r != C.A2A_OK {
		stream = nil
		if r == C.A2A_CLIENT_TRANSPORT {
			send(transportFailure(errOut, "the reference driver's exchange failed"))
		} else {
			send(exchangeMsg{err: codeErr("WithReferenceDriver", r), name: NameReset})
		}
		return
	}
	head := C.a2a_raw_stream_head(stream)
	resp := &http.Response{StatusCode: int(C.a2a_raw_response_status(head)), Header: http.Header{}, Body: http.NoBody}
	for i := C.size_t(0); i < C.a2a_raw_response_header_count(head); i++ {
		var name, value C.struct_a2a_str
		if C.a2a_raw_response_header(head, i, &name, &value) == C.A2A_OK {
			resp.Header[goStr(name)] = append(resp.Header[goStr(name)], goStr(value))
		}
	}
	whole := goBytes(C.a2a_raw_response_body(head)) // a body that is not an event stream
	if !send(exchangeMsg{resp: resp}) {
		return
	}
	if len(whole) > 0 && !send(exchangeMsg{chunk: whole}) {
		return
	}
	for {
		var chunk C.struct_a2a_bytes
		errOut = nil
		switch r := C.a2a_raw_stream_read(stream, C.uint64_t(referenceLongTimeout/time.Millisecond), &chunk, &errOut); r {
		case C.A2A_OK:
			if !send(exchangeMsg{chunk: goBytes(chunk)}) {
				return
			}
		case C.A2A_NONE:
			send(exchangeMsg{end: true})
			return
		case C.A2A_CLIENT_TRANSPORT:
			m := transportFailure(errOut, "the reference driver's stream read failed")
			m.written = true
			send(m)
			return
		default:
			send(exchangeMsg{err: codeErr("WithReferenceDriver", r), name: NameReset, written: true})
			return
		}
	}
}
