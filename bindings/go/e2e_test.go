package a2a

// End-to-end tests against a real A2A server: the Python a2a-sdk 1.3.0 peer of
// tests/peers, started by tests/peers/launch.py, which sets A2A_PEER_URL. Whole responses:
// the bytes come from net/http, the classifier, card and tally are this package's; streams
// run on the library's client machine (HTTPClient). Without A2A_PEER_URL the tests skip,
// except under CI=true, where they fail.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func peerURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("A2A_PEER_URL_PYTHON") // set by launch.py whenever the Python peer runs
	if u == "" {
		u = os.Getenv("A2A_PEER_URL")
	}
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("A2A_PEER_URL is not set under CI=true: run through tests/peers/launch.py python -- go test ./...")
		}
		t.Skip("A2A_PEER_URL not set (run through tests/peers/launch.py python -- go test ./...)")
	}
	if k := os.Getenv("A2A_PEER_KIND"); k != "" && k != "python" && os.Getenv("A2A_PEER_URL_PYTHON") == "" {
		t.Fatalf("these expectations are the Python peer's; A2A_PEER_KIND=%s", k)
	}
	return strings.TrimRight(u, "/")
}

var httpClient = &http.Client{
	Timeout: 30 * time.Second,
	// Redirects are never followed: a 3xx is an outcome (http channel, Redirect).
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

var rpcID atomic.Int64

// rpc is one JSON-RPC call as sent on the wire.
type rpc struct {
	version    ProtocolVersion
	a2aVersion string // the A2A-Version header sent ("" for none)
	method     string
	params     any
	id         int64
}

func newRPC(v ProtocolVersion, method string, params any) rpc {
	return rpc{version: v, a2aVersion: v.HeaderValue(), method: method, params: params, id: rpcID.Add(1)}
}

func (r rpc) asked() Asked {
	return Asked{Version: r.version, Binding: JSON_RPC, Method: r.method, RequestID: fmt.Sprint(r.id)}
}

func (r rpc) post(t *testing.T, url string) *http.Response {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.id, "method": r.method, "params": r.params})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.a2aVersion != "" {
		req.Header.Set("A2A-Version", r.a2aVersion)
	}
	if strings.HasPrefix(r.method, "message/stream") || r.method == "SendStreamingMessage" {
		req.Header.Set("Accept", "text/event-stream")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", r.method, err)
	}
	return resp
}

func message(v ProtocolVersion, text string) map[string]any {
	id := fmt.Sprintf("go-%d-%d", time.Now().UnixNano(), rpcID.Add(1))
	if v == V0_3 {
		return map[string]any{"message": map[string]any{"kind": "message", "role": "user", "messageId": id,
			"parts": []any{map[string]any{"kind": "text", "text": text}}}}
	}
	return map[string]any{"message": map[string]any{"role": "ROLE_USER", "messageId": id,
		"parts": []any{map[string]any{"text": text}}}}
}

