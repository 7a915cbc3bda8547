package a2a

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
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
