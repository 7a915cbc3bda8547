// Command serve-client drives a server with the official Go SDK's 0.3 client (a2a-go
// v0.3.3) as an application uses it: `serve-client URL` resolves the card under URL, makes a
// client from it (a2aclient.NewFromCard, the SDK's defaults) and runs send, stream, get and
// cancel against an agent that answers the binding example servers' words (`echo <text>`,
// `count <n>`, `slow <seconds>`, `refuse <text>`: InvalidParams). One line per check; exit status 1 when any failed.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

func text(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		if tp, ok := p.(a2a.TextPart); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

var failed bool

func check(name string, ok bool, format string, args ...any) {
	if ok {
		fmt.Printf("ok go-sdk-0.3 %s\n", name)
		return
	}
	failed = true
	fmt.Printf("FAIL go-sdk-0.3 %s: %s\n", name, fmt.Sprintf(format, args...))
}

func msg(t string) *a2a.MessageSendParams {
	return &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: t})}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: serve-client URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	card, err := agentcard.NewResolver(nil).Resolve(ctx, os.Args[1])
	if err != nil {
		fmt.Printf("FAIL go-sdk-0.3 card: %v\n", err)
		os.Exit(1)
	}
	c, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		fmt.Printf("FAIL go-sdk-0.3 client: %v\n", err)
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
			state = "error: " + a2a.TaskState(err.Error())
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
	if check("send a task", err == nil && isTask && task.Status.State == a2a.TaskStateCompleted, "%T %v", res, err); isTask {
		got, err := c.GetTask(ctx, &a2a.TaskQueryParams{ID: task.ID})
		check("get", err == nil && got.ID == task.ID && got.Status.State == a2a.TaskStateCompleted && len(got.History) >= 1,
			"%v %v", got, err)
	}
	_, err = c.GetTask(ctx, &a2a.TaskQueryParams{ID: "no-such-task"})
	check("get of an unknown task", errors.Is(err, a2a.ErrTaskNotFound), "%v", err)

	_, err = c.SendMessage(ctx, msg("refuse x"))
	check("a refused send", errors.Is(err, a2a.ErrInvalidParams), "%v", err) // v0.3 keeps only the kind
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
			state = "error: " + a2a.TaskState(err.Error())
			break
		}
		if t, ok := ev.(*a2a.Task); ok && id == "" {
			id = t.ID
			canceled, cancelErr = c.CancelTask(ctx, &a2a.TaskIDParams{ID: id})
		}
		if u, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			state = u.Status.State
		}
	}
	check("cancel", id != "" && cancelErr == nil && canceled.Status.State == a2a.TaskStateCanceled, "%v %v", canceled, cancelErr)
	check("the canceled stream", state == a2a.TaskStateCanceled, "last state %s", state)
	if id != "" {
		got, err := c.GetTask(ctx, &a2a.TaskQueryParams{ID: id})
		check("get after cancel", err == nil && got.Status.State == a2a.TaskStateCanceled, "%v %v", got, err)
	}
	if failed {
		os.Exit(1)
	}
}
