package a2a

/*
#include <stdlib.h>
#include "a2a_core.h"
#include "scratch.h"

extern void a2aGoHeaderHook(void *userdata, char *method, size_t method_len, struct a2a_header_setter *setter);
*/
import "C"

import (
	"context"
	"encoding/json"
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
// 32 MiB responses, pooled connections retired after 3 s idle, redirects never followed,
// https only).
func DefaultClientConfig() ClientConfig {
	return ClientConfig{
		ConnectTimeout:    3 * time.Second,
		CallTimeout:       45 * time.Second,
		StreamIdleTimeout: 60 * time.Second,
		MaxResponseBytes:  32 << 20,
		PoolIdleTimeout:   3 * time.Second,
	}
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
// target, header hooks). Unlike other handles it is safe for concurrent calls. Each call
// runs on the library's client machine (the state made from the card or the target,
// per call an a2a_call) with a2a_call_run over the driver's transport (a2a_transport_new):
// one cgo call per step, as HTTPClient's WithReferenceDriver.
type Client struct {
	mu        sync.RWMutex // calls hold it for reading; Close and AddHeaderHook for writing
	res       *clientRes
	resolving sync.Mutex // a deferred card resolution, one at a time
	smu       sync.Mutex // streams and closed
	streams   int        // open streams (they still use the transport and the hooks)
	closed    bool
	cleanup   runtime.Cleanup
}

// clientRes is what a Client owns in the library; it never points back to the Client,
// so that an unreachable Client can be cleaned up.
type clientRes struct {
	transport *C.a2a_transport
	config    *C.a2a_machine_config
	state     atomic.Pointer[stateRef] // nil until the card resolved (deferred)
	url       string                   // the card's URL (deferred resolution)
	hooks     *hookStore
	scratch   atomic.Pointer[C.struct_a2a_go_scratch] // a send's C out-parameters, kept for the next
}

// takeScratch is the kept scratch, or a new one (C memory, freed by putScratch or freeRest).
func (r *clientRes) takeScratch() *C.struct_a2a_go_scratch {
	if p := r.scratch.Swap(nil); p != nil {
		return p
	}
	return (*C.struct_a2a_go_scratch)(C.calloc(1, C.sizeof_struct_a2a_go_scratch))
}

// putScratch keeps p for the next send (frees it when one is kept already).
func (r *clientRes) putScratch(p *C.struct_a2a_go_scratch) {
	if !r.scratch.CompareAndSwap(nil, p) {
		C.free(unsafe.Pointer(p))
	}
}

// stateRef holds the machine's state (atomic.Pointer takes no incomplete C type).
type stateRef struct{ h *C.a2a_client_state }

// load is the machine's state, nil until the card resolved.
func (r *clientRes) load() *C.a2a_client_state {
	if p := r.state.Load(); p != nil {
		return p.h
	}
	return nil
}

// freeState frees the machine's state (calls alive hold their own reference).
func (r *clientRes) freeState() {
	if s := r.state.Swap(nil); s != nil {
		C.a2a_client_state_free(s.h)
	}
}

// freeRest frees what open streams may still use: the transport, the config, the hooks.
func (r *clientRes) freeRest() {
	if r.transport != nil {
		C.a2a_transport_free(r.transport)
		r.transport = nil
	}
	if r.config != nil {
		C.a2a_machine_config_free(r.config)
		r.config = nil
	}
	r.hooks.free()
	if p := r.scratch.Swap(nil); p != nil {
		C.free(unsafe.Pointer(p))
	}
}

// machineConfig is the machine's configuration of cfg (nil: the defaults): timeouts,
// retries, resubscribes, body limit, https rule, interface choice, breaker, the shared
// card cache. Zero durations and limits are the defaults.
func machineConfig(op string, cfg *ClientConfig) (*C.a2a_machine_config, error) {
	d := DefaultClientConfig()
	if cfg == nil {
		cfg = &d
	}
	if cfg.Protocol != 0 && cfg.MinProtocol != 0 && cfg.Protocol < cfg.MinProtocol {
		return nil, &Error{Op: op, Code: CodeInvalidArgument, Detail: "Protocol is older than MinProtocol"}
	}
	b := C.a2a_client_config_builder_new()
	if b == nil {
		return nil, &Error{Op: op, Code: CodeInvalidArgument, Detail: "no builder"}
	}
	defer C.a2a_client_config_builder_free(b)
	ms := func(v, def time.Duration) uint64 {
		if v <= 0 {
			v = def
		}
		return max(1, uint64(v/time.Millisecond))
	}
	call := ms(cfg.CallTimeout, d.CallTimeout)
	maxBytes := cfg.MaxResponseBytes
	if maxBytes == 0 {
		maxBytes = d.MaxResponseBytes
	}
	var maxTime uint64
	if cfg.MaxTime > 0 {
		maxTime = ms(cfg.MaxTime, 0)
	}
	options := [...]struct {
		option C.uint32_t
		value  uint64
	}{
		{C.A2A_CLIENT_OPTION_CALL_TIMEOUT_MS, call},
		{C.A2A_CLIENT_OPTION_CONNECT_TIMEOUT_MS, ms(cfg.ConnectTimeout, d.ConnectTimeout)},
		{C.A2A_CLIENT_OPTION_CARD_TIMEOUT_MS, min(call, 30_000)}, // the driver's card fetch bound
		{C.A2A_CLIENT_OPTION_STREAM_IDLE_TIMEOUT_MS, ms(cfg.StreamIdleTimeout, d.StreamIdleTimeout)},
		{C.A2A_CLIENT_OPTION_MAX_TIME_MS, maxTime},
		{C.A2A_CLIENT_OPTION_SEND_RETRIES, uint64(cfg.SendRetries)},
		{C.A2A_CLIENT_OPTION_STREAM_RESUBSCRIBES, uint64(cfg.StreamResubscribeAttempts)},
		{C.A2A_CLIENT_OPTION_MAX_RESPONSE_BYTES, maxBytes},
		{C.A2A_CLIENT_OPTION_CLIENT_CERTIFICATE, flag(cfg.ClientCertFile != "")},
		{C.A2A_CLIENT_OPTION_IGNORE_CAPABILITIES, flag(cfg.IgnoreCapabilities)},
		{C.A2A_CLIENT_OPTION_ALLOW_HTTP, flag(cfg.AllowHTTP)},
		{C.A2A_CLIENT_OPTION_PREFER_CARD_ORDER, flag(!cfg.PreferClientOrder)},
		{C.A2A_CLIENT_OPTION_INTERFACE_VERSION, uint64(cfg.Protocol)},
		{C.A2A_CLIENT_OPTION_INTERFACE_BINDING, uint64(cfg.Binding)},
		{C.A2A_CLIENT_OPTION_MIN_PROTOCOL, uint64(cfg.MinProtocol)},
	}
	for _, o := range options {
		if r := setOption(b, o.option, o.value); r != C.A2A_OK {
			return nil, codeErr(op, r)
		}
	}
	if r := applyTransportOptions(b, cfg, ms(cfg.PoolIdleTimeout, d.PoolIdleTimeout)); r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	if cfg.Breaker != nil {
		c := cfg.Breaker.c()
		if r := C.a2a_client_config_builder_set_breaker(b, &c); r != C.A2A_OK {
			// An unusable breaker configuration is the caller's invalid argument (its
			// A2A_CONFIG_* code says why).
			return nil, &Error{Op: op, Code: CodeInvalidArgument, Detail: Code(r).Error()}
		}
	}
	if shared := sharedCardCache(); shared != nil {
		if r := C.a2a_client_config_builder_set_card_cache(b, 1, shared); r != C.A2A_OK {
			return nil, codeErr(op, r)
		}
	}
	var out *C.a2a_machine_config
	if r := C.a2a_client_config_builder_build(b, &out); r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	return out, nil
}

// applyTransportOptions sets what the reference driver's transport reads from the same
// config (TLS files, proxy, fixed resolutions, pool idle time) and the hosts a card's
// interface may point to besides its own.
func applyTransportOptions(b *C.a2a_client_config_builder, cfg *ClientConfig, poolIdleMS uint64) C.a2a_result {
	type textOption struct {
		option C.uint32_t
		value  string
	}
	texts := []textOption{
		{C.A2A_CLIENT_TEXT_OPTION_CA_FILE, cfg.CAFile},
		{C.A2A_CLIENT_TEXT_OPTION_CLIENT_CERT_FILE, cfg.ClientCertFile},
		{C.A2A_CLIENT_TEXT_OPTION_CLIENT_KEY_FILE, cfg.ClientKeyFile},
		{C.A2A_CLIENT_TEXT_OPTION_PROXY, cfg.Proxy},
		{C.A2A_CLIENT_TEXT_OPTION_NO_PROXY, cfg.NoProxy},
	}
	for _, r := range cfg.Resolve {
		texts = append(texts, textOption{C.A2A_CLIENT_TEXT_OPTION_RESOLVE, r})
	}
	for _, h := range cfg.AllowHosts {
		texts = append(texts, textOption{C.A2A_CLIENT_TEXT_OPTION_ALLOW_HOST, h})
	}
	for _, t := range texts {
		if t.value == "" {
			continue
		}
		p, n := cText(t.value)
		if r := C.a2a_client_config_builder_set_text(b, t.option, p, n); r != C.A2A_OK {
			return r
		}
	}
	if r := setOption(b, C.A2A_CLIENT_OPTION_PROXY_DISABLED, flag(cfg.ProxyDisabled)); r != C.A2A_OK {
		return r
	}
	return setOption(b, C.A2A_CLIENT_OPTION_POOL_IDLE_TIMEOUT_MS, poolIdleMS)
}

// newClientRes makes the transport and the machine's config of cfg.
func newClientRes(op string, cfg *ClientConfig) (*clientRes, error) {
	config, err := machineConfig(op, cfg)
	if err != nil {
		return nil, err
	}
	transport, err := newTransport(config, op)
	if err != nil {
		C.a2a_machine_config_free(config)
		return nil, err
	}
	return &clientRes{transport: transport, config: config, hooks: &hookStore{}}, nil
}

func newClient(r *clientRes) *Client {
	c := &Client{res: r}
	c.cleanup = runtime.AddCleanup(c, func(r *clientRes) {
		r.freeState()
		r.freeRest()
	}, r)
	return c
}

// resolve fetches the card at r.url on the transport and makes the machine's state from
// it. A card that does not resolve is the fetch's outcome (it keeps its call).
func (r *clientRes) resolve(op string) (*C.a2a_client_state, *Outcome, error) {
	up, un := cText(r.url)
	var call *C.a2a_call
	res := C.a2a_call_new_card_fetch(r.config, up, un, &call)
	runtime.KeepAlive(r.url)
	if res != C.A2A_OK {
		return nil, nil, codeErr(op, res)
	}
	var state *C.a2a_client_state
	var fin *C.a2a_outcome
	ev := &callEvents{ctx: context.Background(), call: call,
		onItem: func(*C.struct_a2a_event) bool { return true },
		onFinished: func(e *C.struct_a2a_event) {
			fin = e.outcome
			if e.outcome == nil && C.a2a_client_state_from_card(r.config, call, C.uint64_t(randomSeed()), &state) != C.A2A_OK {
				state = nil
			}
		}}
	runOnTransport(r.transport, ev)
	if state != nil {
		C.a2a_call_free(call)
		return state, nil, nil
	}
	if o := ev.res.outcome; o != nil && fin != nil {
		o.keepCall(fin, call)
		return nil, o, nil
	}
	C.a2a_call_free(call)
	if ev.res.err != nil {
		return nil, nil, ev.res.err
	}
	return nil, nil, &Error{Op: op, Code: CodeInvalidArgument, Detail: "the card fetch resolved no interface"}
}

// NewClient builds a client for an agent given by base URL or card URL: it fetches and
// validates the card now (BLOCKS), unless cfg.DeferCardResolution. cfg nil: defaults. A
// card that cannot be resolved is a *CardResolutionError carrying the outcome.
func NewClient(url string, cfg *ClientConfig) (*Client, error) {
	r, err := newClientRes("NewClient", cfg)
	if err != nil {
		return nil, err
	}
	r.url = url
	if cfg == nil || !cfg.DeferCardResolution {
		state, failed, err := r.resolve("NewClient")
		if state == nil {
			r.freeRest()
			if failed != nil {
				return nil, &CardResolutionError{Outcome: failed}
			}
			return nil, err
		}
		r.state.Store(&stateRef{state})
	}
	return newClient(r), nil
}

// NewClientWithTarget builds a client for a known interface (no card, no I/O).
func NewClientWithTarget(url string, version ProtocolVersion, binding Binding, cfg *ClientConfig) (*Client, error) {
	if cfg != nil && cfg.MinProtocol != 0 && version < cfg.MinProtocol {
		return nil, codeErr("NewClientWithTarget", C.A2A_INVALID_ARGUMENT)
	}
	r, err := newClientRes("NewClientWithTarget", cfg)
	if err != nil {
		return nil, err
	}
	up, un := cText(url)
	var state *C.a2a_client_state
	res := C.a2a_client_state_new(r.config, up, un, C.uint32_t(version), C.uint32_t(binding), C.uint64_t(randomSeed()), &state)
	runtime.KeepAlive(url)
	if res != C.A2A_OK {
		r.freeRest()
		return nil, codeErr("NewClientWithTarget", res)
	}
	r.state.Store(&stateRef{state})
	return newClient(r), nil
}

// stateFor is the machine's state, resolving a deferred card first; a card that does not
// resolve is the call's outcome.
func (c *Client) stateFor(op string) (*C.a2a_client_state, *Outcome, error) {
	r := c.res
	if s := r.load(); s != nil {
		return s, nil, nil
	}
	c.resolving.Lock()
	defer c.resolving.Unlock()
	if s := r.load(); s != nil {
		return s, nil, nil
	}
	s, failed, err := r.resolve(op)
	if s == nil {
		return nil, failed, err
	}
	for _, ud := range r.hooks.userdata { // hooks added before the card resolved
		if res := C.a2a_client_state_add_header_hook(s, C.a2a_header_hook(C.a2aGoHeaderHook), ud); res != C.A2A_OK {
			C.a2a_client_state_free(s)
			return nil, nil, codeErr(op, res)
		}
	}
	r.state.Store(&stateRef{s})
	return s, nil, nil
}

// Close frees the client (waiting for calls in flight). Streams opened on it stay usable
// until they are closed (the hooks stay alive for them). Calling it twice is harmless.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.smu.Lock()
	defer c.smu.Unlock()
	if !c.closed {
		c.closed = true
		c.cleanup.Stop()
		c.res.freeState()
		if c.streams == 0 {
			c.res.freeRest()
		}
	}
	return nil
}

func (c *Client) streamClosed() {
	c.smu.Lock()
	defer c.smu.Unlock()
	c.streams--
	if c.closed && c.streams == 0 {
		c.res.freeRest()
	}
}

// AddHeaderHook adds a hook called for every request, in registration order. Hooks must
// be added before the first stream is opened. The hooks see only the requests of the
// machine's calls to the validated interface (never the card fetch).
func (c *Client) AddHeaderHook(hook HeaderHook) error {
	if hook == nil {
		return &Error{Op: "Client.AddHeaderHook", Code: CodeNullParameter}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.streams > 0 {
		return &Error{Op: "Client.AddHeaderHook", Code: CodeInvalidArgument, Detail: "a stream on this client is still open"}
	}
	hooks := c.res.hooks
	handle := cgo.NewHandle(&hookEntry{hook: hook, panics: &hooks.panics})
	ud := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(ud) = C.uintptr_t(handle)
	if s := c.res.load(); s != nil {
		if r := C.a2a_client_state_add_header_hook(s, C.a2a_header_hook(C.a2aGoHeaderHook), ud); r != C.A2A_OK {
			C.free(ud)
			handle.Delete()
			return codeErr("Client.AddHeaderHook", r)
		}
	}
	hooks.handles = append(hooks.handles, handle)
	hooks.userdata = append(hooks.userdata, ud)
	return nil
}

// HookPanics is how many hook calls panicked, and the last panic's value.
func (c *Client) HookPanics() (int64, string) {
	s, _ := c.res.hooks.panics.last.Load().(string)
	return c.res.hooks.panics.n.Load(), s
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

// clientSettings are the call's settings of opts (nil, as the library takes it: none).
func clientSettings(op string, o *ClientCallOptions) (*C.a2a_call_settings, error) {
	if o == nil {
		return nil, nil
	}
	s := C.a2a_call_settings_new()
	if s == nil {
		return nil, &Error{Op: op, Code: CodeInvalidArgument, Detail: "no call settings"}
	}
	fail := func(r C.a2a_result) (*C.a2a_call_settings, error) {
		C.a2a_call_settings_free(s)
		return nil, codeErr(op, r)
	}
	if n := o.HistoryLength; n != nil && (*n < 0 || int64(*n) > math.MaxInt32) {
		return fail(C.A2A_INVALID_ARGUMENT)
	}
	if o.Timeout > 0 {
		if r := C.a2a_call_settings_set(s, C.A2A_CALL_OPTION_BUDGET_MS, C.uint64_t(max(1, o.Timeout/time.Millisecond))); r != C.A2A_OK {
			return fail(r)
		}
	}
	if o.IdleTimeout > 0 {
		if r := C.a2a_call_settings_set(s, C.A2A_CALL_OPTION_STREAM_IDLE_TIMEOUT_MS, C.uint64_t(max(1, o.IdleTimeout/time.Millisecond))); r != C.A2A_OK {
			return fail(r)
		}
	}
	if o.ReturnImmediately {
		if r := C.a2a_call_settings_set(s, C.A2A_CALL_OPTION_RETURN_IMMEDIATELY, 1); r != C.A2A_OK {
			return fail(r)
		}
	}
	texts := [...]struct {
		option C.uint32_t
		value  string
	}{
		{C.A2A_CALL_TEXT_OPTION_IDEMPOTENCY_KEY, o.IdempotencyKey},
		{C.A2A_CALL_TEXT_OPTION_TRACEPARENT, o.Traceparent},
		{C.A2A_CALL_TEXT_OPTION_MESSAGE_ID, o.MessageID},
	}
	for _, t := range texts {
		if t.value == "" {
			continue
		}
		p, n := cText(t.value)
		r := C.a2a_call_settings_set_text(s, t.option, p, n)
		runtime.KeepAlive(t.value)
		if r != C.A2A_OK {
			return fail(r)
		}
	}
	for _, h := range o.Headers {
		kp, kn := cText(h.Name)
		vp, vn := cText(h.Value)
		r := C.a2a_call_settings_add_header(s, kp, kn, vp, vn)
		runtime.KeepAlive(h)
		if r != C.A2A_OK {
			return fail(r)
		}
	}
	return s, nil
}

// startCall makes the call on the machine's state (its settings are the call's options).
type startCall func(state *C.a2a_client_state, settings *C.a2a_call_settings, out **C.a2a_call) C.a2a_result

// textCall starts a send or stream of one text part.
func textCall(text string, streaming bool) startCall {
	return func(state *C.a2a_client_state, s *C.a2a_call_settings, out **C.a2a_call) C.a2a_result {
		p, n := cText(text)
		r := C.a2a_call_new_text(state, C.bool(streaming), p, n, s, C.uint64_t(nowMs()), out)
		runtime.KeepAlive(text)
		return r
	}
}

// methodCall starts a call of method m with params (a JSON object).
func methodCall(m Method, params []byte) startCall {
	return func(state *C.a2a_client_state, s *C.a2a_call_settings, out **C.a2a_call) C.a2a_result {
		p, n := cBytes(params)
		r := C.a2a_call_new(state, C.uint32_t(m), p, n, s, C.uint64_t(nowMs()), out)
		runtime.KeepAlive(params)
		return r
	}
}

// messageCall starts a send (or a streaming send) of parts with the options' message
// fields (messageId, contextId, taskId) and history length.
func messageCall(op string, parts []Part, metadata map[string]any, opts *ClientCallOptions, streaming bool) (startCall, error) {
	var ho *HTTPCallOptions
	if opts != nil {
		ho = &HTTPCallOptions{MessageID: opts.MessageID, ContextID: opts.ContextID, TaskID: opts.TaskID,
			HistoryLength: opts.HistoryLength}
	}
	params, err := sendParams(parts, metadata, ho)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Op = op
		}
		return nil, err
	}
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	m := MethodSendMessage
	if streaming {
		m = MethodSendStreamingMessage
	}
	return methodCall(m, body), nil
}

// taskCall starts a call of m on a task (GetTask with the options' history length).
func taskCall(m Method, taskID string, opts *ClientCallOptions) (startCall, error) {
	params := map[string]any{"id": taskID}
	if opts != nil && opts.HistoryLength != nil && m == MethodGetTask {
		params["historyLength"] = *opts.HistoryLength
	}
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	return methodCall(m, body), nil
}

// withMessageFields says whether a text send needs the message's own fields (a context,
// a task, a history length): then it goes as a message of one text part.
func withMessageFields(opts *ClientCallOptions) bool {
	return opts != nil && (opts.ContextID != "" || opts.TaskID != "" || opts.HistoryLength != nil)
}

// call makes a non-streaming call and runs it to its end on the transport. Its outcome
// keeps the call (its handle is the FINISHED event's outcome).
func (c *Client) call(op string, opts *ClientCallOptions, start startCall) (*Outcome, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return nil, ErrClosed
	}
	s, err := clientSettings(op, opts)
	if err != nil {
		return nil, err
	}
	if s != nil {
		defer C.a2a_call_settings_free(s)
	}
	state, failed, err := c.stateFor(op)
	if state == nil {
		return failed, err
	}
	var call *C.a2a_call
	if r := start(state, s, &call); r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	scratch := c.res.takeScratch()
	ev := &callEvents{ctx: context.Background(), call: call, skipBody: true, scratch: scratch,
		onItem: func(*C.struct_a2a_event) bool { return true }}
	runOnTransport(c.res.transport, ev)
	c.res.putScratch(scratch)
	o, fin := ev.res.outcome, ev.fin
	if o == nil || fin == nil {
		C.a2a_call_free(call)
		if ev.res.err != nil {
			return nil, ev.res.err
		}
		return nil, &Error{Op: op, Code: CodeInvalidArgument, Detail: "the call finished without an outcome"}
	}
	o.keepCall(fin, call)
	return o, nil
}

