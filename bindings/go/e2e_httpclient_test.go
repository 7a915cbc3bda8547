package a2a

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// HTTPClient over net/http against each real peer (the Python a2a-sdk and the JS
// @a2a-js/sdk, both 1.3.0), in every protocol version and binding: the interface is named
// (WithInterface) so that each of the four is exercised; one more client per peer
// resolves the card.
func TestE2EHTTPClientPeers(t *testing.T) {
	for kind, base := range answerPeers(t) {
		t.Run(kind+"/card", func(t *testing.T) {
			c := newTestHTTPClient(t, base+"/")
			o, err := c.SendText(context.Background(), "echo via card", nil)
			if err != nil || resultText(o) != "via card" {
				t.Fatalf("%v %+v", err, o)
			}
			// WithProtocol / WithBinding insist on one of the card's interfaces.
			for _, v := range []ProtocolVersion{V0_3, V1_0} {
				c := newTestHTTPClient(t, base+"/", WithProtocol(v), WithBinding(HTTP_JSON))
				if c.version != v || c.binding != HTTP_JSON {
					t.Fatalf("%v: resolved %v %v", v, c.version, c.binding)
				}
				o, err := c.SendText(context.Background(), "echo picked", nil)
				if err != nil || resultText(o) != "picked" || o.Version != v {
					t.Fatalf("%v: %v %+v", v, err, o)
				}
			}
		})
		for _, v := range []ProtocolVersion{V0_3, V1_0} {
			for _, b := range []Binding{JSON_RPC, HTTP_JSON} {
				iface := base + "/"
				if b == HTTP_JSON {
					iface = base + "/rest"
				}
				t.Run(kind+"/"+v.String()+"/"+b.String(), func(t *testing.T) {
					c := newTestHTTPClient(t, iface, WithInterface(v, b), WithCallTimeout(20*time.Second))
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					var oe *OutcomeError

					o, err := c.SendText(ctx, "echo hi there", nil)
					if st, _ := o.GetState(); err != nil || st != StateCompleted || resultText(o) != "hi there" {
						t.Fatalf("echo: %v %+v", err, o)
					}
					o, err = c.SendText(ctx, "fail", nil)
					if id, ok := o.GetErrorID(); !errors.As(err, &oe) || o.ExitCode != 5 || !ok || !hex12.MatchString(id) {
						t.Fatalf("fail: %v %+v", err, o)
					}
					o, err = c.SendMessage(ctx, []Part{TextPart("mirror"), DataPart(map[string]any{"k": "v"})}, map[string]any{"trace": "go"}, nil)
					if err != nil || o.Result == nil || len(o.Result.Parts()) != 2 || o.Result.Parts()[1].Kind != "data" {
						t.Fatalf("mirror: %v %+v", err, o)
					}
					_, err = c.GetTask(ctx, "no-such-task", nil)
					if !errors.As(err, &oe) || oe.Outcome.Error != NameTaskNotFound {
						t.Fatalf("unknown task: %v", err)
					}
					var texts []string
					var end error
					for ev, err := range c.Stream(ctx, "stream 3", nil) {
						if ev.Kind == StreamEventEnd {
							end = err
							continue
						}
						if ev.Text != "" {
							texts = append(texts, ev.Text)
						}
					}
					if end != nil || strings.Join(texts, "|") != "chunk 0|chunk 1|chunk 2" {
						t.Fatalf("stream: %v %q", end, texts)
					}
					// A parked task: the stream's first item names it; cancel it, resubscribe
					// sees it end CANCELED (or says it already ended).
					var taskID string
					for ev := range c.Stream(ctx, "cancel-me", nil) {
						if id, ok := ev.Outcome.GetTaskID(); ok {
							taskID = id
							break
						}
					}
					if taskID == "" {
						t.Fatal("cancel-me: no task id")
					}
					o, err = c.CancelTask(ctx, taskID, nil)
					if st, _ := o.GetState(); !errors.As(err, &oe) || st != StateCanceled || o.ExitCode != 6 {
						t.Fatalf("cancel: %v %+v", err, o)
					}
					if v == V1_0 {
						page, err := c.ListTasks(ctx, &ListTasksRequest{PageSize: 50}, nil)
						if err != nil || len(pageTasks(page)) == 0 {
							t.Fatalf("list: %v %+v", err, page)
						}
						found := false
						for _, tk := range page.Tasks {
							found = found || tk.ID == taskID
						}
						t.Logf("ListTasks: %d tasks, the canceled one listed: %v", len(page.Tasks), found)
					} else {
						_, err := c.ListTasks(ctx, nil, nil)
						if !errors.As(err, &oe) || oe.Outcome.RequestSent != RequestSentNo {
							t.Fatalf("0.3 has no ListTasks: %v", err)
						}
					}
				})
			}
		}
	}
}

func pageTasks(p *TaskPage) []*Task {
	if p == nil {
		return nil
	}
	return p.Tasks
}
