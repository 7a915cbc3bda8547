package a2a

/*
#include <stdlib.h>
#include "a2a_core.h"
#include "scratch.h"

extern void a2aGoHeaderHook(void *userdata, char *method, size_t method_len, struct a2a_header_setter *setter);
*/
import "C"

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/textproto"
	"runtime"
	"runtime/cgo"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// HTTPClient calls one remote agent over the caller's net/http stack, driving the
// library's sans-IO client machine (the same card resolution, deadlines, retries and
// outcomes as the reference driver behind Client). Every call takes a context first;
// a failed call returns a non-nil error wrapping its Outcome (see OutcomeError). With
// WithReferenceDriver the library's own driver moves the bytes instead of net/http; the
// calls and outcomes are the same. An HTTPClient is safe for use by many goroutines;
// Close frees it once no call is in flight.
type HTTPClient struct {
	http    *http.Client
	driver  *C.a2a_transport // WithReferenceDriver: the reference driver's connections move the bytes
	config  *C.a2a_machine_config
	state   *C.a2a_client_state
	cleanup runtime.Cleanup
	// The interface the card resolved to (how list, push-config and card answers read).
	version ProtocolVersion
	binding Binding
	hooks   *hookStore  // what the C side holds for the header hooks
	called  atomic.Bool // a call was made: hooks can no longer be added
	// The state was made from a card: ExtendedCard adopts the extended card.
	fromCard bool
	oauth2   *oauth2Tokens
	cardSig  *VerifiedSignature // the card signature that verified (card verification)
	scratch  *scratchSlot       // the C out-parameters of runAuthed's calls, kept for the next
}

// scratchSlot keeps one C scratch (the polled event and outcome info) between calls: cgo
// checks a C address with a range test, where a Go struct with pointer fields is walked on
// every poll (and is two allocations per call). Concurrent calls take a new one each.
type scratchSlot struct {
	p atomic.Pointer[C.struct_a2a_go_scratch]
}

// take is the kept scratch, or a new one (C memory, freed by put or free).
func (s *scratchSlot) take() *C.struct_a2a_go_scratch {
	if p := s.p.Swap(nil); p != nil {
		return p
	}
	return (*C.struct_a2a_go_scratch)(C.calloc(1, C.sizeof_struct_a2a_go_scratch))
}

// put keeps p for the next call (frees it when one is kept already).
func (s *scratchSlot) put(p *C.struct_a2a_go_scratch) {
	if !s.p.CompareAndSwap(nil, p) {
		C.free(unsafe.Pointer(p))
	}
}

// free frees the kept scratch (Close, the cleanup).
func (s *scratchSlot) free() {
	if p := s.p.Swap(nil); p != nil {
		C.free(unsafe.Pointer(p))
	}
}

// HTTPOption configures NewHTTPClient.
type HTTPOption func(*httpOptions)

type httpOptions struct {
	client      *http.Client
	callTimeout time.Duration
	idleTimeout time.Duration
	allowHTTP   *bool
	ignoreCaps  bool
	reference   bool
	hooks       []HeaderHook
	target      *[2]uint32      // WithInterface: version, binding
	protocol    ProtocolVersion // WithProtocol (0: any)
	binding     Binding         // WithBinding (0: any)
	oauth2      *ClientCredentials
	verify      *cardVerification
	card        []byte          // the card as fetched (for the OAuth2 token URL)
	minProtocol ProtocolVersion // WithMinProtocol (0: none)
	noCardCache bool            // WithCardCache(false)
	breaker     *BreakerConfig  // WithBreaker (nil: none)
}

// WithProtocol insists on an interface of the card spoken in version (as Client's
// ClientConfig.Protocol; default: the library's order, 1.0 before 0.3). A card offering
// none is an *OutcomeError from NewHTTPClient.
func WithProtocol(version ProtocolVersion) HTTPOption {
	return func(o *httpOptions) { o.protocol = version }
}

// WithBinding insists on an interface of the card over binding (as Client's
// ClientConfig.Binding; default: JSON-RPC before HTTP+JSON).
func WithBinding(binding Binding) HTTPOption { return func(o *httpOptions) { o.binding = binding } }

// WithInterface skips the card: the URL given to NewHTTPClient is then the interface URL
// requests go to, spoken in version and binding (as Client's NewClientWithTarget).
func WithInterface(version ProtocolVersion, binding Binding) HTTPOption {
	return func(o *httpOptions) { o.target = &[2]uint32{uint32(version), uint32(binding)} }
}

// WithHTTPClient makes the client send every request with c (its transport, proxies, TLS,
// instrumentation). Redirects should be returned, not followed (CheckRedirect returning
// http.ErrUseLastResponse), and c.Timeout should be 0 so long streams live: the machine
// enforces the call's deadlines itself.
func WithHTTPClient(c *http.Client) HTTPOption { return func(o *httpOptions) { o.client = c } }

// WithCallTimeout sets the whole-call timeout of non-streaming calls (default 45 s).
func WithCallTimeout(d time.Duration) HTTPOption { return func(o *httpOptions) { o.callTimeout = d } }

// WithStreamIdleTimeout sets how long a stream may stay silent (default 60 s).
func WithStreamIdleTimeout(d time.Duration) HTTPOption {
	return func(o *httpOptions) { o.idleTimeout = d }
}

// WithHeaderHook adds a header hook run for every request the client makes (never the
// card fetch): see HTTPClient.AddHeaderHook.
func WithHeaderHook(hook HeaderHook) HTTPOption {
	return func(o *httpOptions) { o.hooks = append(o.hooks, hook) }
}

// WithAllowHTTP allows or refuses plain http:// interfaces (default: allowed when the
// URL given to NewHTTPClient is http://, for local agents and tests).
func WithAllowHTTP(allow bool) HTTPOption { return func(o *httpOptions) { o.allowHTTP = &allow } }

// WithIgnoreCapabilities sends calls the agent card does not declare (for an agent whose card
// under-declares). Without it, a client made from a card refuses them before anything is
// sent, as a transport outcome NameCapabilityNotDeclared: Stream and Resubscribe without
// capabilities.streaming, the push-config calls without pushNotifications, ExtendedCard
// without the extended-card capability. A client made WithInterface checks nothing.
func WithIgnoreCapabilities(ignore bool) HTTPOption {
	return func(o *httpOptions) { o.ignoreCaps = ignore }
}

// DefaultHTTPClient is the *http.Client NewHTTPClient uses without WithHTTPClient: dial
// timeout 3 s, no Client.Timeout (the machine's deadlines apply, long streams live),
// redirects returned not followed, proxies from the environment, idle connections
// retired after 30 s, and 1 KiB read and write buffers per HTTP/1.1 connection
// (defaultConnBuffer; net/http's own are 4 KiB each).
func DefaultHTTPClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:   true,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     30 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second,
			WriteBufferSize:     defaultConnBuffer,
			ReadBufferSize:      defaultConnBuffer,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// defaultConnBuffer is the size of DefaultHTTPClient's read and write buffers. net/http
