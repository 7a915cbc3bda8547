package a2a

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The same HTTPClient calls through both byte movers: net/http (the default) and the
// reference driver (WithReferenceDriver), with identical outcomes.

type clientPath struct {
	name string
	opts []HTTPOption
}

var clientPaths = []clientPath{
	{"net/http", nil},
	{"reference-driver", []HTTPOption{WithReferenceDriver()}},
}

// outcomeKey is what two paths must agree on for one call.
type outcomeKey struct {
	Channel     Channel
	HTTPStatus  int
	Code        int64
	Error       ErrorName
	State       TaskState
	Retry       Retry
	RequestSent RequestSent
	ExitCode    int
	Text        string
	ErrorID     string
	Answer      string
}

func keyOf(o *Outcome) outcomeKey {
	if o == nil {
		return outcomeKey{}
	}
	k := outcomeKey{Channel: o.Channel, Error: o.Error, Retry: o.Retry, RequestSent: o.RequestSent, ExitCode: o.ExitCode}
	k.HTTPStatus, _ = o.GetHTTPStatus()
	k.Code, _ = o.GetCode()
	k.State, _ = o.GetState()
	k.Text, _ = o.GetText()
	k.ErrorID, _ = o.GetErrorID()
	k.Answer = resultText(o)
	return k
}

