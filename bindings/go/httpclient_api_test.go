package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The rest of HTTPClient's API, on both paths.

func TestHTTPClientAgentServerCalls(t *testing.T) {
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			base, _, _ := serveAgent(t)
			c := newTestHTTPClient(t, base, p.opts...)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			o, err := c.SendMessage(ctx, []Part{TextPart("echo parts"), DataPart(map[string]any{"n": 1.0})}, map[string]any{"trace": "x"}, nil)
			if err != nil || resultText(o) != "parts" {
				t.Fatalf("SendMessage: %v %+v", err, o)
			}
			if _, err := c.SendMessage(ctx, nil, nil, nil); !errors.Is(err, ErrNothingToSend) {
				t.Fatalf("no parts: %v", err)
			}
			var states []string
			var taskID string
			for ev, err := range c.StreamMessage(ctx, []Part{TextPart("count 2")}, nil, nil) {
				if ev.Kind == StreamEventEnd {
					if err != nil {
						t.Fatalf("stream end: %v", err)
					}
					taskID, _ = ev.Outcome.GetTaskID()
					continue
				}
				st, _ := ev.Outcome.GetState()
				states = append(states, st.String())
			}
			if taskID == "" || len(states) < 2 {
				t.Fatalf("stream: task %q states %v", taskID, states)
			}

			page, err := c.ListTasks(ctx, &ListTasksRequest{PageSize: 10}, nil)
			if err != nil || len(page.Tasks) == 0 {
				t.Fatalf("ListTasks: %v %+v", err, page)
			}
			found := false
			for tk, err := range c.AllTasks(ctx, nil, nil) {
				if err != nil {
					t.Fatalf("AllTasks: %v", err)
				}
				found = found || tk.ID == taskID
			}
			if !found {
				t.Fatalf("AllTasks did not list %s", taskID)
			}

			// A finished task cannot be subscribed to: the end carries the agent's error.
			var endErr error
			ends := 0
			for ev, err := range c.Resubscribe(ctx, taskID, nil) {
				if ev.Kind == StreamEventEnd || err != nil {
					ends++
					endErr = err
				}
			}
			var oe *OutcomeError
			if ends != 1 || !errors.As(endErr, &oe) || oe.Outcome.Error != NameUnsupportedOperation {
				t.Fatalf("resubscribe to a finished task: %d ends, %v", ends, endErr)
			}

			// Its card declares neither push notifications nor an extended card: refused
			// unsent; with the check off, the agent's own errors.
			_, err = c.CreateTaskPushConfig(ctx, PushConfig{TaskID: taskID, URL: "https://hooks.example/x"}, nil)
			if !errors.As(err, &oe) || oe.Outcome.Error != NameCapabilityNotDeclared || oe.Outcome.RequestSent != RequestSentNo {
				t.Fatalf("push on an agent whose card declares no push: %v", err)
			}
			_, err = c.ExtendedCard(ctx, nil)
			if !errors.As(err, &oe) || oe.Outcome.Error != NameCapabilityNotDeclared {
				t.Fatalf("extended card the card does not declare: %v", err)
			}
			lax := newTestHTTPClient(t, base, append(p.opts, WithIgnoreCapabilities(true))...)
			_, err = lax.CreateTaskPushConfig(ctx, PushConfig{TaskID: taskID, URL: "https://hooks.example/x"}, nil)
			if !errors.As(err, &oe) || oe.Outcome.Error != NamePushNotificationNotSupported {
				t.Fatalf("push on an agent without push: %v", err)
			}
			_, err = lax.ExtendedCard(ctx, nil)
			if !errors.As(err, &oe) || oe.Outcome.Channel != ChannelProtocol {
				t.Fatalf("extended card not configured: %v", err)
			}
		})
	}
}