// SendText sends a user text message and waits for the answer (BLOCKS, bounded by the
// call timeout). Every failure of the call, connect errors and timeouts included, is an
// Outcome; the error is for invalid arguments only.
func (c *Client) SendText(text string, opts *ClientCallOptions) (*Outcome, error) {
	if withMessageFields(opts) {
		return c.sendParts("Client.SendText", []Part{TextPart(text)}, nil, opts)
	}
	return c.call("Client.SendText", opts, textCall(text, false))
}

// sendParts sends a message of parts and waits for the answer.
func (c *Client) sendParts(op string, parts []Part, metadata map[string]any, opts *ClientCallOptions) (*Outcome, error) {
	start, err := messageCall(op, parts, metadata, opts, false)
	if err != nil {
		return nil, err
	}
	return c.call(op, opts, start)
}

// GetTask reads a task; as SendText.
func (c *Client) GetTask(taskID string, opts *ClientCallOptions) (*Outcome, error) {
	start, err := taskCall(MethodGetTask, taskID, opts)
	if err != nil {
		return nil, err
	}
	return c.call("Client.GetTask", opts, start)
}

// CancelTask cancels a task; as SendText.
func (c *Client) CancelTask(taskID string, opts *ClientCallOptions) (*Outcome, error) {
	start, err := taskCall(MethodCancelTask, taskID, opts)
	if err != nil {
		return nil, err
	}
	return c.call("Client.CancelTask", opts, start)
}

