package a2a_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	a2a "a2a.local/a2a"
)

// goJWT makes a push notification's JWT with Go's crypto (the sender's side, written
// independently of the core).
func goJWT(t testing.TB, k testKey, claims map[string]any) string {
	t.Helper()
	hb, _ := json.Marshal(map[string]any{"alg": k.alg, "kid": k.kid, "typ": "JWT"})
	cb, _ := json.Marshal(claims)
	input := b64.EncodeToString(hb) + "." + b64.EncodeToString(cb)
	return input + "." + b64.EncodeToString(k.sign([]byte(input)))
}

func statusBody(task string) []byte {
	return []byte(fmt.Sprintf(`{"statusUpdate":{"taskId":%q,"contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}`, task))
}

func TestPushVerifierToken(t *testing.T) {
	v, err := a2a.NewPushVerifier(a2a.PushPolicy{Token: "s3cret", TaskID: "t-1"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	now := time.Now()
	h := http.Header{}
	h.Set("X-A2A-Notification-Token", "s3cret")
	got := v.Check(h, statusBody("t-1"), now)
	if !got.Accepted || got.Err() != nil || got.TaskID != "t-1" || got.Event != "statusUpdate" ||
		len(got.Proofs) != 1 || got.Proofs[0].Type != "token" || !strings.HasPrefix(got.ReplayID, "sha256:") {
		t.Fatalf("accepted: %+v", got)
	}
	reject := func(name string, h http.Header, body []byte, reason string) {
		t.Helper()
		got := v.Check(h, body, now)
		if got.Accepted || got.Reason != reason {
			t.Fatalf("%s: %+v", name, got)
		}
		var pe *a2a.PushRejectedError
		if err := got.Err(); !errors.As(err, &pe) || !errors.Is(err, a2a.CodePushRejected) || pe.Reason != reason {
			t.Fatalf("%s: %v", name, got.Err())
		}
		if strings.Contains(string(got.JSON), "s3cret") || strings.Contains(got.Message, "s3cret") {
			t.Fatalf("%s: the verdict shows the token: %s", name, got.JSON)
		}
	}
	reject("replayed", h, statusBody("t-1"), "replayed")
	reject("no token", http.Header{}, statusBody("t-1"), "token_missing")
	wrong := http.Header{}
	wrong.Set("X-A2A-Notification-Token", "guess")
	reject("wrong token", wrong, []byte(`{"task":{"id":"t-1","status":{"state":"TASK_STATE_WORKING"}}}`), "token_mismatch")
	reject("wrong task id", h, statusBody("t-2"), "task_mismatch")
	reject("not a notification", h, []byte(`{"hello":1}`), "body")

	// A verifier with nothing to check with says so for every notification.
	none, err := a2a.NewPushVerifier(a2a.PushPolicy{}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := none.Check(h, statusBody("t-1"), now); got.Accepted || got.Reason != "not_configured" {
		t.Fatalf("not configured: %+v", got)
	}
	none.Close()
	none.Close()
	if got := none.Check(h, statusBody("t-1"), now); got.Accepted || got.Reason != "error" {
		t.Fatalf("closed: %+v", got)
	}
}

func TestPushVerifierJWT(t *testing.T) {
	k := newP256Key(t, "push-1")
	const aud = "https://client.example/webhook"
	v, err := a2a.NewPushVerifier(a2a.PushPolicy{Audience: aud, Issuer: "https://agent.example", TaskID: "t-1"}, k.jwks(), 16)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	now := time.Unix(1_780_000_000, 0)
	claims := func(over map[string]any) map[string]any {
		c := map[string]any{"iss": "https://agent.example", "aud": aud, "iat": now.Unix() - 5,
			"exp": now.Unix() + 300, "jti": fmt.Sprintf("n-%d", time.Now().UnixNano()), "taskId": "t-1"}
		for k, v := range over {
			if v == nil {
				delete(c, k)
			} else {
				c[k] = v
			}
		}
		return c
	}
	bearer := func(tok string) http.Header {
		h := http.Header{}
		h.Set("Authorization", "Bearer "+tok)
		return h
	}
	good := goJWT(t, k, claims(map[string]any{"jti": "n-1"}))
	got := v.Check(bearer(good), statusBody("t-1"), now)
	if !got.Accepted || got.ReplayID != "jti:n-1" || len(got.Proofs) != 1 {
		t.Fatalf("accepted: %+v", got)
	}
	p := got.Proofs[0]
	if p.Type != "jwt" || p.Alg != "ES256" || p.Kid != "push-1" || p.Iss != "https://agent.example" || p.Jti != "n-1" {
		t.Fatalf("proof: %+v", p)
	}
	stranger := newP256Key(t, "push-1")
	for _, c := range []struct {
		name   string
		h      http.Header
		body   []byte
		reason string
	}{
		{"replayed notification", bearer(good), statusBody("t-1"), "replayed"},
		{"expired JWT", bearer(goJWT(t, k, claims(map[string]any{"iat": now.Unix() - 400, "exp": now.Unix() - 100}))), statusBody("t-1"), "expired"},
		{"JWT from the future", bearer(goJWT(t, k, claims(map[string]any{"iat": now.Unix() + 600, "exp": now.Unix() + 900}))), statusBody("t-1"), "not_yet_valid"},
		{"old JWT", bearer(goJWT(t, k, claims(map[string]any{"iat": now.Unix() - 3600, "exp": now.Unix() + 3600}))), statusBody("t-1"), "too_old"},
		{"wrong key", bearer(goJWT(t, stranger, claims(nil))), statusBody("t-1"), "jwt"},
		{"wrong audience", bearer(goJWT(t, k, claims(map[string]any{"aud": "https://other.example/hook"}))), statusBody("t-1"), "wrong_audience"},
		{"wrong issuer", bearer(goJWT(t, k, claims(map[string]any{"iss": "https://mallory.example"}))), statusBody("t-1"), "wrong_issuer"},
		{"no exp", bearer(goJWT(t, k, claims(map[string]any{"exp": nil}))), statusBody("t-1"), "claim_missing"},
		{"wrong task id in the body", bearer(goJWT(t, k, claims(nil))), statusBody("t-2"), "task_mismatch"},
		{"wrong task id in the JWT", bearer(goJWT(t, k, claims(map[string]any{"taskId": "t-9"}))), statusBody("t-1"), "task_mismatch"},
		{"no JWT", http.Header{}, statusBody("t-1"), "jwt_missing"},
		{"tampered JWT", bearer(good[:len(good)-4] + "AAAA"), statusBody("t-1"), "jwt"},
	} {
		got := v.Check(c.h, c.body, now)
		if got.Accepted || got.Reason != c.reason {
			t.Fatalf("%s: %+v", c.name, got)
		}
	}
	// A refused notification is not remembered: the real one still passes afterwards.
	fresh := goJWT(t, k, claims(map[string]any{"jti": "n-2"}))
	if got := v.Check(bearer(fresh), statusBody("t-2"), now); got.Accepted {
		t.Fatalf("the wrong task: %+v", got)
	}
	if got := v.Check(bearer(fresh), statusBody("t-1"), now); !got.Accepted {
		t.Fatalf("after a refused copy: %+v", got)
	}
	// Keys that cannot be read are refused when the verifier is made.
	if _, err := a2a.NewPushVerifier(a2a.PushPolicy{Audience: aud}, []byte(`{"keys":"nope"}`), 0); !errors.Is(err, a2a.CodeTrustKey) && !errors.Is(err, a2a.CodeTrustJSON) {
		t.Fatalf("unreadable keys: %v", err)
	}
}

func TestPushVerifierHandler(t *testing.T) {
	v, err := a2a.NewPushVerifier(a2a.PushPolicy{Token: "s3cret", TaskID: "t-1"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(v.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		verdict, ok := a2a.PushVerdictFrom(r.Context())
		if !ok || !verdict.Accepted {
			t.Errorf("next saw no accepted verdict: %+v", verdict)
		}
		mu.Lock()
		seen = append(seen, verdict.TaskID+" "+string(body))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})))
	defer srv.Close()
	post := func(token string, body []byte) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("X-A2A-Notification-Token", token)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := post("s3cret", statusBody("t-1")); code != http.StatusNoContent {
		t.Fatalf("accepted: %d", code)
	}
	if code, body := post("s3cret", statusBody("t-1")); code != http.StatusUnauthorized || !strings.Contains(body, `"replayed"`) {
		t.Fatalf("replayed: %d %s", code, body)
	}
	if code, body := post("guess", []byte(`{"task":{"id":"t-1"}}`)); code != http.StatusUnauthorized || !strings.Contains(body, `"token_mismatch"`) {
		t.Fatalf("wrong token: %d %s", code, body)
	}
	if code, _ := post("s3cret", bytes.Repeat([]byte("x"), a2a.MaxPushBody+1)); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("too large: %d", code)
	}
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "t-1 "+string(statusBody("t-1")) {
		t.Fatalf("next saw %q", seen)
	}
}

func TestSecretsNotPrinted(t *testing.T) {
	p := a2a.PushPolicy{Token: "tok-SECRET", Audience: "https://a/hook"}
	cc := a2a.ClientCredentials{TokenURL: "https://auth/token", ClientID: "id", ClientSecret: "cs-SECRET"}
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "policy", p, "cc", cc)
	type holder struct {
		P  a2a.PushPolicy
		CC *a2a.ClientCredentials
	}
	for _, s := range []string{
		fmt.Sprintf("%v %+v %#v %s %q", p, p, p, p, p),
		fmt.Sprintf("%v %+v %#v %s %q", cc, cc, cc, cc, cc),
		fmt.Sprintf("%v %+v %#v", &p, &cc, []any{p, cc}),
		fmt.Sprintf("%+v %v", holder{p, &cc}, holder{p, &cc}),
		logged.String(),
	} {
		if strings.Contains(s, "SECRET") {
			t.Fatalf("a secret printed: %s", s)
		}
		if !strings.Contains(s, "https://") {
			t.Fatalf("nothing printed: %s", s)
		}
	}
}

// One verifier shared by goroutines: each of 32 distinct notifications is accepted once,
// and its copies, sent at the same time, are all refused as replays.
func TestPushVerifierConcurrent(t *testing.T) {
	v, err := a2a.NewPushVerifier(a2a.PushPolicy{Token: "s3cret"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	h := http.Header{"X-A2A-Notification-Token": {"s3cret"}}
	var mu sync.Mutex
	accepted := map[string]int{}
	var wg sync.WaitGroup
	for i := range 32 {
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				task := fmt.Sprintf("t-%d", i)
				if v.Check(h, statusBody(task), time.Now()).Accepted {
					mu.Lock()
					accepted[task]++
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(accepted) != 32 {
		t.Fatalf("accepted %d distinct notifications, want 32", len(accepted))
	}
	for task, n := range accepted {
		if n != 1 {
			t.Fatalf("%s accepted %d times", task, n)
		}
	}
}