// keeps both for a connection's life, so an open stream holds them while it waits: at
// net/http's 4 KiB each they were 8 KiB of an idle stream's 45 KiB (issue 28). An A2A
// request is a few hundred bytes (a send 445-485 on the bench) and goes out in one write
// either way; a larger one in two (the head, then the body past the buffer), as one over
// 4 KiB did before. Reading, a stream's chunk larger than the buffer goes past it into the reader's
// own buffer; only a burst of small chunks already waiting costs more reads (10,000
// one-chunk events of 330 bytes sent at once: 3,130 reads against 789; none more on the
// bench server's stream).
const defaultConnBuffer = 1024

// OutcomeError is the error of a call that did not succeed: its Outcome says what
// happened (errors.As(err, &oe) reads it). When a context ended the call, Unwrap gives
// the context's error (errors.Is(err, context.Canceled) holds).
type OutcomeError struct {
	Outcome *Outcome
	cause   error
}

// Error describes the outcome in one line.
func (e *OutcomeError) Error() string {
	o := e.Outcome
	var b strings.Builder
	b.WriteString("a2a: ")
	b.WriteString(o.Channel.String())
	if o.State != nil {
		b.WriteString("/" + o.State.String())
	}
	if o.Error != 0 {
		b.WriteString("/" + o.Error.String())
	}
	if o.HTTPStatus != nil {
		fmt.Fprintf(&b, " (HTTP %d)", *o.HTTPStatus)
	}
	if o.Message != nil {
		b.WriteString(": " + *o.Message)
	} else if o.Text != nil && *o.Text != "" {
		b.WriteString(": " + *o.Text) // a task's status message (a FAILED task's error id)
	}
	return b.String()
}

// ctxCause is the context's error when the context ended the call: its cancellation, or
// its deadline (handed to the machine, which may time the call out a moment before the
// context itself reports it).
func ctxCause(ctx context.Context, o *Outcome) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && o.Error == NameTimeout && time.Until(dl) < 5*time.Millisecond {
		return context.DeadlineExceeded
	}
	return nil
}

// Unwrap returns the context error that ended the call, if one did
// (errors.Is(err, context.Canceled) or context.DeadlineExceeded).
func (e *OutcomeError) Unwrap() error { return e.cause }

// HTTPCallOptions are the per-call options of an HTTPClient call (nil or the zero value:
// none; a fresh messageId and traceparent).
type HTTPCallOptions struct {
	IdempotencyKey string
	Traceparent    string            // "": a fresh one (see NewTraceparent)
	MessageID      string            // sends: "": a fresh one (reuse it to resend the same message)
	Headers        map[string]string // extra headers (reserved ones are refused)
	// ContextID and TaskID continue a conversation or a task (sends and streams).
	ContextID, TaskID string
	// HistoryLength asks for that many history messages in the answer's task (sends and
	// GetTask); nil leaves it to the agent, a pointer to 0 asks for none.
	HistoryLength *int
	// IdleTimeout is how long this call's stream may stay silent (0: the client's,
	// WithStreamIdleTimeout).
	IdleTimeout time.Duration
	// RPCID is the JSON-RPC id of the call's first request, for hosts that log or replay
	// their own ids ("": drawn by the machine; all digits: sent as a number).
	RPCID string
	// ReturnImmediately asks a (non-streaming) send to answer at once with the task as it
	// stands (A2A 1.0 returnImmediately, 0.3 blocking: false); wait for it with WaitTask.
	ReturnImmediately bool
}

// monoEpoch is the origin of the host clock handed to the machine (monotonic ms, >= 1).
var monoEpoch = time.Now()

func nowMs() uint64 { return uint64(time.Since(monoEpoch)/time.Millisecond) + 1 }

func msAt(t time.Time) uint64 {
	d := t.Sub(monoEpoch)
	if d < 0 {
		return 1
	}
	return uint64(d/time.Millisecond) + 1
}

func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// NewHTTPClient resolves the agent card at url (a base URL or the card's own URL) over
// net/http and returns a client for the interface the card names. A card that does not
// resolve is an *OutcomeError saying why.
func NewHTTPClient(ctx context.Context, url string, opts ...HTTPOption) (*HTTPClient, error) {
	var o httpOptions
	for _, f := range opts {
		f(&o)
	}
	if o.client == nil {
		o.client = DefaultHTTPClient()
	}
	var driver *C.a2a_transport
	if o.reference {
		d, err := newReferenceTransport()
		if err != nil {
			return nil, err
		}
		driver = d
	}
	freeDriver := func() {
		if driver != nil {
			C.a2a_transport_free(driver)
		}
	}
	b := C.a2a_client_config_builder_new()
	if b == nil {
		return nil, &Error{Op: "NewHTTPClient", Code: CodeInvalidArgument, Detail: "no builder"}
	}
	defer C.a2a_client_config_builder_free(b)
	allow := strings.HasPrefix(url, "http://")
	if o.allowHTTP != nil {
		allow = *o.allowHTTP
	}
	setOption(b, C.A2A_CLIENT_OPTION_ALLOW_HTTP, flag(allow))
	setOption(b, C.A2A_CLIENT_OPTION_IGNORE_CAPABILITIES, flag(o.ignoreCaps))
	if o.callTimeout > 0 {
		if r := setOption(b, C.A2A_CLIENT_OPTION_CALL_TIMEOUT_MS, uint64(o.callTimeout/time.Millisecond)); r != C.A2A_OK {
			freeDriver()
			return nil, codeErr("NewHTTPClient", r)
		}
	}
	if o.idleTimeout > 0 {
		if r := setOption(b, C.A2A_CLIENT_OPTION_STREAM_IDLE_TIMEOUT_MS, uint64(o.idleTimeout/time.Millisecond)); r != C.A2A_OK {
			freeDriver()
			return nil, codeErr("NewHTTPClient", r)
		}
	}
	if o.protocol != 0 || o.binding != 0 {
		if r := setOption(b, C.A2A_CLIENT_OPTION_INTERFACE_VERSION, uint64(o.protocol)); r != C.A2A_OK {
			freeDriver()
			return nil, codeErr("NewHTTPClient", r)
		}
		if r := setOption(b, C.A2A_CLIENT_OPTION_INTERFACE_BINDING, uint64(o.binding)); r != C.A2A_OK {
			freeDriver()
			return nil, codeErr("NewHTTPClient", r)
		}
	}
	if r := applyCardOptions(b, &o); r != C.A2A_OK {
		freeDriver()
		return nil, codeErr("NewHTTPClient", r)
	}
	if r := applyBreaker(b, &o); r != C.A2A_OK {
		freeDriver()
		return nil, codeErr("NewHTTPClient", r)
	}
	var cfg *C.a2a_machine_config
	if r := C.a2a_client_config_builder_build(b, &cfg); r != C.A2A_OK {
		freeDriver()
		return nil, codeErr("NewHTTPClient", r)
	}
	p, n := cText(url)
	var state *C.a2a_client_state
	hc := &HTTPClient{http: o.client, driver: driver, config: cfg, scratch: &scratchSlot{}}
	if o.target != nil && o.verify != nil {
		C.a2a_machine_config_free(cfg)
		freeDriver()
		return nil, &Error{Op: "NewHTTPClient", Code: CodeInvalidArgument,
			Detail: "card verification needs the card: WithInterface skips it"}
	}
	if o.target != nil {
		if r := C.a2a_client_state_new(cfg, p, n, C.uint32_t(o.target[0]), C.uint32_t(o.target[1]), C.uint64_t(randomSeed()), &state); r != C.A2A_OK {
			C.a2a_machine_config_free(cfg)
			freeDriver()
			return nil, codeErr("NewHTTPClient", r)
		}
		hc.version, hc.binding = ProtocolVersion(o.target[0]), Binding(o.target[1])
		return hc.finish(state, o)
	}
	var call *C.a2a_call
	if r := C.a2a_call_new_card_fetch(cfg, p, n, &call); r != C.A2A_OK {
		C.a2a_machine_config_free(cfg)
		freeDriver()
		return nil, codeErr("NewHTTPClient", r)
	}
	defer C.a2a_call_free(call)
	var cardJSON []byte
	var cardURL string
	res := hc.drive(ctx, call, func(e *C.struct_a2a_event) bool { return true }, func(e *C.struct_a2a_event) {
		if e.outcome == nil {
			hc.version, hc.binding = ProtocolVersion(e.interface_version), Binding(e.interface_binding)
			cardJSON, cardURL = []byte(goStr(e.card_json)), goStr(e.card_url)
			if C.a2a_client_state_from_card(cfg, call, C.uint64_t(randomSeed()), &state) != C.A2A_OK {
				state = nil
			}
			hc.fromCard = state != nil
		}
	})
	if state == nil {
		C.a2a_machine_config_free(cfg)
		freeDriver()
		if res.err != nil {
			return nil, res.err
		}
		return nil, &Error{Op: "NewHTTPClient", Code: CodeInvalidArgument, Detail: "the card fetch resolved no interface"}
	}
	if o.verify != nil {
		sig, err := o.verify.check(ctx, o.client, cardJSON, cardURL)
		if err != nil {
			C.a2a_client_state_free(state)
			C.a2a_machine_config_free(cfg)
			freeDriver()
			return nil, err
		}
		hc.cardSig = &sig
	}
	o.card = cardJSON
	return hc.finish(state, o)
}