// ClientStreamEventKind says what a ClientStream event is.
type ClientStreamEventKind uint32

// Client stream event kinds (the numbers of the driver's former a2a_client_stream_event_kind).
const (
	StreamEventItem          ClientStreamEventKind = 1
	StreamEventResubscribing ClientStreamEventKind = 2
	StreamEventEnd           ClientStreamEventKind = 3
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
	client    *Client          // keeps the client (and its hooks) reachable while the stream lives
	transport *C.a2a_transport // the client's, kept until the stream is closed
	res       *streamRes
	ev        *callEvents         // the call's event handler (nil: the card did not resolve)
	pending   []ClientStreamEvent // events drained from the call; those from head on not yet handed out
	head      int
	done      bool // the end event was handed out
	closed    bool
	end       *outcomeRef
	cleanup   runtime.Cleanup
}

// streamRes is what a stream owns in the library: its call, or (a deferred card that did
// not resolve) the card fetch whose outcome is the end.
type streamRes struct {
	call     *C.a2a_call
	failCall *C.a2a_call
	failed   *Outcome
}

func (r *streamRes) free() {
	if r.call != nil {
		C.a2a_call_free(r.call)
		r.call = nil
	}
	if r.failCall != nil {
		C.a2a_call_free(r.failCall)
		r.failCall = nil
	}
}

