package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// cachingAgent is a 0.3 JSON-RPC agent on loopback whose card answers carry an ETag and
// cacheControl, 304 to a matching If-None-Match; it records the If-None-Match of every
// card request and the body of every call.
type cachingAgent struct {
	srv          *httptest.Server
	mu           sync.Mutex
	cardRequests []string
	notModified  int
	calls        []map[string]any
}

func newCachingAgent(t *testing.T, cacheControl string) *cachingAgent {
	t.Helper()
	a := &cachingAgent{}
	a.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			inm := r.Header.Get("If-None-Match")
			a.cardRequests = append(a.cardRequests, inm)
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Cache-Control", cacheControl)
			if inm == `"v1"` {
				a.notModified++
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"protocolVersion":"0.3.0","name":"cached","description":"d","url":%q,"preferredTransport":"JSONRPC","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, a.srv.URL+"/a2a")
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(raw, &req)
		a.calls = append(a.calls, req)
		id, _ := json.Marshal(req["id"])
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"completed"}}}`, id)
	}))
	a.srv.Start()
	t.Cleanup(a.srv.Close)
	return a
}

func (a *cachingAgent) seen() ([]string, int, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.cardRequests...), a.notModified, len(a.calls)
}

func sendOnce(t *testing.T, url string, opts ...HTTPOption) {
	t.Helper()
	c := newTestHTTPClient(t, url, opts...)
	if _, err := c.SendText(context.Background(), "hi", nil); err != nil {
		t.Fatalf("send: %v", err)
	}
	c.Close()
}

func TestHTTPClientCardCacheFreshThenRevalidated(t *testing.T) {
	a := newCachingAgent(t, "max-age=1")
	sendOnce(t, a.srv.URL)
	sendOnce(t, a.srv.URL) // within max-age: no card request
	if reqs, _, calls := a.seen(); len(reqs) != 1 || reqs[0] != "" || calls != 2 {
		t.Fatalf("within max-age: card requests %q, calls %d", reqs, calls)
	}
	time.Sleep(1200 * time.Millisecond) // past max-age=1 (a bound, not a speed assertion)
	sendOnce(t, a.srv.URL)
	reqs, notModified, calls := a.seen()
	if len(reqs) != 2 || reqs[1] != `"v1"` || notModified != 1 || calls != 3 {
		t.Fatalf("after max-age: card requests %q, 304s %d, calls %d", reqs, notModified, calls)
	}
	// Off: fetched every time, unconditionally.
	sendOnce(t, a.srv.URL, WithCardCache(false))
	if reqs, _, _ := a.seen(); len(reqs) != 3 || reqs[2] != "" {
		t.Fatalf("WithCardCache(false): card requests %q", reqs)
	}
}

func TestHTTPClientCardCacheNoStoreIsNeverCached(t *testing.T) {
	a := newCachingAgent(t, "no-store")
	for range 3 {
		sendOnce(t, a.srv.URL)
	}
	if reqs, _, _ := a.seen(); len(reqs) != 3 || strings.Join(reqs, "") != "" {
		t.Fatalf("no-store: card requests %q", reqs)
	}
}

func TestMinProtocolRefusesAnOlderCardNothingSent(t *testing.T) {
	a := newCachingAgent(t, "no-store")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, opts := range [][]HTTPOption{{WithMinProtocol(V1_0)}, {WithMinProtocol(V1_0), WithReferenceDriver()}} {
		_, err := NewHTTPClient(ctx, a.srv.URL, opts...)
		var oe *OutcomeError
		if !errors.As(err, &oe) || oe.Outcome.Error != NameCardResolution || oe.Outcome.Message == nil ||
			!strings.Contains(*oe.Outcome.Message, "none older than 1.0") {
			t.Fatalf("min 1.0 on a 0.3 card: %v", err)
		}
	}
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	cfg.MinProtocol = V1_0
	var cre *CardResolutionError
	if _, err := NewClient(a.srv.URL, &cfg); !errors.As(err, &cre) || cre.Outcome.Error != NameCardResolution {
		t.Fatalf("driver, min 1.0 on a 0.3 card: %v", err)
	}
	if _, _, calls := a.seen(); calls != 0 {
		t.Fatalf("%d calls reached the agent", calls)
	}
	// A known interface older than the minimum is refused on both paths.
	if _, err := NewHTTPClient(ctx, a.srv.URL+"/a2a", WithInterface(V0_3, JSON_RPC), WithMinProtocol(V1_0)); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("WithInterface(0.3) under min 1.0: %v", err)
	}
	if _, err := NewClientWithTarget(a.srv.URL+"/a2a", V0_3, JSON_RPC, &cfg); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("NewClientWithTarget(0.3) under min 1.0: %v", err)
	}
	// 0.3 allowed: resolved and used.
	sendOnce(t, a.srv.URL, WithMinProtocol(V0_3))
}

func TestClientReturnImmediatelyReachesTheAgent(t *testing.T) {
	a := newCachingAgent(t, "no-store")
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	c, err := NewClient(a.srv.URL, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.SendText("hi", &ClientCallOptions{ReturnImmediately: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendText("hi", nil); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	conf, _ := a.calls[0]["params"].(map[string]any)["configuration"].(map[string]any)
	if conf["blocking"] != false {
		t.Fatalf("return immediately: configuration %v", conf)
	}
	if conf, _ := a.calls[1]["params"].(map[string]any)["configuration"].(map[string]any); conf["blocking"] != nil {
		t.Fatalf("default: configuration %v", conf)
	}
}