// finish hands the client its state, its cleanup and its hooks.
func (hc *HTTPClient) finish(state *C.a2a_client_state, o httpOptions) (*HTTPClient, error) {
	cfg, driver := hc.config, hc.driver
	hc.state = state
	hc.hooks = &hookStore{}
	if o.oauth2 != nil {
		// fail frees what the client would have owned: nothing else holds it yet.
		fail := func(err error) (*HTTPClient, error) {
			C.a2a_client_state_free(state)
			C.a2a_machine_config_free(cfg)
			if driver != nil {
				C.a2a_transport_free(driver)
			}
			return nil, err
		}
		var card *Card
		if o.card != nil {
			parsed, err := ParseCard(o.card)
			if err != nil {
				return fail(err)
			}
			defer parsed.Close()
			card = parsed
		}
		t, err := newOAuth2Tokens(o.oauth2, card, o.client)
		if err != nil {
			return fail(err)
		}
		hc.oauth2 = t
	}
	hc.cleanup = runtime.AddCleanup(hc, func(r httpClientRes) {
		C.a2a_client_state_free(r.state)
		C.a2a_machine_config_free(r.config)
		if r.driver != nil {
			C.a2a_transport_free(r.driver)
		}
		r.hooks.free()
		r.oauth2.free()
		r.scratch.free()
	}, httpClientRes{state, cfg, driver, hc.hooks, hc.oauth2, hc.scratch})
	for _, h := range o.hooks {
		if err := hc.AddHeaderHook(h); err != nil {
			hc.Close()
			return nil, err
		}
	}
	return hc, nil
}

// httpClientRes is what an HTTPClient's cleanup frees (never the client itself).
type httpClientRes struct {
	state   *C.a2a_client_state
	config  *C.a2a_machine_config
	driver  *C.a2a_transport
	hooks   *hookStore
	oauth2  *oauth2Tokens
	scratch *scratchSlot
}

// Close frees the client's library state; calls must not start after it nor be in
// flight. Calling it twice is harmless.
func (c *HTTPClient) Close() error {
	if c.state != nil {
		c.cleanup.Stop()
		C.a2a_client_state_free(c.state)
		C.a2a_machine_config_free(c.config)
		if c.driver != nil {
			C.a2a_transport_free(c.driver)
		}
		c.hooks.free()
		c.oauth2.free()
		c.scratch.free()
		c.state, c.config, c.driver = nil, nil, nil
	}
	return nil
}

// AddHeaderHook adds a hook called for every request the client makes (each attempt,
// retry and resubscribe; never the card fetch), after the hooks added before it, with the
// method's name, to add or replace headers (credentials, routing keys). It runs on the
// goroutine making the call (concurrently for concurrent calls) and must not panic: a
// panic is recovered and counted (HookPanics), and the request goes out with the headers
// set before it. A reserved header ends the call unsent (transport/InvalidRequest naming
// it). Hooks must be added before the first call (WithHeaderHook adds them at
// construction); later it returns an error wrapping CodeInUse.
func (c *HTTPClient) AddHeaderHook(hook HeaderHook) error {
	if hook == nil {
		return &Error{Op: "HTTPClient.AddHeaderHook", Code: CodeNullParameter}
	}
	if c.state == nil {
		return ErrClosed
	}
	if c.called.Load() {
		return &Error{Op: "HTTPClient.AddHeaderHook", Code: CodeInUse, Detail: "hooks must be added before the first call"}
	}
	handle := cgo.NewHandle(&hookEntry{hook: hook, panics: &c.hooks.panics})
	ud := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(ud) = C.uintptr_t(handle)
	if r := C.a2a_client_state_add_header_hook(c.state, C.a2a_header_hook(C.a2aGoHeaderHook), ud); r != C.A2A_OK {
		C.free(ud)
		handle.Delete()
		return codeErr("HTTPClient.AddHeaderHook", r)
	}
	c.hooks.handles = append(c.hooks.handles, handle)
	c.hooks.userdata = append(c.hooks.userdata, ud)
	return nil
}

// HookPanics is how many hook calls panicked, and the last panic's value.
func (c *HTTPClient) HookPanics() (int64, string) {
	s, _ := c.hooks.panics.last.Load().(string)
	return c.hooks.panics.n.Load(), s
}

