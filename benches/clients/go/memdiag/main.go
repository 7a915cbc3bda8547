// Command memdiag breaks the memory of N idle streams (default 200) down, for the Go
// binding's HTTPClient (`memdiag nethttp`) or the Go SDK client (`memdiag gosdk`), each in
// a fresh process against BENCH_URL (a2a-bench-server): after one send and a short stream,
// N streams are pulled to their first event and held (iter.Pull2, as clients.py does), and
// the growth per stream of VmRSS, the Go runtime's heap, stacks, span and GC metadata
// (runtime.MemStats, after debug.FreeOSMemory), the C heap (glibc mallinfo2: in use and
// arena) and the goroutines is printed, then the growth of every /memory/classes/ metric of
// runtime/metrics (metadata/other is the collector's own: about 1 KiB per goroutine and a
// quarter of the heap's growth). MEMPROF=file writes an every-allocation heap profile of
// the held streams (go tool pprof -sample_index=inuse_space). Built with -tags gstacks
// (and -ldflags=-checklinkname=0), it also prints the held goroutines by creator and
// function, with their stack sizes and the bytes in use (gstacks.go). Issue 28 item 4.
//
//	cd benches/clients/go && CGO_LDFLAGS="-L$T/release -Wl,-rpath,$T/release" \
//	  go build -tags a2a_system -o /tmp/memdiag ./memdiag
//	BENCH_URL=http://127.0.0.1:PORT N=200 /tmp/memdiag nethttp
package main

/*
#include <malloc.h>
static size_t cheap(void) { struct mallinfo2 m = mallinfo2(); return m.uordblks; }
static size_t carena(void) { struct mallinfo2 m = mallinfo2(); return m.arena + m.hblkhd; }
*/
import "C"

import (
	"context"
	"fmt"
	"iter"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"

	ours "a2a.local/a2a"
	"a2a.local/bench-clients/common"
	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

// gstacksHook prints the held goroutines' stacks (memdiag/gstacks.go, with -tags gstacks).
var gstacksHook func(string)

type snap struct {
	classes            []metrics.Sample
	rss, cheap, carena int64
	ms                 runtime.MemStats
	g                  int
}

func take() snap {
	debug.FreeOSMemory()
	var s snap
	runtime.ReadMemStats(&s.ms)
	s.rss = common.RSSKiB() * 1024
	s.cheap = int64(C.cheap())
	s.carena = int64(C.carena())
	s.g = runtime.NumGoroutine()
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") && d.Kind == metrics.KindUint64 {
			s.classes = append(s.classes, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(s.classes)
	return s
}

func main() {
	p := common.FromEnv()
	n, _ := strconv.Atoi(os.Getenv("N"))
	if n == 0 {
		n = 200
	}
	if os.Getenv("MEMPROF") != "" {
		runtime.MemProfileRate = 1
	}
	ctx := context.Background()
	var open func() func()
	switch os.Args[1] {
	case "nethttp":
		c, err := ours.NewHTTPClient(ctx, p.URL, ours.WithAllowHTTP(true))
		common.Check(err == nil, "client: %v", err)
		o, err := c.SendText(ctx, "ping", nil)
		common.Check(err == nil, "send %v", err)
		o.Close()
		for range c.Stream(ctx, "stream 8", nil) {
		}
		open = func() func() {
			next, stop := iter.Pull2(c.Stream(ctx, "hold", nil))
			ev, err, ok := next()
			common.Check(ok && err == nil && ev.Kind == ours.StreamEventItem, "first event %+v %v", ev, err)
			return stop
		}
	case "gosdk":
		card, err := agentcard.DefaultResolver.Resolve(ctx, p.URL)
		common.Check(err == nil, "card: %v", err)
		c, err := a2aclient.NewFromCard(ctx, card)
		common.Check(err == nil, "client: %v", err)
		mp := func(t string) *a2a.MessageSendParams {
			return &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: t})}
		}
		_, err = c.SendMessage(ctx, mp("ping"))
		common.Check(err == nil, "send %v", err)
		for range c.SendStreamingMessage(ctx, mp("stream 8")) {
		}
		open = func() func() {
			next, stop := iter.Pull2(c.SendStreamingMessage(ctx, mp("hold")))
			_, err, ok := next()
			common.Check(ok && err == nil, "first %v", err)
			return stop
		}
	}
	b := take()
	stops := make([]func(), 0, n)
	for i := 0; i < n; i++ {
		stops = append(stops, open())
	}
	a := take()
	if gstacksHook != nil {
		gstacksHook("held")
	}
	d := func(x, y uint64) float64 { return (float64(x) - float64(y)) / float64(n) / 1024 }
	fmt.Printf("%s N=%d per stream KiB: rss %.2f | Go heapInuse %.2f heapAlloc %.2f stackInuse %.2f mspan %.2f gcsys %.2f other %.2f Sys %.2f | C uord %.2f arena %.2f | goroutines %.2f\n",
		os.Args[1], n, d(uint64(a.rss), uint64(b.rss)), d(a.ms.HeapInuse, b.ms.HeapInuse), d(a.ms.HeapAlloc, b.ms.HeapAlloc),
		d(a.ms.StackInuse, b.ms.StackInuse), d(a.ms.MSpanInuse, b.ms.MSpanInuse), d(a.ms.GCSys, b.ms.GCSys), d(a.ms.OtherSys, b.ms.OtherSys), d(a.ms.Sys, b.ms.Sys),
		d(uint64(a.cheap), uint64(b.cheap)), d(uint64(a.carena), uint64(b.carena)), float64(a.g-b.g)/float64(n))
	for i, c := range a.classes {
		if dv := d(c.Value.Uint64(), b.classes[i].Value.Uint64()); dv != 0 {
			fmt.Printf("  %-45s %6.2f KiB per stream\n", c.Name, dv)
		}
	}
	if f := os.Getenv("MEMPROF"); f != "" {
		w, _ := os.Create(f)
		pprof.Lookup("heap").WriteTo(w, 0)
		w.Close()
	}
	for _, s := range stops {
		s()
	}
}
