package a2a

/*
#include <stdlib.h>
#include "a2a_core.h"

extern void a2aGoHeaderHook(void *userdata, char *method, size_t method_len, struct a2a_header_setter *setter);
*/
import "C"

import (
	"errors"
	"math"
	"runtime"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ClientConfig configures the reference driver's blocking client. Start from
// DefaultClientConfig.
type ClientConfig struct {
	ConnectTimeout            time.Duration
	CallTimeout               time.Duration // whole-call timeout of non-streaming calls
	StreamIdleTimeout         time.Duration
	MaxResponseBytes          uint64
	PoolIdleTimeout           time.Duration
	AllowHTTP                 bool     // plain http:// (local development)
	AllowHosts                []string // extra origins the card's interface may point to
	Protocol                  ProtocolVersion
	Binding                   Binding
	DeferCardResolution       bool   // resolve the card on the first call
	StreamResubscribeAttempts uint32 // resubscribes after a cut stream (0: none)
	SendRetries               uint32 // resends of a send: without an idempotency key only after proof of non-receipt (connect failure, 429, 503 with Retry-After), never after a 502/504 or timeout
	// PreferClientOrder picks the interface in the library's order (1.0 then 0.3, JSON-RPC
	// then HTTP+JSON) instead of the card's (its preferredTransport first, the default);
	// Protocol and Binding win over both.
	PreferClientOrder bool
	// Breaker, when set, turns on the client's circuit breaker: one per client (per agent),
	// shared by every goroutine using it; while open, calls fail at once with a transport
	// CircuitOpen outcome, not sent.
	Breaker *BreakerConfig
	// CAFile: PEM CA certificates replacing the system trust store (curl's --cacert); "":
	// the system store, honouring SSL_CERT_FILE and SSL_CERT_DIR.
	CAFile string
	// ClientCertFile and ClientKeyFile: a PEM client certificate chain and its key for
	// mutual TLS (they also satisfy a card's mutualTLS scheme).
	ClientCertFile string
	ClientKeyFile  string
	// Proxy: the proxy for every URL (curl's --proxy); "": from the environment with
	// curl's rules (https_proxy, HTTPS_PROXY, http_proxy, all_proxy, ALL_PROXY).
	Proxy string
	// ProxyDisabled: never a proxy, whatever Proxy and the environment say.
	ProxyDisabled bool
	// NoProxy: hosts reached directly (curl's --noproxy); "": from no_proxy / NO_PROXY.
	NoProxy string
	// Resolve: fixed resolutions HOST:PORT:ADDR[,ADDR...] (curl's --resolve).
	Resolve []string
	// MaxTime: a total deadline per call (card fetch, retries, resubscribes, a whole
	// stream); 0: none (streams have no total limit).
	MaxTime time.Duration
	// IgnoreCapabilities sends calls the agent card does not declare (a card that
	// under-declares). Off (the default), a client made from a card refuses them unsent, as
	// a transport NameCapabilityNotDeclared outcome: streams and resubscribes without
	// capabilities.streaming, push configs without pushNotifications, the extended card
	// without its capability.
	IgnoreCapabilities bool
	// MinProtocol is the oldest protocol version accepted (A2A §3.6.3: never below it, no
	// silent downgrade); 0: none. A card offering only older interfaces is a
	// *CardResolutionError from NewClient, nothing sent to the agent; NewClientWithTarget
	// with an older version, or a Protocol older than it, is CodeInvalidArgument.
	MinProtocol ProtocolVersion
}

// DefaultClientConfig is the driver's default (3 s connect, 45 s call, 60 s stream idle,
// redirects never followed, https only).
func DefaultClientConfig() ClientConfig {
	var c C.struct_a2a_client_config
	C.a2a_client_config_default(&c)
	return ClientConfig{
		ConnectTimeout: msDur(c.connect_timeout_ms), CallTimeout: msDur(c.call_timeout_ms),
		StreamIdleTimeout: msDur(c.stream_idle_timeout_ms), MaxResponseBytes: uint64(c.max_response_bytes),
		PoolIdleTimeout: msDur(c.pool_idle_timeout_ms), AllowHTTP: bool(c.allow_http),
		Protocol: ProtocolVersion(c.protocol), Binding: Binding(c.binding),
		DeferCardResolution:       bool(c.defer_card_resolution),
		StreamResubscribeAttempts: uint32(c.stream_resubscribe_attempts), SendRetries: uint32(c.send_retries),
		PreferClientOrder: bool(c.prefer_client_order),
		ProxyDisabled:     bool(c.proxy_disabled), MaxTime: msDur(c.max_time_ms),
		IgnoreCapabilities: bool(c.ignore_capabilities),
		MinProtocol:        ProtocolVersion(c.min_protocol),
	}
}

func cClientConfig(pin *runtime.Pinner, cfg *ClientConfig) *C.struct_a2a_client_config {
	if cfg == nil {
		return nil
	}
	c := &C.struct_a2a_client_config{
		connect_timeout_ms: durMS(cfg.ConnectTimeout), call_timeout_ms: durMS(cfg.CallTimeout),
		stream_idle_timeout_ms: durMS(cfg.StreamIdleTimeout), max_response_bytes: C.uint64_t(cfg.MaxResponseBytes),
		pool_idle_timeout_ms: durMS(cfg.PoolIdleTimeout), allow_http: C.bool(cfg.AllowHTTP),
		protocol: C.uint32_t(cfg.Protocol), binding: C.uint32_t(cfg.Binding),
		defer_card_resolution:       C.bool(cfg.DeferCardResolution),
		stream_resubscribe_attempts: C.uint32_t(cfg.StreamResubscribeAttempts), send_retries: C.uint32_t(cfg.SendRetries),
		prefer_client_order: C.bool(cfg.PreferClientOrder),
	}
	if cfg.Breaker != nil {
		c.breaker_enabled = true
		c.breaker = cfg.Breaker.c()
	}
	if len(cfg.AllowHosts) > 0 {
		views := make([]C.struct_a2a_str, len(cfg.AllowHosts))
		for i, h := range cfg.AllowHosts {
			views[i].ptr, views[i].len = pinText(pin, h)
		}
		pin.Pin(&views[0])
		c.allow_hosts, c.allow_hosts_len = &views[0], C.size_t(len(views))
	}
	c.ca_file.ptr, c.ca_file.len = pinText(pin, cfg.CAFile)
	c.client_cert_file.ptr, c.client_cert_file.len = pinText(pin, cfg.ClientCertFile)
	c.client_key_file.ptr, c.client_key_file.len = pinText(pin, cfg.ClientKeyFile)
	c.proxy.ptr, c.proxy.len = pinText(pin, cfg.Proxy)
	c.proxy_disabled = C.bool(cfg.ProxyDisabled)
	c.no_proxy.ptr, c.no_proxy.len = pinText(pin, cfg.NoProxy)
	if len(cfg.Resolve) > 0 {
		views := make([]C.struct_a2a_str, len(cfg.Resolve))
		for i, r := range cfg.Resolve {
			views[i].ptr, views[i].len = pinText(pin, r)
		}
		pin.Pin(&views[0])
		c.resolve, c.resolve_len = &views[0], C.size_t(len(views))
	}
	c.max_time_ms = durMS(cfg.MaxTime)
	c.ignore_capabilities = C.bool(cfg.IgnoreCapabilities)
	c.min_protocol = C.uint32_t(cfg.MinProtocol)
	return c
}

// CodeClientCardResolution: the client could not resolve the agent card.
const CodeClientCardResolution Code = C.A2A_CLIENT_CARD_RESOLUTION

// CardResolutionError is NewClient's error when the card could not be fetched, parsed or
// validated; Outcome is the transport outcome (CardResolution) with advice and message.
type CardResolutionError struct {
	Outcome *Outcome
}

// Error says that card resolution failed, with the outcome's message.
func (e *CardResolutionError) Error() string {
	msg := ""
	if e.Outcome != nil && e.Outcome.Message != nil {
		msg = ": " + *e.Outcome.Message
	}
	return "a2a: agent card resolution failed" + msg
}

// Unwrap returns CodeClientCardResolution, for errors.Is.
func (e *CardResolutionError) Unwrap() error { return CodeClientCardResolution }

// Client is the reference driver's blocking A2A client (connection pool, resolved
// target, header hooks). Unlike other handles it is safe for concurrent calls.
type Client struct {
	mu      sync.RWMutex // calls hold it for reading; Close and AddHeaderHook for writing
	h       *C.a2a_client
	hooks   *hookStore
	streams int // open streams (their requests may still run the hooks)
	cleanup runtime.Cleanup
}

// hookStore owns what the C side holds for the hooks; it never points back to the
// Client, so that an unreachable Client can be cleaned up.
type hookStore struct {
	handles  []cgo.Handle
	userdata []unsafe.Pointer // C memory holding each handle
	panics   hookPanics
}

type hookPanics struct {
	n    atomic.Int64
	last atomic.Value
}

func (s *hookStore) free() {
	for _, p := range s.userdata {
		C.free(p)
	}
	for _, h := range s.handles {
		h.Delete()
	}
	s.handles, s.userdata = nil, nil
}

type clientRes struct {
	h     *C.a2a_client
	hooks *hookStore
}

func newClient(h *C.a2a_client) *Client {
	c := &Client{h: h, hooks: &hookStore{}}
	c.cleanup = runtime.AddCleanup(c, func(r clientRes) {
		C.a2a_client_free(r.h)
		r.hooks.free()
	}, clientRes{h, c.hooks})
	return c
}

// NewClient builds a client for an agent given by base URL or card URL: it fetches and
// validates the card now (BLOCKS), unless cfg.DeferCardResolution. cfg nil: defaults. A
// card that cannot be resolved is a *CardResolutionError carrying the outcome.
func NewClient(url string, cfg *ClientConfig) (*Client, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	up, un := cText(url)
	var h *C.a2a_client
	var errOut *C.a2a_outcome
	r := C.a2a_client_new(up, un, cClientConfig(&pin, cfg), &h, &errOut)
	runtime.KeepAlive(url)
	if r == C.A2A_CLIENT_CARD_RESOLUTION && errOut != nil {
		return nil, &CardResolutionError{Outcome: ownOutcome(errOut)}
	}
	if r != C.A2A_OK {
		return nil, codeErr("NewClient", r)
	}
	return newClient(h), nil
}

// NewClientWithTarget builds a client for a known interface (no card, no I/O).
func NewClientWithTarget(url string, version ProtocolVersion, binding Binding, cfg *ClientConfig) (*Client, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	up, un := cText(url)
	var h *C.a2a_client
	r := C.a2a_client_new_with_target(up, un, C.uint32_t(version), C.uint32_t(binding), cClientConfig(&pin, cfg), &h)
	runtime.KeepAlive(url)
	if r != C.A2A_OK {
		return nil, codeErr("NewClientWithTarget", r)
	}
	return newClient(h), nil
}

// Close frees the client (waiting for calls in flight). Streams opened on it stay usable
// until they are closed (the hooks stay alive for them). Calling it twice is harmless.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h != nil {
		c.cleanup.Stop()
		C.a2a_client_free(c.h)
		c.h = nil
		if c.streams == 0 {
			c.hooks.free()
		}
	}
	return nil
}