// SendText sends one user text message and waits for the answer. The error is nil when
// the outcome is a success (exit code 0) and an *OutcomeError otherwise; the Outcome is
// returned either way. A context that ends first ends the call at once.
func (c *HTTPClient) SendText(ctx context.Context, text string, opts *HTTPCallOptions) (*Outcome, error) {
	if opts != nil && (opts.ContextID != "" || opts.TaskID != "" || opts.HistoryLength != nil) {
		return c.SendMessage(ctx, []Part{TextPart(text)}, nil, opts)
	}
	res, err := c.runAuthed(ctx, false, func() (*C.a2a_call, error) { return c.newTextCall(ctx, text, false, opts) })
	return res.outcome, err
}

// StreamEvent is one event of HTTPClient.Stream: an item as it arrived, or the end, whose
// Outcome is the call's final outcome (Outcome.Result the assembled answer).
type StreamEvent struct {
	Kind    ClientStreamEventKind // StreamEventItem or StreamEventEnd
	Outcome *Outcome              // the item classified, or the call's outcome
	Text    string                // the item's text, or the answer's text
	// End only: events dropped over the size limit or unreadable (nonzero: incomplete).
	DroppedEvents, UnreadableEvents uint32
	Resubscribes                    uint32 // End only: resubscribes made after cuts
}

// Stream sends one user text message as a stream and yields each item as it arrives,
// then the end event with the final outcome; the end's error is non-nil (an
// *OutcomeError) when the call did not succeed. Breaking out of the loop, or the context
// ending, cancels the call and closes the response body. The body is read on the calling
// goroutine between iterations (no goroutine of the library's own per stream): the idle
// timeout counts from the last byte received, and a loop body that runs longer than it
// does not end the stream when bytes came meanwhile (the next read takes them, as on the
// driver's ClientStream); when none came, the stream ends with a timeout outcome.
func (c *HTTPClient) Stream(ctx context.Context, text string, opts *HTTPCallOptions) iter.Seq2[StreamEvent, error] {
	if opts != nil && (opts.ContextID != "" || opts.TaskID != "" || opts.HistoryLength != nil) {
		return c.StreamMessage(ctx, []Part{TextPart(text)}, nil, opts)
	}
	return c.streamOf(ctx, func() (*C.a2a_call, error) { return c.newTextCall(ctx, text, true, opts) })
}

// streamOf runs the streaming call newCall makes as an iterator.
func (c *HTTPClient) streamOf(ctx context.Context, newCall func() (*C.a2a_call, error)) iter.Seq2[StreamEvent, error] {
	return func(yield func(StreamEvent, error) bool) {
		for attempt := 0; attempt < 2; attempt++ {
			if !c.streamOnce(ctx, newCall, attempt == 0 && c.oauth2 != nil, yield) {
				return
			}
			c.oauth2.invalidate() // the agent refused the token: once more with a fresh one
		}
	}
}

// streamOnce runs one streaming call, yielding its items and end; with retry401 an end
// that is an HTTP 401 before any item is not yielded and streamOnce reports true. Over
// net/http the items are yielded from here, between the steps of the call's httpRun.
func (c *HTTPClient) streamOnce(ctx context.Context, newCall func() (*C.a2a_call, error), retry401 bool,
	yield func(StreamEvent, error) bool) (again bool) {
	call, err := newCall()
	if err != nil {
		yield(StreamEvent{}, err)
		return false
	}
	defer C.a2a_call_free(call)
	direct := c.driver != nil // the reference driver's: yielded as polled
	stopped, items := false, 0
	var held []StreamEvent // net/http: the items of the last step, in order
	var end *StreamEvent
	var endErr error
	ev := &callEvents{ctx: ctx, call: call, stream: true}
	ev.onItem = func(e *C.struct_a2a_event) bool {
		if stopped {
			return false // items polled after the loop broke out are dropped
		}
		items++
		o := readOutcome(e.outcome)
		item := StreamEvent{Kind: StreamEventItem, Outcome: &o, Text: goStr(e.answer_text)}
		if !direct {
			held = append(held, item)
			return true
		}
		if !yield(item, nil) {
			stopped = true
			return false
		}
		return true
	}
	ev.onFinished = func(e *C.struct_a2a_event) {
		if stopped {
			return
		}
		o := ev.res.outcome // drain read it
		if o == nil {
			v := readOutcome(e.outcome)
			o = &v
		}
		if retry401 && items == 0 && unauthorized(o) {
			again = true
			return
		}
		last := StreamEvent{Kind: StreamEventEnd, Outcome: o, Text: goStr(e.answer_text),
			DroppedEvents: uint32(e.dropped_events), UnreadableEvents: uint32(e.unreadable_events),
			Resubscribes: uint32(e.resubscribes)}
		var err error
		if e.exit_code != 0 {
			err = &OutcomeError{Outcome: o, cause: ctxCause(ctx, o)}
		}
		if direct {
			yield(last, err)
			return
		}
		end, endErr = &last, err
	}
	if direct {
		c.driveCall(ev)
		return again
	}
	r := c.newRun(ev)
	defer func() {
		r.close()
		if !ev.finished { // a panic in the loop body: return the call's breaker permit
			C.a2a_call_cancel(call, C.uint64_t(nowMs()))
		}
	}()
	for {
		for i := range held {
			item := held[i]
			held[i] = StreamEvent{}
			if !stopped && !yield(item, nil) {
				stopped = true
			}
		}
		if held = held[:0]; cap(held) > 64 {
			held = nil
		}
		if stopped && !ev.broke { // the loop broke out: the call is cancelled
			ev.broke, ev.cause = true, context.Canceled
			C.a2a_call_cancel(call, C.uint64_t(nowMs()))
			ev.drain()
		}
		if ev.finished {
			break
		}
		r.step()
	}
	if end != nil && !stopped {
		yield(*end, endErr)
	}
	return again
}

// unauthorized says whether an outcome is the agent's HTTP 401.
func unauthorized(o *Outcome) bool { return o != nil && o.HTTPStatus != nil && *o.HTTPStatus == 401 }

// runAuthed drives the non-streaming call newCall makes to its end; with OAuth2, an HTTP
// 401 answer forgets the token and the call is made once more with a fresh one. body: the
// caller reads the last response's body (driveResult.body; without it no Go copy is made).
func (c *HTTPClient) runAuthed(ctx context.Context, body bool, newCall func() (*C.a2a_call, error)) (driveResult, error) {
	for attempt := 0; ; attempt++ {
		call, err := newCall()
		if err != nil {
			return driveResult{}, err
		}
		res := c.driveScratch(&callEvents{ctx: ctx, call: call, onItem: func(*C.struct_a2a_event) bool { return true },
			skipBody: !body})
		C.a2a_call_free(call)
		if c.oauth2 == nil || !unauthorized(res.outcome) {
			return res, res.err
		}
		c.oauth2.invalidate()
		if attempt == 1 {
			return res, res.err
		}
	}
}

