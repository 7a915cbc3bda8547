package a2a

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Issue 21: framing and protocol headers are the client's. HeaderSetter.Set refuses them
// with CodeRequestReservedHeader and the call is refused before anything is sent
// (InvalidRequest, request_sent = no, naming the header), even when the hook ignores the
// error; A2A-Extensions stays settable.
func TestHeaderHookCannotSetReservedHeaders(t *testing.T) {
	var arrived atomic.Int32
	rec := &recorder{}
	srv := httptest.NewServer(countRequests(&arrived, rec))
	defer srv.Close()
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	for _, name := range []string{"Content-Length", "Host", "A2A-Version", "Transfer-Encoding", "Connection"} {
		c, err := NewClientWithTarget(srv.URL+"/rpc", V1_0, JSON_RPC, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		var setErr error
		if err := c.AddHeaderHook(func(_ string, h *HeaderSetter) {
			h.Set("Authorization", "Bearer t")
			setErr = h.Set(name, "0")
		}); err != nil {
			t.Fatal(err)
		}
		o, err := c.SendText("hello", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(setErr, CodeRequestReservedHeader) {
			t.Fatalf("%s: Set returned %v", name, setErr)
		}
		if o.Channel != ChannelTransport || o.Error != NameInvalidRequest || o.RequestSent != RequestSentNo ||
			o.Retry != RetryNever || o.Message == nil || !strings.Contains(*o.Message, name) {
			t.Fatalf("%s: outcome %+v", name, o)
		}
		o.Close()
		s, err := c.StreamText("hello", nil)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := s.Next()
		if err != nil || ev.Kind != StreamEventEnd || ev.Outcome.Error != NameInvalidRequest {
			t.Fatalf("%s: stream %+v %v", name, ev, err)
		}
		s.Close()
		c.Close()
	}
	if n := arrived.Load(); n != 0 {
		t.Fatalf("%d requests arrived", n)
	}

	// The caller's headers still go out.
	c, err := NewClientWithTarget(srv.URL+"/rpc", V0_3, JSON_RPC, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var setErr error
	c.AddHeaderHook(func(_ string, h *HeaderSetter) { setErr = h.Set("X-A2A-Extensions", "urn:ext") })
	o, err := c.SendText("hello", nil)
	if err != nil || setErr != nil || !o.Success {
		t.Fatalf("extensions: %v %v %+v", err, setErr, o)
	}
	o.Close()
	if h, _, n := rec.get(0); n != 1 || h.Get("X-A2A-Extensions") != "urn:ext" {
		t.Fatalf("%d requests, headers %v", n, h)
	}
}

// countRequests counts every request that reaches next, before next reads it.
func countRequests(n *atomic.Int32, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		next.ServeHTTP(w, r)
	})
}
