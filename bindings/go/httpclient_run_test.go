package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The reference driver's mode runs each call with a2a_call_run: these check, on both byte
// movers, what that loop must keep from the net/http one (a stream read as it arrives, a
// context ending a blocked read or a hung send, concurrent calls on one transport).

// TestHTTPClientBothPathsStreamItemsAsTheyArrive: the first item of a stream whose agent
// then goes silent is yielded while the stream is open, and breaking out of the loop
// closes the response, on both paths.
func TestHTTPClientBothPathsStreamItemsAsTheyArrive(t *testing.T) {
	srv, closed := hangServer(t)
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			c := newTestHTTPClient(t, srv.URL, p.opts...)
			n := 0
			for ev, err := range c.Stream(context.Background(), "go", nil) {
				if err != nil || ev.Kind != StreamEventItem || ev.Outcome == nil || ev.Outcome.State == nil ||
					*ev.Outcome.State != StateWorking {
					t.Fatalf("first event: %v %+v", err, ev)
				}
				n++
				break
			}
			if n != 1 {
				t.Fatalf("items %d", n)
			}
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("breaking out of the loop did not close the response")
			}
		})
	}
}

// TestHTTPClientBothPathsCancelMidStream: a context cancelled after the first item, while
// the stream is blocked waiting for the next, ends it with a transport outcome wrapping
// context.Canceled and closes the response, on both paths.
func TestHTTPClientBothPathsCancelMidStream(t *testing.T) {
	srv, closed := hangServer(t)
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			c := newTestHTTPClient(t, srv.URL, append([]HTTPOption{WithStreamIdleTimeout(30 * time.Second)}, p.opts...)...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			items, ends := 0, 0
			done := make(chan struct{})
			go func() {
				defer close(done)
				for ev, err := range c.Stream(ctx, "go", nil) {
					switch ev.Kind {
					case StreamEventItem:
						items++
						cancel()
					case StreamEventEnd:
						ends++
						if !errors.Is(err, context.Canceled) || ev.Outcome == nil || ev.Outcome.Channel != ChannelTransport {
							t.Errorf("end: want a transport outcome wrapping context.Canceled, got %v %+v", err, ev.Outcome)
						}
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second): // generous: correctness, not speed
				t.Fatal("a cancelled context did not end the blocked stream")
			}
			if items != 1 || ends != 1 {
				t.Fatalf("items %d ends %d", items, ends)
			}
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("the cancelled stream's response was not closed")
			}
		})
	}
}

// TestHTTPClientBothPathsContextDeadline: a 200 ms context deadline ends a send hung on an
// agent that never answers, long before the 30 s call timeout, with a failed transport
// outcome wrapping context.DeadlineExceeded, on both paths.
func TestHTTPClientBothPathsContextDeadline(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, _ json.RawMessage, _ string) {
		<-r.Context().Done()
	})
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			c := newTestHTTPClient(t, srv.URL, append([]HTTPOption{WithCallTimeout(30 * time.Second)}, p.opts...)...)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			o, err := c.SendText(ctx, "hang", nil)
			if err == nil || o == nil || o.Success || o.Channel != ChannelTransport || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("want a failed transport outcome wrapping context.DeadlineExceeded, got %v %+v", err, o)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Fatalf("the 200 ms context deadline did not win over the 30 s call timeout (%v)", el)
			}
		})
	}
}

// TestHTTPClientBothPathsConcurrentCalls: 16 goroutines share one client on each path,
// sends and streams mixed, every answer matched to its request.
func TestHTTPClientBothPathsConcurrentCalls(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, text string) {
		if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			echoTask(w, r, id, text)
			return
		}
		// A stream: its one event is the completed task echoing the text.
		w.Header().Set("Content-Type", "text/event-stream")
		a, _ := json.Marshal("echo: " + text)
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"artifacts\":[{\"artifactId\":\"a-1\",\"parts\":[{\"kind\":\"text\",\"text\":%s}]}],\"contextId\":\"ctx-1\",\"id\":\"task-1\",\"kind\":\"task\",\"status\":{\"state\":\"completed\"}}}\n\n", id, a)
	})
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			c := newTestHTTPClient(t, srv.URL, p.opts...)
			var wg sync.WaitGroup
			errs := make(chan error, 16*4)
			for g := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 4 {
						want := fmt.Sprintf("g%d-%d", g, i)
						if i%2 == 1 {
							got := ""
							for ev, err := range c.StreamMessage(context.Background(), []Part{TextPart(want)}, nil, nil) {
								if err != nil {
									errs <- err
									return
								}
								if ev.Kind == StreamEventEnd {
									got = resultText(ev.Outcome)
								}
							}
							if got != "echo: "+want {
								errs <- fmt.Errorf("streamed %q, answered %q", want, got)
							}
							continue
						}
						o, err := c.SendText(context.Background(), want, nil)
						if err != nil {
							errs <- err
							return
						}
						if got := resultText(o); got != "echo: "+want {
							errs <- fmt.Errorf("asked %q, answered %q", want, got)
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestHTTPClientBothPathsEndedContextSendsNothing: a call made with a context already
// cancelled ends with a transport outcome wrapping context.Canceled, and no request
// reaches the agent, on both paths.
func TestHTTPClientBothPathsEndedContextSendsNothing(t *testing.T) {
	var mu sync.Mutex
	sends := 0
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, text string) {
		mu.Lock()
		sends++
		mu.Unlock()
		echoTask(w, r, id, text)
	})
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			c := newTestHTTPClient(t, srv.URL, p.opts...)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			for range 8 {
				o, err := c.SendText(ctx, "late", nil)
				if !errors.Is(err, context.Canceled) || o == nil || o.Channel != ChannelTransport {
					t.Fatalf("want a transport outcome wrapping context.Canceled, got %v %+v", err, o)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if sends != 0 {
				t.Fatalf("%d sends reached the agent", sends)
			}
		})
	}
}
