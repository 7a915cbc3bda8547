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

// agentServer is a loopback 0.3 JSON-RPC agent: its card at the well-known path, and
// handle answering every other request (the request's id and the message's text given).
func agentServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, id json.RawMessage, text string)) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"protocolVersion":"0.3.0","name":"go-agent","description":"d","url":%q,"preferredTransport":"JSONRPC","version":"1","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, srv.URL+"/")
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ID      string `json:"id"`
				Message struct {
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"message"`
			} `json:"params"`
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		text := ""
		if req.Method == "tasks/get" || req.Method == "tasks/cancel" {
			text = req.Method + " " + req.Params.ID
		} else if len(req.Params.Message.Parts) > 0 {
			text = req.Params.Message.Parts[0].Text
		}
		handle(w, r, req.ID, text)
	}))
	srv.Start() // after srv is set: the handler reads srv.URL
	t.Cleanup(srv.Close)
	return srv
}

// echoTask answers a send with a completed task whose artifact is "echo: " + text.
func echoTask(w http.ResponseWriter, _ *http.Request, id json.RawMessage, text string) {
	w.Header().Set("Content-Type", "application/json")
	t, _ := json.Marshal("echo: " + text)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"artifacts":[{"artifactId":"a-1","parts":[{"kind":"text","text":%s}]}],"contextId":"ctx-1","id":"task-1","kind":"task","status":{"state":"completed","timestamp":"2026-01-01T00:00:00Z"}}}`, id, t)
}

func newTestHTTPClient(t *testing.T, url string, opts ...HTTPOption) *HTTPClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := NewHTTPClient(ctx, url, opts...)
	if err != nil {
		t.Fatalf("NewHTTPClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestHTTPClientSendText(t *testing.T) {
	srv := agentServer(t, echoTask)
	c := newTestHTTPClient(t, srv.URL)
	o, err := c.SendText(context.Background(), "hi", nil)
	if err != nil {
		t.Fatalf("SendText: %v", err)
	}
	if !o.Success || o.TaskID == nil || *o.TaskID != "task-1" || o.Result == nil || o.ExitCode != 0 {
		t.Fatalf("unexpected outcome: %+v", o)
	}
	if got := resultText(o); got != "echo: hi" {
		t.Fatalf("answer text %q", got)
	}
}

func TestHTTPClientCardFailureIsOutcomeError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := NewHTTPClient(context.Background(), srv.URL)
	var oe *OutcomeError
	if !errors.As(err, &oe) || oe.Outcome == nil || oe.Outcome.Success {
		t.Fatalf("want an *OutcomeError for a missing card, got %v", err)
	}
}