// pushAgent is a 1.0 JSON-RPC agent answering the push-config calls and the extended card
// with canned results, recording the params it got.
func pushAgent(t *testing.T, got *sync.Map) string {
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			// It serves push configs and the extended card, so its card declares them.
			fmt.Fprint(w, strings.Replace(rowCard(srv.URL+"/", "1.0", "jsonrpc"), `"capabilities":{"streaming":true}`,
				`"capabilities":{"streaming":true,"pushNotifications":true,"extendedAgentCard":true}`, 1))
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(raw, &req)
		got.Store(req.Method, string(req.Params))
		cfg := `{"id":"cfg-1","taskId":"t-1","url":"https://hooks.example/x","token":"tok","authentication":{"scheme":"Bearer","credentials":"c"}}`
		result := map[string]string{
			"CreateTaskPushNotificationConfig": cfg,
			"GetTaskPushNotificationConfig":    cfg,
			"ListTaskPushNotificationConfigs":  `{"configs":[` + cfg + `],"nextPageToken":""}`,
			"DeleteTaskPushNotificationConfig": `{}`,
			"GetExtendedAgentCard":             rowCard(srv.URL+"/", "1.0", "jsonrpc"),
		}[req.Method]
		if result == "" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no %s"}}`, req.ID, req.Method)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}))
	srv.Start() // after srv is set: the handler reads srv.URL
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHTTPClientPushConfigsAndExtendedCard(t *testing.T) {
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			var got sync.Map
			c := newTestHTTPClient(t, pushAgent(t, &got), p.opts...)
			ctx := context.Background()
			want := PushConfig{TaskID: "t-1", ID: "cfg-1", URL: "https://hooks.example/x", Token: "tok",
				Authentication: &PushAuthentication{Schemes: []string{"Bearer"}, Credentials: "c"}}
			created, err := c.CreateTaskPushConfig(ctx, PushConfig{TaskID: "t-1", URL: "https://hooks.example/x", Token: "tok"}, nil)
			if err != nil || created.Authentication == nil || fmt.Sprint(*created.Authentication) != fmt.Sprint(*want.Authentication) {
				t.Fatalf("create: %v %+v", err, created)
			}
			created.Authentication, want.Authentication = nil, nil
			if *created != want {
				t.Fatalf("create: %v %+v", err, created)
			}
			if params, _ := got.Load("CreateTaskPushNotificationConfig"); !strings.Contains(params.(string), `"url":"https://hooks.example/x"`) {
				t.Fatalf("create sent %v", params)
			}
			read, err := c.GetTaskPushConfig(ctx, "t-1", "cfg-1", nil)
			if err != nil || read.ID != "cfg-1" || read.TaskID != "t-1" {
				t.Fatalf("get: %v %+v", err, read)
			}
			list, err := c.ListTaskPushConfigs(ctx, "t-1", nil)
			if err != nil || len(list) != 1 || list[0].URL != want.URL {
				t.Fatalf("list: %v %+v", err, list)
			}
			if err := c.DeleteTaskPushConfig(ctx, "t-1", "cfg-1", nil); err != nil {
				t.Fatalf("delete: %v", err)
			}
			card, err := c.ExtendedCard(ctx, nil)
			if err != nil || card.Name != "row" || len(card.JSON) == 0 {
				t.Fatalf("extended card: %v %+v", err, card)
			}
		})
	}
}

