package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkClientSendText is one SendText through the reference driver per iteration,
// against a loopback server in this process that answers a 0.3 JSON-RPC send at once with
// a completed task (the per-call cost of the binding and the driver, on a keep-alive
// connection). Every answer is checked.
func BenchmarkClientSendText(b *testing.B) {
	srv := httptest.NewServer(benchSendHandler())
	defer srv.Close()
	c := benchClient(b, srv.URL)
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		o, err := c.SendText("hi", nil)
		if err != nil {
			b.Fatal(err)
		}
		if !o.Success || o.TaskID == nil || *o.TaskID != "task-1" || o.Result == nil {
			b.Fatalf("unexpected outcome: %+v", o)
		}
		o.Close()
	}
}

// benchSendHandler answers a 0.3 JSON-RPC send at once with a completed task.
func benchSendHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"artifacts":[{"artifactId":"a-1","parts":[{"kind":"text","text":"hello"}]}],"contextId":"ctx-1","id":"task-1","kind":"task","status":{"state":"completed","timestamp":"2026-01-01T00:00:00Z"}}}`, req.ID)
	})
}

// BenchmarkHTTPClientSendText is BenchmarkClientSendText through HTTPClient: the client
// machine driven over net/http (DefaultHTTPClient), 0.3 JSON-RPC named with WithInterface.
// For a profile of the binding's side: go test -run '^$' -bench HTTPClientSendText
// -cpuprofile cpu.out (the server's handler runs in the same process).
func BenchmarkHTTPClientSendText(b *testing.B) {
	srv := httptest.NewServer(benchSendHandler())
	defer srv.Close()
	ctx := context.Background()
	c, err := NewHTTPClient(ctx, srv.URL, WithAllowHTTP(true), WithInterface(V0_3, JSON_RPC))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		o, err := c.SendText(ctx, "hi", nil)
		if err != nil {
			b.Fatal(err)
		}
		if !o.Success || o.TaskID == nil || *o.TaskID != "task-1" || o.Result == nil {
			b.Fatalf("unexpected outcome: %+v", o)
		}
		o.Close()
	}
}

// BenchmarkClientStreamText is one StreamText of 200 events through the reference driver per
// iteration (a submitted task, a working status, 197 artifact updates with distinct ids,
// the completed status), against a loopback server in this process that writes them at
// once in one response: the binding's and the driver's cost per stream item. Every item
// and the assembled answer are checked.
func BenchmarkClientStreamText(b *testing.B) {
	const events = 200
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var body strings.Builder
		ev := func(id json.RawMessage, result string) {
			fmt.Fprintf(&body, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, result)
		}
		ev(req.ID, `{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"submitted"}}`)
		ev(req.ID, `{"kind":"status-update","taskId":"task-1","contextId":"ctx-1","status":{"state":"working"},"final":false}`)
		for i := range events - 3 {
			ev(req.ID, fmt.Sprintf(`{"kind":"artifact-update","taskId":"task-1","contextId":"ctx-1","artifact":{"artifactId":"chunk-%d","parts":[{"kind":"text","text":"chunk %d"}]},"lastChunk":true}`, i, i))
		}
		ev(req.ID, `{"kind":"status-update","taskId":"task-1","contextId":"ctx-1","status":{"state":"completed","timestamp":"2026-01-01T00:00:00Z"},"final":true}`)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body.String())
	}))
	defer srv.Close()
	c := benchClient(b, srv.URL)
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		s, err := c.StreamText("hi", nil)
		if err != nil {
			b.Fatal(err)
		}
		items, last := 0, ""
		for {
			ev, err := s.Next()
			if err != nil {
				b.Fatal(err)
			}
			if ev.Kind == StreamEventItem {
				items++
				if u := ev.Item.Outcome.Result.Update; u != nil && u.Artifact != nil {
					last = u.Artifact.Parts[0].Text
				}
				continue
			}
			if ev.Kind != StreamEventEnd || ev.Outcome.State == nil || *ev.Outcome.State != StateCompleted ||
				len(ev.Outcome.Result.Task.Artifacts) != events-3 {
				b.Fatalf("unexpected end: %+v", ev)
			}
			break
		}
		if items != events || last != fmt.Sprintf("chunk %d", events-4) {
			b.Fatalf("%d items, last %q", items, last)
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
}

// benchClient is a 0.3 JSON-RPC client of the loopback test server at url.
func benchClient(b *testing.B, url string) *Client {
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	c, err := NewClientWithTarget(url+"/", V03, JSONRPC, &cfg)
	if err != nil {
		b.Fatal(err)
	}
	return c
}
