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
			default:
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
	if n, _ := srv.Tally.Count("go-agent", "SendStreamingMessage", ChannelTask, "completed"); n != 4 {
		t.Fatalf("tally of completed streams: %d", n)
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
