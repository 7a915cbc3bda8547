package a2a

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkClientSendText is one SendText through the reference driver per iteration,
// against a loopback server in this process that answers a 0.3 JSON-RPC send at once with
// a completed task (the per-call cost of the binding and the driver, on a keep-alive
// connection). Every answer is checked.
func BenchmarkClientSendText(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	}))
	defer srv.Close()
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	c, err := NewClientWithTarget(srv.URL+"/", V03, JSONRPC, &cfg)
	if err != nil {
		b.Fatal(err)
	}
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
