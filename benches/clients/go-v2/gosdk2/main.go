// Command gosdk2 is the official Go SDK's client at A2A 1.0 (github.com/a2aproject/a2a-go/v2
// v2.3.1, JSON-RPC, the SDK's own choice from the card) in the client-overhead harness: the
// card resolved once with the SDK's default resolver, a client made from it
// (a2aclient.NewFromCard), then SendMessage and SendStreamingMessage as an application calls
// them, every answer asserted.
package main

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"a2a.local/bench-clients/common"
)

func text(parts []*a2a.Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func request(t string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(t))}
}

func send(ctx context.Context, c *a2aclient.Client) {
	res, err := c.SendMessage(ctx, request("ping"))
	common.Check(err == nil, "send: %v", err)
	task, ok := res.(*a2a.Task)
	common.Check(ok && task.Status.State == a2a.TaskStateCompleted && len(task.Artifacts) == 1 &&
		text(task.Artifacts[0].Parts) == "ping", "send result %#v", res)
}

func stream(ctx context.Context, c *a2aclient.Client, n int) {
	events, last := 0, ""
	var state a2a.TaskState
	for ev, err := range c.SendStreamingMessage(ctx, request(fmt.Sprintf("stream %d", n))) {
		common.Check(err == nil, "stream: %v", err)
		events++
		switch e := ev.(type) {
		case *a2a.TaskStatusUpdateEvent:
			state = e.Status.State
		case *a2a.TaskArtifactUpdateEvent:
			last = text(e.Artifact.Parts)
		case *a2a.Task:
			state = e.Status.State
		}
	}
	common.Check(events == n, "%d events, wanted %d", events, n)
	common.Check(state == a2a.TaskStateCompleted, "end state %v", state)
	common.Check(last == fmt.Sprintf("chunk %d", n-4), "last artifact %q", last)
}

func main() {
	p := common.FromEnv()
	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, p.URL)
	common.Check(err == nil, "card: %v", err)
	c, err := a2aclient.NewFromCard(ctx, card)
	common.Check(err == nil, "client: %v", err)
	defer c.Destroy()
	common.Run(p, common.Client{
		Name:   "go-sdk-v2",
		Send:   func() { send(ctx, c) },
		Stream: func(n int) { stream(ctx, c, n) },
		// Pulled to its first event and left open (iter.Pull2 keeps the SDK's iterator
		// suspended with its response body open).
		Hold: func() func() {
			next, stop := iter.Pull2(c.SendStreamingMessage(ctx, request("hold")))
			ev, err, ok := next()
			_, isTask := ev.(*a2a.Task)
			common.Check(ok && err == nil && isTask, "first event %#v %v", ev, err)
			return stop
		},
	})
}
