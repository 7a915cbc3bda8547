package a2a

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// A server that cuts the first stream after the task snapshot (the handler aborts, so the
// chunked body never ends) and serves the resubscription to the end: with
// StreamResubscribeAttempts the driver resubscribes instead of resending the message.
func TestClientResubscribesAfterACutStream(t *testing.T) {
	var sends, subscribes atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var headers []Header
		for k, vs := range r.Header {
			for _, v := range vs {
				headers = append(headers, Header{k, v})
			}
		}
		req, err := ParseJSONRPC(headers, body, nil)
		if err != nil {
			t.Errorf("parse: %v", err)
			return
		}
		defer req.Close()
		info, _ := req.Info()
		for _, h := range StreamHeaders() {
			w.Header().Set(h.Name, h.Value)
		}
		switch info.Method {
		case MethodSendStreamingMessage:
			sends.Add(1)
			f, _ := req.EventFrame([]byte(`{"task":{"id":"t-r","contextId":"c-r","status":{"state":"TASK_STATE_WORKING"}}}`))
			w.Write(f)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // cut the connection mid-stream
		case MethodSubscribeToTask:
			subscribes.Add(1)
			f, _ := req.EventFrame([]byte(`{"statusUpdate":{"taskId":"t-r","contextId":"c-r","status":{"state":"TASK_STATE_COMPLETED"}}}`))
			w.Write(f)
		default:
			t.Errorf("unexpected %v", info.Method)
		}
	}))
	defer srv.Close()
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	cfg.StreamResubscribeAttempts = 1
	c, err := NewClientWithTarget(srv.URL+"/", V1_0, JSON_RPC, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.StreamText("long job", &ClientCallOptions{IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var kinds []ClientStreamEventKind
	var resub, end ClientStreamEvent
	for {
		ev, err := s.Next()
		if errors.Is(err, ErrStreamEnded) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, ev.Kind)
		switch ev.Kind {
		case StreamEventResubscribing:
			resub = ev
		case StreamEventEnd:
			end = ev
		}
	}
	if resub.TaskID != "t-r" || resub.Attempt != 1 {
		t.Fatalf("events %v, resubscribing %+v", kinds, resub)
	}
	if end.End != EndCompleted || end.Resubscribes != 1 || end.Outcome == nil || !end.Outcome.Success {
		t.Fatalf("end %+v", end)
	}
	if sends.Load() != 1 || subscribes.Load() != 1 {
		t.Fatalf("the message was sent %d times, resubscribed %d", sends.Load(), subscribes.Load())
	}
}