func TestHTTPClientHeaderHooks(t *testing.T) {
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			var mu sync.Mutex
			var auth []string
			srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, text string) {
				mu.Lock()
				auth = append(auth, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Route"))
				mu.Unlock()
				echoTask(w, r, id, text)
			})
			var methods sync.Map
			c := newTestHTTPClient(t, srv.URL, append([]HTTPOption{WithHeaderHook(func(method string, h *HeaderSetter) {
				methods.Store(method, true)
				if err := h.Set("Authorization", "Bearer t0k"); err != nil {
					t.Errorf("set: %v", err)
				}
			})}, p.opts...)...)
			if err := c.AddHeaderHook(func(_ string, h *HeaderSetter) { _ = h.Set("X-Route", "blue") }); err != nil {
				t.Fatal(err)
			}
			if _, err := c.SendText(context.Background(), "one", nil); err != nil {
				t.Fatal(err)
			}
			if _, err := c.GetTask(context.Background(), "task-1", nil); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			got := strings.Join(auth, ",")
			mu.Unlock()
			if got != "Bearer t0k|blue,Bearer t0k|blue" {
				t.Fatalf("headers seen by the agent: %q (the card fetch carries none)", got)
			}
			if _, ok := methods.Load("SendMessage"); !ok {
				t.Fatal("the hook did not see SendMessage")
			}
			if err := c.AddHeaderHook(func(string, *HeaderSetter) {}); !errors.Is(err, CodeInUse) {
				t.Fatalf("a hook after the first call: %v", err)
			}

			// A reserved header ends the call unsent; a panicking hook is counted.
			r := newTestHTTPClient(t, srv.URL, append([]HTTPOption{
				WithHeaderHook(func(_ string, h *HeaderSetter) { _ = h.Set("Content-Length", "1") })}, p.opts...)...)
			o, err := r.SendText(context.Background(), "two", nil)
			if err == nil || o.Channel != ChannelTransport || o.Error != NameInvalidRequest || o.RequestSent != RequestSentNo {
				t.Fatalf("reserved header: %v %+v", err, o)
			}
			pc := newTestHTTPClient(t, srv.URL, append([]HTTPOption{
				WithHeaderHook(func(string, *HeaderSetter) { panic("hook bug") })}, p.opts...)...)
			if _, err := pc.SendText(context.Background(), "three", nil); err != nil {
				t.Fatalf("a panicking hook: %v", err)
			}
			if n, last := pc.HookPanics(); n != 1 || last != "hook bug" {
				t.Fatalf("panics %d %q", n, last)
			}
		})
	}
}

func TestHTTPClientPerCallIdleTimeout(t *testing.T) {
	srv, _ := hangServer(t)
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			c := newTestHTTPClient(t, srv.URL, append([]HTTPOption{WithStreamIdleTimeout(60 * time.Second)}, p.opts...)...)
			start := time.Now()
			var end *Outcome
			for ev, err := range c.Stream(context.Background(), "go", &HTTPCallOptions{IdleTimeout: 300 * time.Millisecond}) {
				if ev.Kind == StreamEventEnd {
					end = ev.Outcome
					if err == nil {
						t.Fatal("an idle stream ended without an error")
					}
				}
			}
			took := time.Since(start)
			if end == nil || end.Error != NameTimeout {
				t.Fatalf("end %+v", end)
			}
			if took > 20*time.Second { // the client's own idle timeout is 60 s
				t.Fatalf("the per-call idle timeout did not apply: %v", took)
			}
		})
	}
}

