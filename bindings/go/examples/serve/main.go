// Command serve runs an A2A agent on net/http over a2a-core's server side.
//
//	go run -tags a2a_debug ./examples/serve [-addr 127.0.0.1:0]
//
// prints "READY http://127.0.0.1:<port>", then serves the card, JSON-RPC on POST / and
// HTTP+JSON under /rest, in A2A 1.0 and 0.3. The first word of a message decides: "echo
// <text>" answers with a message; "count <n>" streams n artifact chunks in a task; "fail"
// returns an error (a FAILED task with an error_id, the cause in the log); "busy" is refused
// before it runs (an admission cancel); "slow <s>" works s seconds (CancelTask stops it);
// "ask" stops at INPUT_REQUIRED and the next message on that task completes it; "refuse"
// answers with a protocol error (InvalidParams) instead of a task; anything else is echoed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	a2a "a2a.local/a2a"
)

// Agent is the example agent.
func Agent() *a2a.AgentServer {
	no := false
	return &a2a.AgentServer{
		Name:        "example-agent",
		Description: "a2a-core Go example agent",
		Version:     "1.0.0",
		Skills:      []a2a.AgentSkill{{ID: "demo", Name: "Demo", Description: "echo, count, slow, ask, refuse, fail, busy", Tags: []string{"demo"}}},
		Handler: func(ctx context.Context, a *a2a.AgentContext) error {
			word, rest, _ := strings.Cut(strings.TrimSpace(a.Text()), " ")
			if a.Continues { // the answer to "ask"
				a.Status("completed", "thanks for "+strconv.Quote(a.Text()))
				return nil
			}
			switch word {
			case "echo":
				a.Reply(rest)
			case "fail":
				return errors.New("the agent broke (this stays in the server log)")
			case "count":
				n, err := strconv.Atoi(rest)
				if err != nil {
					n = 3
				}
				a.Status("working", "")
				for i := range n {
					a.Artifact("count", fmt.Sprintf("chunk %d ", i+1), i > 0, i == n-1)
				}
			case "slow":
				secs, err := strconv.ParseFloat(rest, 64)
				if err != nil || secs <= 0 {
					secs = 1
				}
				a.Status("working", "")
				select {
				case <-time.After(time.Duration(secs * float64(time.Second))):
					a.Artifact("", "done", false, true)
				case <-ctx.Done(): // canceled
				}
			case "ask":
				a.Status("input-required", "what is your name?")
			case "refuse":
				return &a2a.ProtocolError{Name: a2a.NameInvalidParams, Message: "refused: " + rest}
			default:
				a.Reply(a.Text())
			}
			return nil
		},
		BeforeExecute: func(a *a2a.AgentContext) error {
			if strings.TrimSpace(a.Text()) == "busy" {
				return &a2a.Refused{Reason: "the agent is at capacity"}
			}
			return nil
		},
		AfterExecute: func(a *a2a.AgentContext, err error) *a2a.Hint {
			if err == nil {
				return nil
			}
			return &a2a.Hint{Retryable: &no, Pairs: []a2a.HintPair{{Key: "reason", Value: "bug"}}}
		},
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("READY http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, Agent()))
}