func (c *Client) stream(op string, opts *ClientCallOptions, start startCall) (*ClientStream, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return nil, ErrClosed
	}
	s, err := clientSettings(op, opts)
	if err != nil {
		return nil, err
	}
	if s != nil {
		defer C.a2a_call_settings_free(s)
	}
	res := &streamRes{}
	state, failed, err := c.stateFor(op)
	switch {
	case failed != nil:
		// The card did not resolve: the stream's end carries the fetch's outcome, whose
		// call the stream keeps (the end's handle lives until Next or Close).
		failed.ref.cleanup.Stop()
		res.failCall, res.failed = failed.ref.call, failed
		failed.ref = &outcomeRef{h: failed.ref.h, borrowed: true}
	case state == nil:
		return nil, err
	default:
		if r := start(state, s, &res.call); r != C.A2A_OK {
			return nil, codeErr(op, r)
		}
	}
	c.smu.Lock()
	c.streams++
	c.smu.Unlock()
	st := &ClientStream{client: c, transport: c.res.transport, res: res}
	if res.call != nil {
		st.ev = st.events(res.call)
	}
	st.cleanup = runtime.AddCleanup(st, func(r *streamRes) { r.free() }, res)
	return st, nil
}

// events is the call's event handler: items, resubscribes and the end queue up in
// s.pending (the end's outcome is the handler's copy of the FINISHED outcome).
func (s *ClientStream) events(call *C.a2a_call) *callEvents {
	ev := &callEvents{ctx: context.Background(), call: call,
		onItem: func(e *C.struct_a2a_event) bool {
			s.pending = append(s.pending, ClientStreamEvent{Kind: StreamEventItem, Item: readStreamItem(&e.item)})
			return true
		},
		onResubscribing: func(e *C.struct_a2a_event) {
			s.pending = append(s.pending, ClientStreamEvent{Kind: StreamEventResubscribing,
				TaskID: goStr(e.task_id), Attempt: uint32(e.attempt)})
		},
		onFinished: func(e *C.struct_a2a_event) {
			end := ClientStreamEvent{Kind: StreamEventEnd, Resubscribes: uint32(e.resubscribes),
				DroppedEvents: uint32(e.dropped_events), UnreadableEvents: uint32(e.unreadable_events)}
			if e.has_end_kind {
				end.End = StreamEnd(e.end_kind)
			}
			if e.outcome != nil {
				end.Outcome = &Outcome{ref: &outcomeRef{h: e.outcome, borrowed: true}} // filled in by Next
			}
			s.pending = append(s.pending, end)
		}}
	ev.startClock()
	return ev
}

