package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// PushPolicy is what a receiver expects of the push notifications sent to one webhook
// (A2A 1.0 §4.3.3, §13.2). Every field is optional; a verifier needs a Token or keys.
// Its String, GoString and LogValue never show the token.
type PushPolicy struct {
	// Token is the push config's token: the notification must carry it in
	// X-A2A-Notification-Token (compared in constant time).
	Token string
	// Audience: the JWT's aud must contain it (the webhook URL as registered).
	Audience string
	// Issuer: the JWT's iss must be it.
	Issuer string
	// TaskID is the task the config was registered for: the body must be about it.
	TaskID string
	// Skew is the clock difference allowed (0: 60 s); MaxAge the oldest iat accepted
	// (0: 300 s). Whole seconds.
	Skew, MaxAge time.Duration
}

// String describes the policy with the token redacted.
func (p PushPolicy) String() string {
	tok := ""
	if p.Token != "" {
		tok = "<redacted>"
	}
	return fmt.Sprintf("PushPolicy{Token:%s Audience:%q Issuer:%q TaskID:%q Skew:%s MaxAge:%s}",
		tok, p.Audience, p.Issuer, p.TaskID, p.Skew, p.MaxAge)
}

// GoString is String (the %#v form), the token redacted.
func (p PushPolicy) GoString() string { return "a2a." + p.String() }

// LogValue is the policy for log/slog, the token redacted.
func (p PushPolicy) LogValue() slog.Value {
	return slog.GroupValue(slog.Bool("token", p.Token != ""), slog.String("audience", p.Audience),
		slog.String("issuer", p.Issuer), slog.String("task_id", p.TaskID))
}

func (p PushPolicy) json() []byte {
	m := map[string]any{}
	put := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	put("token", p.Token)
	put("audience", p.Audience)
	put("issuer", p.Issuer)
	put("taskId", p.TaskID)
	if p.Skew > 0 {
		m["skewSecs"] = int64(p.Skew / time.Second)
	}
	if p.MaxAge > 0 {
		m["maxAgeSecs"] = int64(p.MaxAge / time.Second)
	}
	b, _ := json.Marshal(m)
	return b
}

// PushProof is one way a notification proved where it came from: Type "token" (the
// config's token) or "jwt" (a JWT signed by a trusted key: its Alg, Kid, Iss, Jti).
type PushProof struct {
	Type string `json:"type"`
	Alg  string `json:"alg,omitempty"`
	Kid  string `json:"kid,omitempty"`
	Iss  string `json:"iss,omitempty"`
	Jti  string `json:"jti,omitempty"`
}

// PushVerdict is the verdict on one notification. Accepted: TaskID, Event ("task",
// "message", "statusUpdate", "artifactUpdate"), Proofs and ReplayID (what the replay
// window remembers it by) are set. Rejected: Reason is the core's kind word
// ("token_missing", "token_mismatch", "jwt_missing", "jwt", "claim_missing",
// "wrong_audience", "wrong_issuer", "expired", "not_yet_valid", "too_old", "replayed",
// "task_mismatch", "no_task_id", "body", "not_configured"; "error" when the check itself
// failed, e.g. on a closed verifier) and Message says why in words.
type PushVerdict struct {
	Accepted bool
	Reason   string
	Message  string
	TaskID   string
	Event    string
	Proofs   []PushProof
	ReplayID string
	JSON     json.RawMessage // the verdict as the library wrote it (what `a2a push verify` prints)
}

// Err is nil for an accepted notification and a *PushRejectedError otherwise.
func (v PushVerdict) Err() error {
	if v.Accepted {
		return nil
	}
	return &PushRejectedError{Reason: v.Reason, Message: v.Message}
}

// PushRejectedError is a rejected notification (PushVerdict.Err);
// errors.Is(err, a2a.CodePushRejected) holds.
type PushRejectedError struct {
	Reason  string
	Message string
}

// Error formats the reason and the message.
func (e *PushRejectedError) Error() string {
	return "a2a: push notification rejected: " + e.Reason + ": " + e.Message
}

// Unwrap returns CodePushRejected, for errors.Is.
func (e *PushRejectedError) Unwrap() error { return CodePushRejected }

// PushVerifier checks the push notifications one webhook receives: authenticity (the
// config's token, or a JWT from a trusted key with its claims), the task, and replays (a
// bounded window of the notifications it accepted). It is safe for use by many
// goroutines; Close frees it.
type PushVerifier struct {
	owned[*C.a2a_push_verifier]
	mu sync.RWMutex // held for reading by checks (the handle is thread-safe), for writing by Close
}