func (c *Client) streamClosed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.streams--
	if c.h == nil && c.streams == 0 {
		c.hooks.free()
	}
}

// AddHeaderHook adds a hook called for every request, in registration order. Hooks must
// be added before the first stream is opened.
func (c *Client) AddHeaderHook(hook HeaderHook) error {
	if hook == nil {
		return &Error{Op: "Client.AddHeaderHook", Code: CodeNullParameter}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return ErrClosed
	}
	handle := cgo.NewHandle(&hookEntry{hook: hook, panics: &c.hooks.panics})
	ud := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(ud) = C.uintptr_t(handle)
	if r := C.a2a_client_add_header_hook(c.h, C.a2a_header_hook(C.a2aGoHeaderHook), ud); r != C.A2A_OK {
		C.free(ud)
		handle.Delete()
		return codeErr("Client.AddHeaderHook", r)
	}
	c.hooks.handles = append(c.hooks.handles, handle)
	c.hooks.userdata = append(c.hooks.userdata, ud)
	return nil
}

// HookPanics is how many hook calls panicked, and the last panic's value.
func (c *Client) HookPanics() (int64, string) {
	s, _ := c.hooks.panics.last.Load().(string)
	return c.hooks.panics.n.Load(), s
}

// ClientCallOptions are the per-call options of Client calls.
type ClientCallOptions struct {
	Timeout        time.Duration // the caller's remaining turn budget (0: the call timeout)
	IdleTimeout    time.Duration // stream idle timeout for this call (0: the configured one)
	Traceparent    string        // "" : a fresh one
	IdempotencyKey string        // "" : none
	MessageID      string        // send and stream: "" : a fresh one (reuse it on a retry)
	ContextID      string
	TaskID         string
	Headers        []Header
	// HistoryLength asks for that many history messages in the answer's task (A2A
	// historyLength; SendText, SendMessage, streams and GetTask). nil leaves it to the
	// agent; a pointer to 0 asks for none. Negative or above math.MaxInt32 is an error.
	HistoryLength *int
	// ReturnImmediately asks a send to answer at once with the task as it stands (A2A 1.0
	// returnImmediately, 0.3 blocking: false); other calls ignore it.
	ReturnImmediately bool
}

