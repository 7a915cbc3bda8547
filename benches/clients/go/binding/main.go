// Command binding is the Go binding (bindings/go, the driver's Client over the C ABI) in
// the client-overhead harness: NewClient resolves the card once, then SendText and
// StreamText as an application calls them (protocol 0.3), every answer asserted from the
// binding's results. Only the binding's documented API is used.
package main

import (
	"fmt"

	"a2a.local/a2a"
	"a2a.local/bench-clients/common"
)

func send(c *a2a.Client) {
	o, err := c.SendText("ping", nil)
	common.Check(err == nil, "send: %v", err)
	common.Check(o.State != nil && *o.State == a2a.StateCompleted, "state %v", o.State)
	common.Check(o.Result != nil && o.Result.Text != nil && *o.Result.Text == "ping", "answer %+v", o.Result)
	o.Close()
}

func stream(c *a2a.Client, n int) {
	s, err := c.StreamText(fmt.Sprintf("stream %d", n), nil)
	common.Check(err == nil, "stream: %v", err)
	defer s.Close()
	items, last := 0, ""
	for {
		ev, err := s.Next()
		common.Check(err == nil, "next: %v", err)
		if ev.Kind == a2a.StreamEventItem {
			items++
			if ev.Item.Kind == a2a.ItemArtifactUpdate {
				u := ev.Item.Outcome.Result.Update
				last = u.Artifact.Parts[0].Text
			}
			continue
		}
		common.Check(ev.Kind == a2a.StreamEventEnd, "resubscribed")
		common.Check(ev.Outcome.State != nil && *ev.Outcome.State == a2a.StateCompleted, "end state %v", ev.Outcome.State)
		common.Check(ev.DroppedEvents == 0 && ev.UnreadableEvents == 0, "content lost")
		break
	}
	common.Check(items == n, "%d items, wanted %d", items, n)
	common.Check(last == fmt.Sprintf("chunk %d", n-4), "last artifact %q", last)
}

func main() {
	p := common.FromEnv()
	cfg := a2a.DefaultClientConfig()
	cfg.AllowHTTP = true
	cfg.Protocol = a2a.V0_3
	c, err := a2a.NewClient(p.URL, &cfg)
	common.Check(err == nil, "client: %v", err)
	defer c.Close()
	common.Run(p, common.Client{
		Name:   "go-binding",
		Send:   func() { send(c) },
		Stream: func(n int) { stream(c, n) },
		Hold: func() func() {
			s, err := c.StreamText("hold", nil)
			common.Check(err == nil, "hold: %v", err)
			ev, err := s.Next()
			common.Check(err == nil && ev.Kind == a2a.StreamEventItem && ev.Item.Kind == a2a.ItemTask, "first event %+v %v", ev, err)
			return func() { s.Close() }
		},
	})
}
