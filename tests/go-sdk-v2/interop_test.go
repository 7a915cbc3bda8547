// Package interop tests a2a-core against the official Go SDK at A2A 1.0
// (github.com/a2aproject/a2a-go/v2 v2.3.1) in both directions, on 127.0.0.1:
//
//   - the project's `a2a` CLI ($A2A_BIN) against an a2asrv server that serves both bindings
//     the SDK offers over HTTP, JSON-RPC (/jsonrpc) and HTTP+JSON (/rest), at 1.0: a send,
//     a stream and a FAILED task with its error_id, on each binding, with the server
//     counting which binding each call arrived on;
//   - the SDK's client against `a2a demo --serve`: JSON-RPC at 1.0 (the SDK's default
//     transports) and at 0.3 (its a2av0 compat transport), and HTTP+JSON when the demo's
//     card offers it.
//
// scripts/ci/66-go-sdk-v2.sh builds the binary and runs these tests.
package interop

import (
	"bufio"
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

const errorID = "0f1e2d3c4b5a"

// echoAgent completes with the message's text as an artifact; a text starting with "fail"
// ends FAILED with an ADK-style error_id in the status message.
type echoAgent struct{}

func (echoAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var in strings.Builder
		for _, p := range ec.Message.Parts {
			in.WriteString(p.Text())
		}
		text := in.String()
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		if strings.HasPrefix(text, "fail") {
			msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Agent execution failed. (error_id: "+errorID+")"))
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateFailed, msg), nil)
			return
		}
		art := a2a.NewArtifactEvent(ec, a2a.NewTextPart(text))
		art.LastChunk = true
		if !yield(art, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (echoAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// goServer serves echoAgent over JSON-RPC (/jsonrpc) and HTTP+JSON (/rest) at 1.0, with a
// card listing both; the counters say which binding each request arrived on.
type goServer struct {
	url           string
	jsonrpc, rest atomic.Int64
}

func startGoServer(t *testing.T) *goServer {
	t.Helper()
	s := &goServer{}
	handler := a2asrv.NewHandler(echoAgent{})
	jsonrpc := a2asrv.NewJSONRPCHandler(handler)
	rest := http.StripPrefix("/rest", a2asrv.NewRESTHandler(handler))
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux) // 127.0.0.1, a free port
	t.Cleanup(srv.Close)
	s.url = srv.URL
	card := &a2a.AgentCard{
		Name:        "a2a-go v2 echo",
		Description: "echoes the text; 'fail' fails with an error_id",
		Version:     "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(srv.URL+"/jsonrpc", a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface(srv.URL+"/rest", a2a.TransportProtocolHTTPJSON),
		},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		Skills:             []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "echoes", Tags: []string{"test"}}},
	}
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/jsonrpc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.jsonrpc.Add(1)
		jsonrpc.ServeHTTP(w, r)
	}))
	mux.Handle("/rest/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.rest.Add(1)
		rest.ServeHTTP(w, r)
	}))
	return s
}

func a2aBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("A2A_BIN")
	if bin == "" {
		t.Fatal("A2A_BIN must name the built a2a binary (scripts/ci/66-go-sdk-v2.sh sets it)")
	}
	return bin
}

// runCLI runs the a2a CLI with a 60 s bound and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, a2aBin(t), args...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("a2a %v did not finish within 60 s: %s", args, out)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("a2a %v: %v", args, err)
	}
	return code, string(out)
}

func TestA2ACLIAgainstGoV2Server(t *testing.T) {
	s := startGoServer(t)
	for _, b := range []struct {
		flag    string
		counter *atomic.Int64
	}{{"jsonrpc", &s.jsonrpc}, {"http+json", &s.rest}} {
		t.Run(b.flag, func(t *testing.T) {
			common := []string{"--allow-http", "--protocol", "1.0", "--binding", b.flag}
			before := b.counter.Load()
			code, out := runCLI(t, append([]string{"send", s.url, "hello over " + b.flag}, common...)...)
			if code != 0 || !strings.Contains(out, "hello over "+b.flag) {
				t.Fatalf("send: exit %d, output:\n%s", code, out)
			}
			code, out = runCLI(t, append([]string{"stream", s.url, "streamed over " + b.flag}, common...)...)
			if code != 0 || !strings.Contains(out, "streamed over "+b.flag) {
				t.Fatalf("stream: exit %d, output:\n%s", code, out)
			}
			code, out = runCLI(t, append([]string{"send", s.url, "fail"}, common...)...)
			if code != 5 || !strings.Contains(out, errorID) {
				t.Fatalf("FAILED task: exit %d (want 5, the CLI's task-failed status), output:\n%s", code, out)
			}
			if got := b.counter.Load() - before; got < 3 {
				t.Fatalf("%d requests reached the %s handler, want at least 3", got, b.flag)
			}
		})
	}
}

