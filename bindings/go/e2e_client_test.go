package a2a

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The reference driver (Client) against the real Python a2a-sdk peer.
func TestE2EDriverClientPythonPeer(t *testing.T) {
	base := peerURL(t)
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	// Card resolution is refused on plain http unless allowed.
	if _, err := NewClient(base, nil); !errors.Is(err, CodeClientCardResolution) {
		t.Fatalf("https-only default on an http peer: %v", err)
	}
	c, err := NewClient(base, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var seen []string
	c.AddHeaderHook(func(method string, h *HeaderSetter) {
		seen = append(seen, method)
		if err := h.Set("Authorization", "Bearer test-token"); err != nil {
			t.Errorf("set: %v", err)
		}
	})
	tally, _ := NewTally()
	defer tally.Close()

	t.Run("send echo", func(t *testing.T) {
		o, err := c.SendText("echo from go", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if o.Channel != ChannelTask || !o.Success || *o.State != StateCompleted || o.Version != V1_0 {
			t.Fatalf("%+v", o)
		}
		tally.Record("py", "SendMessage", o)
	})

	t.Run("send fail: FAILED with error_id, REMOTE_FAILED", func(t *testing.T) {
		key, _ := DeriveIdempotencyKey([]byte("conv-go"), []byte("fail"))
		o, err := c.SendText("fail", &ClientCallOptions{IdempotencyKey: key})
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if *o.State != StateFailed || o.ErrorID == nil || !hex12.MatchString(*o.ErrorID) || o.Retry != RetryNewTask {
			t.Fatalf("%+v", o)
		}
		line, _, _ := ModelText("py", o)
		if line != "REMOTE_FAILED py: Agent execution failed. (error_id: "+*o.ErrorID+")" {
			t.Fatalf("model text %q", line)
		}
		tally.Record("py", "SendMessage", o)
	})

	t.Run("get unknown task", func(t *testing.T) {
		o, err := c.GetTask("no-such-task", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if o.Channel != ChannelProtocol || o.Error != NameTaskNotFound || o.Retry != RetryNever {
			t.Fatalf("%+v", o)
		}
		tally.Record("py", "GetTask", o)
	})

	t.Run("stream, resubscribe and cancel", func(t *testing.T) {
		s, err := c.StreamText("stream 3", nil)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		var end ClientStreamEvent
		for i := 0; i < 100; i++ {
			ev, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind == StreamEventItem {
				kinds = append(kinds, ev.Item.Kind.String())
				continue
			}
			if ev.Kind == StreamEventEnd {
				end = ev
				break
			}
		}
		if strings.Join(kinds, " ") != "task status-update artifact-update artifact-update artifact-update status-update" ||
			end.End != EndCompleted || !end.Outcome.Success {
			t.Fatalf("items %v end %+v", kinds, end)
		}
		// The end outcome's handle is the stream's: usable until Next or Close.
		if err := tally.Record("py", "SendStreamingMessage", end.Outcome); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Next(); !errors.Is(err, ErrStreamEnded) {
			t.Fatalf("after the end: %v", err)
		}
		if err := tally.Record("py", "x", end.Outcome); !errors.Is(err, ErrClosed) {
			t.Fatalf("end outcome after Next: %v", err)
		}
		end.Outcome.Close() // harmless: borrowed
		s.Close()

		// A long-running task: read until the task id is known, cancel it, and the stream
		// ends with CANCELED.
		s2, err := c.StreamText("cancel-me", &ClientCallOptions{IdleTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		var taskID string
		for taskID == "" {
			ev, err := s2.Next()
			if err != nil || ev.Kind == StreamEventEnd {
				t.Fatalf("before a task id: %+v %v", ev, err)
			}
			if ev.Kind == StreamEventItem && ev.Item.Outcome.TaskID != nil {
				taskID = *ev.Item.Outcome.TaskID
			}
		}
		sub, err := c.Resubscribe(taskID, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		first, err := sub.Next()
		if err != nil || first.Kind != StreamEventItem || *first.Item.Outcome.TaskID != taskID {
			t.Fatalf("resubscribe first event %+v %v", first, err)
		}
		co, err := c.CancelTask(taskID, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer co.Close()
		if co.Channel != ChannelTask || *co.State != StateCanceled {
			t.Fatalf("cancel %+v", co)
		}
		for _, st := range []*ClientStream{s2, sub} {
			var last ClientStreamEvent
			for i := 0; i < 100; i++ {
				ev, err := st.Next()
				if err != nil {
					t.Fatal(err)
				}
				if ev.Kind == StreamEventEnd {
					last = ev
					break
				}
			}
			if last.Outcome == nil || last.Outcome.State == nil || *last.Outcome.State != StateCanceled {
				t.Fatalf("stream end %+v", last)
			}
			if p := last.Outcome.ModelPrefix(); p != "REMOTE_CANCELED" {
				t.Fatalf("prefix %q", p)
			}
		}
	})

	if len(seen) < 7 {
		t.Fatalf("the hook ran %d times: %v", len(seen), seen)
	}
	for _, m := range seen {
		if _, _, ok := MethodFromJSONRPCName(m); !ok {
			t.Fatalf("hook method %q", m)
		}
	}
	if n, _ := tally.Count("py", "GetTask", ChannelProtocol, "TaskNotFound"); n != 1 || tally.Total() != 4 {
		prom, _ := tally.Prometheus()
		t.Fatalf("tally %d, total %d\n%s", n, tally.Total(), prom)
	}
	if n, _ := c.HookPanics(); n != 0 {
		t.Fatalf("hook panics %d", n)
	}
}
