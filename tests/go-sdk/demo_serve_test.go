// Package interop drives `a2a demo --serve` with the official Go SDK's 0.3 client
// (github.com/a2aproject/a2a-go v0.3.3, issue 12). The SDK picks its interface from the
// card's 0.3 fields only (url and preferredTransport, then additionalInterfaces): the card
// written by a2a-core's CardBuilder must carry them for this client to work at all.
//
// The `a2a` binary comes from $A2A_BIN (scripts/ci/65-go-sdk.sh builds and sets it).
package interop

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

// serve starts `a2a demo --serve` and returns its URL; the cleanup stops it with SIGTERM
// and checks that it exits 0.
func serve(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("A2A_BIN")
	if bin == "" {
		t.Fatal("A2A_BIN must name the built a2a binary (scripts/ci/65-go-sdk.sh sets it)")
	}
	cmd := exec.Command(bin, "demo", "--serve")
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

func client(t *testing.T, ctx context.Context, url string) *a2aclient.Client {
	t.Helper()
	card, err := agentcard.NewResolver(nil).Resolve(ctx, url)
	if err != nil {
		t.Fatalf("resolve the card: %v", err)
	}
	if card.PreferredTransport != a2a.TransportProtocolJSONRPC || card.URL != url+"/a2a" {
		t.Fatalf("card's 0.3 fields: preferredTransport %q url %q", card.PreferredTransport, card.URL)
	}
	c, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatalf("the SDK could not pick an interface from the card: %v", err)
	}
	t.Cleanup(func() { c.Destroy() })
	return c
}

func text(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		if tp, ok := p.(a2a.TextPart); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

func TestGoSDKClientAgainstDemoServe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url := serve(t)
	c := client(t, ctx, url)

	res, err := c.SendMessage(ctx, &a2a.MessageSendParams{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "echo hi there"}),
	})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) == 0 ||
		text(task.Artifacts[0].Parts) != "hi there" {
		t.Fatalf("send result %#v", res)
	}

	res, err = c.SendMessage(ctx, &a2a.MessageSendParams{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "fail"}),
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
	for ev, err := range c.SendStreamingMessage(ctx, &a2a.MessageSendParams{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "count 3"}),
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
