package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A local JSON-RPC 0.3 endpoint that records what the driver sends and answers with a
// completed task (shape of docs/wire.md §8.1 (a)'s response).
type recorder struct {
	mu      sync.Mutex
	headers []http.Header
	body    [][]byte
}

// get returns the i-th request's headers and body (under the lock: the handler runs on
// another goroutine, and the happens-before through the C call is invisible to -race).
func (r *recorder) get(i int) (http.Header, []byte, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i >= len(r.headers) {
		return nil, nil, len(r.headers)
	}
	return r.headers[i], r.body[i], len(r.headers)
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.headers = append(r.headers, req.Header.Clone())
	r.body = append(r.body, b)
	r.mu.Unlock()
	var in struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(b, &in)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(in.ID)+`,"result":{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"completed"}}}`)
}

func TestClientHeaderHooksAndOptions(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	if cfg.ConnectTimeout != 3*time.Second || cfg.CallTimeout != 45*time.Second {
		t.Fatalf("defaults %+v", cfg)
	}
	c, err := NewClientWithTarget(srv.URL+"/rpc", V0_3, JSON_RPC, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var methods []string
	var setErr error
	if err := c.AddHeaderHook(func(method string, h *HeaderSetter) {
		methods = append(methods, method)
		h.Set("Authorization", "Bearer from-hook")
		h.Set("X-Route", "first")
		setErr = h.Set("X-Evil", "a\r\nInjected: 1")
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.AddHeaderHook(func(method string, h *HeaderSetter) { h.Set("X-Route", "second") }); err != nil {
		t.Fatal(err)
	}
	if err := c.AddHeaderHook(func(string, *HeaderSetter) { panic("hook bug") }); err != nil {
		t.Fatal(err)
	}
	o, err := c.SendText("hello", &ClientCallOptions{IdempotencyKey: "a2a-ik1-0fdda6d44efd6b946c79c5d7ece05eec",
		MessageID: "m-fixed", Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		Headers: []Header{{"X-Call", "yes"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.Channel != ChannelTask || !o.Success || *o.TaskID != "t-1" {
		t.Fatalf("outcome %+v", o)
	}
	h, body0, n := rec.get(0)
	if n != 1 {
		t.Fatalf("%d requests", n)
	}
	if h.Get("Authorization") != "Bearer from-hook" || h.Get("X-Route") != "second" || h.Get("X-Call") != "yes" ||
		h.Get("Idempotency-Key") != "a2a-ik1-0fdda6d44efd6b946c79c5d7ece05eec" ||
		h.Get("Traceparent") != "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" || h.Get("X-Evil") != "" || h.Get("Injected") != "" {
		t.Fatalf("headers %v", h)
	}
	if !errors.Is(setErr, CodeInvalidArgument) {
		t.Fatalf("injection through the setter: %v", setErr)
	}
	// The hook sees the method's wire name of either version (the header allows both).
	isMethod := func(name string, want Method) bool { m, _, ok := MethodFromJSONRPCName(name); return ok && m == want }
	if len(methods) != 1 || !isMethod(methods[0], MethodSendMessage) {
		t.Fatalf("hook saw %v", methods)
	}
	if n, last := c.HookPanics(); n != 1 || last != "hook bug" {
		t.Fatalf("hook panics %d %q", n, last)
	}
	var body struct {
		Params struct {
			Message struct {
				MessageID string `json:"messageId"`
			} `json:"message"`
		} `json:"params"`
	}
	json.Unmarshal(body0, &body)
	if body.Params.Message.MessageID != "m-fixed" {
		t.Fatalf("messageId %s", body0)
	}
	// A fresh traceparent per call when none is given.
	o2, _ := c.GetTask("t-1", nil)
	defer o2.Close()
	h1, _, _ := rec.get(1)
	if tp := h1.Get("Traceparent"); len(tp) != 55 || tp == h.Get("Traceparent") {
		t.Fatalf("generated traceparent %q", tp)
	}
	if len(methods) != 2 || !isMethod(methods[1], MethodGetTask) {
		t.Fatalf("hook saw %v", methods)
	}
	c.Close()
	c.Close()
	if _, err := c.SendText("x", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if err := c.AddHeaderHook(func(string, *HeaderSetter) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("hook after Close: %v", err)
	}
}

func TestClientTransportOutcomes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	cfg.ConnectTimeout = time.Second
	c, err := NewClientWithTarget("http://"+addr+"/", V1_0, JSON_RPC, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o, err := c.SendText("hi", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.Channel != ChannelTransport || o.Error != NameConnectFailed || o.RequestSent != RequestSentNo || o.ModelPrefix() != "REMOTE_UNAVAILABLE" {
		t.Fatalf("connect refused %+v", o)
	}
	// A server that accepts and never answers: the call timeout, outcome unknown.
	hang, _ := net.Listen("tcp", "127.0.0.1:0")
	defer hang.Close()
	go func() {
		for {
			conn, err := hang.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
		}
	}()
	cfg.CallTimeout = 300 * time.Millisecond
	h, _ := NewClientWithTarget("http://"+hang.Addr().String()+"/", V1_0, JSON_RPC, &cfg)
	defer h.Close()
	start := time.Now()
	o2, _ := h.SendText("hi", nil)
	defer o2.Close()
	if o2.Channel != ChannelTransport || o2.Error != NameTimeout || o2.RequestSent != RequestSentUnknown ||
		o2.Retry != RetryUnknownOutcome || time.Since(start) > 5*time.Second {
		t.Fatalf("hung call after %v: %+v", time.Since(start), o2)
	}
	if line, _, _ := ModelText("hung", o2); !strings.HasPrefix(line, "REMOTE_UNKNOWN hung:") {
		t.Fatalf("model text %q", line)
	}
	// https only by default: a plain-http card URL fails construction with the outcome.
	_, err = NewClient("http://"+addr+"/", nil)
	var cre *CardResolutionError
	if !errors.As(err, &cre) || !errors.Is(err, CodeClientCardResolution) || cre.Outcome.Error != NameCardResolution ||
		cre.Outcome.RequestSent != RequestSentNo {
		t.Fatalf("card resolution: %v", err)
	}
	cre.Outcome.Close()
}

// A gateway in front of an agent that did the work: it answers every POST with a status
// (502 by default) and records the Idempotency-Key and messageId of each request.
type gateway struct {
	mu     sync.Mutex
	status int
	keys   []string
	msgIDs []string
}

func (g *gateway) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	var in struct {
		Params struct {
			Message struct {
				MessageID string `json:"messageId"`
			} `json:"message"`
		} `json:"params"`
	}
	json.Unmarshal(b, &in)
	g.mu.Lock()
	g.keys = append(g.keys, req.Header.Get("Idempotency-Key"))
	g.msgIDs = append(g.msgIDs, in.Params.Message.MessageID)
	status := g.status
	g.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	io.WriteString(w, "gateway says no\n")
}

func (g *gateway) seen() ([]string, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.keys...), append([]string(nil), g.msgIDs...)
}

// Issue 12: with SendRetries 2, a 502/504 on a send is never resent without an idempotency
// key (the upstream may have done the work: REMOTE_UNKNOWN); with a key it is resent with the
// same key and messageId; a 429 (refused before processing) is resent as is.
func TestClientGatewayErrorsAreResentOnlyWithAKey(t *testing.T) {
	for _, status := range []int{502, 504, 429} {
		g := &gateway{status: status}
		srv := httptest.NewServer(g)
		cfg := DefaultClientConfig()
		cfg.AllowHTTP = true
		cfg.SendRetries = 2
		c, err := NewClientWithTarget(srv.URL+"/rpc", V03, JSONRPC, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		o, err := c.SendText("book seat 12A", nil)
		if err != nil {
			t.Fatal(err)
		}
		keys, _ := g.seen()
		if status == 429 {
			if o.Retry != RetryBackoff || len(keys) != 3 {
				t.Fatalf("429: retry %v, %d requests, want backoff and 3", o.Retry, len(keys))
			}
		} else {
			if o.Retry != RetryUnknownOutcome || len(keys) != 1 {
				t.Fatalf("%d without a key: retry %v, %d requests, want unknown_outcome and 1", status, o.Retry, len(keys))
			}
			if line, ok, err := ModelText("booking", o); err != nil || !ok || !strings.HasPrefix(line, "REMOTE_UNKNOWN booking: HTTP ") {
				t.Fatalf("model text %q %v %v", line, ok, err)
			}
			o2, err := c.SendText("book seat 12A", &ClientCallOptions{IdempotencyKey: "go-gw-key"})
			if err != nil {
				t.Fatal(err)
			}
			o2.Close()
			keys, ids := g.seen()
			if len(keys) != 4 {
				t.Fatalf("%d with a key: %d requests, want 1+3", status, len(keys))
			}
			for i := 1; i < 4; i++ {
				if keys[i] != "go-gw-key" || ids[i] != ids[1] || ids[i] == "" {
					t.Fatalf("%d resend %d: key %q messageId %q (first %q)", status, i, keys[i], ids[i], ids[1])
				}
			}
		}
		o.Close()
		c.Close()
		srv.Close()
	}
}

// Issue 12: the breaker in the client config. After 2 counted failures (HTTP 500) the agent
// is not called again; goroutines sharing the client share its breaker.
func TestClientBreakerOpensAndIsSharedByGoroutines(t *testing.T) {
	g := &gateway{status: 500}
	srv := httptest.NewServer(g)
	defer srv.Close()
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	b := DefaultBreakerConfig()
	b.FailureThreshold, b.CoolDown = 2, time.Minute
	cfg.Breaker = &b
	c, err := NewClientWithTarget(srv.URL+"/rpc", V03, JSONRPC, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 2 {
		o, err := c.SendText("x", nil)
		if err != nil || o.Channel != ChannelHTTP {
			t.Fatalf("%v %+v", err, o)
		}
		o.Close()
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := c.SendText("x", nil)
			if err != nil || o.Error != NameCircuitOpen || o.RequestSent != RequestSentNo {
				errs <- fmt.Sprintf("%v %+v", err, o)
			}
			if o != nil {
				o.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if keys, _ := g.seen(); len(keys) != 2 {
		t.Fatalf("%d requests reached the agent, want 2", len(keys))
	}
	bad := DefaultBreakerConfig()
	bad.FailureThreshold, bad.FailureRatePercent = 0, 0
	cfg.Breaker = &bad
	if _, err := NewClientWithTarget(srv.URL+"/rpc", V03, JSONRPC, &cfg); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("invalid breaker config: %v", err)
	}
}

// holder answers each POST with a completed task only once release is closed (at most
// 20 s); arrived receives one value per request being held.
type holder struct {
	release chan struct{}
	arrived chan struct{}
}

func (h *holder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	h.arrived <- struct{}{}
	select {
	case <-h.release:
	case <-time.After(20 * time.Second):
	}
	var in struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(b, &in)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(in.ID)+`,"result":{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"completed"}}}`)
}

// Close while goroutines are inside calls on a shared client: Close waits for them (they
// complete normally), and every call after it gets ErrClosed. Run with -race in CI.
func TestClientCloseWaitsForCallsInFlight(t *testing.T) {
	const callers = 4
	h := &holder{release: make(chan struct{}), arrived: make(chan struct{}, callers)}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer func() {
		select {
		case <-h.release:
		default:
			close(h.release)
		}
	}()
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	cfg.CallTimeout = 20 * time.Second
	c, err := NewClientWithTarget(srv.URL+"/rpc", V03, JSONRPC, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan string, callers)
	for range callers {
		go func() {
			o, err := c.SendText("hold", nil)
			if err != nil {
				results <- err.Error()
				return
			}
			defer o.Close()
			if o.State == nil || *o.State != StateCompleted {
				results <- fmt.Sprintf("%+v", o)
				return
			}
			results <- ""
		}()
	}
	for range callers { // every call is inside the library, held by the server
		select {
		case <-h.arrived:
		case <-time.After(20 * time.Second):
			t.Fatal("the calls did not reach the server")
		}
	}
	closed := make(chan struct{})
	go func() {
		c.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while calls were in flight")
	case <-time.After(300 * time.Millisecond):
	}
	close(h.release)
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return after the calls ended")
	}
	for range callers {
		if r := <-results; r != "" {
			t.Error(r)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := c.SendText("late", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after Close: %v", err)
	}
}