// NewPushVerifier makes a verifier for policy, trusting keys (a JWK Set, one JWK or PEM
// public keys; nil: token-only notifications are accepted, none with a JWT alone), that
// remembers up to replayCapacity accepted notifications (0: 4096). Keys that cannot be
// read are a *TrustError; a policy with neither a token nor keys is refused by every
// Check ("not_configured").
func NewPushVerifier(policy PushPolicy, keys []byte, replayCapacity int) (*PushVerifier, error) {
	if replayCapacity < 0 {
		return nil, &Error{Op: "NewPushVerifier", Code: CodeInvalidArgument, Detail: "negative replay capacity"}
	}
	pj := policy.json()
	pp, pn := cBytes(pj)
	kp, kn := cBytes(keys)
	var h *C.a2a_push_verifier
	r := C.a2a_push_verifier_new(pp, pn, kp, kn, C.size_t(replayCapacity), &h)
	runtime.KeepAlive(pj)
	runtime.KeepAlive(keys)
	if r != C.A2A_OK {
		// No report here: the call has no buffer. The kind, when the keys alone say it,
		// comes from reading them as VerifyCard would.
		e := &TrustError{Op: "NewPushVerifier", Code: Code(r), Detail: Code(r).Error()}
		if Code(r) != CodeTrustKey && Code(r) != CodeTrustJSON {
			return nil, codeErr("NewPushVerifier", r)
		}
		return nil, e
	}
	v := &PushVerifier{}
	own(v, &v.owned, h, func(h *C.a2a_push_verifier) { C.a2a_push_verifier_free(h) })
	return v, nil
}

// Close frees the verifier; later checks are rejected with Reason "error". Calling it
// twice is harmless.
func (v *PushVerifier) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.release()
	return nil
}

// String names the verifier (it holds no printable secret).
func (v *PushVerifier) String() string { return "a2a.PushVerifier" }

// Check verifies one notification: its request headers, its body and the wall clock
// now. An accepted notification is remembered (a second delivery is "replayed").
func (v *PushVerifier) Check(h http.Header, body []byte, now time.Time) PushVerdict {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.h == nil {
		return PushVerdict{Reason: "error", Message: ErrClosed.Error()}
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	hp, hn := cHTTPHeaders(&pin, h)
	bp, bn := cBytes(body)
	r, out, err := trustCall("PushVerifier.Check", func(b *C.a2a_buffer) C.a2a_result {
		return C.a2a_push_verifier_check(v.h, hp, hn, bp, bn, C.int64_t(now.Unix()), b)
	})
	runtime.KeepAlive(body)
	if err != nil {
		return PushVerdict{Reason: "error", Message: err.Error()}
	}
	var j struct {
		Reason   string      `json:"reason"`
		Message  string      `json:"message"`
		Detail   string      `json:"detail"`
		TaskID   string      `json:"taskId"`
		Event    string      `json:"event"`
		Proofs   []PushProof `json:"proofs"`
		ReplayID string      `json:"replayId"`
	}
	_ = json.Unmarshal(out, &j)
	if j.Message == "" {
		j.Message = j.Detail
	}
	verdict := PushVerdict{Accepted: r == C.A2A_OK, Reason: j.Reason, Message: j.Message, TaskID: j.TaskID,
		Event: j.Event, Proofs: j.Proofs, ReplayID: j.ReplayID, JSON: out}
	switch {
	case r == C.A2A_OK:
		verdict.Reason = ""
	case Code(r) != CodePushRejected:
		verdict.Reason = "error"
		verdict.Message = (&Error{Op: "PushVerifier.Check", Code: Code(r), Detail: string(out)}).Error()
	}
	return verdict
}

// MaxPushBody is the largest notification body PushVerifier.Handler reads (larger ones
// are answered 413 unread).
const MaxPushBody = 4 << 20

type pushVerdictKey struct{}

// PushVerdictFrom returns the verdict PushVerifier.Handler put in an accepted request's
// context.
func PushVerdictFrom(ctx context.Context) (PushVerdict, bool) {
	v, ok := ctx.Value(pushVerdictKey{}).(PushVerdict)
	return v, ok
}

// Handler is a webhook receiver's middleware: it reads each request's body (at most
// MaxPushBody), checks it at the current wall clock, and answers a rejected notification
// 401 with the verdict's JSON (next never sees it). An accepted one goes on to next with
// its body intact and the verdict in its context (PushVerdictFrom). Only POST is
// accepted (405 otherwise).
func (v *PushVerifier) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "push notifications are POSTed", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxPushBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, "notification too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "notification body unreadable", http.StatusBadRequest)
			return
		}
		verdict := v.Check(r.Header, body, time.Now())
		if !verdict.Accepted {
			status := http.StatusUnauthorized
			if verdict.Reason == "error" {
				status = http.StatusInternalServerError
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write(redactedVerdict(verdict))
			return
		}
		r2 := r.WithContext(context.WithValue(r.Context(), pushVerdictKey{}, verdict))
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.ContentLength = int64(len(body))
		next.ServeHTTP(w, r2)
	})
}

// redactedVerdict is what a rejected sender is told: the verdict's reason and message.
func redactedVerdict(v PushVerdict) []byte {
	b, _ := json.Marshal(map[string]any{"accepted": false, "reason": v.Reason, "message": v.Message})
	return b
}
