// Command sendprof measures one client's sends in a process of its own: `sendprof ours`
// (the Go binding's HTTPClient.SendText) or `sendprof sdk` (the Go SDK client's
// SendMessage) against BENCH_URL, N sends (default 5000) after 1,000 warm-up, printing CPU
// per send (getrusage), sends/s, and allocations and bytes per send (runtime.MemStats);
// CPUPROF=file writes a CPU profile of the measured sends. Issue 28 item 3.
//
// `sendprof direct` is an experiment, not a client of the harness: HTTPClient given (through
// WithHTTPClient) a RoundTripper of this file's own that writes the request and reads the
// answer on the calling goroutine over one kept connection (net/http's own Request.Write
// and ReadResponse, no Transport: no persistConn read and write goroutines, no channel hop
// per request). It measures what net/http's Transport costs per send, not a way to call.
// The other experiments: `ref` (HTTPClient WithReferenceDriver), `ours4k` (HTTPClient on
// DefaultHTTPClient with net/http's 4 KiB buffers instead of its 1 KiB), `floor` (a bare
// POST loop on DefaultHTTPClient: a 0.3 message/send, the answer searched for its text;
// WORK_US=n adds n µs of busy work per send), `floor-direct` (the same over direct's
// RoundTripper) and `sdk-direct` (the SDK client over it, WithJSONRPCTransport). Under
// callgrind, run with GODEBUG=asyncpreemptoff=1.
package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
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
	case "direct":
		c, err := ours.NewHTTPClient(ctx, p.URL, ours.WithAllowHTTP(true),
			ours.WithHTTPClient(&http.Client{Transport: &directRT{}}))
		common.Check(err == nil, "client: %v", err)
		send = func() {
			o, err := c.SendText(ctx, "ping", nil)
			common.Check(err == nil && o.Result != nil && o.Result.Text != nil && *o.Result.Text == "ping", "send %v", err)
			o.Close()
		}
	case "ref":
		c, err := ours.NewHTTPClient(ctx, p.URL, ours.WithAllowHTTP(true), ours.WithReferenceDriver())
		common.Check(err == nil, "client: %v", err)
		send = func() {
			o, err := c.SendText(ctx, "ping", nil)
			common.Check(err == nil && o.Result != nil && o.Result.Text != nil && *o.Result.Text == "ping", "send %v", err)
			o.Close()
		}
	case "ours4k":
		hc := ours.DefaultHTTPClient()
		hc.Transport.(*http.Transport).ReadBufferSize = 4096
		hc.Transport.(*http.Transport).WriteBufferSize = 4096
		c, err := ours.NewHTTPClient(ctx, p.URL, ours.WithAllowHTTP(true), ours.WithHTTPClient(hc))
		common.Check(err == nil, "client: %v", err)
		send = func() {
			o, err := c.SendText(ctx, "ping", nil)
			common.Check(err == nil && o.Result != nil && o.Result.Text != nil && *o.Result.Text == "ping", "send %v", err)
			o.Close()
		}
	case "floor", "floor-direct":
		// WORK_US: CPU work of the caller's own per send (a busy loop on the calling
		// goroutine after each answer), to see what a binding's own work costs on top.
		us, _ := strconv.Atoi(os.Getenv("WORK_US"))
		work := time.Duration(us) * time.Microsecond
		hc := ours.DefaultHTTPClient()
		if os.Args[1] == "floor-direct" {
			hc = &http.Client{Transport: &directRT{}}
		}
		buf := make([]byte, 32*1024)
		send = func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.URL+"/", strings.NewReader(floorBody))
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			common.Check(err == nil, "floor: %v", err)
			n := 0
			for {
				m, err := resp.Body.Read(buf[n:])
				n += m
				if err != nil {
					break
				}
			}
			resp.Body.Close()
			common.Check(resp.StatusCode == 200 && strings.Contains(string(buf[:n]), `"text":"ping"`), "floor answer %s", buf[:n])
			spin(work)
		}
	case "sdk", "sdk-direct":
		card, err := agentcard.DefaultResolver.Resolve(ctx, p.URL)
		common.Check(err == nil, "card: %v", err)
		var fo []a2aclient.FactoryOption
		if os.Args[1] == "sdk-direct" { // the SDK over direct's RoundTripper
			fo = append(fo, a2aclient.WithJSONRPCTransport(&http.Client{Transport: &directRT{}}))
		}
		c, err := a2aclient.NewFromCard(ctx, card, fo...)
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

// spin keeps the calling goroutine busy for d (no syscall, no allocation).
func spin(d time.Duration) {
	if d <= 0 {
		return
	}
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// floorBody is a 0.3 message/send of "ping", the floor modes' request: a POST loop on net/http
// with no A2A work (the answer only searched for its text), the bench's raw floor in Go.
const floorBody = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"ping"}]}}}`

// directRT performs each request on the calling goroutine over one kept connection (see
// the package comment): the answer's body must be read to its end or closed before the
// next request, as the binding's calls do.
type directRT struct {
	conn net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
}

func (d *directRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if d.conn == nil {
		u, _ := url.Parse(req.URL.String())
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			return nil, err
		}
		d.conn, d.br, d.bw = conn, bufio.NewReaderSize(conn, 4096), bufio.NewWriterSize(conn, 4096)
	}
	if err := req.Write(d.bw); err != nil {
		return nil, err
	}
	if err := d.bw.Flush(); err != nil {
		return nil, err
	}
	return http.ReadResponse(d.br, req)
}