// TestEnumsHaveNames walks every enum of the package: each member has a String() that is
// a name, not a number, and distinct members have distinct names.
func TestEnumsHaveNames(t *testing.T) {
	type member struct {
		typ  string
		name fmt.Stringer
	}
	var all []member
	add := func(typ string, vs ...fmt.Stringer) {
		for _, v := range vs {
			all = append(all, member{typ, v})
		}
	}
	add("Channel", ChannelTransport, ChannelHTTP, ChannelMalformed, ChannelProtocol, ChannelTask, ChannelMessage)
	add("TaskState", StateUnknown, StateSubmitted, StateWorking, StateCompleted, StateFailed, StateCanceled, StateInputRequired, StateRejected, StateAuthRequired)
	add("Retry", RetryNone, RetryNever, RetryNewTask, RetryResubscribe, RetryPoll, RetryBackoff, RetryUnknownOutcome, RetryReauthenticate, RetryFixVersion)
	add("RequestSent", RequestSentNo, RequestSentUnknown)
	add("ProtocolVersion", V0_3, V1_0)
	add("Binding", JSON_RPC, HTTP_JSON)
	add("Method", MethodSendMessage, MethodSendStreamingMessage, MethodGetTask, MethodListTasks, MethodCancelTask, MethodSubscribeToTask,
		MethodCreatePushConfig, MethodGetPushConfig, MethodListPushConfigs, MethodDeletePushConfig, MethodGetExtendedAgentCard)
	add("CardShape", CardV1_0, CardV0_3, CardHybrid)
	add("InterfaceList", ListSupportedInterfaces, ListPreferredURL, ListAdditionalInterfaces)
	add("SelectionOrder", ClientFirst, CardFirst)
	add("AddressClass", AddressPublic, AddressLocalhostName, AddressLoopback, AddressPrivate, AddressSharedAddressSpace,
		AddressLinkLocal, AddressUniqueLocal, AddressUnspecified, AddressMulticast, AddressOther)
	add("EventKind", KindEvent, KindComment, KindRetry)
	add("ClientStreamEventKind", StreamEventItem, StreamEventResubscribing, StreamEventEnd)
	for n := ErrorName(1); n < 200; n++ {
		if s := n.String(); s != "" && !strings.Contains(s, "(") {
			add("ErrorName", n)
		}
	}
	seen := map[string]string{}
	for _, m := range all {
		s := m.name.String()
		if s == "" || strings.ContainsAny(s, "()") || strings.Trim(s, "0123456789") == "" {
			t.Errorf("%s %d has no name: %q", m.typ, m.name, s)
		}
		if prev, dup := seen[m.typ+"/"+s]; dup {
			t.Errorf("%s: %q names two members (%s)", m.typ, s, prev)
		}
		seen[m.typ+"/"+s] = s
	}
	if got := CardShape(99).String(); got != "CardShape(99)" {
		t.Errorf("an unknown member prints %q", got)
	}
	if len(seen) < 90 {
		t.Fatalf("only %d enum members walked", len(seen))
	}
}

func TestOutcomeErrAndAccessors(t *testing.T) {
	ok := &Outcome{Channel: ChannelTask, ExitCode: 0}
	if ok.Err() != nil || (*Outcome)(nil).Err() != nil {
		t.Fatal("a success has an error")
	}
	if _, has := ok.GetState(); has {
		t.Fatal("an absent state reads as present")
	}
	st, code := StateFailed, 503
	failed := &Outcome{Channel: ChannelTask, State: &st, HTTPStatus: &code, ExitCode: 5}
	err := failed.Err()
	var oe *OutcomeError
	if !errors.As(err, &oe) || oe.Outcome != failed {
		t.Fatalf("Err() %v does not wrap the outcome", err)
	}
	if s, has := failed.GetState(); !has || s != StateFailed {
		t.Fatalf("state %v %v", s, has)
	}
	if n, has := failed.GetHTTPStatus(); !has || n != 503 {
		t.Fatalf("status %v %v", n, has)
	}
	if _, has := (*Outcome)(nil).GetText(); has {
		t.Fatal("a nil outcome has a text")
	}
}

func TestNewTraceparentAndWithTraceparent(t *testing.T) {
	a, b := NewTraceparent(), NewTraceparent()
	if a == b {
		t.Fatal("two fresh traceparents are equal")
	}
	tp, err := ParseTraceparent(a)
	if err != nil || tp.Flags != 1 {
		t.Fatalf("%q: %v %+v", a, err, tp)
	}
	seen := make(chan string, 1)
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, text string) {
		seen <- r.Header.Get("traceparent")
		echoTask(w, r, id, text)
	})
	c := newTestHTTPClient(t, srv.URL)
	if _, err := c.SendText(context.Background(), "traced", WithTraceparent(a)); err != nil {
		t.Fatal(err)
	}
	if got := <-seen; got != a {
		t.Fatalf("the agent saw traceparent %q, sent %q", got, a)
	}
}

