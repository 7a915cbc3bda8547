// Package common holds what every Go client of the client-overhead harness shares: the run
// parameters from the environment, the process CPU clock, the resident set size and the one
// JSON line each client prints (the contract is in benches/clients/rust/src/lib.rs).
package common

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Params are the run parameters (BENCH_URL, BENCH_SENDS, BENCH_WARMUP, BENCH_EVENTS,
// BENCH_WARMUP_EVENTS, BENCH_IDLE).
type Params struct {
	URL                               string
	Sends, Warmup, Events, WarmupEvts int
	Idle                              int
}

func envInt(name string, def int) int {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		panic(fmt.Sprintf("%s=%q is not a number", name, v))
	}
	return n
}

// FromEnv reads the parameters.
func FromEnv() Params {
	url := os.Getenv("BENCH_URL")
	if url == "" {
		panic("BENCH_URL must name the bench server")
	}
	return Params{URL: url, Sends: envInt("BENCH_SENDS", 2000), Warmup: envInt("BENCH_WARMUP", 200),
		Events: envInt("BENCH_EVENTS", 10000), WarmupEvts: envInt("BENCH_WARMUP_EVENTS", 1000),
		Idle: envInt("BENCH_IDLE", 100)}
}

// CPUNanos is the process CPU time (user + system, every thread) from getrusage.
func CPUNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// RSSKiB is VmRSS of /proc/self/status.
func RSSKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// Section is the wall clock and CPU time at its start.
type Section struct {
	wall time.Time
	cpu  int64
}

// Start starts measuring.
func Start() Section { return Section{time.Now(), CPUNanos()} }

// Stop returns the wall seconds and CPU nanoseconds since Start.
func (s Section) Stop() (float64, int64) { return time.Since(s.wall).Seconds(), CPUNanos() - s.cpu }

// Report is what a client measured.
type Report struct {
	Client               string
	Sends, Events, Idle  int
	SendWall, StreamWall float64
	SendCPU, StreamCPU   int64
	RSSBefore, RSSAfter  int64
}

// Print writes the JSON line (the same keys as every other client).
func (r Report) Print() {
	per := func(ns int64, n int) float64 {
		if n == 0 {
			return 0
		}
		return float64(ns) / 1000 / float64(n)
	}
	rate := func(n int, s float64) float64 {
		if s <= 0 {
			return 0
		}
		return float64(n) / s
	}
	perStream := 0.0
	if r.Idle > 0 {
		perStream = float64(r.RSSAfter-r.RSSBefore) / float64(r.Idle)
	}
	b, _ := json.Marshal(map[string]any{
		"client": r.Client, "sends": r.Sends, "sends_per_s": rate(r.Sends, r.SendWall),
		"cpu_us_per_send": per(r.SendCPU, r.Sends), "events": r.Events,
		"events_per_s": rate(r.Events, r.StreamWall), "cpu_us_per_event": per(r.StreamCPU, r.Events),
		"idle_streams": r.Idle, "rss_before_kib": r.RSSBefore, "rss_after_kib": r.RSSAfter,
		"rss_kib_per_stream": perStream,
	})
	fmt.Println(string(b))
}

// Check panics with the message unless ok: every client asserts what it measures.
func Check(ok bool, format string, args ...any) {
	if !ok {
		panic("wrong answer: " + fmt.Sprintf(format, args...))
	}
}

// Client is what one harness client does, with the connection it measures already made.
type Client struct {
	Name   string        // the report's client name
	Send   func()        // one send, its answer asserted
	Stream func(n int)   // one stream of n events, every event asserted
	Hold   func() func() // opens a stream, reads its first event and leaves it open; returns its close
}

// Run is the harness's measurement around c: the warm-up sends and stream, the timed sends
// and stream, then p.Idle streams held open between two RSS readings; it prints the report.
func Run(p Params, c Client) {
	for i := 0; i < p.Warmup; i++ {
		c.Send()
	}
	c.Stream(max(p.WarmupEvts, 4))

	r := Report{Client: c.Name, Sends: p.Sends, Events: p.Events, Idle: p.Idle}
	s := Start()
	for i := 0; i < p.Sends; i++ {
		c.Send()
	}
	r.SendWall, r.SendCPU = s.Stop()
	s = Start()
	c.Stream(p.Events)
	r.StreamWall, r.StreamCPU = s.Stop()

	if p.Idle > 0 {
		debug.FreeOSMemory()
		r.RSSBefore = RSSKiB()
		closers := make([]func(), 0, p.Idle)
		for i := 0; i < p.Idle; i++ {
			closers = append(closers, c.Hold())
		}
		debug.FreeOSMemory()
		r.RSSAfter = RSSKiB()
		for _, close := range closers {
			close()
		}
	}
	r.Print()
}
