package a2a

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The idle-stream server runs in a process of its own (this test binary re-run with
// A2A_TEST_IDLE_STREAM_SERVER=1), so that its goroutines, threads and buffers are not
// counted as the client's.
const idleServerEnv = "A2A_TEST_IDLE_STREAM_SERVER"

// TestIdleStreamServerHelper is the idle-stream server when run as a helper process (it
// skips otherwise): each streaming POST gets its task event, then the stream stays open
// (idle) until the client closes it or 30 s pass; the process ends when stdin closes.
func TestIdleStreamServerHelper(t *testing.T) {
	if os.Getenv(idleServerEnv) != "1" {
		t.Skip("the idle-stream server of TestClientIdleStreamsCostNoThreadOrGoroutine")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID,
			`{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"working"}}`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})}
	go srv.Serve(ln)
	fmt.Printf("READY http://%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin) // until the test closes stdin
	os.Exit(0)
}

// startIdleStreamServer starts the helper process and returns its URL.
func startIdleStreamServer(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIdleStreamServerHelper$")
	cmd.Env = append(os.Environ(), idleServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				ready <- u
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case u := <-ready:
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("the idle-stream server did not start within 20 s")
		return ""
	}
}

// osThreads is the Threads line of /proc/self/status.
func osThreads(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no Threads line in /proc/self/status")
	return 0
}

// liveHeap is the Go heap's live bytes after collections (a few: what a cleanup frees is
// freed by a later one).
func liveHeap() uint64 {
	for range 3 {
		runtime.GC()
		runtime.Gosched()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// An open stream that waits for its next event (read to its first event, then left)
// holds no goroutine and no OS thread (no cgo call stays blocked while nobody calls Next)
// and little Go heap: its buffers are the library's (issue 28 item 4: memory per open idle
// stream). A goroutine, a thread or a Go-side buffer per stream fails this.
func TestClientIdleStreamsCostNoThreadOrGoroutine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts OS threads from /proc")
	}
	const streams = 64
	url := startIdleStreamServer(t)
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	c, err := NewClientWithTarget(url+"/rpc", V03, JSONRPC, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	open := func(n int) []*ClientStream {
		out := make([]*ClientStream, 0, n)
		for range n {
			s, err := c.StreamText("hold", &ClientCallOptions{IdleTimeout: 60 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ev, err := s.Next()
			if err != nil || ev.Kind != StreamEventItem || ev.Item.Kind != ItemTask {
				t.Fatalf("first event %+v, %v", ev, err)
			}
			out = append(out, s)
		}
		return out
	}
	for _, s := range open(2) { // what the client sets up once (its pool, the first threads)
		s.Close()
	}
	goroutines, threads, heap := runtime.NumGoroutine(), osThreads(t), liveHeap()
	held := open(streams)
	defer func() {
		for _, s := range held {
			s.Close()
		}
	}()
	dg, dt := runtime.NumGoroutine()-goroutines, osThreads(t)-threads
	perStream := (int64(liveHeap()) - int64(heap)) / streams
	t.Logf("%d idle streams: %+d goroutines, %+d OS threads, %d B of Go heap per stream", streams, dg, dt, perStream)
	if dg >= 4 {
		t.Errorf("%d idle streams added %d goroutines", streams, dg)
	}
	if dt >= streams/4 {
		t.Errorf("%d idle streams added %d OS threads", streams, dt)
	}
	// About 0.5 KiB now (the stream, its event handler and queue); a Go-side buffer per
	// stream would exceed this.
	if perStream > 2048 {
		t.Errorf("%d B of Go heap per idle stream, want at most 2048", perStream)
	}
}
