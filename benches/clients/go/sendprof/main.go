// Command sendprof measures one client's sends in a process of its own: `sendprof ours`
// (the Go binding's HTTPClient.SendText) or `sendprof sdk` (the Go SDK client's
// SendMessage) against BENCH_URL, N sends (default 5000) after 1,000 warm-up, printing CPU
// per send (getrusage), sends/s, and allocations and bytes per send (runtime.MemStats);
// CPUPROF=file writes a CPU profile of the measured sends. Issue 28 item 3.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	ours "a2a.local/a2a"
	"a2a.local/bench-clients/common"
	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	p := common.FromEnv()
	n, _ := strconv.Atoi(os.Getenv("N"))
	if n == 0 {
		n = 5000
	}
	ctx := context.Background()
	var send func()
	switch os.Args[1] {
	case "ours":
		c, err := ours.NewHTTPClient(ctx, p.URL, ours.WithAllowHTTP(true))
		common.Check(err == nil, "client: %v", err)
		send = func() {
			o, err := c.SendText(ctx, "ping", nil)
			common.Check(err == nil && o.Result != nil && o.Result.Text != nil && *o.Result.Text == "ping", "send %v", err)
			o.Close()
		}
	case "sdk":
		card, err := agentcard.DefaultResolver.Resolve(ctx, p.URL)
		common.Check(err == nil, "card: %v", err)
		c, err := a2aclient.NewFromCard(ctx, card)
		common.Check(err == nil, "client: %v", err)
		send = func() {
			res, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "ping"})})
			_, ok := res.(*a2a.Task)
			common.Check(err == nil && ok, "send %v", err)
		}
	}
	for i := 0; i < 1000; i++ {
		send()
	}
	if f := os.Getenv("CPUPROF"); f != "" {
		w, _ := os.Create(f)
		pprof.StartCPUProfile(w)
		defer pprof.StopCPUProfile()
	}
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	c0, t0 := cpu(), time.Now()
	for i := 0; i < n; i++ {
		send()
	}
	c1, t1 := cpu(), time.Now()
	runtime.ReadMemStats(&b)
	fmt.Printf("%s: %.1f µs CPU/send, %.0f sends/s, %.1f allocs/send, %.0f B/send\n", os.Args[1],
		float64(c1-c0)/float64(n)/1e3, float64(n)/t1.Sub(t0).Seconds(),
		float64(b.Mallocs-a.Mallocs)/float64(n), float64(b.TotalAlloc-a.TotalAlloc)/float64(n))
}
