package a2a

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// miniAgent is an A2A server in Go built on ServerRequest: "fail ..." streams a FAILED
// task with an error id, anything else is echoed as a completed task. It serves JSON-RPC
// on / and HTTP+JSON under /rest, both versions.
type miniAgent struct {
	t       *testing.T
	errorID string
	served  []Served
}

func (m *miniAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	// Issue 21: the listener is on loopback, so it answers only for its own address.
	headers := RequestHeaders(r)
	opts := &ServerOptions{V0_3: true, V1_0: true, BoundAddr: ListenerAddr(r)}
	var req *ServerRequest
	var err error
	if rest, ok := strings.CutPrefix(r.URL.RequestURI(), "/rest"); ok {
		req, err = ParseREST(r.Method, rest, headers, body, opts)
	} else {
		req, err = ParseJSONRPC(headers, body, opts)
	}
	if req == nil {
		m.t.Errorf("parse: %v", err)
		w.WriteHeader(500)
		return
	}
	defer req.Close()
	var resp *ServerResponse
	if errors.Is(err, CodeServerRefused) {
		resp, err = req.RefusalResponse()
	} else {
		info, _ := req.Info()
		var params struct {
			Message struct {
				MessageID string `json:"messageId"`
				Parts     []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		}
		json.Unmarshal(req.Params(), &params)
		text := ""
		if len(params.Message.Parts) > 0 {
			text = params.Message.Parts[0].Text
		}
		if info.Streaming {
			for _, h := range StreamHeaders() {
				w.Header().Set(h.Name, h.Value)
			}
			frame, err := req.EventFrame([]byte(`{"task":{"id":"t-s","contextId":"c-s","status":{"state":"TASK_STATE_WORKING"}}}`))
			if err != nil {
				m.t.Errorf("event frame: %v", err)
			}
			w.Write(frame)
			if strings.HasPrefix(text, "fail") {
				frame, err = req.FailedFrame("t-s", "c-s", "m-s", m.errorID, "")
			} else {
				frame, err = req.EventFrame([]byte(`{"statusUpdate":{"taskId":"t-s","contextId":"c-s","status":{"state":"TASK_STATE_COMPLETED"}}}`))
			}
			if err != nil {
				m.t.Errorf("frame: %v", err)
			}
			w.Write(frame)
			return
		}
		reply, _ := json.Marshal(map[string]any{"task": map[string]any{"id": "t-1", "contextId": "c-1",
			"status":    map[string]any{"state": "TASK_STATE_COMPLETED"},
			"artifacts": []any{map[string]any{"artifactId": "a-1", "name": "echo", "parts": []any{map[string]any{"text": text}}}}}})
		if info.Method == MethodGetTask {
			resp, err = req.ErrorResponse(NameTaskNotFound, "")
		} else {
			resp, err = req.ResultResponse(reply)
		}
	}
	if err != nil {
		m.t.Errorf("response: %v", err)
		w.WriteHeader(500)
		return
	}
	m.served = append(m.served, resp.Served)
	for _, h := range resp.Headers {
		w.Header().Set(h.Name, h.Value)
	}
	w.WriteHeader(resp.Status)
	w.Write(resp.Body)
}

func TestServerSideRoundTripThroughTheDriver(t *testing.T) {
	id := ErrorIDFromRandom([6]byte{0x3f, 0x9c, 0x0a, 0x7b, 0x12, 0xde})
	if id != "3f9c0a7b12de" {
		t.Fatalf("error id %q", id)
	}
	agent := &miniAgent{t: t, errorID: id}
	srv := httptest.NewServer(agent)
	defer srv.Close()
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	cfg.CallTimeout = 5 * time.Second
	for _, target := range []struct {
		url     string
		version ProtocolVersion
		binding Binding
	}{
		{srv.URL + "/", V0_3, JSON_RPC}, {srv.URL + "/", V1_0, JSON_RPC},
		{srv.URL + "/rest", V0_3, HTTP_JSON}, {srv.URL + "/rest", V1_0, HTTP_JSON},
	} {
		name := target.version.String() + " " + target.binding.String()
		c, err := NewClientWithTarget(target.url, target.version, target.binding, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		o, err := c.SendText("hello there", nil)
		if err != nil {
			t.Fatal(err)
		}
		if o.Channel != ChannelTask || !o.Success || *o.TaskID != "t-1" || o.Version != target.version {
			t.Errorf("%s: send %+v", name, o)
		}
		o.Close()
		g, _ := c.GetTask("nope", nil)
		if g.Channel != ChannelProtocol || g.Error != NameTaskNotFound {
			t.Errorf("%s: get %+v", name, g)
		}
		g.Close()
		s, _ := c.StreamText("fail now", nil)
		var end ClientStreamEvent
		for i := 0; i < 20; i++ {
			ev, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind == StreamEventEnd {
				end = ev
				break
			}
		}
		if end.End != EndCompleted || end.Outcome == nil || end.Outcome.State == nil || *end.Outcome.State != StateFailed ||
			end.Outcome.ErrorID == nil || *end.Outcome.ErrorID != id {
			t.Errorf("%s: stream end %+v %+v", name, end, end.Outcome)
		}
		s.Close()
		c.Close()
	}
	if len(agent.served) != 8 || agent.served[0].Channel != ChannelTask || agent.served[1].Code != "TaskNotFound" {
		t.Fatalf("served %+v", agent.served)
	}
	// A 1.0 method without A2A-Version is refused as a version mismatch the client reads.
	resp, err := http.Post(srv.URL+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"m","parts":[{"text":"x"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	o, _ := Classify(Response{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: body,
		Asked: Asked{Version: V1_0, Binding: JSON_RPC, Method: "SendMessage", RequestID: "3"}})
	defer o.Close()
	if o.Channel != ChannelProtocol || o.Error != NameVersionNotSupported || o.Retry != RetryFixVersion {
		t.Fatalf("refusal classified as %+v (%s)", o, body)
	}
}

func TestServerHelpers(t *testing.T) {
	text, err := FailureText("3f9c0a7b12de", "")
	if err != nil || text != "Agent execution failed. (error_id: 3f9c0a7b12de)" {
		t.Fatalf("failure text %q %v", text, err)
	}
	if _, err := FailureText("3F9C0A7B12DE", ""); !errors.Is(err, CodeServerErrorID) {
		t.Fatalf("uppercase id: %v", err)
	}
	if id, ok := ExtractErrorID(text); !ok || id != "3f9c0a7b12de" {
		t.Fatal("the failure text carries an extractable id")
	}
	a, _ := NewErrorID()
	b, _ := NewErrorID()
	if !hex12.MatchString(a) || a == b {
		t.Fatalf("error ids %q %q", a, b)
	}
	hs := StreamHeaders()
	if len(hs) == 0 || !strings.EqualFold(hs[0].Name, "Content-Type") || !IsEventStream(hs[0].Value) {
		t.Fatalf("stream headers %v", hs)
	}
	jsonCT := []Header{{"Content-Type", "application/json"}}
	req, err := ParseJSONRPC(jsonCT, []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}`), &ServerOptions{V1_0: true})
	if !errors.Is(err, CodeServerRefused) || req == nil {
		t.Fatalf("0.3 method on a 1.0-only server: %v", err)
	}
	defer req.Close()
	if _, ok := req.Info(); ok {
		t.Fatal("a refused request has no info")
	}
	resp, err := req.RefusalResponse()
	if err != nil || resp.Status != 200 || !strings.Contains(string(resp.Body), `"error"`) {
		t.Fatalf("refusal %+v %v", resp, err)
	}
	ok, err := ParseJSONRPC(jsonCT, []byte(`{"jsonrpc":"2.0","id":"x","method":"tasks/get","params":{"id":"t","historyLength":2}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	info, _ := ok.Info()
	if info.Method != MethodGetTask || info.Version != V0_3 || info.RPCID != "x" || info.Streaming {
		t.Fatalf("info %+v", info)
	}
	if !strings.Contains(string(ok.Params()), `"historyLength"`) {
		t.Fatalf("params %s", ok.Params())
	}
	if info.Traceparent != "" || info.IdempotencyKey != "" {
		t.Fatalf("no trace or key was sent: %+v", info)
	}
	// Issue 12: the caller's traceparent and Idempotency-Key reach the server.
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	keyed, err := ParseJSONRPC([]Header{{"traceparent", tp}, {"Idempotency-Key", "conv-9:book:12A"}, jsonCT[0]},
		[]byte(`{"jsonrpc":"2.0","id":"y","method":"tasks/get","params":{"id":"t"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer keyed.Close()
	if ki, _ := keyed.Info(); ki.Traceparent != tp || ki.IdempotencyKey != "conv-9:book:12A" {
		t.Fatalf("info %+v", ki)
	}
	if _, err := ok.ResultResponse([]byte(`{"not":"a task"}`)); !errors.Is(err, CodeServerReply) {
		t.Fatalf("wrong reply shape: %v", err)
	}
	if _, err := ok.RefusalResponse(); !errors.Is(err, CodeNone) {
		t.Fatalf("refusal of an accepted request: %v", err)
	}
}

// Issue 12: the keep-alive schedule through the C ABI.
func TestKeepAliveSchedule(t *testing.T) {
	if due, wait := KeepAliveDue(0, time.Second, 0); due || wait != 14*time.Second {
		t.Fatalf("default: %v %v", due, wait)
	}
	if due, wait := KeepAliveDue(500*time.Millisecond, 2*time.Second, 1500*time.Millisecond); !due || wait != 0 {
		t.Fatalf("due: %v %v", due, wait)
	}
	if c := KeepAliveComment(); len(c) < 3 || c[0] != ':' || c[len(c)-1] != '\n' {
		t.Fatalf("comment %q", c)
	}
}

// Issue 21: a Go server on net/http refuses what a web page could send it: a Host that is
// not its own (DNS rebinding), a body not declared JSON (a CORS "simple" request), a batch,
// and a REST id that decodes to "/" or a control character; its own clients still pass.
func TestServerRefusesWhatAWebPageCouldSend(t *testing.T) {
	srv := httptest.NewServer(&miniAgent{t: t})
	defer srv.Close()
	get := `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"t"}}`
	for _, c := range []struct {
		name, target, host, contentType, body string
		status                                int
		code                                  string
	}{
		{"own address", "/", "", "application/json", get, 200, "-32001"},
		{"localhost on its port", "/", "localhost:" + srv.URL[strings.LastIndex(srv.URL, ":")+1:], "application/json; charset=utf-8", get, 200, "-32001"},
		{"rebinding", "/", "attacker.example", "application/json", get, 421, "-32600"},
		{"another port", "/", "127.0.0.1:1", "application/json", get, 421, "-32600"},
		{"text/plain", "/", "", "text/plain", get, 415, "-32005"},
		{"form", "/", "", "application/x-www-form-urlencoded", get, 415, "-32005"},
		{"no content type", "/", "", "", get, 415, "-32005"},
		{"batch", "/", "", "application/json", "[" + get + "]", 200, "-32600"},
		{"positional batch", "/", "", "application/json", `["2.0",3,"tasks/get",{"id":"t"}]`, 200, "-32600"},
		{"REST id with %2F", "/rest/v1/tasks/a%2Fb", "", "", "", 400, "INVALID_PARAMS"},
		{"REST id with CR LF", "/rest/v1/tasks/a%0D%0Ab", "", "", "", 400, "INVALID_PARAMS"},
		{"REST id ..", "/rest/v1/tasks/%2E%2E", "", "", "", 400, "INVALID_PARAMS"},
		{"REST body as text/plain", "/rest/v1/tasks/t:cancel", "", "text/plain", "{}", 415, "CONTENT_TYPE_NOT_SUPPORTED"},
	} {
		method := "POST"
		if c.body == "" {
			method = "GET"
		}
		req, err := http.NewRequest(method, srv.URL+c.target, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.code) {
			t.Errorf("%s: %d %s, want %d with %s", c.name, resp.StatusCode, body, c.status, c.code)
		}
		if strings.HasPrefix(string(body), "[") {
			t.Errorf("%s: one error object, not a batch answer: %s", c.name, body)
		}
	}
	// Options that do not parse are the caller's error, not a refusal.
	if _, err := ParseJSONRPC(nil, []byte(get), &ServerOptions{V0_3: true, BoundAddr: "localhost"}); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("bad BoundAddr: %v", err)
	}
	if _, err := ParseJSONRPC(nil, []byte(get), &ServerOptions{V0_3: true, BoundAddr: "127.0.0.1:8080", HostNames: []string{"a/b"}}); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("bad host name: %v", err)
	}
	named, err := ParseJSONRPC([]Header{{"Host", "agent.example.com"}, {"Content-Type", "application/json"}}, []byte(get),
		&ServerOptions{V0_3: true, BoundAddr: "127.0.0.1:8080", HostNames: []string{"agent.example.com"}})
	if err != nil {
		t.Fatalf("a listed name: %v", err)
	}
	named.Close()
}