// callSettings are newSettings plus, with OAuth2, the call's bearer token (fetched when
// none is cached): it travels only with the call's requests, to the validated interface.
func (c *HTTPClient) callSettings(ctx context.Context, opts *HTTPCallOptions) (*C.a2a_call_settings, error) {
	s, err := newSettings(ctx, opts)
	if err != nil || c.oauth2 == nil {
		return s, err
	}
	if opts != nil {
		for k := range opts.Headers {
			if strings.EqualFold(k, "Authorization") {
				return s, nil // the caller's own credentials win
			}
		}
	}
	tok, err := c.oauth2.token(ctx)
	if err != nil {
		C.a2a_call_settings_free(s)
		return nil, err
	}
	value := "Bearer " + tok
	kp, kn := cText("Authorization")
	vp, vn := cText(value)
	r := C.a2a_call_settings_add_header(s, kp, kn, vp, vn)
	runtime.KeepAlive(value)
	if r != C.A2A_OK {
		C.a2a_call_settings_free(s)
		return nil, codeErr("WithOAuth2", r)
	}
	return s, nil
}

// newCallSettings are callSettings for a2a_call_new and a2a_call_new_text, which take
// NULL for none: NULL when there is nothing to set (no deadline, options or OAuth2), which
// spares a plain call two cgo calls and the library an allocation.
func (c *HTTPClient) newCallSettings(ctx context.Context, opts *HTTPCallOptions) (*C.a2a_call_settings, error) {
	if opts == nil && c.oauth2 == nil {
		if _, ok := ctx.Deadline(); !ok {
			return nil, nil
		}
	}
	return c.callSettings(ctx, opts)
}

// newSettings makes the call's settings: the context's deadline and the options.
func newSettings(ctx context.Context, opts *HTTPCallOptions) (*C.a2a_call_settings, error) {
	s := C.a2a_call_settings_new()
	if dl, ok := ctx.Deadline(); ok {
		// A context deadline shorter than the call timeout wins: the machine ends the call
		// there with its own timeout outcome.
		C.a2a_call_settings_set(s, C.A2A_CALL_OPTION_DEADLINE_MS, C.uint64_t(msAt(dl)))
	}
	if opts == nil {
		return s, nil
	}
	fail := func(op string, r C.a2a_result) (*C.a2a_call_settings, error) {
		C.a2a_call_settings_free(s)
		return nil, codeErr(op, r)
	}
	if opts.IdempotencyKey != "" {
		p, n := cText(opts.IdempotencyKey)
		if r := C.a2a_call_settings_set_text(s, C.A2A_CALL_TEXT_OPTION_IDEMPOTENCY_KEY, p, n); r != C.A2A_OK {
			return fail("HTTPCallOptions.IdempotencyKey", r)
		}
	}
	if opts.Traceparent != "" {
		p, n := cText(opts.Traceparent)
		if r := C.a2a_call_settings_set_text(s, C.A2A_CALL_TEXT_OPTION_TRACEPARENT, p, n); r != C.A2A_OK {
			return fail("HTTPCallOptions.Traceparent", r)
		}
	}
	if opts.MessageID != "" {
		p, n := cText(opts.MessageID)
		if r := C.a2a_call_settings_set_text(s, C.A2A_CALL_TEXT_OPTION_MESSAGE_ID, p, n); r != C.A2A_OK {
			return fail("HTTPCallOptions.MessageID", r)
		}
	}
	if opts.IdleTimeout > 0 {
		if r := C.a2a_call_settings_set(s, C.A2A_CALL_OPTION_STREAM_IDLE_TIMEOUT_MS, C.uint64_t(opts.IdleTimeout/time.Millisecond)); r != C.A2A_OK {
			return fail("HTTPCallOptions.IdleTimeout", r)
		}
	}
	if id := opts.RPCID; id != "" {
		var r C.a2a_result
		if n, err := strconv.ParseInt(id, 10, 64); err == nil && strings.Trim(id, "0123456789") == "" {
			// The option takes the int64 id's two's-complement bits.
			r = C.a2a_call_settings_set(s, C.A2A_CALL_OPTION_RPC_ID_NUMBER, C.uint64_t(uint64(n)))
		} else {
			p, n := cText(id)
			r = C.a2a_call_settings_set_text(s, C.A2A_CALL_TEXT_OPTION_RPC_ID, p, n)
		}
		if r != C.A2A_OK {
			return fail("HTTPCallOptions.RPCID", r)
		}
	}
	if opts.ReturnImmediately {
		if r := C.a2a_call_settings_set(s, C.A2A_CALL_OPTION_RETURN_IMMEDIATELY, 1); r != C.A2A_OK {
			return fail("HTTPCallOptions.ReturnImmediately", r)
		}
	}
	for k, v := range opts.Headers {
		kp, kn := cText(k)
		vp, vn := cText(v)
		if r := C.a2a_call_settings_add_header(s, kp, kn, vp, vn); r != C.A2A_OK {
			return fail("HTTPCallOptions.Headers", r)
		}
	}
	return s, nil
}

