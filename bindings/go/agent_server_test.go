package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log sink the handler goroutines write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveAgent starts an AgentServer on a real listener on 127.0.0.1.
func serveAgent(t *testing.T) (string, *AgentServer, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	no := false
	srv := &AgentServer{
		Name: "go-agent", Description: "test agent", Version: "3.0.0",
		Skills:    []AgentSkill{{ID: "demo", Name: "Demo", Description: "test skill", Tags: []string{"demo"}}},
		KeepAlive: 100 * time.Millisecond,
		Logger:    slog.New(slog.NewTextHandler(logs, nil)),
		Handler: func(ctx context.Context, a *AgentContext) error {
			word, rest, _ := strings.Cut(a.Text(), " ")
			switch word {
			case "echo":
				a.Reply(rest)
			case "fail":
				return errors.New("db password wrong")
			case "panic":
				panic("boom")
			case "count":
				n, _ := strconv.Atoi(rest)
				a.Status("working", "")
				for i := range n {
					a.Artifact("count", fmt.Sprintf("chunk %d", i+1), i > 0, i == n-1)
				}
			case "slow":
				ms, _ := strconv.Atoi(rest)
				a.Status("working", "")
				select {
				case <-time.After(time.Duration(ms) * time.Millisecond):
				case <-ctx.Done():
					return nil
				}
				a.Artifact("", "done", false, true)
			case "ask":
				a.Status("input-required", "name?")
			case "refuse":
				return &ProtocolError{Name: NameInvalidParams, Message: "refused: " + rest}
			case "unsupported":
				return fmt.Errorf("wrapped: %w", &ProtocolError{Name: NameUnsupportedOperation})
			case "late":
				a.Status("working", "")
				return &ProtocolError{Name: NameInvalidParams, Message: "too late"}
			default:
				if a.Continues && a.Text() == "refuse-turn" {
					return &ProtocolError{Name: NameUnsupportedOperation, Message: "not this turn"}
				}
				if a.Continues {
					a.Status("completed", "thanks "+a.Text())
				} else {
					a.Reply(a.Text())
				}
			}
			return nil
		},
		BeforeExecute: func(a *AgentContext) error {
			if a.Text() == "busy" {
				return &Refused{Reason: "queue full"}
			}
			return nil
		},
		AfterExecute: func(a *AgentContext, err error) *Hint {
			if err == nil {
				return nil
			}
			return &Hint{Retryable: &no, Pairs: []HintPair{{"reason", "bug"}}}
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String(), srv, logs
}

func rpcBody(method, text string, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"message":{"messageId":"m-%d","role":"ROLE_USER","parts":[{"text":%q}]%s}}}`,
		method, time.Now().UnixNano(), text, extra)
}

func postJSON(t *testing.T, url, body string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var v1 = map[string]string{"A2A-Version": "1.0"}

func TestAgentServerCardIsTheCardBuilders(t *testing.T) {
	url, _, _ := serveAgent(t)
	resp, err := http.Get(url + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var card map[string]any
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatal(err)
	}
	if n := len(card["supportedInterfaces"].([]any)); n != 4 || card["url"] != url+"/" || card["preferredTransport"] != "JSONRPC" {
		t.Fatalf("card: %s", body)
	}
	b, err := NewCardBuilder("go-agent", "test agent", "3.0.0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, v := range []ProtocolVersion{V1_0, V0_3} {
		_ = b.AddInterface(url+"/", v, JSON_RPC)
		_ = b.AddInterface(url+"/rest", v, HTTP_JSON)
	}
	_ = b.SetCapabilities(true, false)
	_ = b.AddSkill("demo", "Demo", "test skill", []string{"demo"}, nil)
	want, err := b.Build()
	if err != nil || !bytes.Equal(want, body) {
		t.Fatalf("the served card is not the builder's: %v\n%s\n%s", err, want, body)
	}
	none, _ := NewCardBuilder("a", "b", "1")
	defer none.Close()
	if _, err := none.Build(); err == nil || !strings.Contains(err.Error(), "no interface") {
		t.Fatalf("a card without interface: %v", err)
	}
}

func TestAgentServerWithTheBindingsOwnClient(t *testing.T) {
	url, srv, logs := serveAgent(t)
	for _, v := range []ProtocolVersion{V1_0, V0_3} {
		for _, b := range []Binding{JSON_RPC, HTTP_JSON} {
			t.Run(v.String()+"/"+b.String(), func(t *testing.T) {
				cfg := DefaultClientConfig()
				cfg.AllowHTTP, cfg.CallTimeout, cfg.StreamIdleTimeout = true, 20*time.Second, 20*time.Second
				target := url + "/" // the interface URL: no card resolution with a known target
				if b == HTTP_JSON {
					target = url + "/rest"
				}
				c, err := NewClientWithTarget(target, v, b, &cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				o, err := c.SendText("echo native", nil)
				if err != nil || o.Channel != ChannelMessage || o.Text == nil || *o.Text != "native" || o.Version != v {
					t.Fatalf("echo: %v %+v", err, o)
				}
				o, _ = c.SendText("fail", nil)
				if o.State == nil || *o.State != StateFailed || o.ErrorID == nil || o.Retryable == nil || *o.Retryable || o.LeakedDetail {
					t.Fatalf("fail: %+v", o)
				}
				if !strings.Contains(logs.String(), "error_id="+*o.ErrorID) || !strings.Contains(logs.String(), "db password wrong") {
					t.Fatalf("the cause is not logged with id %s:\n%s", *o.ErrorID, logs.String())
				}
				o, _ = c.SendText("busy", nil)
				if o.State == nil || *o.State != StateCanceled || o.CancelOrigin == nil || *o.CancelOrigin != "admission" {
					t.Fatalf("busy: %+v", o)
				}
				o, _ = c.SendText("count 2", nil)
				if o.State == nil || *o.State != StateCompleted || o.TaskID == nil {
					t.Fatalf("count: %+v", o)
				}
				got, _ := c.GetTask(*o.TaskID, nil)
				if got.State == nil || *got.State != StateCompleted {
					t.Fatalf("get: %+v", got)
				}
				s, err := c.StreamText("count 3", nil)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				items := 0
				for {
					ev, err := s.Next()
					if err != nil {
						t.Fatal(err)
					}
					if ev.Kind == StreamEventItem {
						items++
						continue
					}
					if ev.Kind == StreamEventEnd {
						if ev.Outcome.State == nil || *ev.Outcome.State != StateCompleted || items < 5 {
							t.Fatalf("stream end: %+v after %d items", ev.Outcome, items)
						}
						break
					}
				}
			})
		}
	}
	if n, _ := srv.Tally.Count("go-agent", "SendMessage", ChannelTask, "failed"); n != 4 {
		t.Fatalf("tally of failed sends: %d", n)
	}
	// A stream is counted when its handler returns, which may come just after the client
	// read the final event (and hung up): wait for the count, bounded.
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, _ := srv.Tally.Count("go-agent", "SendStreamingMessage", ChannelTask, "completed")
		if n == 4 {
			break
		}
		if n > 4 || time.Now().After(deadline) {
			t.Fatalf("tally of completed streams: %d", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var errorIDText = regexp.MustCompile(`Agent execution failed\. \(error_id: ([0-9a-f]{12})\)`)

func TestAgentServerFailedStreamsRefusalsAndHost(t *testing.T) {
	url, srv, _ := serveAgent(t)
	_, a := postJSON(t, url+"/", rpcBody("SendMessage", "fail", ""), v1)
	_, b := postJSON(t, url+"/", rpcBody("SendMessage", "panic", ""), v1)
	ma, mb := errorIDText.FindStringSubmatch(a), errorIDText.FindStringSubmatch(b)
	if ma == nil || mb == nil || ma[1] == mb[1] || strings.Contains(a, "password") || !strings.Contains(a, "[retryable=false; reason=bug]") {
		t.Fatalf("FAILED texts:\n%s\n%s", a, b)
	}
	resp, body := postJSON(t, url+"/", rpcBody("SendStreamingMessage", "slow 500", ""), v1)
	if resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" ||
		strings.Count(body, ": keep-alive") < 2 || !strings.Contains(body, "TASK_STATE_COMPLETED") {
		t.Fatalf("stream: %v\n%s", resp.Header, body)
	}
	_, body = postJSON(t, url+"/", rpcBody("SendMessage", "ask", ""), v1)
	var asked struct {
		Result struct {
			Task struct {
				ID     string                 `json:"id"`
				Status struct{ State string } `json:"status"`
			} `json:"task"`
		} `json:"result"`
	}
	_ = json.Unmarshal([]byte(body), &asked)
	if asked.Result.Task.Status.State != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("ask: %s", body)
	}
	_, body = postJSON(t, url+"/", rpcBody("SendMessage", "Ada", fmt.Sprintf(`,"taskId":%q`, asked.Result.Task.ID)), v1)
	if !strings.Contains(body, asked.Result.Task.ID) || !strings.Contains(body, "TASK_STATE_COMPLETED") {
		t.Fatalf("multi-turn: %s", body)
	}
	_, body = postJSON(t, url+"/", fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"CancelTask","params":{"id":%q}}`, asked.Result.Task.ID), v1)
	if !strings.Contains(body, "-32002") {
		t.Fatalf("cancel of a finished task: %s", body)
	}
	_, body = postJSON(t, url+"/", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"nope"}}`, nil)
	if !strings.Contains(body, "-32001") {
		t.Fatalf("unknown task: %s", body)
	}
	resp, _ = postJSON(t, url+"/", rpcBody("SendMessage", "x", ""), map[string]string{"Content-Type": "text/plain"})
	if resp.StatusCode != 415 {
		t.Fatalf("text/plain: %d", resp.StatusCode)
	}
	if n, _ := srv.Tally.Count("go-agent", "unknown", ChannelProtocol, "ContentTypeNotSupported"); n != 1 {
		t.Fatalf("refusal tally: %d", n)
	}
	resp, _ = postJSON(t, url+"/", rpcBody("SendMessage", "echo x", ""), map[string]string{"A2A-Version": "1.0", "Host": "rebound.example"})
	if resp.StatusCode != 421 {
		t.Fatalf("a rebound Host: %d", resp.StatusCode)
	}
}

// agentRPC posts one JSON-RPC request and decodes the answer.
func agentRPC(t *testing.T, url, method string, params any, headers map[string]string) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	_, out := postJSON(t, url+"/", string(body), headers)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%s: not JSON: %s", method, out)
	}
	return m
}

func rpcCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

func listTasks(t *testing.T, url string, params map[string]any) (ids []string, next string, total int, tasks []map[string]any) {
	t.Helper()
	m := agentRPC(t, url, "ListTasks", params, v1)
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("ListTasks %v: %v", params, m)
	}
	for _, x := range r["tasks"].([]any) {
		task := x.(map[string]any)
		ids = append(ids, task["id"].(string))
		tasks = append(tasks, task)
	}
	next, _ = r["nextPageToken"].(string)
	if _, ok := r["nextPageToken"]; !ok {
		t.Fatalf("no nextPageToken: %v", r)
	}
	tf, _ := r["totalSize"].(float64)
	if ps, _ := r["pageSize"].(float64); int(ps) != len(ids) {
		t.Fatalf("pageSize %v for %d tasks", r["pageSize"], len(ids))
	}
	return ids, next, int(tf), tasks
}

func sendIn(t *testing.T, url, text, contextID string) string {
	t.Helper()
	m := agentRPC(t, url, "SendMessage", map[string]any{"message": map[string]any{"messageId": newID(), "role": "ROLE_USER",
		"contextId": contextID, "parts": []any{map[string]any{"text": text}}}}, v1)
	task, _ := m["result"].(map[string]any)["task"].(map[string]any)
	if task == nil {
		t.Fatalf("%s: no task: %v", text, m)
	}
	return task["id"].(string)
}

func TestAgentServerListTasksPagesAndFilters(t *testing.T) {
	url, _, _ := serveAgent(t)
	var a []string // ctx-a, oldest first
	for range 3 {
		a = append(a, sendIn(t, url, "count 1", "ctx-a"))
	}
	b1, b2 := sendIn(t, url, "ask", "ctx-b"), sendIn(t, url, "ask", "ctx-b")
	// statusTimestampAfter is inclusive: keep mid clear of b2's status time (a status
	// stamped in mid's millisecond counts as "at" mid)
	time.Sleep(5 * time.Millisecond)
	mid := time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(5 * time.Millisecond)
	_ = agentRPC(t, url, "CancelTask", map[string]any{"id": b1}, v1) // b1's status changes last

	// Newest status change first, pages of pageSize, the token leading to the next page.
	ids, next, total, tasks := listTasks(t, url, map[string]any{"contextId": "ctx-a", "pageSize": 2})
	if total != 3 || len(ids) != 2 || ids[0] != a[2] || ids[1] != a[1] || next == "" {
		t.Fatalf("page 1: %v next %q total %d (tasks %v)", ids, next, total, a)
	}
	if _, has := tasks[0]["artifacts"]; has {
		t.Fatalf("artifacts without includeArtifacts: %v", tasks[0])
	}
	ids, next2, total, _ := listTasks(t, url, map[string]any{"contextId": "ctx-a", "pageSize": 2, "pageToken": next})
	if total != 3 || len(ids) != 1 || ids[0] != a[0] || next2 != "" {
		t.Fatalf("page 2: %v next %q total %d", ids, next2, total)
	}
	ids, _, total, _ = listTasks(t, url, map[string]any{})
	if total != 5 || len(ids) != 5 || ids[0] != b1 {
		t.Fatalf("all, default page: %v total %d", ids, total)
	}
	// Filters: state (either spelling reaches the handler as TASK_STATE_*), time, together.
	ids, _, _, _ = listTasks(t, url, map[string]any{"status": "TASK_STATE_INPUT_REQUIRED"})
	if len(ids) != 1 || ids[0] != b2 {
		t.Fatalf("input-required: %v", ids)
	}
	ids, _, _, _ = listTasks(t, url, map[string]any{"statusTimestampAfter": mid})
	if len(ids) != 1 || ids[0] != b1 {
		t.Fatalf("changed after %s: %v", mid, ids)
	}
	ids, _, _, _ = listTasks(t, url, map[string]any{"statusTimestampAfter": "2999-01-01T00:00:00+02:00"})
	if len(ids) != 0 {
		t.Fatalf("changed in 2999: %v", ids)
	}
	// historyLength and includeArtifacts apply to every task.
	_, _, _, tasks = listTasks(t, url, map[string]any{"contextId": "ctx-a", "historyLength": 0, "includeArtifacts": true})
	for _, task := range tasks {
		if h, _ := task["history"].([]any); len(h) != 0 {
			t.Fatalf("historyLength 0: %v", task["history"])
		}
		if arts, _ := task["artifacts"].([]any); len(arts) != 1 {
			t.Fatalf("includeArtifacts: %v", task["artifacts"])
		}
	}
	// The core's validation and the page token's.
	for _, bad := range []map[string]any{{"pageSize": 0}, {"pageSize": 101}, {"historyLength": -1},
		{"statusTimestampAfter": "yesterday"}, {"status": "sleeping"}, {"pageToken": "not-ours"}} {
		if m := agentRPC(t, url, "ListTasks", bad, v1); rpcCode(m) != -32602 {
			t.Fatalf("%v: %v", bad, m)
		}
	}
	// The same over HTTP+JSON 1.0 (query parameters).
	req, _ := http.NewRequest(http.MethodGet, url+"/rest/tasks?contextId=ctx-a&pageSize=1&pageToken="+next, nil)
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var page struct {
		Tasks []struct {
			ID string `json:"id"`
		} `json:"tasks"`
		NextPageToken string `json:"nextPageToken"`
		TotalSize     int    `json:"totalSize"`
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.Tasks) != 1 || page.Tasks[0].ID != a[0] || page.TotalSize != 3 || page.NextPageToken != "" {
		t.Fatalf("REST list: %d %s", resp.StatusCode, body)
	}
}

func TestAgentServerHandlerProtocolErrors(t *testing.T) {
	url, srv, logs := serveAgent(t)
	msg := func(text string) map[string]any {
		return map[string]any{"message": map[string]any{"messageId": newID(), "role": "ROLE_USER",
			"parts": []any{map[string]any{"text": text}}}}
	}
	// JSON-RPC 1.0: the code, the handler's message, the ErrorInfo in data.
	m := agentRPC(t, url, "SendMessage", msg("refuse bad word"), v1)
	e, _ := m["error"].(map[string]any)
	data, _ := e["data"].([]any)
	if rpcCode(m) != -32602 || e["message"] != "refused: bad word" || m["id"] != float64(7) || len(data) == 0 ||
		!strings.Contains(fmt.Sprint(data[0]), "INVALID_PARAMS") {
		t.Fatalf("1.0 JSON-RPC: %v", m)
	}
	// Wrapped errors count; an empty message is the standard one.
	if m = agentRPC(t, url, "SendMessage", msg("unsupported"), v1); rpcCode(m) != -32004 || m["error"].(map[string]any)["message"] == "" {
		t.Fatalf("wrapped UnsupportedOperation: %v", m)
	}
	// JSON-RPC 0.3: the same code, no 1.0 data.
	m = agentRPC(t, url, "message/send", map[string]any{"message": map[string]any{"messageId": "m-1", "role": "user", "kind": "message",
		"parts": []any{map[string]any{"kind": "text", "text": "refuse old"}}}}, nil)
	if rpcCode(m) != -32602 || m["error"].(map[string]any)["data"] != nil {
		t.Fatalf("0.3 JSON-RPC: %v", m)
	}
	// HTTP+JSON 1.0: the spec's status with a google.rpc.Status body.
	b, _ := json.Marshal(msg("refuse rest"))
	resp, body := postJSON(t, url+"/rest/message:send", string(b), v1)
	if resp.StatusCode != 400 || !strings.Contains(body, `"status":"INVALID_ARGUMENT"`) || !strings.Contains(body, "refused: rest") ||
		!strings.Contains(body, "INVALID_PARAMS") {
		t.Fatalf("1.0 REST: %d %s", resp.StatusCode, body)
	}
	// Streaming: JSON-RPC as an event stream of the one error; HTTP+JSON as the error response.
	b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "SendStreamingMessage", "params": msg("refuse stream")})
	resp, body = postJSON(t, url+"/", string(b), v1)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(body, "data:") ||
		!strings.Contains(body, `"code":-32602`) || !strings.Contains(body, `"id":9`) {
		t.Fatalf("JSON-RPC stream: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	b, _ = json.Marshal(msg("refuse rest stream"))
	resp, body = postJSON(t, url+"/rest/message:stream", string(b), v1)
	if resp.StatusCode != 400 || !strings.Contains(body, "INVALID_ARGUMENT") {
		t.Fatalf("REST stream: %d %s", resp.StatusCode, body)
	}
	// No task is kept for a refused message, and nothing is logged as a failure.
	if _, _, total, _ := listTasks(t, url, map[string]any{}); total != 0 {
		t.Fatalf("%d tasks kept after refusals", total)
	}
	if strings.Contains(logs.String(), "agent execution failed") {
		t.Fatalf("a refusal was logged as a failure:\n%s", logs.String())
	}
	// A refused follow-up leaves the task it named as it was.
	asked := sendIn(t, url, "ask", "ctx-r")
	m = agentRPC(t, url, "SendMessage", map[string]any{"message": map[string]any{"messageId": newID(), "role": "ROLE_USER",
		"taskId": asked, "parts": []any{map[string]any{"text": "refuse-turn"}}}}, v1)
	if rpcCode(m) != -32004 {
		t.Fatalf("refused turn: %v", m)
	}
	got := agentRPC(t, url, "GetTask", map[string]any{"id": asked}, v1)
	if st := got["result"].(map[string]any)["status"].(map[string]any)["state"]; st != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("the task after a refused turn: %v", got)
	}
	// After the handler reported, an error is the task's failure (an error_id, logged).
	m = agentRPC(t, url, "SendMessage", msg("late"), v1)
	if st := fmt.Sprint(m["result"]); !strings.Contains(st, "TASK_STATE_FAILED") || !errorIDText.MatchString(st) {
		t.Fatalf("late protocol error: %v", m)
	}
	if n, _ := srv.Tally.Count("go-agent", "SendMessage", ChannelProtocol, "InvalidParams"); n != 3 {
		t.Fatalf("tally of InvalidParams sends: %d", n)
	}
	if n, _ := srv.Tally.Count("go-agent", "SendStreamingMessage", ChannelProtocol, "InvalidParams"); n != 2 {
		t.Fatalf("tally of InvalidParams streams: %d", n)
	}
}
