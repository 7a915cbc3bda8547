package a2a

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The text/event-stream rows of outcomes.json are whole stream bodies whose expectation
// is the end-of-stream outcome. Besides Classify (TestOutcomeTable), run each one the way
// a streaming caller does: bytes in 7-byte pieces through Decoder, events through
// StreamTracker.OnSSE, then Finish. Keys other than http_status (the tracker is never
// told the status) must match the row.
func TestOutcomeTableStreamsThroughDecoderAndTracker(t *testing.T) {
	rows := loadOutcomeRows(t)
	n := 0
	for _, row := range rows {
		if row.Input.ContentType == nil || !IsEventStream(*row.Input.ContentType) || row.Input.Body == nil {
			continue
		}
		n++
		t.Run(row.ID, func(t *testing.T) {
			asked := Asked{Method: deref(row.Input.Method), RequestID: deref(row.Input.RequestID)}
			if row.Input.Version != nil {
				asked.Version, _ = ParseProtocolVersion(*row.Input.Version)
			}
			if row.Input.Binding != nil {
				asked.Binding, _ = ParseBinding(*row.Input.Binding)
			}
			t0 := time.Unix(0, 0)
			tr, err := NewStreamTracker(asked, time.Minute, t0)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			dec, _ := NewDecoder(nil)
			defer dec.Close()
			body := []byte(*row.Input.Body)
			for off := 0; off < len(body) && !tr.IsOver(); off += 7 {
				now := t0.Add(time.Duration(off) * time.Millisecond)
				tr.OnBytes(now)
				evs, err := dec.Feed(body[off:min(off+7, len(body))])
				if err != nil {
					t.Fatal(err)
				}
				for _, ev := range evs {
					if _, err := tr.OnSSE(now, ev); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !tr.IsOver() {
				fin, _ := dec.Finish()
				if fin.Event != nil {
					t.Fatal("no dispatch at EOF with the default decoder")
				}
			}
			_, o, err := tr.Finish()
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			got := asGeneric(t, o)
			for k, want := range row.Expect {
				if k == "http_status" {
					continue
				}
				if !reflect.DeepEqual(got[k], want) {
					t.Errorf("%s: got %#v, want %#v", k, got[k], want)
				}
			}
			if o.ExitCode != *row.ExitCode {
				t.Errorf("exit_code %d, want %d", o.ExitCode, *row.ExitCode)
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d stream rows", n)
	}
	t.Logf("%d stream rows through decoder and tracker", n)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestStreamTrackerLifecycle(t *testing.T) {
	t0 := time.Unix(100, 0)
	tr, err := NewStreamTracker(Asked{Version: V1_0, Binding: JSON_RPC, Method: "SendStreamingMessage", RequestID: "9"}, 2*time.Second, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if d, ok := tr.NextDeadline(); !ok || !d.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("deadline %v %v", d, ok)
	}
	if it, err := tr.OnEvent(t0, "", nil); it != nil || err != nil {
		t.Fatalf("empty data: %v %v", it, err)
	}
	it, err := tr.OnEvent(t0.Add(time.Second), "", []byte(`{"result":{"task":{"id":"t9","contextId":"c9","status":{"state":"TASK_STATE_SUBMITTED"}}},"id":9,"jsonrpc":"2.0"}`))
	if err != nil || it.Kind != ItemTask || it.EndsStream || *it.Outcome.State != StateSubmitted {
		t.Fatalf("task item %+v %v", it, err)
	}
	if _, err := tr.Events(), tr.OnComment(t0.Add(2500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	// The comment counted as activity: the deadline moved.
	if d, _ := tr.NextDeadline(); !d.Equal(t0.Add(4500 * time.Millisecond)) {
		t.Fatalf("deadline after a comment %v", d)
	}
	if id, ok := tr.TaskID(); !ok || id != "t9" {
		t.Fatalf("task id %q", id)
	}
	if st, ok := tr.LastState(); !ok || st != StateSubmitted || tr.Events() != 1 {
		t.Fatalf("last state %v, events %d", st, tr.Events())
	}
	it, err = tr.OnEvent(t0.Add(3*time.Second), "", []byte(`{"result":{"artifactUpdate":{"taskId":"t9","contextId":"c9","artifact":{"artifactId":"a1","parts":[{"text":"x"}]},"append":true,"lastChunk":false}},"id":9,"jsonrpc":"2.0"}`))
	if err != nil || it.Kind != ItemArtifactUpdate || *it.ArtifactID != "a1" || !it.Append || it.LastChunk {
		t.Fatalf("artifact item %+v %v", it, err)
	}
	// The item's outcome is a copy without a handle: it cannot be recorded.
	tally, _ := NewTally()
	defer tally.Close()
	if err := tally.Record("a", "m", &it.Outcome); !errors.Is(err, ErrClosed) {
		t.Fatalf("recording an item outcome: %v", err)
	}
	end, o, err := tr.Finish()
	if err != nil || end != EndTruncated || o.Retry != RetryResubscribe || *o.TaskID != "t9" {
		t.Fatalf("truncated: %v %+v %v", end, o, err)
	}
	if err := tally.Record("a", "SendStreamingMessage", o); err != nil || tally.Total() != 1 {
		t.Fatalf("record %v total %d", err, tally.Total())
	}
	o.Close()
	end2, o2, _ := tr.Finish()
	if end2 != end || o2.Retry != RetryResubscribe {
		t.Fatalf("second Finish %v", end2)
	}
	o2.Close()
	if _, ok := tr.NextDeadline(); ok {
		t.Fatal("an ended stream has no deadline")
	}
	tr.Close()
	if _, err := tr.OnEvent(t0, "", []byte("{}")); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

func TestTally(t *testing.T) {
	tally, err := NewTally()
	if err != nil {
		t.Fatal(err)
	}
	defer tally.Close()
	if err := tally.Add("plan\"ner", "message/send", ChannelProtocol, "TaskNotFound", 3); err != nil {
		t.Fatal(err)
	}
	if err := tally.Add("x", "y", Channel(42), "c", 1); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("bad channel: %v", err)
	}
	if n, err := tally.Count("plan\"ner", "message/send", ChannelProtocol, "TaskNotFound"); err != nil || n != 3 {
		t.Fatalf("count %d %v", n, err)
	}
	prom, err := tally.Prometheus()
	// Label values are escaped (Prometheus text format 0.0.4).
	if err != nil || !strings.Contains(prom, `agent="plan\"ner"`) || !strings.Contains(prom, "} 3\n") {
		t.Fatalf("exposition %q %v", prom, err)
	}
}