// serveDemo starts `a2a demo --serve` and returns its URL; the cleanup stops it with
// SIGTERM and checks that it exits 0.
func serveDemo(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(a2aBin(t), "demo", "--serve")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- strings.TrimSpace(line)
	}()
	var line string
	select {
	case line = <-ready:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("a2a demo --serve printed no READY line")
	}
	url, ok := strings.CutPrefix(line, "READY ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		cmd.Process.Kill()
		t.Fatalf("READY line %q", line)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("a2a demo --serve after SIGTERM: %v (want exit 0)", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("a2a demo --serve did not stop on SIGTERM")
		}
	})
	return url
}

func text(parts []*a2a.Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

// exercise sends "echo hi there", "fail" and streams "count 3" through c.
func exercise(t *testing.T, ctx context.Context, c *a2aclient.Client) {
	t.Helper()
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("echo hi there")),
	})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) == 0 ||
		text(task.Artifacts[0].Parts) != "hi there" {
		t.Fatalf("send result %#v", res)
	}
	res, err = c.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("fail")),
	})
	if err != nil {
		t.Fatalf("send fail: %v", err)
	}
	failed, ok := res.(*a2a.Task)
	if !ok || failed.Status.State != a2a.TaskStateFailed || failed.Status.Message == nil ||
		!strings.Contains(text(failed.Status.Message.Parts), "(error_id: ") {
		t.Fatalf("failed result %#v", res)
	}
	var states []a2a.TaskState
	chunks := 0
	for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("count 3")),
	}) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		switch e := ev.(type) {
		case *a2a.TaskStatusUpdateEvent:
			states = append(states, e.Status.State)
		case *a2a.TaskArtifactUpdateEvent:
			chunks++
		case *a2a.Task:
			states = append(states, e.Status.State)
		}
	}
	if len(states) == 0 || states[len(states)-1] != a2a.TaskStateCompleted || chunks < 3 {
		t.Fatalf("stream: states %v, %d chunks", states, chunks)
	}
}

func TestGoV2ClientAgainstDemoServe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	url := serveDemo(t)
	resolver := &agentcard.Resolver{Client: agentcard.DefaultResolver.Client, CardParser: a2av0.NewAgentCardParser()}
	card, err := resolver.Resolve(ctx, url)
	if err != nil {
		t.Fatalf("resolve the card: %v", err)
	}
	byKey := map[string]*a2a.AgentInterface{}
	for _, i := range card.SupportedInterfaces {
		byKey[string(i.ProtocolVersion)+" "+string(i.ProtocolBinding)] = i
	}
	t.Run("jsonrpc-1.0", func(t *testing.T) {
		iface := byKey["1.0 JSONRPC"]
		if iface == nil {
			t.Fatalf("the demo's card lists no 1.0 JSON-RPC interface: %+v", card.SupportedInterfaces)
		}
		c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface})
		if err != nil {
			t.Fatalf("client: %v", err)
		}
		defer c.Destroy()
		exercise(t, ctx, c)
	})
	t.Run("jsonrpc-0.3-compat", func(t *testing.T) {
		iface := byKey["0.3 JSONRPC"]
		if iface == nil {
			t.Fatalf("the demo's card lists no 0.3 JSON-RPC interface: %+v", card.SupportedInterfaces)
		}
		c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface},
			a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}))
		if err != nil {
			t.Fatalf("client: %v", err)
		}
		defer c.Destroy()
		exercise(t, ctx, c)
	})
	t.Run("http+json-1.0", func(t *testing.T) {
		iface := byKey["1.0 HTTP+JSON"]
		if iface == nil {
			// The demo's card decides; this direction is covered when it offers the binding.
			t.Skipf("the demo's card offers no 1.0 HTTP+JSON interface (it lists %d interfaces)", len(card.SupportedInterfaces))
		}
		c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface})
		if err != nil {
			t.Fatalf("client: %v", err)
		}
		defer c.Destroy()
		exercise(t, ctx, c)
	})
	t.Run("default-choice", func(t *testing.T) {
		// What an application gets with the SDK's defaults from the card as it is.
		c, err := a2aclient.NewFromCard(ctx, card)
		if err != nil {
			t.Fatalf("client: %v", err)
		}
		defer c.Destroy()
		exercise(t, ctx, c)
	})
}
