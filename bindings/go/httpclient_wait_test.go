package a2a

import (
	"context"
	"errors"
	"testing"
	"time"
)

// HTTPClient.WaitTask against the real Python a2a-sdk peer (tests/peers): a send with
// ReturnImmediately leaves the peer's "slow" task running; the wait polls it to
// completion in every version and binding; a short timeout gives up with the typed
// outcome; a cancelled context ends the wait at once.

func waitClient(t *testing.T, v ProtocolVersion, b Binding) *HTTPClient {
	t.Helper()
	iface := peerURL(t) + "/"
	if b == HTTP_JSON {
		iface = peerURL(t) + "/rest"
	}
	return newTestHTTPClient(t, iface, WithInterface(v, b), WithCallTimeout(20*time.Second))
}

// sendRunning sends text with ReturnImmediately and checks that the task is not settled.
func sendRunning(t *testing.T, c *HTTPClient, text string) string {
	t.Helper()
	started := time.Now()
	o, err := c.SendText(context.Background(), text, &HTTPCallOptions{ReturnImmediately: true})
	if o == nil || o.TaskID == nil || o.State == nil {
		t.Fatalf("send %q: %v %+v", text, err, o)
	}
	if *o.State != StateSubmitted && *o.State != StateWorking {
		t.Fatalf("send %q returned a settled task: %v", text, *o.State)
	}
	if d := time.Since(started); d > time.Second {
		t.Fatalf("send %q waited %v for the task", text, d)
	}
	return *o.TaskID
}

func TestWaitTaskPollsASlowTaskToCompletion(t *testing.T) {
	for _, v := range []ProtocolVersion{V0_3, V1_0} {
		for _, b := range []Binding{JSON_RPC, HTTP_JSON} {
			t.Run(v.String()+"/"+b.String(), func(t *testing.T) {
				c := waitClient(t, v, b)
				started := time.Now()
				id := sendRunning(t, c, "slow 1.2")
				o, err := c.WaitTask(context.Background(), id, &WaitOptions{PollInterval: 200 * time.Millisecond, MaxInterval: 500 * time.Millisecond, Timeout: 20 * time.Second})
				if err != nil || o.State == nil || *o.State != StateCompleted || resultText(o) != "slept 1.2 s" {
					t.Fatalf("%v %+v", err, o)
				}
				if *o.TaskID != id || time.Since(started) < 1200*time.Millisecond {
					t.Fatalf("task %s after %v", *o.TaskID, time.Since(started))
				}
			})
		}
	}
}

func TestWaitTaskGivesUpWithATypedTimeout(t *testing.T) {
	c := waitClient(t, V1_0, JSON_RPC)
	id := sendRunning(t, c, "slow 5")
	started := time.Now()
	o, err := c.WaitTask(context.Background(), id, &WaitOptions{PollInterval: 100 * time.Millisecond, MaxInterval: 200 * time.Millisecond, Timeout: 800 * time.Millisecond})
	took := time.Since(started)
	var oe *OutcomeError
	if !errors.As(err, &oe) || o == nil || o.Channel != ChannelTransport || o.Error != NameTimeout {
		t.Fatalf("%v %+v", err, o)
	}
	if o.TaskID == nil || *o.TaskID != id || o.Retry != RetryPoll || o.State == nil || *o.State == StateCompleted {
		t.Fatalf("%+v", o)
	}
	if o.Result == nil || o.ExitCode != 3 {
		t.Fatalf("the last poll's task is kept, exit 3: %+v", o)
	}
	if took < 500*time.Millisecond || took > 3*time.Second {
		t.Fatalf("gave up after %v", took)
	}
	// The context's deadline bounds a wait without a Timeout of its own.
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	started = time.Now()
	if _, err := c.WaitTask(ctx, id, nil); err == nil || time.Since(started) > 3*time.Second {
		t.Fatalf("a context deadline: %v after %v", err, time.Since(started))
	}
}

func TestWaitTaskEndsOnInputRequiredAndUnknownTasks(t *testing.T) {
	c := waitClient(t, V1_0, JSON_RPC)
	id := sendRunning(t, c, "input")
	o, err := c.WaitTask(context.Background(), id, &WaitOptions{PollInterval: 100 * time.Millisecond})
	if o == nil || o.State == nil || *o.State != StateInputRequired {
		t.Fatalf("%v %+v", err, o)
	}
	var oe *OutcomeError
	o, err = c.WaitTask(context.Background(), "no-such-task", nil)
	if !errors.As(err, &oe) || o.Error != NameTaskNotFound {
		t.Fatalf("%v %+v", err, o)
	}
	if _, err := c.WaitTask(context.Background(), "t", &WaitOptions{PollInterval: 2 * time.Second, MaxInterval: time.Second}); err == nil {
		t.Fatal("a first interval above the longest is refused")
	}
}

func TestWaitTaskCancelledContextEndsItAtOnce(t *testing.T) {
	c := waitClient(t, V1_0, JSON_RPC)
	id := sendRunning(t, c, "slow 5")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	started := time.Now()
	_, err := c.WaitTask(ctx, id, &WaitOptions{PollInterval: 100 * time.Millisecond})
	if !errors.Is(err, context.Canceled) || time.Since(started) > 2*time.Second {
		t.Fatalf("%v after %v", err, time.Since(started))
	}
	// The client still works.
	if o, err := c.SendText(context.Background(), "echo after", nil); err != nil || resultText(o) != "after" {
		t.Fatalf("%v %+v", err, o)
	}
}

// A context that ends just as a poll is answered (the poll's own outcome a non-terminal
// task, its error without the context's cause) still gives an error wrapping the context's
// cause, with the poll's outcome; before any outcome, the cause alone.
func TestWaitEndedWrapsTheContextsCause(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	working := StateWorking
	o := &Outcome{Channel: ChannelTask, State: &working}
	err := waitEnded(ctx, o, &OutcomeError{Outcome: o})
	var oe *OutcomeError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &oe) || oe.Outcome != o {
		t.Fatalf("%v", err)
	}
	if err := waitEnded(ctx, nil, nil); err != context.Canceled {
		t.Fatalf("before any outcome: %v", err)
	}
	already := &OutcomeError{Outcome: o, cause: context.Canceled}
	if err := waitEnded(ctx, o, already); err != already {
		t.Fatalf("an error already wrapping the cause is kept: %v", err)
	}
}
