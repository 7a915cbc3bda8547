// Command serve-client drives a server with the official Go SDK's v2 client (a2a-go/v2
// v2.3.1) as an application uses it: `serve-client URL 1.0|0.3` resolves the card under URL
// and makes a client from it with a2aclient.NewFromCard: for 1.0 with the SDK's defaults (its
// resolver and 1.0 transports), for 0.3 with its a2av0 compat (the 0.3 card parser and
// JSON-RPC transport), as tests/go-sdk-v2/cmd/conformance-client does. Runs send, stream,
// get and cancel against an agent that answers the binding example servers' words (`echo
// <text>`, `count <n>`, `slow <seconds>`, `refuse <text>`: InvalidParams). One line per check; exit status 1 when any failed.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

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

var failed bool
var label string

func check(name string, ok bool, format string, args ...any) {
	if ok {
		fmt.Printf("ok %s %s\n", label, name)
		return
	}
	failed = true
	fmt.Printf("FAIL %s %s: %s\n", label, name, fmt.Sprintf(format, args...))
}

func msg(t string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(t))}
}

func main() {
	if len(os.Args) != 3 || (os.Args[2] != "1.0" && os.Args[2] != "0.3") {
		fmt.Fprintln(os.Stderr, "usage: serve-client URL 1.0|0.3")
		os.Exit(2)
	}
	url, version := os.Args[1], os.Args[2]
	label = "go-sdk-v2-" + version
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var card *a2a.AgentCard
	var c *a2aclient.Client
	var err error
	if version == "0.3" {
		resolver := &agentcard.Resolver{Client: agentcard.DefaultResolver.Client, CardParser: a2av0.NewAgentCardParser()}
		if card, err = resolver.Resolve(ctx, url); err == nil {
			c, err = a2aclient.NewFromCard(ctx, card, a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}))
		}
	} else if card, err = agentcard.DefaultResolver.Resolve(ctx, url); err == nil {
		c, err = a2aclient.NewFromCard(ctx, card)
	}
	if err != nil {
		fmt.Printf("FAIL %s client: %v\n", label, err)
		os.Exit(1)
	}
	defer c.Destroy()

	res, err := c.SendMessage(ctx, msg("echo hello"))
	m, isMsg := res.(*a2a.Message)
	check("send", err == nil && isMsg && text(m.Parts) == "hello", "%T %v", res, err)

	var state a2a.TaskState
	var arts strings.Builder
	for ev, err := range c.SendStreamingMessage(ctx, msg("count 3")) {
		if err != nil {
			state = a2a.TaskState("error: " + err.Error())
			break
		}
		switch e := ev.(type) {
		case *a2a.Task:
			state = e.Status.State
		case *a2a.TaskStatusUpdateEvent:
			state = e.Status.State
		case *a2a.TaskArtifactUpdateEvent:
			arts.WriteString(text(e.Artifact.Parts))
		}
	}
	check("stream", state == a2a.TaskStateCompleted && arts.String() == "chunk 1 chunk 2 chunk 3 ", "%s %q", state, arts.String())

	res, err = c.SendMessage(ctx, msg("count 2"))
	task, isTask := res.(*a2a.Task)
	check("send a task", err == nil && isTask && task.Status.State == a2a.TaskStateCompleted, "%T %v", res, err)
	if isTask {
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		check("get", err == nil && got.ID == task.ID && got.Status.State == a2a.TaskStateCompleted && len(got.History) >= 1,
			"%v %v", got, err)
	}
	_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
	check("get of an unknown task", errors.Is(err, a2a.ErrTaskNotFound), "%v", err)

	_, err = c.SendMessage(ctx, msg("refuse x"))
	check("a refused send", errors.Is(err, a2a.ErrInvalidParams) && strings.Contains(err.Error(), "refused: x"), "%v", err)
	err = nil
	for _, e := range c.SendStreamingMessage(ctx, msg("refuse x")) {
		if e != nil {
			err = e
			break
		}
	}
	check("a refused stream", errors.Is(err, a2a.ErrInvalidParams), "%v", err)

	var id a2a.TaskID
	var canceled *a2a.Task
	var cancelErr error
	state = ""
	for ev, err := range c.SendStreamingMessage(ctx, msg("slow 30")) {
		if err != nil {
			state = a2a.TaskState("error: " + err.Error())
			break
		}
		if t, ok := ev.(*a2a.Task); ok && id == "" {
			id = t.ID
			canceled, cancelErr = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
		}
		if u, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			state = u.Status.State
		}
	}
	check("cancel", id != "" && cancelErr == nil && canceled.Status.State == a2a.TaskStateCanceled, "%v %v", canceled, cancelErr)
	check("the canceled stream", state == a2a.TaskStateCanceled, "last state %s", state)
	if id != "" {
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		check("get after cancel", err == nil && got.Status.State == a2a.TaskStateCanceled, "%v %v", got, err)
	}
	if failed {
		os.Exit(1)
	}
}
