package a2a

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestIdempotencyFixtures(t *testing.T) {
	var fx struct {
		EmptyInput struct {
			Parts [][]string `json:"parts"`
		} `json:"empty_input"`
		Cases []struct {
			ID             string   `json:"id"`
			Parts          []string `json:"parts"`
			PartsHex       []string `json:"parts_hex"`
			IdempotencyKey string   `json:"idempotency_key"`
			MessageID      string   `json:"message_id"`
		} `json:"cases"`
	}
	loadFixture(t, "idempotency.json", &fx)
	if len(fx.Cases) < 10 {
		t.Fatalf("idempotency.json lost cases: %d", len(fx.Cases))
	}
	for _, c := range fx.Cases {
		var parts [][]byte
		for _, p := range c.Parts {
			parts = append(parts, []byte(p))
		}
		for _, h := range c.PartsHex {
			b, err := hex.DecodeString(h)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, b)
		}
		if len(parts) == 0 {
			t.Fatalf("%s: no parts", c.ID)
		}
		key, err := DeriveIdempotencyKey(parts...)
		if err != nil || key != c.IdempotencyKey {
			t.Errorf("%s: key %q %v, want %q", c.ID, key, err, c.IdempotencyKey)
		}
		id, err := DeriveMessageID(parts...)
		if err != nil || id != c.MessageID {
			t.Errorf("%s: messageId %q %v, want %q", c.ID, id, err, c.MessageID)
		}
	}
	if len(fx.EmptyInput.Parts) == 0 {
		t.Fatal("no empty_input cases")
	}
	for _, ps := range fx.EmptyInput.Parts {
		var parts [][]byte
		for _, p := range ps {
			parts = append(parts, []byte(p))
		}
		if _, err := DeriveIdempotencyKey(parts...); !errors.Is(err, CodeKeyEmptyInput) {
			t.Errorf("parts %q: key error %v", ps, err)
		}
		if _, err := DeriveMessageID(parts...); !errors.Is(err, CodeKeyEmptyInput) {
			t.Errorf("parts %q: messageId error %v", ps, err)
		}
	}
}

