// Command conformance-client is the official Go SDK's 1.0 client (a2a-go/v2 v2.3.1) as an
// application uses it, for `a2a-testkit conformance`: `conformance-client send|stream URL
// TEXT` resolves the card under URL with the SDK's resolver and its compat card parser
// (a2av0.NewAgentCardParser: 1.0 cards and 0.3 cards alike), makes a client from it
// (a2aclient.NewFromCard with the SDK's default transports plus its 0.3 JSON-RPC compat
// transport, a2av0.WithJSONRPCTransport, the documented way to reach 0.3 agents; no
// timeout, retry or resubscribe option added), sends TEXT and prints what came back. Exit
// status: 0 for a completed task or a message reply, 1 for an error, 3 for a task that
// ended in another state.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

func text(parts []*a2a.Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func fail(format string, args ...any) {
	fmt.Printf("error: "+format+"\n", args...)
	os.Exit(1)
}

func report(state a2a.TaskState, status, artifacts string) {
	fmt.Printf("state: %s\n", state)
	if status != "" {
		fmt.Printf("status: %s\n", status)
	}
	if artifacts != "" {
		fmt.Printf("text: %s\n", artifacts)
	}
	if state == a2a.TaskStateCompleted {
		os.Exit(0)
	}
	os.Exit(3)
}

func main() {
	if len(os.Args) != 4 || (os.Args[1] != "send" && os.Args[1] != "stream") {
		fmt.Fprintln(os.Stderr, "usage: conformance-client send|stream URL TEXT")
		os.Exit(2)
	}
	mode, url, msg := os.Args[1], os.Args[2], os.Args[3]
	ctx := context.Background()
	resolver := &agentcard.Resolver{Client: agentcard.DefaultResolver.Client, CardParser: a2av0.NewAgentCardParser()}
	card, err := resolver.Resolve(ctx, url)
	if err != nil {
		fail("card: %v", err)
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}))
	if err != nil {
		fail("client: %v", err)
	}
	defer c.Destroy()
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(msg))}
	if mode == "send" {
		res, err := c.SendMessage(ctx, req)
		if err != nil {
			fail("send: %v", err)
		}
		switch r := res.(type) {
		case *a2a.Task:
			status := ""
			if r.Status.Message != nil {
				status = text(r.Status.Message.Parts)
			}
			var arts strings.Builder
			for _, a := range r.Artifacts {
				arts.WriteString(text(a.Parts))
			}
			report(r.Status.State, status, arts.String())
		case *a2a.Message:
			fmt.Printf("message: %s\n", text(r.Parts))
			os.Exit(0)
		default:
			fail("unexpected result %#v", res)
		}
	}
	var state a2a.TaskState
	var status string
	var arts strings.Builder
	for ev, err := range c.SendStreamingMessage(ctx, req) {
		if err != nil {
			fail("stream: %v", err)
		}
		switch e := ev.(type) {
		case *a2a.Task:
			state = e.Status.State
		case *a2a.TaskStatusUpdateEvent:
			state = e.Status.State
			if e.Status.Message != nil {
				status = text(e.Status.Message.Parts)
			}
		case *a2a.TaskArtifactUpdateEvent:
			arts.WriteString(text(e.Artifact.Parts))
		case *a2a.Message:
			fmt.Printf("message: %s\n", text(e.Parts))
			os.Exit(0)
		}
	}
	report(state, status, arts.String())
}