func (c *HTTPClient) newTextCall(ctx context.Context, text string, streaming bool, opts *HTTPCallOptions) (*C.a2a_call, error) {
	if c.state == nil {
		return nil, ErrClosed
	}
	c.called.Store(true)
	s, err := c.newCallSettings(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer C.a2a_call_settings_free(s)
	p, n := cText(text)
	var call *C.a2a_call
	if r := C.a2a_call_new_text(c.state, C.bool(streaming), p, n, s, C.uint64_t(nowMs()), &call); r != C.A2A_OK {
		return nil, codeErr("HTTPClient.SendText", r)
	}
	return call, nil
}

// GetTask reads a task; as SendText.
func (c *HTTPClient) GetTask(ctx context.Context, taskID string, opts *HTTPCallOptions) (*Outcome, error) {
	return c.taskCall(ctx, "HTTPClient.GetTask", MethodGetTask, taskID, opts)
}

// CancelTask asks the agent to cancel a task; as SendText.
func (c *HTTPClient) CancelTask(ctx context.Context, taskID string, opts *HTTPCallOptions) (*Outcome, error) {
	return c.taskCall(ctx, "HTTPClient.CancelTask", MethodCancelTask, taskID, opts)
}

func (c *HTTPClient) taskCall(ctx context.Context, op string, m Method, taskID string, opts *HTTPCallOptions) (*Outcome, error) {
	params := map[string]any{"id": taskID}
	if opts != nil && opts.HistoryLength != nil && m == MethodGetTask {
		params["historyLength"] = *opts.HistoryLength
	}
	res, err := c.run(ctx, op, m, params, opts)
	return res.outcome, err
}

// driveResult is what a driven call ends with: its outcome and error, and its last body.
type driveResult struct {
	outcome *Outcome
	err     error
	body    []byte // the last response's body (list, push-config and card answers read it)
}

// callEvents handles a call's events, the same for both byte movers and for Client: items
// to onItem (false cancels the call: a broken range loop), resubscribes to
// onResubscribing (if set), the FINISHED event to onFinished and into the result.
type callEvents struct {
	ctx             context.Context
	call            *C.a2a_call
	onItem          func(*C.struct_a2a_event) bool
	onResubscribing func(*C.struct_a2a_event)
	onFinished      func(*C.struct_a2a_event)
	onAbort         func(requestID uint32)   // drops the request in flight (nil: the mover did)
	clocked         bool                     // the clock is the driver's run's (startClock)
	clock           uint64                   // a2a_call_run's: the latest now_out_ms
	runOut          C.uint64_t               // a2a_call_run's now_out_ms, written here (no allocation per run)
	scratch         *C.struct_a2a_go_scratch // C memory for the polled event and outcome info (nil: Go memory)
	skipBody        bool                     // no Go copy of the response body (Client: no caller reads it)
	fin             *C.a2a_outcome           // the FINISHED event's outcome handle
	res             driveResult
	finished        bool
	stream          bool  // a streaming call (net/http: its deadline moves as chunks arrive)
	broke           bool  // the caller's loop broke out: the call is cancelled once
	cause           error // what ended the call, when not the agent (Unwrap of its error)
}

// drain polls the call's events up to FINISHED (into ev.scratch when the caller gave one).
func (ev *callEvents) drain() {
	var ep *C.struct_a2a_event
	var info *C.struct_a2a_outcome_info
	if ev.scratch != nil {
		ep, info = &ev.scratch.event, &ev.scratch.info
	} else {
		ep = new(C.struct_a2a_event)
	}
	for !ev.finished && C.a2a_call_poll_event(ev.call, ep) == C.A2A_OK {
		e := ep
		switch e.kind {
		case C.A2A_EVENT_KIND_ABORT:
			if ev.onAbort != nil {
				ev.onAbort(uint32(e.request_id))
			}
		case C.A2A_EVENT_KIND_RESUBSCRIBING:
			if ev.onResubscribing != nil {
				ev.onResubscribing(e)
			}
		case C.A2A_EVENT_KIND_ITEM:
			if !ev.onItem(e) && !ev.broke {
				ev.broke = true
				ev.cause = context.Canceled
				C.a2a_call_cancel(ev.call, C.uint64_t(ev.now()))
			}
		case C.A2A_EVENT_KIND_FINISHED:
			ev.finished = true
			ev.fin = e.outcome
			if bool(e.has_response) && !ev.skipBody {
				ev.res.body = goBytes(e.response_body)
			}
			// The outcome is read once, before onFinished, which may take it from ev.res
			// (a stream's end: a 10,000-event stream's answer holds every artifact).
			if e.outcome != nil {
				o := readOutcomeInfo(e.outcome, info)
				ev.res.outcome = &o
				if e.exit_code != 0 {
					if ev.cause == nil {
						ev.cause = ctxCause(ev.ctx, &o)
					}
					ev.res.err = &OutcomeError{Outcome: &o, cause: ev.cause}
				}
			}
			if ev.onFinished != nil {
				ev.onFinished(e)
			}
		}
	}
}

// cancel cancels the call with cause (the context's end, or a library error that stopped
// the mover) and drains its FINISHED.
func (ev *callEvents) cancel(cause error) {
	if ev.cause == nil {
		ev.cause = cause
	}
	C.a2a_call_cancel(ev.call, C.uint64_t(ev.now()))
	ev.drain()
	if !ev.finished && ev.res.err == nil {
		ev.res.err = cause
	}
}

// drive runs a non-streaming call (a send, a task or push-config call, a card fetch) to
// its FINISHED event, over net/http or (WithReferenceDriver) the reference driver's
// transport; the context's end cancels it. onFinished sees the FINISHED event.
func (c *HTTPClient) drive(ctx context.Context, call *C.a2a_call, onItem func(*C.struct_a2a_event) bool,
	onFinished func(*C.struct_a2a_event)) driveResult {
	return c.driveCall(&callEvents{ctx: ctx, call: call, onItem: onItem, onFinished: onFinished})
}

// driveScratch is driveCall with the events polled into the client's kept C scratch.
func (c *HTTPClient) driveScratch(ev *callEvents) driveResult {
	ev.scratch = c.scratch.take()
	defer c.scratch.put(ev.scratch)
	return c.driveCall(ev)
}

func (c *HTTPClient) driveCall(ev *callEvents) driveResult {
	defer func() {
		if !ev.finished { // a panic in a caller's loop body: return the call's breaker permit
			C.a2a_call_cancel(ev.call, C.uint64_t(ev.now()))
		}
	}()
	if c.driver != nil {
		c.runNative(ev)
	} else {
		c.runHTTP(ev)
	}
	return ev.res
}

// untilMachineDeadline is how long until the machine's next deadline (an hour when it has
// none: the loop's waits are bounded by a deadline or an input either way).
func untilMachineDeadline(call *C.a2a_call) time.Duration {
	var at C.uint64_t
	if !C.a2a_call_poll_timeout(call, &at) {
		return time.Hour
	}
	now := nowMs()
	if uint64(at) <= now {
		return 0
	}
	return time.Duration(uint64(at)-now) * time.Millisecond
}

// errMachineDeadline ends a request's context when the machine's deadline for it passed.
var errMachineDeadline = errors.New("a2a: the machine's deadline for the request passed")

// timeAtMs is the host time at which nowMs reaches ms.
func timeAtMs(ms uint64) time.Time { return monoEpoch.Add(time.Duration(ms-1) * time.Millisecond) }

// runHTTP drives a call over c.http on the calling goroutine to its end (see httpRun).
func (c *HTTPClient) runHTTP(ev *callEvents) {
	r := c.newRun(ev)
	defer r.close()
	for !ev.finished {
		r.step()
	}
}

// httpRun moves a call's bytes over c.http on the calling goroutine, one step at a time:
// each request the machine hands out is performed and read here (the machine has one
// request in flight at a time), its context ending at the machine's deadline for it (see
// machineDeadline: a stream's moves as chunks arrive); between requests (a retry's delay,
// a resubscribe's) it waits for the machine's next deadline or the context's end. A
// stream's items reach the caller's loop body between steps: no goroutine per request, no
// channel hop per chunk (on 2 vCPUs each wake-up of another goroutine costs 20-35 µs) and
// no second goroutine's stack and read buffer per open stream. The steps return to the
// stream's loop (streamOnce) rather than calling into the loop body from below them, so a
// stream parked in its loop body (an idle stream, an iter.Pull2 not pulled) holds a short
// stack: the runtime halves a parked goroutine's stack only when under a quarter of it is
// in use, and with the body called from inside the read loop an idle stream kept 8 KiB
// of stack, the SDK's 4 KiB.
type httpRun struct {
	c        *HTTPClient
	ev       *callEvents
	inflight uint32        // the request in flight; 0 once the machine gave it up
	timer    *time.Timer   // the wait between requests
	x        *httpExchange // the request being read, nil when none
}

// httpExchange is the request being read: its response, the context that ends it and
// the read error that ended its body (handed to the machine at the next step).
type httpExchange struct {
	id     uint32
	reqCtx context.Context
	cancel context.CancelFunc
	moving *machineDeadline // a stream's
	resp   *http.Response
	pool   *sync.Pool
	rerr   error
}

func (c *HTTPClient) newRun(ev *callEvents) *httpRun {
	r := &httpRun{c: c, ev: ev}
	ev.onAbort = func(id uint32) {
		if id == r.inflight {
			r.inflight = 0 // the read stops and the body is closed
		}
	}
	return r
}

// close ends the request being read (its body closed, its context ended) and the wait's timer.
func (r *httpRun) close() {
	r.endExchange()
	if r.timer != nil {
		r.timer.Stop()
	}
}

func (r *httpRun) endExchange() {
	if x := r.x; x != nil {
		r.x = nil
		if x.resp != nil {
			x.resp.Body.Close()
		}
		if x.moving != nil {
			x.moving.timer.Stop()
		}
		x.cancel()
	}
}

// requestOver ends the request that was in flight and drains the events its end gave.
func (r *httpRun) requestOver() {
	r.endExchange()
	r.inflight = 0
	r.ev.drain()
}

// step makes one move: a read of the request in flight, a request sent, or a wait for
// the machine's next deadline; the call's events are drained after it.
func (r *httpRun) step() {
	ev, call := r.ev, r.ev.call
	if r.x != nil {
		if !r.read() {
			r.requestOver()
		}
		return
	}
	var t C.struct_a2a_transmit
	if C.a2a_call_poll_transmit(call, C.uint64_t(nowMs()), &t) == C.A2A_OK {
		r.inflight = uint32(t.request_id)
		if !r.start(copyTransmit(&t)) {
			r.requestOver()
		}
		return
	}
	ev.drain()
	if ev.finished {
		return
	}
	wait := untilMachineDeadline(call)
	if r.timer == nil {
		r.timer = time.NewTimer(wait)
	} else {
		r.timer.Reset(wait)
	}
	select {
	case <-ev.ctx.Done():
		ev.cause = context.Cause(ev.ctx)
		C.a2a_call_cancel(call, C.uint64_t(nowMs()))
	case <-r.timer.C:
		C.a2a_call_handle_timeout(call, C.uint64_t(nowMs()))
	}
	ev.drain()
}

// start performs the request the machine handed out and hands its head over; true when
// its body is to be read (r.x), false when it ended already (r.x, if set, is ended by the
// caller).
func (r *httpRun) start(tx transmitCopy) bool {
	ev, call, id := r.ev, r.ev.call, r.inflight
	ctx := ev.ctx
	x := &httpExchange{id: id, pool: &bodyBufs}
	var at C.uint64_t
	switch {
	case ev.stream:
		rc, cancelCause := context.WithCancelCause(ctx)
		x.reqCtx, x.cancel = rc, func() { cancelCause(context.Canceled) }
		x.moving = &machineDeadline{cancel: cancelCause}
		x.moving.timer = time.AfterFunc(time.Hour, x.moving.fire)
		x.moving.timer.Stop()
		x.moving.set(call)
		x.pool = &streamBufs
	case bool(C.a2a_call_poll_timeout(call, &at)):
		x.reqCtx, x.cancel = context.WithDeadlineCause(ctx, timeAtMs(uint64(at)), errMachineDeadline)
	default:
		x.reqCtx, x.cancel = context.WithCancel(ctx)
	}
	r.x = x
	req, err := buildRequest(x.reqCtx, tx)
	if err != nil {
		handFailure(call, id, C.A2A_ERROR_NAME_RESET, false, err)
		return false
	}
	if ctx.Err() != nil { // an ended context: nothing is sent
		r.c.failRequest(ev, id, x.reqCtx, ctx.Err(), false, &r.inflight)
		return false
	}
	resp, err := r.c.http.Do(req)
	if err != nil {
		var opErr *net.OpError
		r.c.failRequest(ev, id, x.reqCtx, err, !(errors.As(err, &opErr) && opErr.Op == "dial"), &r.inflight)
		return false
	}
	x.resp = resp
	handHead(call, id, resp)
	ev.drain()
	return true
}

// read hands the machine the next chunk of the request's body (or its end, or why it
// failed) and drains the call's events; false when the request is over: the machine
// finished or gave it up, or the body ended.
func (r *httpRun) read() bool {
	ev, call, x := r.ev, r.ev.call, r.x
	for {
		if ev.finished || r.inflight != x.id {
			return false
		}
		if x.rerr == io.EOF {
			C.a2a_call_handle_end(call, C.uint32_t(x.id), C.uint64_t(nowMs()))
			return false
		}
		if x.rerr != nil {
			r.c.failRequest(ev, x.id, x.reqCtx, x.rerr, true, &r.inflight)
			return false
		}
		if x.moving != nil {
			x.moving.resume(call)
		}
		// The buffer goes back to the pool before the events are drained: the machine
		// copied the chunk, and a stream parked in the caller's loop body (or an
		// iter.Pull2 not pulled) must not keep it.
		bp := x.pool.Get().(*[]byte)
		n, rerr := x.resp.Body.Read(*bp)
		if n > 0 && x.moving != nil {
			// At once, before the machine moves its deadline: a timer that fires now (armed
			// for the deadline the bytes just moved) must not end the request.
			x.moving.leave()
		}
		if n > 0 {
			p, cn := cBytes((*bp)[:n])
			C.a2a_call_handle_body(call, C.uint32_t(x.id), p, cn, C.uint64_t(nowMs()))
		}
		x.pool.Put(bp)
		x.rerr = rerr
		if n > 0 {
			ev.drain()
			return true // the stream's items go to its loop body before the next read
		}
	}
}

// bodyBufs are the read buffers of non-streaming calls; streamBufs a stream's, which it
// holds while it waits for the next event (an idle stream keeps it): 4 KiB, the size of
// net/http's own connection buffer, which is all a read of a small chunk returns anyway.
var (
	bodyBufs   = sync.Pool{New: func() any { b := make([]byte, 32*1024); return &b }}
	streamBufs = sync.Pool{New: func() any { b := make([]byte, 4*1024); return &b }}
)

// machineDeadline ends a request's context at the machine's deadline for it. A
// non-streaming request's does not move (a context deadline); a stream's moves with
// every chunk, so its timer only stores the new time (one atomic store per chunk) and,
// when it fires early, arms itself again for the stored time. A deadline that passes
// while the caller's loop body has the stream's items does not end the request there:
// bytes the server sent meanwhile wait unread, and they show it was not idle. The next
// read gives them one short wait (lateRead) before the deadline counts.
type machineDeadline struct {
	at     atomic.Uint64 // nowMs of the deadline; 0: none
	timer  *time.Timer
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	away   bool // the caller's loop body runs (between leave and resume)
	lapsed bool // the deadline passed while away: the next read settles it
}

// lateRead is the one short wait a read makes for bytes that came while the caller's loop
// body ran past the idle deadline (the reference driver's rule too, with 1 ms there). Here
// the wait ends by cancelling the request's context, which closes the connection: a read
// the scheduler starts late (a loaded machine, the race detector) must not lose a stream
// whose bytes are waiting, so the window is that of the Java client's JDK hop, 50 ms. A
// silent server is found that much later, once, after a loop body that overran the idle
// timeout.
const lateRead = 50 * time.Millisecond

func (d *machineDeadline) fire() {
	at := d.at.Load()
	if at == 0 {
		return
	}
	if now := nowMs(); now < at {
		d.timer.Reset(time.Duration(at-now) * time.Millisecond)
		return
	}
	d.mu.Lock()
	away := d.away
	d.lapsed = away
	d.mu.Unlock()
	if away {
		return
	}
	d.cancel(errMachineDeadline)
}

// leave marks a read that returned bytes: from here to the next resume the machine and then
// the caller's loop body have the stream, and a deadline that passes only lapses.
func (d *machineDeadline) leave() {
	d.mu.Lock()
	d.away = true
	d.mu.Unlock()
}

// resume is called before each read: it stores the machine's deadline and, when it passed
// while the caller was away, arms the timer again (at least lateRead from now).
func (d *machineDeadline) resume(call *C.a2a_call) {
	d.set(call)
	d.mu.Lock()
	lapsed := d.lapsed
	d.away, d.lapsed = false, false
	d.mu.Unlock()
	if !lapsed {
		return
	}
	wait := lateRead
	if at := d.at.Load(); at != 0 {
		wait = max(wait, time.Until(timeAtMs(at)))
	}
	d.timer.Reset(wait)
}

// set stores the machine's current deadline; an earlier one than the timer's (not
// expected: deadlines move later) re-arms it.
func (d *machineDeadline) set(call *C.a2a_call) {
	var at C.uint64_t
	if !C.a2a_call_poll_timeout(call, &at) {
		d.at.Store(0)
		return
	}
	if old := d.at.Swap(uint64(at)); old == 0 || uint64(at) < old {
		d.timer.Reset(time.Until(timeAtMs(uint64(at))))
	}
}

// failRequest hands the machine why request id ended early: the
// caller's context ended (the call is cancelled), the machine's deadline passed (its
// timeout), or a transport failure.
func (c *HTTPClient) failRequest(ev *callEvents, id uint32, reqCtx context.Context, err error, written bool, inflight *uint32) {
	call := ev.call
	switch {
	case ev.ctx.Err() != nil:
		ev.cause = context.Cause(ev.ctx)
		C.a2a_call_cancel(call, C.uint64_t(nowMs()))
		return
	case context.Cause(reqCtx) == errMachineDeadline:
		C.a2a_call_handle_timeout(call, C.uint64_t(nowMs()))
		ev.drain()
		if ev.finished || *inflight != id {
			return // the machine gave the request up
		}
		// Not expected (the machine ends or aborts a request at its deadline): say so
		// as the stack's own timeout would.
		handFailure(call, id, C.A2A_ERROR_NAME_TIMEOUT, written, err)
		return
	}
	handFailure(call, id, C.uint32_t(failureName(err)), written, err)
}

// handFailure tells the machine that request id failed: name (an A2A_ERROR_NAME_*), err's
// text, and whether request bytes may have been written.
func handFailure(call *C.a2a_call, id uint32, name C.uint32_t, written bool, err error) {
	msg := err.Error()
	p, n := cText(msg)
	C.a2a_call_handle_failure(call, C.uint32_t(id), name, C.bool(written), p, n, C.uint64_t(nowMs()))
}

// handHead passes request id's response head to the machine.
func handHead(call *C.a2a_call, id uint32, resp *http.Response) {
	var pin runtime.Pinner
	defer pin.Unpin()
	hp, n := cHTTPHeaders(&pin, resp.Header)
	C.a2a_call_handle_head(call, C.uint32_t(id), C.uint16_t(resp.StatusCode), hp, n, C.uint64_t(nowMs()))
}

// failureName maps a net/http error to the machine's transport error names.
func failureName(err error) ErrorName {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		return NameDNS
	case errors.As(err, &opErr) && opErr.Op == "dial":
		if opErr.Timeout() {
			return NameTimeout
		}
		return NameConnectFailed
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return NameTLS
	}
	return NameReset
}