func TestHTTPClientJSONRPCErrorIsError(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, _ *http.Request, id json.RawMessage, _ string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"Task not found"}}`, id)
	})
	c := newTestHTTPClient(t, srv.URL)
	o, err := c.SendText(context.Background(), "hi", nil)
	if err == nil {
		t.Fatalf("a JSON-RPC error gave no error: %+v", o)
	}
	var oe *OutcomeError
	if !errors.As(err, &oe) {
		t.Fatalf("error %T is not an *OutcomeError", err)
	}
	if oe.Outcome != o || o.Channel != ChannelProtocol || o.Code == nil || *o.Code != -32001 || o.Success {
		t.Fatalf("unexpected outcome: %+v", o)
	}
	if !strings.Contains(err.Error(), "Task not found") {
		t.Fatalf("error text %q", err.Error())
	}
}

func TestHTTPClientStream(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, _ string) {
		if ae := r.Header.Get("Accept-Encoding"); ae != "identity" {
			http.Error(w, "Accept-Encoding "+ae, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		ev := func(result string) {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, result)
			f.Flush()
		}
		ev(`{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"submitted"}}`)
		for i := range 3 {
			ev(fmt.Sprintf(`{"kind":"artifact-update","taskId":"task-1","contextId":"ctx-1","artifact":{"artifactId":"c-%d","parts":[{"kind":"text","text":"chunk %d"}]},"lastChunk":true}`, i, i))
		}
		ev(`{"kind":"status-update","taskId":"task-1","contextId":"ctx-1","status":{"state":"completed","timestamp":"2026-01-01T00:00:00Z"},"final":true}`)
	})
	c := newTestHTTPClient(t, srv.URL)
	items, ends := 0, 0
	var texts []string
	for ev, err := range c.Stream(context.Background(), "go", nil) {
		switch ev.Kind {
		case StreamEventItem:
			if err != nil {
				t.Fatalf("item error: %v", err)
			}
			items++
			if ev.Text != "" {
				texts = append(texts, ev.Text)
			}
		case StreamEventEnd:
			ends++
			if err != nil || ev.Outcome == nil || !ev.Outcome.Success || ev.Outcome.State == nil || *ev.Outcome.State != StateCompleted {
				t.Fatalf("end: %v %+v", err, ev.Outcome)
			}
		default:
			t.Fatalf("event kind %d (err %v)", ev.Kind, err)
		}
	}
	if items != 5 || ends != 1 || strings.Join(texts, "|") != "chunk 0|chunk 1|chunk 2" {
		t.Fatalf("items %d ends %d texts %q", items, ends, texts)
	}
}

// hangServer answers sends never (until the test ends) and streams one item then nothing.
func hangServer(t *testing.T) (*httptest.Server, chan struct{}) {
	release := make(chan struct{})
	closed := make(chan struct{}, 4)
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, _ string) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"task\",\"id\":\"task-1\",\"contextId\":\"ctx-1\",\"status\":{\"state\":\"working\"}}}\n\n", id)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done(): // the client closed the connection
			closed <- struct{}{}
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	return srv, closed
}

// TestHTTPClientSlowLoopBodyReadsWhatCameMeanwhile: a loop body slower than the idle
// timeout, while the server keeps sending, does not end the stream as idle: the events
// that came meanwhile are read. On a silent server it still ends with a timeout.
// A loop body slower than the idle timeout on every item, while the server's last events
// came 50 ms apart and then nothing (the connection stays open): they are read off the
// socket together and wait in the HTTP stack's buffers, not on the socket. Each is read and
// the stream completes.
func TestHTTPClientSlowLoopBodyReadsWhatItsHTTPStackHolds(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, _ string) {
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(state string, final bool) {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"status-update\",\"taskId\":\"task-1\",\"contextId\":\"ctx-1\",\"status\":{\"state\":\"%s\"},\"final\":%v}}\n\n", id, state, final)
			w.(http.Flusher).Flush()
		}
		for i := 0; i < 4; i++ {
			event("working", false)
			time.Sleep(50 * time.Millisecond)
		}
		event("completed", true)
	})
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			c := newTestHTTPClient(t, srv.URL, append([]HTTPOption{WithStreamIdleTimeout(200 * time.Millisecond)}, p.opts...)...)
			items := 0
			var end *Outcome
			var endErr error
			for ev, err := range c.Stream(context.Background(), "go", nil) {
				switch ev.Kind {
				case StreamEventItem:
					items++
					time.Sleep(350 * time.Millisecond)
				case StreamEventResubscribing:
					t.Fatal("resubscribed: the stream was cut")
				case StreamEventEnd:
					end, endErr = ev.Outcome, err
				}
			}
			if end == nil || endErr != nil || !end.Success || end.State == nil || *end.State != StateCompleted {
				t.Fatalf("end %+v %v", end, endErr)
			}
			if items < 5 {
				t.Fatalf("%d items", items)
			}
		})
	}
}

func TestHTTPClientSlowLoopBodyReadsWhatCameMeanwhile(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, _ string) {
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(state string, final bool) {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"status-update\",\"taskId\":\"task-1\",\"contextId\":\"ctx-1\",\"status\":{\"state\":\"%s\"},\"final\":%v}}\n\n", id, state, final)
			w.(http.Flusher).Flush()
		}
		for i := 0; i < 15; i++ {
			event("working", false)
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
		event("completed", true)
	})
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			c := newTestHTTPClient(t, srv.URL, append([]HTTPOption{WithStreamIdleTimeout(400 * time.Millisecond)}, p.opts...)...)
			items, slept := 0, false
			var end *Outcome
			var endErr error
			for ev, err := range c.Stream(context.Background(), "go", nil) {
				switch ev.Kind {
				case StreamEventItem:
					items++
					if !slept {
						slept = true
						time.Sleep(700 * time.Millisecond)
					}
				case StreamEventResubscribing:
					t.Fatal("resubscribed: the stream was cut")
				case StreamEventEnd:
					end, endErr = ev.Outcome, err
				}
			}
			if end == nil || endErr != nil || !end.Success || end.State == nil || *end.State != StateCompleted {
				t.Fatalf("end %+v %v", end, endErr)
			}
			if items < 10 {
				t.Fatalf("%d items", items)
			}
		})
	}
	silent, _ := hangServer(t)
	for _, p := range clientPaths {
		t.Run(p.name+" silent", func(t *testing.T) {
			c := newTestHTTPClient(t, silent.URL, append([]HTTPOption{WithStreamIdleTimeout(300 * time.Millisecond)}, p.opts...)...)
			var end *Outcome
			var back time.Time
			for ev := range c.Stream(context.Background(), "go", nil) {
				if ev.Kind == StreamEventItem && back.IsZero() {
					time.Sleep(time.Second)
					back = time.Now()
				}
				if ev.Kind == StreamEventEnd {
					end = ev.Outcome
				}
			}
			if end == nil || end.Error != NameTimeout {
				t.Fatalf("end %+v", end)
			}
			if took := time.Since(back); took > 5*time.Second {
				t.Fatalf("the lapsed idle deadline took %v to end the stream", took)
			}
		})
	}
}

func TestHTTPClientContextCancelEndsHungCall(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, _ json.RawMessage, _ string) {
		<-r.Context().Done() // hangs until the client goes away
	})
	c := newTestHTTPClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	done := make(chan struct{})
	var o *Outcome
	var err error
	go func() { o, err = c.SendText(ctx, "hang", nil); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // generous: correctness, not speed
		t.Fatal("a cancelled context did not end the hung call")
	}
	if err == nil || o == nil || o.Success || !errors.Is(err, context.Canceled) {
		t.Fatalf("want a failed outcome wrapping context.Canceled, got %v %+v", err, o)
	}
	if o.Channel != ChannelTransport {
		t.Fatalf("channel %v", o.Channel)
	}
	t.Logf("ended %v after the call started (cancel at 100 ms)", time.Since(start))
}

func TestHTTPClientConcurrentMatchesAnswers(t *testing.T) {
	srv := agentServer(t, echoTask)
	c := newTestHTTPClient(t, srv.URL)
	var wg sync.WaitGroup
	errs := make(chan error, 32*4)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				want := fmt.Sprintf("g%d-%d", g, i)
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
}

// resultText is the answer's text ("" when there is none).
func resultText(o *Outcome) string {
	if o == nil || o.Result == nil || o.Result.Text == nil {
		return ""
	}
	return *o.Result.Text
}

func TestHTTPClientGetAndCancelTask(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, _ *http.Request, id json.RawMessage, text string) {
		w.Header().Set("Content-Type", "application/json")
		state := "working"
		if strings.HasPrefix(text, "tasks/cancel ") {
			state = "canceled"
		}
		if !strings.HasSuffix(text, " task-7") {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"Task not found: %s"}}`, id, text)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"contextId":"ctx-1","id":"task-7","kind":"task","status":{"state":%q}}}`, id, state)
	})
	c := newTestHTTPClient(t, srv.URL)
	o, err := c.GetTask(context.Background(), "task-7", nil)
	if o == nil || o.State == nil || *o.State != StateWorking || o.TaskID == nil || *o.TaskID != "task-7" {
		t.Fatalf("GetTask: %v %+v", err, o)
	}
	// A task not in a final state is no success (exit code 7): the error says so.
	if oe := (*OutcomeError)(nil); !errors.As(err, &oe) || oe.Outcome.ExitCode != 7 {
		t.Fatalf("GetTask of a working task: %v", err)
	}
	o, err = c.CancelTask(context.Background(), "task-7", nil)
	var oe *OutcomeError
	// A canceled task is not a success (exit code 6): the error carries it.
	if o == nil || o.State == nil || *o.State != StateCanceled || !errors.As(err, &oe) || oe.Outcome != o {
		t.Fatalf("CancelTask: %v %+v", err, o)
	}
	if _, err := c.GetTask(context.Background(), "task-8", nil); !errors.As(err, &oe) || oe.Outcome.Channel != ChannelProtocol {
		t.Fatalf("GetTask of an unknown task: %v", err)
	}
}

// ExampleHTTPClient resolves a card, sends a text, ranges over a stream and reads a
// JSON-RPC error, all over net/http, against a loopback agent.
func ExampleHTTPClient() {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			fmt.Fprintf(w, `{"protocolVersion":"0.3.0","name":"echo","description":"d","url":"http://%s/","preferredTransport":"JSONRPC","version":"1","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, r.Host)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		switch req.Method {
		case "message/send":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"message","messageId":"m-1","role":"agent","parts":[{"kind":"text","text":"hello, Go"}]}}`, req.ID)
		case "message/stream":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"task\",\"id\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"working\"}}}\n\n", req.ID)
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\",\"message\":{\"kind\":\"message\",\"messageId\":\"m-2\",\"role\":\"agent\",\"parts\":[{\"kind\":\"text\",\"text\":\"done\"}]}},\"final\":true}}\n\n", req.ID)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"Task not found"}}`, req.ID)
		}
	}))
	defer agent.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, err := NewHTTPClient(ctx, agent.URL) // WithHTTPClient(yours) to bring your own
	if err != nil {
		fmt.Println("card:", err)
		return
	}
	defer client.Close()

	o, err := client.SendText(ctx, "hi", nil)
	if err != nil {
		fmt.Println("send:", err)
		return
	}
	fmt.Println("send:", *o.Text)

	for ev, err := range client.Stream(ctx, "go", nil) {
		if ev.Kind == StreamEventEnd {
			fmt.Println("end:", ev.Outcome.State, err)
			break
		}
		fmt.Println("item:", ev.Outcome.Channel, ev.Outcome.State)
	}

	_, err = client.GetTask(ctx, "t-404", nil)
	var oe *OutcomeError
	if errors.As(err, &oe) {
		fmt.Println("get:", oe.Outcome.Channel, *oe.Outcome.Code, err)
	}
	// Output:
	// send: hello, Go
	// item: task working
	// item: task completed
	// end: completed <nil>
	// get: protocol -32001 a2a: protocol/TaskNotFound (HTTP 200): Task not found
}