// rowCard is a card declaring one interface of the row's version and binding at base.
func rowCard(base, version, binding string) string {
	b := map[string]string{"jsonrpc": "JSONRPC", "http+json": "HTTP+JSON"}[binding]
	if version == "0.3" {
		return fmt.Sprintf(`{"protocolVersion":"0.3.0","name":"row","description":"d","url":%q,"preferredTransport":%q,"version":"1","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, base, b)
	}
	return fmt.Sprintf(`{"name":"row","description":"d","version":"1","supportedInterfaces":[{"url":%q,"protocolBinding":%q,"protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, base, b)
}

// TestHTTPClientOutcomeFixturesBothPaths serves every send row of outcomes.json (the
// row's status, content type, headers and body) from a loopback agent whose card names
// the row's version and binding, sends through each path with the row's JSON-RPC id, and
// checks that both paths give the same outcome and that it is the row's (channel, HTTP
// status, code, error name, state, exit code).
func TestHTTPClientOutcomeFixturesBothPaths(t *testing.T) {
	sends := map[string]bool{"SendMessage": true, "message/send": true, "POST /message:send": true, "POST /v1/message:send": true}
	rows := 0
	for _, row := range loadOutcomeRows(t) {
		in := row.Input
		if in.Transport != nil || in.Method == nil || !sends[*in.Method] || in.Version == nil || in.Binding == nil {
			continue
		}
		if _, ok := in.Headers["Retry-After"]; ok {
			continue // the machine would wait and resend: a retry test, not a classification
		}
		var body []byte
		switch {
		case in.Body != nil:
			body = []byte(*in.Body)
		case in.BodyBase64 != nil:
			body, _ = base64.StdEncoding.DecodeString(*in.BodyBase64)
		case in.BodyRepeat != nil:
			body = []byte(in.BodyRepeat.Head + strings.Repeat(in.BodyRepeat.Fill, in.BodyRepeat.Count) + in.BodyRepeat.Tail)
		}
		rows++
		t.Run(row.ID, func(t *testing.T) {
			var srv *httptest.Server
			srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/.well-known/") {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, rowCard(srv.URL+"/", *in.Version, *in.Binding))
					return
				}
				if in.ContentType != nil {
					w.Header().Set("Content-Type", *in.ContentType)
				}
				for k, v := range in.Headers {
					w.Header().Set(k, v)
				}
				w.WriteHeader(in.Status)
				_, _ = w.Write(body)
			}))
			srv.Start() // after srv is set: the handler reads srv.URL
			defer srv.Close()
			opts := &HTTPCallOptions{}
			if in.RequestID != nil {
				opts.RPCID = *in.RequestID
			}
			var keys []outcomeKey
			for _, p := range clientPaths {
				c := newTestHTTPClient(t, srv.URL, p.opts...)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				o, err := c.SendText(ctx, "row", opts)
				cancel()
				if (err == nil) != (o != nil && o.ExitCode == 0) {
					t.Fatalf("%s: error %v for exit code %d", p.name, err, o.ExitCode)
				}
				if !errors.Is(o.Err(), err) && err != nil && o.Err().Error() != err.Error() {
					t.Fatalf("%s: Err() %v differs from the call's error %v", p.name, o.Err(), err)
				}
				keys = append(keys, keyOf(o))
			}
			if keys[0] != keys[1] {
				t.Fatalf("the paths differ:\nnet/http  %+v\nreference %+v", keys[0], keys[1])
			}
			checkRowKey(t, keys[0], row)
		})
	}
	if rows < 100 {
		t.Fatalf("only %d send rows in outcomes.json", rows)
	}
}

// checkRowKey checks an outcome against an outcomes.json row: channel, HTTP status, code,
// error name, state and exit code.
func checkRowKey(t *testing.T, k outcomeKey, row outcomeRow) {
	t.Helper()
	want := row.Expect
	if ch, _ := want["channel"].(string); ch != k.Channel.String() {
		t.Errorf("channel %v, row says %v", k.Channel, ch)
	}
	if st, ok := want["http_status"].(float64); ok && int(st) != k.HTTPStatus {
		t.Errorf("http_status %d, row says %v", k.HTTPStatus, st)
	}
	if code, ok := want["code"].(float64); ok && int64(code) != k.Code {
		t.Errorf("code %d, row says %v", k.Code, code)
	}
	if name, ok := want["error"].(string); ok && name != k.Error.String() {
		t.Errorf("error %v, row says %v", k.Error, name)
	}
	if st, ok := want["state"].(string); ok && st != k.State.String() {
		t.Errorf("state %v, row says %v", k.State, st)
	}
	if row.ExitCode != nil && *row.ExitCode != k.ExitCode {
		t.Errorf("exit code %d, row says %d", k.ExitCode, *row.ExitCode)
	}
}

// TestHTTPClientOutcomeStreamRowsBothPaths serves every event-stream row of outcomes.json
// (a streaming send or resubscribe answered 2xx with the row's body) the same way and
// streams through each path: the end outcome must be the same on both and be the row's,
// HTTP status included. (The machine's defaults: no resubscribe after a cut, no resend.)
func TestHTTPClientOutcomeStreamRowsBothPaths(t *testing.T) {
	streams := map[string]bool{"SendStreamingMessage": true, "message/stream": true, "POST /message:stream": true,
		"POST /v1/message:stream": true, "tasks/resubscribe": true}
	rows := 0
	for _, row := range loadOutcomeRows(t) {
		in := row.Input
		if in.Transport != nil || in.Method == nil || !streams[*in.Method] || in.BodyRepeat != nil ||
			in.Version == nil || in.Binding == nil || in.Status < 200 || in.Status > 299 {
			continue
		}
		var body []byte
		if in.Body != nil {
			body = []byte(*in.Body)
		} else if in.BodyBase64 != nil {
			body, _ = base64.StdEncoding.DecodeString(*in.BodyBase64)
		}
		rows++
		t.Run(row.ID, func(t *testing.T) {
			var srv *httptest.Server
			srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/.well-known/") {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, rowCard(srv.URL+"/", *in.Version, *in.Binding))
					return
				}
				w.Header().Set("Content-Type", *in.ContentType)
				w.WriteHeader(in.Status)
				_, _ = w.Write(body)
			}))
			srv.Start()
			defer srv.Close()
			opts := &HTTPCallOptions{}
			if in.RequestID != nil {
				opts.RPCID = *in.RequestID
			}
			var keys []outcomeKey
			for _, p := range clientPaths {
				c := newTestHTTPClient(t, srv.URL, p.opts...)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				events := c.Stream(ctx, "row", opts)
				if *in.Method == "tasks/resubscribe" {
					events = c.Resubscribe(ctx, "task-row", opts)
				}
				var end *Outcome
				for ev, err := range events {
					if ev.Kind == StreamEventEnd {
						end = ev.Outcome
						if (err == nil) != (end.ExitCode == 0) {
							t.Fatalf("%s: error %v for exit code %d", p.name, err, end.ExitCode)
						}
					}
				}
				cancel()
				if end == nil {
					t.Fatalf("%s: no end event", p.name)
				}
				keys = append(keys, keyOf(end))
			}
			if keys[0] != keys[1] {
				t.Fatalf("the paths differ:\nnet/http  %+v\nreference %+v", keys[0], keys[1])
			}
			checkRowKey(t, keys[0], row)
		})
	}
	if rows < 30 {
		t.Fatalf("only %d stream rows in outcomes.json", rows)
	}
}

