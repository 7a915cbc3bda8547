// Command nethttp is the Go binding's net/http client (bindings/go HTTPClient: the core's
// client machine driven over net/http) in the client-overhead harness: NewHTTPClient
// resolves the card once (it takes the library's order: JSON-RPC 1.0 on the bench server's
// card), then SendText and Stream as an application calls them, a context first, every
// answer asserted from the binding's results. `nethttp 0.3` skips the card with
// WithInterface(V0_3, JSON_RPC) at the same URL, the wire the Go SDK v0.3 client speaks.
// Only the binding's documented API is used.
package main

import (
	"context"
	"fmt"
	"iter"
	"os"

	"a2a.local/a2a"
	"a2a.local/bench-clients/common"
)

func send(ctx context.Context, c *a2a.HTTPClient) {
	o, err := c.SendText(ctx, "ping", nil)
	common.Check(err == nil, "send: %v", err)
	common.Check(o.State != nil && *o.State == a2a.StateCompleted, "state %v", o.State)
	common.Check(o.Result != nil && o.Result.Text != nil && *o.Result.Text == "ping", "answer %+v", o.Result)
	o.Close()
}

func stream(ctx context.Context, c *a2a.HTTPClient, n int) {
	items, last, ended := 0, "", false
	for ev, err := range c.Stream(ctx, fmt.Sprintf("stream %d", n), nil) {
		common.Check(err == nil, "stream: %v", err)
		if ev.Kind == a2a.StreamEventItem {
			items++
			if r := ev.Outcome.Result; r != nil && r.Update != nil && r.Update.Artifact != nil {
				last = r.Update.Artifact.Parts[0].Text
			}
			continue
		}
		common.Check(ev.Kind == a2a.StreamEventEnd, "resubscribed")
		common.Check(ev.Outcome.State != nil && *ev.Outcome.State == a2a.StateCompleted, "end state %v", ev.Outcome.State)
		common.Check(ev.DroppedEvents == 0 && ev.UnreadableEvents == 0, "content lost")
		ended = true
	}
	common.Check(ended, "no end event")
	common.Check(items == n, "%d items, wanted %d", items, n)
	common.Check(last == fmt.Sprintf("chunk %d", n-4), "last artifact %q", last)
}

func main() {
	p := common.FromEnv()
	ctx := context.Background()
	opts, name := []a2a.HTTPOption{a2a.WithAllowHTTP(true)}, "go-nethttp"
	if len(os.Args) > 1 && os.Args[1] == "0.3" {
		opts, name = append(opts, a2a.WithInterface(a2a.V0_3, a2a.JSON_RPC)), "go-nethttp-0.3"
	}
	c, err := a2a.NewHTTPClient(ctx, p.URL, opts...)
	common.Check(err == nil, "client: %v", err)
	defer c.Close()
	common.Run(p, common.Client{
		Name:   name,
		Send:   func() { send(ctx, c) },
		Stream: func(n int) { stream(ctx, c, n) },
		Hold: func() func() {
			next, stop := iter.Pull2(c.Stream(ctx, "hold", nil))
			ev, err, ok := next()
			common.Check(ok && err == nil && ev.Kind == a2a.StreamEventItem, "first event %+v %v", ev, err)
			return stop
		},
	})
}
