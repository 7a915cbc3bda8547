package a2a

// End-to-end tests against a real A2A server: the Python a2a-sdk 1.3.0 peer of
// tests/peers, started by tests/peers/launch.py, which sets A2A_PEER_URL. The bytes come
// from net/http; the decoder, classifier, tracker, card, policy and tally are this
// package's. Without A2A_PEER_URL the tests skip, except under CI=true, where they fail.

import (
	"bytes"
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

// streamResult is what one streaming call produced.
type streamResult struct {
	items    []*StreamItem
	comments int
	end      StreamEnd
	outcome  *Outcome
	reads    int
}

// stream sends r and reads the body in small reads (so events arrive split across
// chunks), through Decoder and StreamTracker, until the tracker says the interaction is
// over or the body ends.
func stream(t *testing.T, url string, r rpc, idle time.Duration) streamResult {
	t.Helper()
	resp := r.post(t, url)
	defer resp.Body.Close()
	tr, err := NewStreamTracker(r.asked(), idle, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var res streamResult
	if !IsEventStream(resp.Header.Get("Content-Type")) {
		body, _ := io.ReadAll(resp.Body)
		o, err := tr.OnNonSSEBody(Response{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: body})
		if err != nil {
			t.Fatal(err)
		}
		o.Close()
	} else {
		dec, err := NewDecoder(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		buf := make([]byte, 61)
		for !tr.IsOver() {
			n, rerr := resp.Body.Read(buf)
			if n > 0 {
				res.reads++
				now := time.Now()
				if err := tr.OnBytes(now); err != nil {
					t.Fatal(err)
				}
				evs, err := dec.FeedItems(buf[:n])
				if err != nil {
					t.Fatal(err)
				}
				for _, ev := range evs {
					if ev.Kind == KindComment {
						res.comments++
					}
					item, err := tr.OnSSE(now, ev)
					if err != nil {
						t.Fatal(err)
					}
					if item != nil {
						res.items = append(res.items, item)
					}
				}
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				t.Fatalf("read: %v", rerr)
			}
		}
		if _, err := dec.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	res.end, res.outcome, err = tr.Finish()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.outcome.Close() })
	return res
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
		p, _ := NewRetryPolicy(DefaultRetryConfig(CallRead), time.Now())
		defer p.Close()
		if a, err := p.Next(o, time.Now()); err != nil || a.Kind != ActionGiveUp || a.GiveUp != GiveUpNotRetryable {
			t.Fatalf("policy %+v %v", a, err)
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

	t.Run("0.3 message/stream stream 3", func(t *testing.T) {
		r := newRPC(V0_3, "message/stream", message(V0_3, "stream 3"))
		res := stream(t, v03.URL, r, 10*time.Second)
		record(r.method, res.outcome)
		var kinds []string
		var artifacts []string
		for _, it := range res.items {
			kinds = append(kinds, it.Kind.String())
			if it.Kind == ItemArtifactUpdate {
				artifacts = append(artifacts, *it.ArtifactID)
				if !it.LastChunk {
					t.Errorf("artifact %s without lastChunk", *it.ArtifactID)
				}
			}
		}
		want := "task status-update artifact-update artifact-update artifact-update status-update"
		if strings.Join(kinds, " ") != want || strings.Join(artifacts, ",") != "chunk-0,chunk-1,chunk-2" {
			t.Fatalf("items %v %v", kinds, artifacts)
		}
		last := res.items[len(res.items)-1]
		if last.Final == nil || !*last.Final || !last.EndsStream {
			t.Fatalf("last item %+v", last)
		}
		if res.end != EndCompleted || *res.outcome.State != StateCompleted || !res.outcome.Success || res.reads < 2 {
			t.Fatalf("end %v %+v after %d reads", res.end, res.outcome, res.reads)
		}
	})

	t.Run("1.0 SendStreamingMessage input ends interrupted", func(t *testing.T) {
		r := newRPC(V1_0, "SendStreamingMessage", message(V1_0, "input"))
		res := stream(t, v10.URL, r, 10*time.Second)
		record(r.method, res.outcome)
		if res.end != EndInterrupted || *res.outcome.State != StateInputRequired || res.outcome.TaskID == nil {
			t.Fatalf("end %v %+v", res.end, res.outcome)
		}
		if p := res.outcome.ModelPrefix(); p != "REMOTE_NEEDS_INPUT" {
			t.Fatalf("prefix %q", p)
		}
	})

	t.Run("1.0 SendStreamingMessage crash is an error event", func(t *testing.T) {
		r := newRPC(V1_0, "SendStreamingMessage", message(V1_0, "crash"))
		res := stream(t, v10.URL, r, 10*time.Second)
		record(r.method, res.outcome)
		if res.end != EndError || res.outcome.Channel != ChannelProtocol || *res.outcome.Code != -32603 {
			t.Fatalf("end %v %+v", res.end, res.outcome)
		}
	})

	t.Run("streaming without A2A-Version answers plain JSON", func(t *testing.T) {
		r := newRPC(V1_0, "SendStreamingMessage", message(V1_0, "stream 1"))
		r.a2aVersion = ""
		res := stream(t, v10.URL, r, 10*time.Second)
		if res.end != EndNotAStream || res.outcome.Error != NameVersionNotSupported || res.outcome.Retry != RetryFixVersion {
			t.Fatalf("end %v %+v", res.end, res.outcome)
		}
	})

	t.Run("keep-alive comments during a slow stream", func(t *testing.T) {
		// The peer runs with --ping 1 under scripts/ci/50-go.sh; with the SDK's default
		// (15 s) there is no comment within 2.5 s, so only count when one is expected.
		r := newRPC(V1_0, "SendStreamingMessage", message(V1_0, "slow 2.5"))
		res := stream(t, v10.URL, r, 10*time.Second)
		if res.end != EndCompleted || !res.outcome.Success {
			t.Fatalf("end %v %+v", res.end, res.outcome)
		}
		if os.Getenv("A2A_PEER_PING") == "1" && res.comments == 0 {
			t.Fatal("no keep-alive comment in 2.5 s with --ping 1")
		}
		t.Logf("%d keep-alive comments", res.comments)
	})

	t.Run("a stalled stream times out through the tracker", func(t *testing.T) {
		r := newRPC(V1_0, "SendStreamingMessage", message(V1_0, "slow 3"))
		resp := r.post(t, v10.URL)
		defer resp.Body.Close()
		start := time.Now()
		tr, _ := NewStreamTracker(r.asked(), 700*time.Millisecond, start)
		defer tr.Close()
		dec, _ := NewDecoder(nil)
		defer dec.Close()
		// Read the first events, then stop reading until the deadline passes (the peer
		// sends nothing for 3 s unless it pings).
		deadline, ok := tr.NextDeadline()
		if !ok || deadline.Sub(start) != 700*time.Millisecond {
			t.Fatalf("deadline %v %v", deadline, ok)
		}
		buf := make([]byte, 4096)
		for tr.Events() < 2 {
			n, err := resp.Body.Read(buf)
			now := time.Now()
			tr.OnBytes(now)
			evs, _ := dec.Feed(buf[:n])
			for _, ev := range evs {
				tr.OnSSE(now, ev)
			}
			if err != nil {
				t.Fatalf("stream ended early: %v", err)
			}
		}
		deadline, _ = tr.NextDeadline()
		if o, _ := tr.OnTimeout(deadline.Add(-time.Millisecond)); o != nil {
			t.Fatal("timed out before the deadline")
		}
		o, err := tr.OnTimeout(deadline)
		if err != nil || o == nil {
			t.Fatalf("no timeout at the deadline: %v", err)
		}
		defer o.Close()
		id, _ := tr.TaskID()
		if o.Channel != ChannelTransport || o.Error != NameTimeout || o.Retry != RetryResubscribe ||
			o.TaskID == nil || *o.TaskID != id || o.ModelPrefix() != "REMOTE_UNKNOWN" {
			t.Fatalf("timeout outcome %+v", o)
		}
		if end, _, _ := tr.Finish(); end != EndTimedOut {
			t.Fatalf("end %v", end)
		}
	})

	t.Run("raw TCP: the library's HTTP/1.1 writer and reader, decoder and tracker", func(t *testing.T) {
		// No net/http: the request is serialized by AppendRequest, the response read by
		// ResponseReader from 37-byte socket reads, its body fed to the decoder.
		r := newRPC(V1_0, "SendStreamingMessage", message(V1_0, "stream 2"))
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.id, "method": r.method, "params": r.params})
		req, err := AppendRequest(nil, "POST", v10.Path, fmt.Sprintf("%s:%d", v10.Host, v10.Port),
			[]Header{{"Content-Type", "application/json"}, {"Accept", "text/event-stream"}, {"A2A-Version", "1.0"}}, body)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("%s:%d", v10.Host, v10.Port), 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		if _, err := conn.Write(req); err != nil {
			t.Fatal(err)
		}
		rr, _ := NewResponseReader("POST", nil)
		defer rr.Close()
		dec, _ := NewDecoder(nil)
		defer dec.Close()
		tr, _ := NewStreamTracker(r.asked(), 10*time.Second, time.Now())
		defer tr.Close()
		var pending []byte
		var kinds []string
		read := make([]byte, 37)
		for !rr.IsDone() && !tr.IsOver() {
			n, rerr := conn.Read(read)
			now := time.Now()
			pending = append(pending, read[:n]...)
			for {
				st, err := rr.Feed(pending)
				if err != nil {
					t.Fatal(err)
				}
				switch st.Event {
				case HTTP1HeadDone:
					head, _ := rr.Head()
					if ct, _ := head.Get("content-type"); head.Status != 200 || !IsEventStream(ct) || head.Framing != FramingChunked {
						t.Fatalf("head %+v", head)
					}
				case HTTP1Body:
					tr.OnBytes(now)
					evs, err := dec.Feed(st.Body)
					if err != nil {
						t.Fatal(err)
					}
					for _, ev := range evs {
						if it, _ := tr.OnSSE(now, ev); it != nil {
							kinds = append(kinds, it.Kind.String())
						}
					}
				}
				pending = pending[st.Consumed:]
				if st.Event == HTTP1NeedMore || st.Event == HTTP1End {
					break
				}
			}
			if rerr != nil {
				if err := rr.Finish(); err != nil && !tr.IsOver() {
					t.Fatalf("read %v; reader %v", rerr, err)
				}
				break
			}
		}
		end, o, err := tr.Finish()
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if end != EndCompleted || !o.Success || strings.Join(kinds, " ") != "task status-update artifact-update artifact-update status-update" {
			t.Fatalf("end %v %+v items %v", end, o, kinds)
		}
	})

	t.Run("connect refused is REMOTE_UNAVAILABLE and opens the breaker", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		b, _ := NewBreaker("gone", BreakerConfig{FailureThreshold: 2, Window: time.Minute, Buckets: 6, CoolDown: time.Minute, HalfOpenTrials: 1})
		defer b.Close()
		for range 2 {
			now := time.Now()
			if !b.Allow(now) {
				t.Fatal("refused too early")
			}
			_, derr := net.DialTimeout("tcp", addr, time.Second)
			if derr == nil {
				t.Skip("something listens on the released port")
			}
			o, err := NewTransportOutcome(NameConnectFailed, RequestSentNo, derr.Error())
			if err != nil {
				t.Fatal(err)
			}
			line, _, _ := ModelText("gone", o)
			if !strings.HasPrefix(line, "REMOTE_UNAVAILABLE gone: the request was not sent") {
				t.Fatalf("model text %q", line)
			}
			b.Record(o, now)
			o.Close()
		}
		if b.Allow(time.Now()) || b.State(time.Now()) != BreakerOpen {
			t.Fatal("the breaker did not open")
		}
	})

	prom, err := tally.Prometheus()
	if err != nil || !strings.Contains(prom, "a2a_outcomes_total{") || !strings.Contains(prom, `agent="py-peer"`) {
		t.Fatalf("prometheus %q %v", prom, err)
	}
	if n, _ := tally.Count("py-peer", "tasks/get", ChannelProtocol, "TaskNotFound"); n != 1 {
		t.Errorf("tally TaskNotFound count %d\n%s", n, prom)
	}
	if tally.Total() < 8 {
		t.Errorf("tally total %d\n%s", tally.Total(), prom)
	}
}