// TestHTTPClientFaultScenariosBothPaths runs the fault server's scenarios through both
// paths and compares the outcomes.
func TestHTTPClientFaultScenariosBothPaths(t *testing.T) {
	base := faultURL(t)
	type scenario struct {
		name, path, text string
		stream           bool
		cancelAfter      time.Duration
	}
	scenarios := []scenario{
		{"send", "/ok/", "hello", false, 0},
		{"stream", "/ok/", "hello", true, 0},
		{"failed task", "/ok/", "fail-now", false, 0},
		{"503", "/status-503/", "hi", false, 0},
		{"hang cancelled", "/hang/", "hi", false, 100 * time.Millisecond},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var keys []outcomeKey
			for _, p := range clientPaths {
				c := newTestHTTPClient(t, base+sc.path, p.opts...)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				if sc.cancelAfter > 0 {
					time.AfterFunc(sc.cancelAfter, cancel)
				}
				var o *Outcome
				var err error
				if sc.stream {
					for ev, e := range c.Stream(ctx, sc.text, nil) {
						if ev.Kind == StreamEventEnd {
							o, err = ev.Outcome, e
						}
					}
				} else {
					o, err = c.SendText(ctx, sc.text, nil)
				}
				cancel()
				if o == nil || (err == nil) != (o.ExitCode == 0) {
					t.Fatalf("%s: %v %+v", p.name, err, o)
				}
				keys = append(keys, keyOf(o))
			}
			if keys[0] != keys[1] {
				t.Fatalf("the paths differ:\nnet/http  %+v\nreference %+v", keys[0], keys[1])
			}
		})
	}
	t.Run("card redirect not followed", func(t *testing.T) {
		for _, p := range clientPaths {
			_, err := NewHTTPClient(context.Background(), base+"/card-302/", p.opts...)
			var oe *OutcomeError
			if !errors.As(err, &oe) || oe.Outcome.HTTPStatus == nil || *oe.Outcome.HTTPStatus != 302 {
				t.Fatalf("%s: want the 302 as an outcome, got %v", p.name, err)
			}
		}
	})
}

// TestHTTPClientCancelEndsHungCallPromptly: a context cancelled while the call hangs on
// an agent that never answers ends the call within 50 ms of the cancel, on both paths.
// The bound is asserted at 50 ms plus a scheduling allowance for a loaded 2-core CI
// machine (250 ms in all), far below the 30 s call timeout the call would otherwise run to.
func TestHTTPClientCancelEndsHungCallPromptly(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, _ json.RawMessage, _ string) {
		<-r.Context().Done()
	})
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			c := newTestHTTPClient(t, srv.URL, append([]HTTPOption{WithCallTimeout(30 * time.Second)}, p.opts...)...)
			ctx, cancel := context.WithCancel(context.Background())
			var cancelledAt time.Time
			time.AfterFunc(200*time.Millisecond, func() { cancelledAt = time.Now(); cancel() })
			o, err := c.SendText(ctx, "hang", nil)
			ended := time.Now()
			if !errors.Is(err, context.Canceled) || o == nil || o.Channel != ChannelTransport {
				t.Fatalf("want a transport outcome wrapping context.Canceled, got %v %+v", err, o)
			}
			if o.RequestSent != RequestSentUnknown {
				t.Fatalf("request_sent %v: the request was written", o.RequestSent)
			}
			took := ended.Sub(cancelledAt)
			t.Logf("ended %v after the cancel", took)
			if took > 250*time.Millisecond {
				t.Fatalf("the call ended %v after the cancel (bound 50 ms + 200 ms allowance)", took)
			}
		})
	}
}

// TestHTTPClientBothPathsSameMethods: every call of the API through both paths against a
// loopback agent, the same answers.
func TestHTTPClientBothPathsSameMethods(t *testing.T) {
	srv := agentServer(t, echoTask)
	var got [][]string
	for _, p := range clientPaths {
		c := newTestHTTPClient(t, srv.URL, p.opts...)
		ctx := context.Background()
		var answers []string
		o, err := c.SendText(ctx, "a", nil)
		answers = append(answers, fmt.Sprint(err, resultText(o)))
		o, err = c.SendMessage(ctx, []Part{TextPart("b"), DataPart(map[string]any{"k": 1})}, map[string]any{"m": true}, nil)
		answers = append(answers, fmt.Sprint(err, resultText(o)))
		for ev, err := range c.StreamMessage(ctx, []Part{TextPart("c")}, nil, nil) {
			answers = append(answers, fmt.Sprint(ev.Kind, err, ev.Text))
		}
		got = append(got, answers)
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Fatalf("the paths differ:\n%q\n%q", got[0], got[1])
	}
	if got[0][0] != "<nil>echo: a" || got[0][1] != "<nil>echo: b" || got[0][len(got[0])-1] != "end <nil>" {
		t.Fatalf("answers %q", got[0])
	}
}
