// Package httpclient drives the official Go SDK's server (a2a-go/v2 a2asrv, A2A 1.0,
// JSON-RPC and HTTP+JSON) with a2a-core's Go HTTPClient over net/http: through the card
// and through each interface by name. scripts/ci/66-go-sdk-v2.sh runs it (cgo: the
// binding links the library of `cargo build -p a2a-core-ffi`).
package httpclient

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	core "a2a.local/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// agent completes with the text as an artifact; "fail..." ends FAILED with an error id.
type agent struct{}

func (agent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var in strings.Builder
		for _, p := range ec.Message.Parts {
			in.WriteString(p.Text())
		}
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		if strings.HasPrefix(in.String(), "fail") {
			msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Agent execution failed. (error_id: 00aa11bb22cc)"))
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateFailed, msg), nil)
			return
		}
		art := a2a.NewArtifactEvent(ec, a2a.NewTextPart(in.String()))
		art.LastChunk = true
		if !yield(art, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (agent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

func serve(t *testing.T) string {
	t.Helper()
	handler := a2asrv.NewHandler(agent{})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := &a2a.AgentCard{
		Name: "a2a-go v2 echo", Description: "echo", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(srv.URL+"/jsonrpc", a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface(srv.URL+"/rest", a2a.TransportProtocolHTTPJSON),
		},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Capabilities: a2a.AgentCapabilities{Streaming: true},
		Skills:       []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "echoes", Tags: []string{"test"}}},
	}
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/jsonrpc", a2asrv.NewJSONRPCHandler(handler))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(handler)))
	return srv.URL
}

func TestHTTPClientAgainstGoSDKServer(t *testing.T) {
	base := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cases := []struct {
		name string
		url  string
		opts []core.HTTPOption
	}{
		{"card", base, nil},
		{"jsonrpc-1.0", base + "/jsonrpc", []core.HTTPOption{core.WithInterface(core.V1_0, core.JSON_RPC)}},
		{"http+json-1.0", base + "/rest", []core.HTTPOption{core.WithInterface(core.V1_0, core.HTTP_JSON)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := core.NewHTTPClient(ctx, tc.url, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			o, err := c.SendText(ctx, "hi there", nil)
			if st, _ := o.GetState(); err != nil || st != core.StateCompleted || o.Result == nil || *o.Result.Text != "hi there" {
				t.Fatalf("send: %v %+v", err, o)
			}
			o, err = c.SendText(ctx, "fail", nil)
			var oe *core.OutcomeError
			if id, _ := o.GetErrorID(); !errors.As(err, &oe) || o.ExitCode != 5 || id != "00aa11bb22cc" {
				t.Fatalf("fail: %v %+v", err, o)
			}
			var end *core.Outcome
			items := 0
			for ev, err := range c.Stream(ctx, "streamed", nil) {
				if ev.Kind == core.StreamEventEnd {
					if err != nil {
						t.Fatalf("stream end: %v", err)
					}
					end = ev.Outcome
					continue
				}
				items++
			}
			if st, _ := end.GetState(); items == 0 || st != core.StateCompleted || *end.Result.Text != "streamed" {
				t.Fatalf("stream: %d items, end %+v", items, end)
			}
			_, err = c.GetTask(ctx, "no-such-task", nil)
			if !errors.As(err, &oe) || oe.Outcome.Error != core.NameTaskNotFound {
				t.Fatalf("unknown task: %v", err)
			}
		})
	}
}