func cClientCallOptions(pin *runtime.Pinner, o *ClientCallOptions) *C.struct_a2a_client_call_options {
	if o == nil {
		return nil
	}
	c := &C.struct_a2a_client_call_options{timeout_ms: durMS(o.Timeout), idle_timeout_ms: durMS(o.IdleTimeout)}
	set := func(dst *C.struct_a2a_str, s string) { dst.ptr, dst.len = pinText(pin, s) }
	set(&c.traceparent, o.Traceparent)
	set(&c.idempotency_key, o.IdempotencyKey)
	set(&c.message_id, o.MessageID)
	set(&c.context_id, o.ContextID)
	set(&c.task_id, o.TaskID)
	c.headers, c.headers_len = cHeaders(pin, o.Headers)
	c.return_immediately = C.bool(o.ReturnImmediately)
	if n := o.HistoryLength; n != nil {
		c.has_history_length = true
		switch {
		case *n < 0 || int64(*n) > math.MaxInt32:
			c.history_length = math.MaxInt32 + 1 // refused by the library: A2A_INVALID_ARGUMENT
		default:
			c.history_length = C.uint32_t(*n)
		}
	}
	return c
}

type clientCall func(*C.a2a_client, *C.char, C.size_t, *C.struct_a2a_client_call_options, **C.a2a_outcome) C.a2a_result

