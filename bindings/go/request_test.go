package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestRequestFixtures(t *testing.T) {
	var fx struct {
		Cases []struct {
			Name      string `json:"name"`
			Source    string `json:"source"`
			Interface struct {
				Version string  `json:"version"`
				Binding string  `json:"binding"`
				Tenant  *string `json:"tenant"`
			} `json:"interface"`
			Call struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			} `json:"call"`
			ID         any         `json:"id"`
			Extensions []string    `json:"extensions"`
			Headers    [][2]string `json:"headers"`
			Expect     struct {
				Method  string          `json:"method"`
				Path    string          `json:"path"`
				Headers [][2]string     `json:"headers"`
				Body    json.RawMessage `json:"body"`
			} `json:"expect"`
		} `json:"cases"`
	}
	loadFixture(t, "requests.json", &fx)
	if len(fx.Cases) < 40 {
		t.Fatalf("requests.json lost cases: %d", len(fx.Cases))
	}
	for _, c := range fx.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Source == "" {
				t.Fatal("no source")
			}
			var iface Interface
			var err error
			if iface.Version, err = ParseProtocolVersion(c.Interface.Version); err != nil {
				t.Fatal(err)
			}
			if iface.Binding, err = ParseBinding(c.Interface.Binding); err != nil {
				t.Fatal(err)
			}
			if c.Interface.Tenant != nil {
				iface.Tenant = *c.Interface.Tenant
			}
			method, _, ok := MethodFromJSONRPCName(c.Call.Method)
			if !ok {
				t.Fatalf("method %q", c.Call.Method)
			}
			opts := &CallOptions{Extensions: c.Extensions}
			switch id := c.ID.(type) {
			case json.Number:
				n, _ := id.Int64()
				opts.ID = NumberID(n)
			case string:
				opts.IDString = &id
			}
			for _, h := range c.Headers {
				opts.Headers = append(opts.Headers, Header{h[0], h[1]})
			}
			var params []byte
			if len(c.Call.Params) > 0 && string(c.Call.Params) != "null" {
				params = c.Call.Params
			}
			req, err := BuildRequest(iface, method, params, opts)
			if err != nil {
				t.Fatal(err)
			}
			if req.HTTPMethod != c.Expect.Method || req.Path != c.Expect.Path || req.Method != method {
				t.Errorf("%s %q (%v), want %s %q", req.HTTPMethod, req.Path, req.Method, c.Expect.Method, c.Expect.Path)
			}
			got, want := headerSet(req.Headers), [][2]string{}
			for _, h := range c.Expect.Headers {
				want = append(want, [2]string{strings.ToLower(h[0]), h[1]})
			}
			sort.Slice(want, func(i, j int) bool { return want[i][0]+want[i][1] < want[j][0]+want[j][1] })
			if !reflect.DeepEqual(got, want) {
				t.Errorf("headers %v, want %v", got, want)
			}
			if string(c.Expect.Body) == "null" {
				if len(req.Body) != 0 {
					t.Errorf("body %q, want none", req.Body)
				}
			} else if !jsonEqual(t, req.Body, c.Expect.Body) {
				t.Errorf("body %s\nwant %s", req.Body, c.Expect.Body)
			}
			if iface.Binding == JSON_RPC && req.RPCID == "" {
				t.Error("a JSON-RPC request without an rpc id")
			}
		})
	}
}

func headerSet(hs []Header) [][2]string {
	out := [][2]string{}
	for _, h := range hs {
		out = append(out, [2]string{strings.ToLower(h.Name), h.Value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0]+out[i][1] < out[j][0]+out[j][1] })
	return out
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("built body is not JSON: %v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestBuildTextMessageAndErrors(t *testing.T) {
	iface := Interface{Version: V1_0, Binding: JSON_RPC}
	req, err := BuildTextMessage(iface, "m-1", "echo hi", &CallOptions{ID: NumberID(7), Headers: []Header{{"Idempotency-Key", "a2a-ik1-x"}}})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		ID     int    `json:"id"`
		Method string `json:"method"`
		Params struct {
			Message struct {
				MessageID string `json:"messageId"`
				Role      string `json:"role"`
				Parts     []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.ID != 7 || body.Method != "SendMessage" || body.Params.Message.MessageID != "m-1" ||
		body.Params.Message.Role != "ROLE_USER" || body.Params.Message.Parts[0].Text != "echo hi" || req.RPCID != "7" {
		t.Fatalf("built %s", req.Body)
	}
	if a := req.Asked(iface); a.Method != "SendMessage" || a.RequestID != "7" || a.Version != V1_0 {
		t.Fatalf("asked %+v", a)
	}
	if v, ok := headerValue(req.Headers, "a2a-version"); !ok || v != "1.0" {
		t.Fatalf("A2A-Version %q", v)
	}
	if v, _ := headerValue(req.Headers, "Idempotency-Key"); v != "a2a-ik1-x" {
		t.Fatalf("caller header %q", v)
	}
	wire, err := req.AppendHTTP1(nil, "/a2a", "agent.example.com")
	if err != nil || !bytes.HasPrefix(wire, []byte("POST /a2a HTTP/1.1\r\nHost: agent.example.com\r\n")) || !bytes.HasSuffix(wire, req.Body) {
		t.Fatalf("http1 %q %v", wire, err)
	}
	if _, err := BuildRequest(Interface{Version: V0_3, Binding: JSON_RPC}, MethodListTasks, []byte(`{}`), &CallOptions{ID: NumberID(1)}); !errors.Is(err, CodeRequestNotInVersion) {
		t.Errorf("ListTasks on 0.3: %v", err)
	}
	if _, err := BuildRequest(iface, MethodGetTask, []byte(`{"id":"t"}`), nil); !errors.Is(err, CodeRequestMissingID) {
		t.Errorf("JSON-RPC without id: %v", err)
	}
	if _, err := BuildRequest(iface, MethodGetTask, []byte(`{"id":`), &CallOptions{ID: NumberID(1)}); !errors.Is(err, CodeRequestParams) {
		t.Errorf("params not JSON: %v", err)
	}
	if _, err := BuildTextMessage(iface, "m", "x", &CallOptions{ID: NumberID(1), Headers: []Header{{"Content-Length", "1"}}}); !errors.Is(err, CodeRequestReservedHeader) {
		t.Errorf("reserved header: %v", err)
	}
	if m, v, ok := MethodFromJSONRPCName("tasks/resubscribe"); !ok || m != MethodSubscribeToTask || v != V0_3 || m.JSONRPCName(V1_0) != "SubscribeToTask" {
		t.Errorf("tasks/resubscribe: %v %v %v", m, v, ok)
	}
	if MethodListTasks.JSONRPCName(V0_3) != "" {
		t.Error("no ListTasks in 0.3")
	}
}

func headerValue(hs []Header, name string) (string, bool) {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value, true
		}
	}
	return "", false
}