// TestHTTPClientStreamBreakWithItemsPending: items that arrived in the same chunk as the
// one the loop broke on are never yielded (a range function must not call yield after it
// returned false), on both paths.
func TestHTTPClientStreamBreakWithItemsPending(t *testing.T) {
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, _ string) {
		w.Header().Set("Content-Type", "text/event-stream")
		var b strings.Builder
		for i, st := range []string{"working", "working", "working", "completed"} {
			fmt.Fprintf(&b, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"status-update\",\"taskId\":\"task-1\",\"contextId\":\"ctx-1\",\"final\":%v,\"status\":{\"state\":%q}}}\n\n", id, i == 3, st)
		}
		_, _ = io.WriteString(w, b.String()) // every event in one write
	})
	for _, p := range clientPaths {
		c := newTestHTTPClient(t, srv.URL, p.opts...)
		n := 0
		for range c.Stream(context.Background(), "go", nil) {
			n++
			break
		}
		if n != 1 {
			t.Fatalf("%s: %d iterations", p.name, n)
		}
	}
}

// TestHTTPClientRefusesWhatTheCardDoesNotDeclare: an agent whose card declares no
// capabilities gets no stream, resubscribe, push-config or extended-card request; each call
// ends with the typed refusal, and WithIgnoreCapabilities sends them.
func TestHTTPClientRefusesWhatTheCardDoesNotDeclare(t *testing.T) {
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			var posts atomic.Int32
			var srv *httptest.Server
			srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if strings.HasPrefix(r.URL.Path, "/.well-known/") {
					fmt.Fprint(w, strings.Replace(rowCard(srv.URL+"/", "0.3", "jsonrpc"), `"capabilities":{"streaming":true}`, `"capabilities":{}`, 1))
					return
				}
				posts.Add(1)
				raw, _ := io.ReadAll(r.Body)
				var req struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal(raw, &req)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32004,"message":"not here"}}`, req.ID)
			}))
			srv.Start() // after srv is set: the handler reads srv.URL
			t.Cleanup(srv.Close)
			ctx := context.Background()
			refused := func(what string, err error, capability string) {
				t.Helper()
				var oe *OutcomeError
				if !errors.As(err, &oe) || oe.Outcome.Channel != ChannelTransport || oe.Outcome.Error != NameCapabilityNotDeclared ||
					oe.Outcome.RequestSent != RequestSentNo || oe.Outcome.Retry != RetryNever || oe.Outcome.Message == nil || !strings.Contains(*oe.Outcome.Message, capability) {
					t.Fatalf("%s: want CapabilityNotDeclared naming %s, got %v", what, capability, err)
				}
			}
			streamEnd := func(seq func(func(StreamEvent, error) bool)) error {
				var last error
				for _, err := range seq {
					if err != nil {
						last = err
					}
				}
				return last
			}
			c := newTestHTTPClient(t, srv.URL, p.opts...)
			refused("stream", streamEnd(c.Stream(ctx, "hi", nil)), "capabilities.streaming")
			refused("resubscribe", streamEnd(c.Resubscribe(ctx, "t-1", nil)), "capabilities.streaming")
			_, err := c.CreateTaskPushConfig(ctx, PushConfig{TaskID: "t-1", URL: "https://hooks.example/x"}, nil)
			refused("push", err, "capabilities.pushNotifications")
			_, err = c.ExtendedCard(ctx, nil)
			refused("extended card", err, "supportsAuthenticatedExtendedCard")
			if n := posts.Load(); n != 0 {
				t.Fatalf("%d requests reached the agent", n)
			}
			lax := newTestHTTPClient(t, srv.URL, append(p.opts, WithIgnoreCapabilities(true))...)
			_, err = lax.ExtendedCard(ctx, nil)
			var oe *OutcomeError
			if !errors.As(err, &oe) || oe.Outcome.Channel != ChannelProtocol || posts.Load() != 1 {
				t.Fatalf("with the check off the call goes out: %v (%d requests)", err, posts.Load())
			}
		})
	}
}

// extendedAgent serves a 1.0 card that declares no push notifications and an extended card
// that does (on another host, localhost, when drift); push-config calls are answered.
func extendedAgent(t *testing.T, drift bool, calls *atomic.Int32) string {
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		caps := `"capabilities":{"streaming":true}`
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			fmt.Fprint(w, strings.Replace(rowCard(srv.URL+"/", "1.0", "jsonrpc"), caps,
				`"capabilities":{"extendedAgentCard":true}`, 1))
			return
		}
		calls.Add(1)
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(raw, &req)
		if req.Method == "GetExtendedAgentCard" {
			base := srv.URL + "/"
			if drift {
				base = strings.Replace(base, "127.0.0.1", "localhost", 1)
			}
			card := strings.Replace(rowCard(base, "1.0", "jsonrpc"), caps,
				`"capabilities":{"pushNotifications":true,"extendedAgentCard":true}`, 1)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, card)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"configs":[],"nextPageToken":""}}`, req.ID)
	}))
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// The extended card replaces the public one: a push-config call it declares goes out after
// ExtendedCard; one whose interface is on another host is refused and the public card stays.
func TestHTTPClientAdoptsTheExtendedCard(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int32
	c := newTestHTTPClient(t, extendedAgent(t, false, &calls))
	if _, err := c.ListTaskPushConfigs(ctx, "t-1", nil); err == nil || calls.Load() != 0 {
		t.Fatalf("the public card declares no push configs: %v (%d calls)", err, calls.Load())
	}
	if _, err := c.ExtendedCard(ctx, nil); err != nil {
		t.Fatalf("extended card: %v", err)
	}
	if _, err := c.ListTaskPushConfigs(ctx, "t-1", nil); err != nil || calls.Load() != 2 {
		t.Fatalf("after the extended card: %v (%d calls)", err, calls.Load())
	}

	var dcalls atomic.Int32
	d := newTestHTTPClient(t, extendedAgent(t, true, &dcalls))
	_, err := d.ExtendedCard(ctx, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeCardHostMismatch {
		t.Fatalf("a drifting extended card: %v", err)
	}
	if _, err := d.ListTaskPushConfigs(ctx, "t-1", nil); err == nil || dcalls.Load() != 1 {
		t.Fatalf("the public card stays: %v (%d calls)", err, dcalls.Load())
	}
}

// An extended card may name an interface of the other binding: after adopting one that
// names HTTP+JSON (same host), the next call goes out as REST and its REST answer is read
// (the JSON-RPC envelope is recognised by content, not by the binding chosen at open).
func TestHTTPClientAdoptsAnExtendedCardOfTheOtherBinding(t *testing.T) {
	ctx := context.Background()
	var srv *httptest.Server
	var restCalls atomic.Int32
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		caps := `"capabilities":{"streaming":true}`
		switch {
		case strings.HasPrefix(r.URL.Path, "/.well-known/"):
			fmt.Fprint(w, strings.Replace(rowCard(srv.URL+"/", "1.0", "jsonrpc"), caps,
				`"capabilities":{"extendedAgentCard":true}`, 1))
		case r.Method == http.MethodPost && r.URL.Path == "/":
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			raw, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(raw, &req)
			card := strings.Replace(rowCard(srv.URL+"/rest", "1.0", "http+json"), caps,
				`"capabilities":{"pushNotifications":true,"extendedAgentCard":true}`, 1)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, card)
		case r.Method == http.MethodGet && r.URL.Path == "/rest/tasks/t-1/pushNotificationConfigs":
			restCalls.Add(1)
			fmt.Fprint(w, `{"configs":[{"taskId":"t-1","id":"c-1","url":"https://hooks.example/x"}],"nextPageToken":""}`)
		default:
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	c := newTestHTTPClient(t, srv.URL)
	if _, err := c.ExtendedCard(ctx, nil); err != nil {
		t.Fatalf("extended card: %v", err)
	}
	configs, err := c.ListTaskPushConfigs(ctx, "t-1", nil)
	if err != nil || restCalls.Load() != 1 {
		t.Fatalf("after adopting an HTTP+JSON card: %v (%d REST calls)", err, restCalls.Load())
	}
	if len(configs) != 1 || configs[0].ID != "c-1" || configs[0].URL != "https://hooks.example/x" {
		t.Fatalf("the REST answer read as %+v", configs)
	}
}

// TestHTTPClientStreamLeftMidway: a stream left while its agent keeps it open, by a loop
// body that panics or by an iter.Pull2 stopped after its first item, closes its request
// (the agent's handler sees it go) and the client keeps working, on both paths.
func TestHTTPClientStreamLeftMidway(t *testing.T) {
	gone, ended := make(chan struct{}, 4), make(chan struct{})
	srv := agentServer(t, func(w http.ResponseWriter, r *http.Request, id json.RawMessage, _ string) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"status-update\",\"taskId\":\"task-1\",\"contextId\":\"ctx-1\",\"final\":false,\"status\":{\"state\":\"working\"}}}\n\n", id)
		w.(http.Flusher).Flush()
		select { // held open until the client goes
		case <-r.Context().Done():
			gone <- struct{}{}
		case <-ended:
		}
	})
	t.Cleanup(func() { close(ended) }) // before the server's Close, which waits for handlers
	waitGone := func(name, how string) {
		t.Helper()
		select {
		case <-gone:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the agent's stream stayed open after %s", name, how)
		}
	}
	for _, p := range clientPaths {
		c := newTestHTTPClient(t, srv.URL, p.opts...)
		func() {
			defer func() {
				if r := recover(); r != "loop body" {
					t.Fatalf("%s: recovered %v", p.name, r)
				}
			}()
			for range c.Stream(context.Background(), "go", nil) {
				panic("loop body")
			}
		}()
		waitGone(p.name, "a panic in the loop body")

		next, stop := iter.Pull2(c.Stream(context.Background(), "go", nil))
		ev, err, ok := next()
		if !ok || err != nil || ev.Kind != StreamEventItem {
			t.Fatalf("%s: first event %+v %v %v", p.name, ev, err, ok)
		}
		stop()
		waitGone(p.name, "stopping its iter.Pull2")
	}
}