func (c *Client) call(op, arg string, opts *ClientCallOptions, fn clientCall) (*Outcome, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.h == nil {
		return nil, ErrClosed
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	ap, an := cText(arg)
	var h *C.a2a_outcome
	r := fn(c.h, ap, an, cClientCallOptions(&pin, opts), &h)
	runtime.KeepAlive(arg)
	if r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	return ownOutcome(h), nil
}

// SendText sends a user text message and waits for the answer (BLOCKS, bounded by the
// call timeout). Every failure of the call, connect errors and timeouts included, is an
// Outcome; the error is for invalid arguments only.
func (c *Client) SendText(text string, opts *ClientCallOptions) (*Outcome, error) {
	return c.call("Client.SendText", text, opts, func(h *C.a2a_client, p *C.char, n C.size_t, o *C.struct_a2a_client_call_options, out **C.a2a_outcome) C.a2a_result {
		return C.a2a_client_send_text(h, p, n, o, out)
	})
}

// GetTask reads a task; as SendText.
func (c *Client) GetTask(taskID string, opts *ClientCallOptions) (*Outcome, error) {
	return c.call("Client.GetTask", taskID, opts, func(h *C.a2a_client, p *C.char, n C.size_t, o *C.struct_a2a_client_call_options, out **C.a2a_outcome) C.a2a_result {
		return C.a2a_client_get_task(h, p, n, o, out)
	})
}

// CancelTask cancels a task; as SendText.
func (c *Client) CancelTask(taskID string, opts *ClientCallOptions) (*Outcome, error) {
	return c.call("Client.CancelTask", taskID, opts, func(h *C.a2a_client, p *C.char, n C.size_t, o *C.struct_a2a_client_call_options, out **C.a2a_outcome) C.a2a_result {
		return C.a2a_client_cancel_task(h, p, n, o, out)
	})
}

// ClientStreamEventKind says what a ClientStream event is.
type ClientStreamEventKind uint32

// Client stream event kinds (a2a_client_stream_event_kind).
const (
	StreamEventItem          ClientStreamEventKind = C.A2A_CLIENT_STREAM_EVENT_KIND_ITEM
	StreamEventResubscribing ClientStreamEventKind = C.A2A_CLIENT_STREAM_EVENT_KIND_RESUBSCRIBING
	StreamEventEnd           ClientStreamEventKind = C.A2A_CLIENT_STREAM_EVENT_KIND_END
)

// ClientStreamEvent is one event of a ClientStream.
type ClientStreamEvent struct {
	Kind         ClientStreamEventKind
	Item         *StreamItem // StreamEventItem
	TaskID       string      // StreamEventResubscribing
	Attempt      uint32      // StreamEventResubscribing: 1 for the first
	End          StreamEnd   // StreamEventEnd, when a stream was opened (else 0)
	Outcome      *Outcome    // StreamEventEnd: the call's outcome (see ClientStream.Next)
	Resubscribes uint32      // StreamEventEnd
	// StreamEventEnd: events dropped over the size limit and events that could not be
	// read. Nonzero: the answer (Outcome.Result) is incomplete even if the call completed.
	DroppedEvents, UnreadableEvents uint32
}

// ClientStream is a streaming call of a Client; read it with Next until the end event.
type ClientStream struct {
	owned[*C.a2a_client_stream]
	client *Client // keeps the client (and its hooks) reachable while the stream lives
	end    *outcomeRef
}

type streamCall func(*C.a2a_client, *C.char, C.size_t, *C.struct_a2a_client_call_options, **C.a2a_client_stream) C.a2a_result

func (c *Client) stream(op, arg string, opts *ClientCallOptions, fn streamCall) (*ClientStream, error) {
	c.mu.Lock() // counts the stream
	defer c.mu.Unlock()
	if c.h == nil {
		return nil, ErrClosed
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	ap, an := cText(arg)
	var h *C.a2a_client_stream
	r := fn(c.h, ap, an, cClientCallOptions(&pin, opts), &h)
	runtime.KeepAlive(arg)
	if r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	c.streams++
	s := &ClientStream{client: c}
	own(s, &s.owned, h, func(h *C.a2a_client_stream) { C.a2a_client_stream_free(h) })
	return s, nil
}

// StreamText starts a streaming send of a user text message; the request goes out on
// the first Next.
func (c *Client) StreamText(text string, opts *ClientCallOptions) (*ClientStream, error) {
	return c.stream("Client.StreamText", text, opts, func(h *C.a2a_client, p *C.char, n C.size_t, o *C.struct_a2a_client_call_options, out **C.a2a_client_stream) C.a2a_result {
		return C.a2a_client_stream_text(h, p, n, o, out)
	})
}

// Resubscribe streams a running task's events.
func (c *Client) Resubscribe(taskID string, opts *ClientCallOptions) (*ClientStream, error) {
	return c.stream("Client.Resubscribe", taskID, opts, func(h *C.a2a_client, p *C.char, n C.size_t, o *C.struct_a2a_client_call_options, out **C.a2a_client_stream) C.a2a_result {
		return C.a2a_client_resubscribe(h, p, n, o, out)
	})
}

// ErrStreamEnded is returned by Next after the end event was handed out.
var ErrStreamEnded = errors.New("a2a: the stream has ended")

// Next waits for the next event (BLOCKS, bounded by the idle timeout). Items are copied.
// The end event's Outcome is the stream's own: its fields are copies, and its handle
// (for Tally.Record, the policy, the breaker, ModelText) is usable until the next call to
// Next or Close on this stream.
func (s *ClientStream) Next() (ClientStreamEvent, error) {
	if s.h == nil {
		return ClientStreamEvent{}, ErrClosed
	}
	s.invalidateEnd()
	var ev C.struct_a2a_client_stream_event
	switch r := C.a2a_client_stream_next(s.h, &ev); r {
	case C.A2A_OK:
	case C.A2A_NONE:
		return ClientStreamEvent{}, ErrStreamEnded
	default:
		return ClientStreamEvent{}, codeErr("ClientStream.Next", r)
	}
	out := ClientStreamEvent{Kind: ClientStreamEventKind(ev.kind)}
	switch out.Kind {
	case StreamEventItem:
		out.Item = readStreamItem(&ev.item)
	case StreamEventResubscribing:
		out.TaskID, out.Attempt = goStr(ev.task_id), uint32(ev.attempt)
	case StreamEventEnd:
		if ev.has_end_kind {
			out.End = StreamEnd(ev.end_kind)
		}
		out.Resubscribes = uint32(ev.resubscribes)
		out.DroppedEvents = uint32(ev.dropped_events)
		out.UnreadableEvents = uint32(ev.unreadable_events)
		if ev.outcome != nil {
			o := readOutcome(ev.outcome)
			s.end = &outcomeRef{h: ev.outcome, borrowed: true}
			o.ref = s.end
			out.Outcome = &o
		}
	}
	return out, nil
}

func (s *ClientStream) invalidateEnd() {
	if s.end != nil {
		s.end.h = nil
		s.end = nil
	}
}

// Close frees the stream (closing its connection). Calling it twice is harmless.
func (s *ClientStream) Close() error {
	if s.h != nil {
		s.invalidateEnd()
		s.release()
		s.client.streamClosed()
	}
	return nil
}