func transport(t *testing.T, name ErrorName, sent RequestSent, msg string) *Outcome {
	t.Helper()
	o, err := NewTransportOutcome(name, sent, msg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func classifyBody(t *testing.T, status int, method, body string) *Outcome {
	t.Helper()
	o, err := Classify(Response{Status: status, ContentType: "application/json", Body: []byte(body),
		Asked: Asked{Version: V0_3, Binding: JSON_RPC, Method: method, RequestID: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestModelTextLines(t *testing.T) {
	refused := transport(t, NameConnectFailed, RequestSentNo, "connection refused")
	defer refused.Close()
	line, ok, err := ModelText("booking", refused)
	if err != nil || !ok || !strings.HasPrefix(line, "REMOTE_UNAVAILABLE booking: the request was not sent") {
		t.Errorf("connect refused: %q %v %v", line, ok, err)
	}
	timeout := transport(t, NameTimeout, RequestSentUnknown, "call timeout after 45000 ms")
	defer timeout.Close()
	line, _, _ = ModelText("booking", timeout)
	if !strings.HasPrefix(line, "REMOTE_UNKNOWN booking: the request may or may not have been received") ||
		!strings.Contains(line, "the outcome is unknown") || strings.Contains(line, "failed") {
		t.Errorf("timeout after write: %q", line)
	}
	failed := classifyBody(t, 200, "message/send", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"failed","message":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"Agent execution failed. (error_id: 3f9c0a7b12de)"}]}}}}`)
	defer failed.Close()
	line, _, _ = ModelText("booking", failed)
	if !strings.HasPrefix(line, "REMOTE_FAILED booking: ") || !strings.Contains(line, "(error_id: 3f9c0a7b12de)") {
		t.Errorf("failed task: %q", line)
	}
	done := classifyBody(t, 200, "message/send", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"}}}`)
	defer done.Close()
	if line, ok, err := ModelText("booking", done); ok || err != nil || line != "" || done.ModelPrefix() != "" {
		t.Errorf("success has no line: %q %v %v", line, ok, err)
	}
	if !strings.HasPrefix(ModelInstruction(), "A line that starts with REMOTE_") {
		t.Errorf("instruction %q", ModelInstruction())
	}
	// A closed outcome is refused, not read after free.
	done.Close()
	if _, _, err := ModelText("booking", done); !errors.Is(err, ErrClosed) {
		t.Errorf("closed outcome: %v", err)
	}
	// Parts are bounded in characters (agent 80, texts 300), so a line of 3-byte characters
	// outgrows the first 512-byte buffer: the call is repeated with the size it asked for.
	wide := classifyBody(t, 200, "message/send", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"failed","message":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"`+strings.Repeat("\u6771", 1000)+`"}]}}}}`)
	defer wide.Close()
	line, ok, err = ModelText(strings.Repeat("a", 5000), wide)
	if err != nil || !ok || len(line) <= 512 || !strings.Contains(line, strings.Repeat("a", 80)+"...") ||
		strings.Contains(line, strings.Repeat("a", 81)) || !strings.Contains(line, strings.Repeat("\u6771", 300)) {
		t.Errorf("bounded parts: %d bytes %q, %v %v", len(line), line, ok, err)
	}
}

func TestRetryPolicyUnknownOutcome(t *testing.T) {
	t0 := time.Unix(1000, 0)
	reset := transport(t, NameReset, RequestSentUnknown, "connection reset by peer")
	defer reset.Close()

	// Side-effecting without a key: never resent.
	p, err := NewRetryPolicy(DefaultRetryConfig(CallSideEffecting), t0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, err := p.NextWithRandom(reset, t0.Add(time.Second), 0)
	if err != nil || a.Kind != ActionGiveUp || a.GiveUp != GiveUpUnknownOutcomeWithoutKey ||
		a.GiveUp.String() == "" || !strings.Contains(a.GiveUpText, "idempotency key") || !p.IsFinished() {
		t.Fatalf("side-effecting: %+v %v", a, err)
	}

	// With a key: retried with the same messageId and key, a new JSON-RPC id.
	cfg := DefaultRetryConfig(CallWithIdempotencyKey)
	cfg.MaxAttempts = 3
	cfg.BaseDelay, cfg.MaxDelay = 100*time.Millisecond, time.Second
	k, err := NewRetryPolicy(cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for i := range 2 {
		a, err := k.NextWithRandom(reset, t0.Add(time.Duration(i+1)*time.Second), ^uint64(0))
		if err != nil || a.Kind != ActionRetryAfter || !a.HasDelay || a.Delay > cfg.MaxDelay ||
			a.MessageID != IDKeep || a.IdempotencyKey != IDKeep || a.JSONRPCID != IDNew {
			t.Fatalf("attempt %d: %+v %v", i+1, a, err)
		}
		if err := k.BeginAttempt(t0.Add(time.Duration(i+1)*time.Second + a.Delay)); err != nil {
			t.Fatal(err)
		}
	}
	a, _ = k.NextWithRandom(reset, t0.Add(5*time.Second), 0)
	if a.Kind != ActionGiveUp || a.GiveUp != GiveUpAttemptsExhausted || k.Attempts() != 3 {
		t.Fatalf("third failure: %+v after %d attempts", a, k.Attempts())
	}
}

func TestRetryPolicyDeadlineAndRetryAfter(t *testing.T) {
	t0 := time.Unix(50, 0)
	cfg := DefaultRetryConfig(CallRead)
	cfg.MaxAttempts = 5
	cfg.Deadline = t0.Add(10 * time.Second)
	p, err := NewRetryPolicy(cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if rem, ok := p.Remaining(t0.Add(4 * time.Second)); !ok || rem != 6*time.Second {
		t.Fatalf("Remaining %v %v", rem, ok)
	}
	busy, err := Classify(Response{Status: 503, RetryAfter: "120"})
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	a, err := p.NextWithRandom(busy, t0.Add(time.Second), 0)
	if err != nil || a.Kind != ActionGiveUp ||
		(a.GiveUp != GiveUpRetryAfterBeyondDeadline && a.GiveUp != GiveUpRetryAfterTooLong) {
		t.Fatalf("Retry-After past the deadline: %+v %v", a, err)
	}

	// A protocol error that cannot succeed is never retried.
	q, _ := NewRetryPolicy(DefaultRetryConfig(CallRead), t0)
	defer q.Close()
	nf := classifyBody(t, 200, "tasks/get", `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`)
	defer nf.Close()
	if a, _ := q.NextWithRandom(nf, t0, 0); a.Kind != ActionGiveUp || a.GiveUp != GiveUpNotRetryable {
		t.Fatalf("TaskNotFound: %+v", a)
	}

	// Deadline exhausted: no retry scheduled that cannot finish inside the budget.
	cfg.Deadline = t0.Add(2 * time.Second)
	cfg.AttemptEstimate = 5 * time.Second
	r, err := NewRetryPolicy(cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	reset := transport(t, NameReset, RequestSentUnknown, "reset")
	defer reset.Close()
	if a, _ := r.NextWithRandom(reset, t0.Add(time.Second), 0); a.Kind != ActionGiveUp || a.GiveUp != GiveUpDeadlineExhausted {
		t.Fatalf("deadline: %+v", a)
	}
	if _, err := NewRetryPolicy(RetryConfig{Kind: CallRead}, t0); !errors.Is(err, Code(900)) {
		t.Fatalf("zero attempts: %v", err)
	}
}

func TestRetryPolicyResubscribeKeepsTaskID(t *testing.T) {
	t0 := time.Unix(0, 0)
	cfg := DefaultRetryConfig(CallSideEffecting)
	cfg.Streaming = true
	cfg.MaxFollowUps = 2
	p, err := NewRetryPolicy(cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.SetTaskID("task-9"); err != nil {
		t.Fatal(err)
	}
	if id, ok := p.TaskID(); !ok || id != "task-9" {
		t.Fatalf("TaskID %q %v", id, ok)
	}
	// A stream that timed out after the task id came back: resubscribe, never resend.
	tr, _ := NewStreamTracker(Asked{Version: V0_3, Binding: JSON_RPC, Method: "message/stream", RequestID: "1"}, time.Second, t0)
	defer tr.Close()
	if _, err := tr.OnEvent(t0, "", []byte(`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"task-9","contextId":"c","status":{"state":"working"}}}`)); err != nil {
		t.Fatal(err)
	}
	to, err := tr.OnTimeout(t0.Add(2 * time.Second))
	if err != nil || to == nil {
		t.Fatalf("timeout: %v %v", to, err)
	}
	defer to.Close()
	a, err := p.NextWithRandom(to, t0.Add(2*time.Second), 0)
	if err != nil || a.Kind != ActionResubscribe || a.TaskID != "task-9" || p.FollowUps() != 0 && p.FollowUps() != 1 {
		t.Fatalf("after idle timeout: %+v %v", a, err)
	}
}

func TestBreakerSimulatedClock(t *testing.T) {
	cfg := DefaultBreakerConfig()
	cfg.FailureThreshold, cfg.FailureRatePercent = 3, 0
	cfg.CoolDown = 10 * time.Second
	cfg.HalfOpenTrials = 1
	b, err := NewBreaker("planner", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Agent() != "planner" {
		t.Fatalf("agent %q", b.Agent())
	}
	t0 := time.Unix(0, 0)
	down := transport(t, NameConnectFailed, RequestSentNo, "connection refused")
	defer down.Close()
	notFound := classifyBody(t, 200, "tasks/get", `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`)
	defer notFound.Close()
	// Protocol errors do not open it: the remote is up.
	for i := range 5 {
		now := t0.Add(time.Duration(i) * time.Second)
		if !b.Allow(now) {
			t.Fatalf("refused at %d", i)
		}
		if err := b.Record(notFound, now); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		now := t0.Add(time.Duration(5+i) * time.Second)
		if !b.Allow(now) {
			t.Fatalf("refused before the threshold at %d", i)
		}
		b.Record(down, now)
	}
	at := t0.Add(8 * time.Second)
	if b.State(at) != BreakerOpen || b.Allow(at) {
		t.Fatalf("state %v after 3 connect failures", b.State(at))
	}
	ref, err := b.Refusal(at)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if ref.Channel != ChannelTransport || ref.Error != NameCircuitOpen || ref.RequestSent != RequestSentNo ||
		ref.ModelPrefix() != "REMOTE_UNAVAILABLE" {
		t.Fatalf("refusal %+v", ref)
	}
	snap, err := b.Snapshot(at)
	if err != nil || snap.State != BreakerOpen || snap.TimesOpened != 1 || snap.Refused != 1 ||
		!snap.HalfOpenAt.Equal(t0.Add(17*time.Second)) {
		t.Fatalf("snapshot %+v %v", snap, err)
	}
	// Half-open after the cool-down: exactly one trial goes out.
	half := t0.Add(17 * time.Second)
	if b.State(half) != BreakerHalfOpen || !b.Allow(half) || b.Allow(half) {
		t.Fatalf("half-open trials: state %v", b.State(half))
	}
	if err := b.Release(half); err != nil || !b.Allow(half) {
		t.Fatal("a released permit can be taken again")
	}
	if err := b.RecordResult(false, half); err != nil || b.State(half) != BreakerClosed {
		t.Fatalf("a successful trial closes it: %v", b.State(half))
	}
	// RecordResult(true) is a counted failure: three of them open it again.
	for i := range 3 {
		now := half.Add(time.Duration(i) * time.Millisecond)
		if !b.Allow(now) {
			t.Fatalf("refused before the threshold at %d", i)
		}
		if err := b.RecordResult(true, now); err != nil {
			t.Fatal(err)
		}
	}
	if again := half.Add(3 * time.Millisecond); b.State(again) != BreakerOpen {
		t.Fatalf("three counted results: state %v", b.State(again))
	}
	if err := b.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewBreaker("x", BreakerConfig{}); err == nil {
		t.Fatal("a config without an opening rule is refused")
	}
}