// transmitCopy is a request the machine handed out, copied into Go memory (the
// transmit's views die at the next poll_transmit): its headers already in net/http's
// form (canonical names; Host apart).
type transmitCopy struct {
	method, url, host string
	header            http.Header
	body              []byte
}

func copyTransmit(t *C.struct_a2a_transmit) transmitCopy {
	n := int(t.headers_len)
	var hs []C.struct_a2a_header
	size := int(t.url.len)
	if n > 0 {
		hs = unsafe.Slice(t.headers, n)
		for _, h := range hs {
			size += int(h.name_len) + int(h.value_len)
		}
	}
	// One allocation for the URL and every header's name and value, and one for the
	// header's value slices: the request lives as long as its response (an open stream's),
	// and a send made 2 allocations per header besides the map.
	buf := make([]byte, 0, size)
	text := func(p *C.char, l C.size_t) string {
		if l == 0 {
			return ""
		}
		at := len(buf)
		buf = append(buf, unsafe.Slice((*byte)(unsafe.Pointer(p)), int(l))...)
		return unsafe.String(&buf[at], int(l))
	}
	tx := transmitCopy{method: methodOf(t.method), url: text(t.url.ptr, t.url.len), body: goBytes(t.body),
		header: make(http.Header, n+1)}
	vals := make([]string, n+1)
	hasEncoding := false
	for i, h := range hs {
		name := textproto.CanonicalMIMEHeaderKey(text(h.name, h.name_len))
		value := text(h.value, h.value_len)
		switch name {
		case "Host":
			tx.host = value
			continue
		case "Accept-Encoding":
			hasEncoding = true
		}
		if old, ok := tx.header[name]; ok {
			tx.header[name] = append(old, value)
			continue
		}
		vals[i] = value
		tx.header[name] = vals[i : i+1 : i+1]
	}
	if !hasEncoding {
		// The machine reads the body as sent: no transparent gzip (identity on streams).
		vals[n] = "identity"
		tx.header["Accept-Encoding"] = vals[n : n+1 : n+1]
	}
	return tx
}

// methodOf is a transmit's method, the static text of the methods the machine uses.
func methodOf(m C.struct_a2a_str) string {
	if m.ptr == nil {
		return ""
	}
	switch s := unsafe.String((*byte)(unsafe.Pointer(m.ptr)), int(m.len)); s {
	case http.MethodPost:
		return http.MethodPost
	case http.MethodGet:
		return http.MethodGet
	case http.MethodDelete:
		return http.MethodDelete
	}
	return goStr(m)
}

// buildRequest makes the net/http request of a transmit.
func buildRequest(ctx context.Context, tx transmitCopy) (*http.Request, error) {
	var rd io.Reader
	if len(tx.body) > 0 {
		rd = bytes.NewReader(tx.body) // also gives the request a GetBody
	}
	req, err := http.NewRequestWithContext(ctx, tx.method, tx.url, rd)
	if err != nil {
		return nil, err
	}
	req.Header = tx.header
	if tx.host != "" {
		req.Host = tx.host
	}
	return req, nil
}
