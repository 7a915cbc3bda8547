package interop

// Issue 21: the official Go SDK server (a2a-go v0.3.3, a2asrv) sends nothing on a
// resubscribe until the task changes, not even the response head. `a2a stream` against an
// agent that goes silent across several of the client's idle timeouts must resubscribe to
// the same task and read the late answer (the wait for a head is bounded by the call
// timeout, not by the idle timeout), and when the resubscribes allowed are spent, end with
// that task's id and `resubscribe` advice. Before the fix it ended after one resubscribe
// with transport/Timeout, retry backoff and no task id.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// silentAgent reports working, stays silent for `silence`, then answers and completes.
type silentAgent struct{ silence time.Duration }

func (a *silentAgent) Execute(ctx context.Context, reqCtx *a2asrv.RequestContext, q eventqueue.Queue) error {
	if reqCtx.StoredTask == nil {
		if err := q.Write(ctx, a2a.NewSubmittedTask(reqCtx, reqCtx.Message)); err != nil {
			return err
		}
	}
	if err := q.Write(ctx, a2a.NewStatusUpdateEvent(reqCtx, a2a.TaskStateWorking, nil)); err != nil {
		return err
	}
	select {
	case <-time.After(a.silence):
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := q.Write(ctx, a2a.NewArtifactEvent(reqCtx, a2a.TextPart{Text: "after the silence"})); err != nil {
		return err
	}
	done := a2a.NewStatusUpdateEvent(reqCtx, a2a.TaskStateCompleted, nil)
	done.Final = true
	return q.Write(ctx, done)
}

func (a *silentAgent) Cancel(ctx context.Context, reqCtx *a2asrv.RequestContext, q eventqueue.Queue) error {
	return q.Write(ctx, a2a.NewStatusUpdateEvent(reqCtx, a2a.TaskStateCanceled, nil))
}

// serveGoSDK serves the silent agent with the Go SDK's JSON-RPC handler on 127.0.0.1.
func serveGoSDK(t *testing.T, silence time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	card := &a2a.AgentCard{
		Name:               "silent",
		Description:        "goes silent across the client's idle timeouts",
		URL:                url + "/",
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		ProtocolVersion:    "0.3.0",
		Version:            "1.0.0",
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		Skills:             []a2a.AgentSkill{{ID: "silent", Name: "Silent", Description: "waits", Tags: []string{"test"}}},
	}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(&silentAgent{silence: silence})))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return url
}

// streamJSON runs `a2a stream URL go --json ARGS...` (bounded) and returns its JSON lines
// and its whole output.
func streamJSON(t *testing.T, url string, args ...string) ([]map[string]any, string) {
	t.Helper()
	bin := os.Getenv("A2A_BIN")
	if bin == "" {
		t.Fatal("A2A_BIN must name the built a2a binary (scripts/ci/65-go-sdk.sh sets it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"stream", url, "go", "--allow-http", "--json"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("a2a stream did not finish within 60 s: %s", stderr.String())
	}
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("not a JSON line %q: %v", sc.Text(), err)
		}
		lines = append(lines, v)
	}
	if len(lines) == 0 {
		t.Fatalf("no output; stderr: %s", stderr.String())
	}
	return lines, string(out)
}

func TestA2AStreamResubscribesAcrossTheGoSDKServersSilence(t *testing.T) {
	// Idle timeout 0.7 s, silence 2.4 s: the first stream goes idle, the resubscribe's head
	// comes with the answer, after more than three idle timeouts.
	url := serveGoSDK(t, 2400*time.Millisecond)
	lines, out := streamJSON(t, url, "--idle-timeout", "0.7", "--resubscribes", "5")
	end := lines[len(lines)-1]
	var resubscribed []string
	for _, l := range lines {
		if id, ok := l["resubscribing"].(string); ok {
			resubscribed = append(resubscribed, id)
		}
	}
	taskID, _ := end["task_id"].(string)
	if end["end"] != "completed" || end["state"] != "completed" || taskID == "" {
		t.Fatalf("end %v (resubscribed %v)", end, resubscribed)
	}
	if len(resubscribed) == 0 {
		t.Fatalf("never resubscribed across the silence: %v", end)
	}
	for _, id := range resubscribed {
		if id != taskID {
			t.Fatalf("resubscribed to %q, the task is %q", id, taskID)
		}
	}
	if end["resubscribes"] != float64(len(resubscribed)) {
		t.Fatalf("end says %v resubscribes, %d seen", end["resubscribes"], len(resubscribed))
	}
	if !strings.Contains(out, "after the silence") {
		t.Fatalf("the answer after the silence is missing: %s", out)
	}
}

func TestA2AStreamSilentPastItsResubscribesEndsWithTheTask(t *testing.T) {
	// Two resubscribes allowed, each given 1 s for its head, and the agent stays silent for
	// 10 s: the end keeps the task id and says resubscribe (the task is still running),
	// never backoff of no task.
	url := serveGoSDK(t, 10*time.Second)
	lines, _ := streamJSON(t, url, "--idle-timeout", "0.5", "--resubscribes", "2", "--timeout", "1")
	end := lines[len(lines)-1]
	taskID, _ := end["task_id"].(string)
	if end["error"] != "Timeout" || end["retry"] != "resubscribe" || taskID == "" {
		t.Fatalf("end %v", end)
	}
	if end["resubscribes"] != float64(2) {
		t.Fatalf("resubscribes %v", end["resubscribes"])
	}
}