// StreamText starts a streaming send of a user text message; the request goes out on
// the first Next.
func (c *Client) StreamText(text string, opts *ClientCallOptions) (*ClientStream, error) {
	if withMessageFields(opts) {
		return c.streamParts("Client.StreamText", []Part{TextPart(text)}, nil, opts)
	}
	return c.stream("Client.StreamText", opts, textCall(text, true))
}

// streamParts starts a streaming send of a message of parts.
func (c *Client) streamParts(op string, parts []Part, metadata map[string]any, opts *ClientCallOptions) (*ClientStream, error) {
	start, err := messageCall(op, parts, metadata, opts, true)
	if err != nil {
		return nil, err
	}
	return c.stream(op, opts, start)
}

// Resubscribe streams a running task's events.
func (c *Client) Resubscribe(taskID string, opts *ClientCallOptions) (*ClientStream, error) {
	start, err := taskCall(MethodSubscribeToTask, taskID, opts)
	if err != nil {
		return nil, err
	}
	return c.stream("Client.Resubscribe", opts, start)
}

// ErrStreamEnded is returned by Next after the end event was handed out.
var ErrStreamEnded = errors.New("a2a: the stream has ended")

// Next waits for the next event (BLOCKS, bounded by the idle timeout). Items are copied.
// The end event's Outcome is the stream's own: its fields are copies, and its handle
// (for Tally.Record, the policy, the breaker, ModelText) is usable until the next call to
// Next or Close on this stream.
func (s *ClientStream) Next() (ClientStreamEvent, error) {
	if s.closed {
		return ClientStreamEvent{}, ErrClosed
	}
	s.invalidateEnd()
	if s.done {
		return ClientStreamEvent{}, ErrStreamEnded
	}
	if s.ev == nil { // the card did not resolve
		s.done = true
		s.end = s.res.failed.ref
		return ClientStreamEvent{Kind: StreamEventEnd, Outcome: s.res.failed}, nil
	}
	if s.head == len(s.pending) {
		s.pending, s.head = s.pending[:0], 0 // reuse the queue's array
	}
	for len(s.pending) == 0 {
		// One a2a_call_run: it returns once an event is queued. A run the library refuses
		// cancels the call, whose end is then queued.
		if s.ev.finished || !s.ev.runStep(s.transport, nil) && len(s.pending) == 0 {
			s.done = true
			return ClientStreamEvent{}, &Error{Op: "ClientStream.Next", Code: CodeInvalidArgument,
				Detail: "the call ended without an end event"}
		}
	}
	out := s.pending[s.head]
	s.pending[s.head] = ClientStreamEvent{}
	s.head++
	if out.Kind == StreamEventEnd {
		s.done = true
		if out.Outcome != nil {
			ref := out.Outcome.ref
			o := *s.ev.res.outcome // the handler's copy of the FINISHED outcome
			o.ref = ref
			s.end = ref
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
	if !s.closed {
		s.closed = true
		s.invalidateEnd()
		s.cleanup.Stop()
		s.res.free()
		s.client.streamClosed()
	}
	return nil
}
