package a2a

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHTTPClientBreakerOpensAndIsShared: with WithBreaker (2 counted failures open it for a
// minute), two sends answered 500 reach the agent, then four concurrent sends on the same
// client are refused unsent (transport CircuitOpen, RequestSentNo), on both byte movers.
func TestHTTPClientBreakerOpensAndIsShared(t *testing.T) {
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			var calls atomic.Int32
			var srv *httptest.Server
			srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/.well-known/") {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(rowCard(srv.URL+"/", "1.0", "jsonrpc")))
					return
				}
				calls.Add(1)
				http.Error(w, "down", http.StatusInternalServerError)
			}))
			srv.Start()
			defer srv.Close()
			cfg := DefaultBreakerConfig()
			cfg.FailureThreshold, cfg.CoolDown = 2, time.Minute
			c := newTestHTTPClient(t, srv.URL, append([]HTTPOption{WithBreaker(cfg)}, p.opts...)...)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for range 2 {
				o, err := c.SendText(ctx, "x", nil)
				if st, _ := o.GetHTTPStatus(); err == nil || o.Channel != ChannelHTTP || st != 500 {
					t.Fatalf("%v %+v", err, o)
				}
			}
			var wg sync.WaitGroup
			errs := make(chan string, 4)
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o, err := c.SendText(ctx, "x", nil)
					var oe *OutcomeError
					if !errors.As(err, &oe) || o.Error != NameCircuitOpen || o.RequestSent != RequestSentNo {
						errs <- fmt.Sprintf("%v %+v", err, o)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			if n := calls.Load(); n != 2 {
				t.Fatalf("%d requests reached the agent, want 2", n)
			}
		})
	}
	// A breaker the library cannot run is refused before anything is sent.
	_, err := NewHTTPClient(context.Background(), "http://127.0.0.1:1/", WithInterface(V1_0, JSON_RPC),
		WithBreaker(BreakerConfig{}))
	if err == nil {
		t.Fatal("a breaker without an opening rule was accepted")
	}
}