// DefaultHTTPClient's connections have 1 KiB buffers (an idle stream holds them), and a
// request, a header line and body chunks longer than that go through whole.
func TestDefaultHTTPClientBuffers(t *testing.T) {
	tr := DefaultHTTPClient().Transport.(*http.Transport)
	if tr.ReadBufferSize != 1024 || tr.WriteBufferSize != 1024 {
		t.Fatalf("buffers: read %d write %d", tr.ReadBufferSize, tr.WriteBufferSize)
	}
	long := strings.Repeat("0123456789abcdef", 200) // 3,200 bytes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Long", long)
		w.Header().Set("X-Got", fmt.Sprint(len(body), string(body) == long, r.Header.Get("X-Req") == long))
		for i := 0; i < 3; i++ { // chunked: one chunk each, larger and smaller than the buffer
			io.WriteString(w, long[:1+i*1500])
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(long))
	req.Header.Set("X-Req", long)
	resp, err := DefaultHTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || len(got) != 1+1501+3001 || resp.Header.Get("X-Long") != long || resp.Header.Get("X-Got") != "3200 true true" {
		t.Fatalf("%v: %d bytes, X-Got %q, X-Long %d bytes", err, len(got), resp.Header.Get("X-Got"), len(resp.Header.Get("X-Long")))
	}
}