// call sends r and classifies the whole response.
func call(t *testing.T, url string, r rpc) *Outcome {
	t.Helper()
	resp := r.post(t, url)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Classify(Response{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"),
		RetryAfter: resp.Header.Get("Retry-After"), Body: body, Asked: r.asked()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// machineStream streams text on the client machine (HTTPClient over net/http) to the
// interface at url in version v over JSON-RPC: the items' outcomes, the end outcome and
// the end's error.
func machineStream(t *testing.T, url string, v ProtocolVersion, text string, opts ...HTTPOption) ([]*Outcome, *Outcome, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newTestHTTPClient(t, url, append([]HTTPOption{WithInterface(v, JSON_RPC)}, opts...)...)
	var items []*Outcome
	for ev, err := range c.Stream(ctx, text, nil) {
		if ev.Kind == StreamEventEnd {
			return items, ev.Outcome, err
		}
		if err != nil {
			t.Fatalf("item error: %v", err)
		}
		items = append(items, ev.Outcome)
	}
	t.Fatal("the stream ended without an end event")
	return nil, nil, nil
}

var hex12 = regexp.MustCompile(`^[0-9a-f]{12}$`)

func TestE2EPythonPeer(t *testing.T) {
	base := peerURL(t)

	// The card: location, parse, resolve (plain http allowed for the loopback test peer).
	cardURL, _, err := CardLocation(base)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := httpClient.Get(cardURL)
	if err != nil {
		t.Fatal(err)
	}
	cardBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	card, err := ParseCard(cardBody)
	if err != nil {
		t.Fatalf("card %s: %v", cardBody, err)
	}
	defer card.Close()
	info, err := card.Info()
	if err != nil || !info.Streaming || info.Shape != CardHybrid {
		t.Fatalf("card info %+v %v", info, err)
	}
	if _, err := card.Resolve(cardURL, nil, nil); CardErrorKind(err) != "plain_http" {
		t.Fatalf("an http card URL without AllowHTTP: %v", err)
	}
	policy := &CardPolicy{AllowHTTP: true}
	v10, err := card.Resolve(cardURL, &CardPreferences{Versions: []ProtocolVersion{V1_0}, Bindings: []Binding{JSON_RPC}}, policy)
	if err != nil || v10.Version != V1_0 || v10.Binding != JSON_RPC || !v10.SameOrigin || v10.HostClass != AddressLoopback {
		t.Fatalf("1.0 JSON-RPC interface: %+v %v", v10, err)
	}
	v03, err := card.Resolve(cardURL, &CardPreferences{Versions: []ProtocolVersion{V0_3}, Bindings: []Binding{JSON_RPC}}, policy)
	if err != nil || v03.Version != V0_3 {
		t.Fatalf("0.3 JSON-RPC interface: %+v %v", v03, err)
	}
	tally, _ := NewTally()
	defer tally.Close()
	record := func(method string, o *Outcome) {
		if err := tally.Record("py-peer", method, o); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("1.0 SendMessage echo completes", func(t *testing.T) {
		r := newRPC(V1_0, "SendMessage", message(V1_0, "echo hello"))
		o := call(t, v10.URL, r)
		record(r.method, o)
		if o.Channel != ChannelTask || *o.State != StateCompleted || !o.Success || o.Retry != RetryNone ||
			o.TaskID == nil || o.Version != V1_0 {
			t.Fatalf("%+v", o)
		}
		if _, ok, _ := ModelText("py-peer", o); ok {
			t.Fatal("a success has no model line")
		}
	})

	t.Run("0.3 message/send fail carries an error_id", func(t *testing.T) {
		r := newRPC(V0_3, "message/send", message(V0_3, "fail"))
		o := call(t, v03.URL, r)
		record(r.method, o)
		if o.Channel != ChannelTask || *o.State != StateFailed || !o.Terminal || o.Retry != RetryNewTask ||
			o.ErrorID == nil || !hex12.MatchString(*o.ErrorID) || o.Text == nil {
			t.Fatalf("%+v", o)
		}
		if id, ok := ExtractErrorID(*o.Text); !ok || id != *o.ErrorID {
			t.Fatalf("error_id %q in %q", id, *o.Text)
		}
		line, ok, err := ModelText("py-peer", o)
		if err != nil || !ok || !strings.HasPrefix(line, "REMOTE_FAILED py-peer: ") || !strings.Contains(line, "(error_id: "+*o.ErrorID+")") {
			t.Fatalf("model text %q %v %v", line, ok, err)
		}
		if counts, _ := o.CountsTowardBreaker(); counts {
			t.Fatal("a FAILED task must not open the breaker: the remote is up")
		}
	})

	t.Run("1.0 method without A2A-Version is a version mismatch", func(t *testing.T) {
		r := newRPC(V1_0, "SendMessage", message(V1_0, "echo x"))
		r.a2aVersion = ""
		o := call(t, v10.URL, r)
		record(r.method, o)
		if o.Channel != ChannelProtocol || o.Error != NameVersionNotSupported || *o.Code != -32009 ||
			o.Retry != RetryFixVersion || o.Hint == nil || *o.HTTPStatus != 200 {
			t.Fatalf("%+v", o)
		}
	})

	t.Run("0.3 method with A2A-Version 1.0 is a version mismatch, not an internal error", func(t *testing.T) {
		r := newRPC(V0_3, "message/send", message(V0_3, "echo x"))
		r.a2aVersion = "1.0"
		o := call(t, v03.URL, r)
		if o.Channel != ChannelProtocol || *o.Code != -32603 || o.Retry != RetryFixVersion || o.Hint == nil {
			t.Fatalf("%+v", o)
		}
	})

	t.Run("tasks/get of an unknown task", func(t *testing.T) {
		r := newRPC(V0_3, "tasks/get", map[string]any{"id": "no-such-task"})
		o := call(t, v03.URL, r)
		record(r.method, o)
		if o.Channel != ChannelProtocol || o.Error != NameTaskNotFound || o.Retry != RetryNever {
			t.Fatalf("%+v", o)
		}
	})

	t.Run("a direct message reply", func(t *testing.T) {
		r := newRPC(V1_0, "SendMessage", message(V1_0, "message hi there"))
		o := call(t, v10.URL, r)
		record(r.method, o)
		if o.Channel != ChannelMessage || !o.Success || o.Text == nil || *o.Text != "hi there" {
			t.Fatalf("%+v", o)
		}
	})

	t.Run("0.3 message/stream stream 3 on the machine", func(t *testing.T) {
		// (HTTPClient's outcomes are Go values without a library handle: not for the tally.)
		items, end, err := machineStream(t, v03.URL, V0_3, "stream 3")
		var texts []string
		for _, o := range items {
			if o.Text != nil && strings.HasPrefix(*o.Text, "chunk ") {
				texts = append(texts, *o.Text)
			}
		}
		if strings.Join(texts, ",") != "chunk 0,chunk 1,chunk 2" || len(items) != 6 {
			t.Fatalf("%d items, texts %v", len(items), texts)
		}
		if err != nil || *end.State != StateCompleted || !end.Success {
			t.Fatalf("end %+v %v", end, err)
		}
	})

	t.Run("1.0 SendStreamingMessage input ends interrupted", func(t *testing.T) {
		_, end, err := machineStream(t, v10.URL, V1_0, "input")
		if err == nil || *end.State != StateInputRequired || end.TaskID == nil || end.ExitCode != 6 {
			t.Fatalf("end %+v %v", end, err)
		}
	})

	t.Run("1.0 SendStreamingMessage crash is an error event", func(t *testing.T) {
		_, end, err := machineStream(t, v10.URL, V1_0, "crash")
		if err == nil || end.Channel != ChannelProtocol || *end.Code != -32603 {
			t.Fatalf("end %+v %v", end, err)
		}
	})

	t.Run("keep-alive comments during a slow stream", func(t *testing.T) {
		// The peer runs with --ping 1 under scripts/ci/50-go.sh: a 1 s idle timeout is
		// then kept alive by its comments for the 2.5 s the task takes.
		var opts []HTTPOption
		if os.Getenv("A2A_PEER_PING") == "1" {
			opts = append(opts, WithStreamIdleTimeout(1500*time.Millisecond))
		}
		_, end, err := machineStream(t, v10.URL, V1_0, "slow 2.5", opts...)
		if err != nil || !end.Success {
			t.Fatalf("end %+v %v", end, err)
		}
	})

	t.Run("connect refused is REMOTE_UNAVAILABLE and counts toward the breaker", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, derr := net.DialTimeout("tcp", addr, time.Second)
		if derr == nil {
			t.Skip("something listens on the released port")
		}
		o, err := NewTransportOutcome(NameConnectFailed, RequestSentNo, derr.Error())
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		line, _, _ := ModelText("gone", o)
		if !strings.HasPrefix(line, "REMOTE_UNAVAILABLE gone: the request was not sent") {
			t.Fatalf("model text %q", line)
		}
		if counts, err := o.CountsTowardBreaker(); err != nil || !counts {
			t.Fatalf("a refused connection counts toward the breaker: %v %v", counts, err)
		}
	})

	prom, err := tally.Prometheus()
	if err != nil || !strings.Contains(prom, "a2a_outcomes_total{") || !strings.Contains(prom, `agent="py-peer"`) {
		t.Fatalf("prometheus %q %v", prom, err)
	}
	if n, _ := tally.Count("py-peer", "tasks/get", ChannelProtocol, "TaskNotFound"); n != 1 {
		t.Errorf("tally TaskNotFound count %d\n%s", n, prom)
	}
	if tally.Total() < 5 {
		t.Errorf("tally total %d\n%s", tally.Total(), prom)
	}
}
