// Package trust runs a2a-core's trust functions (Go binding) against what the official Go
// SDK does on the other side. a2a-go ships no card signer and no JWT push sender (v2.3.1
// and v0.3.15: AgentCard has a Signatures field, nothing makes or checks one; the push
// senders send the config's token and a static Authorization credential). So: a card
// signed by the core, carried through the SDK's AgentCard type and served by its
// NewStaticAgentCardHandler, verifies in HTTPClient; and the SDK's HTTPPushSender
// (v2 and v0.3) delivers notifications to the binding's PushVerifier.Handler.
// scripts/ci/66-go-sdk-v2.sh runs it.
package trust

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	core "a2a.local/a2a"
	a2a03 "github.com/a2aproject/a2a-go/a2a"
	push03 "github.com/a2aproject/a2a-go/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
)

type echo struct{}

func (echo) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var in strings.Builder
		for _, p := range ec.Message.Parts {
			in.WriteString(p.Text())
		}
		yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(in.String())), nil)
	}
}

func (echo) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {}
}

// serveSigned serves an a2asrv agent whose card the core signed with priv, carried through
// the SDK's AgentCard (unmarshalled, edited by edit, served by NewStaticAgentCardHandler).
func serveSigned(t *testing.T, privPEM []byte, edit func(*a2a.AgentCard)) string {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := &a2a.AgentCard{
		Name: "a2a-go v2 signed", Description: "a card signed by a2a-core", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(srv.URL+"/jsonrpc", a2a.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Capabilities: a2a.AgentCapabilities{Streaming: true},
		Skills:       []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "echoes", Tags: []string{"test"}}},
	}
	raw, err := json.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := core.SignCard(raw, privPEM, "sdk-card", "")
	if err != nil {
		t.Fatal(err)
	}
	var carried a2a.AgentCard
	if err := json.Unmarshal(signed, &carried); err != nil {
		t.Fatal(err)
	}
	if len(carried.Signatures) != 1 {
		t.Fatalf("the SDK's AgentCard kept %d signatures", len(carried.Signatures))
	}
	if edit != nil {
		edit(&carried)
	}
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(&carried))
	mux.Handle("/jsonrpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(echo{})))
	return srv.URL
}

func TestCardSignedByCoreServedByGoSDK(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p8, _ := x509.MarshalPKCS8PrivateKey(priv)
	spki, _ := x509.MarshalPKIXPublicKey(pub)
	privPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8})
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	c, err := core.NewHTTPClient(ctx, serveSigned(t, privPEM, nil), core.WithCardVerification(pubPEM))
	if err != nil {
		t.Fatalf("the SDK-served signed card: %v", err)
	}
	defer c.Close()
	if sig, ok := c.CardSignature(); !ok || sig.Alg != "EdDSA" || sig.Kid != "sdk-card" {
		t.Fatalf("signature: %+v", sig)
	}
	o, err := c.SendText(ctx, "signed hello", nil)
	if err != nil || o.Result == nil || *o.Result.Text != "signed hello" {
		t.Fatalf("send: %v %+v", err, o)
	}
	// The same card with its description changed after signing is refused.
	_, err = core.NewHTTPClient(ctx, serveSigned(t, privPEM, func(c *a2a.AgentCard) { c.Description = "changed" }),
		core.WithCardVerification(pubPEM))
	var cse *core.CardSignatureError
	if !errors.As(err, &cse) || cse.Reason != "no_valid_signature" {
		t.Fatalf("tampered: %v", err)
	}
}

// receiver is the binding's push receiver (PushVerifier.Handler) recording what got through.
type receiver struct {
	mu   sync.Mutex
	got  []core.PushVerdict
	srv  *httptest.Server
	last string // the last rejection's body
}

// seen is what got through and the last rejection's body.
func (r *receiver) seen() ([]core.PushVerdict, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]core.PushVerdict(nil), r.got...), r.last
}

func newReceiver(t *testing.T, v *core.PushVerifier) *receiver {
	r := &receiver{}
	h := v.Handler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		verdict, _ := core.PushVerdictFrom(req.Context())
		r.mu.Lock()
		r.got = append(r.got, verdict)
		r.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			r.mu.Lock()
			r.last = rec.Body.String()
			r.mu.Unlock()
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func last(r *receiver) string { _, l := r.seen(); return l }

// es256JWT is a push notification JWT signed with Go's crypto.
func es256JWT(t *testing.T, priv *ecdsa.PrivateKey, claims map[string]any) string {
	b64 := base64.RawURLEncoding
	hb, _ := json.Marshal(map[string]any{"alg": "ES256", "kid": "push-key", "typ": "JWT"})
	cb, _ := json.Marshal(claims)
	input := b64.EncodeToString(hb) + "." + b64.EncodeToString(cb)
	h := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, priv, h[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64.EncodeToString(sig)
}

func TestGoSDKPushSenders(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	task := &a2a.Task{ID: "task-7", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}

	// v2's sender with a JWT as the config's Bearer credential: verified with the JWKS.
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := priv.PublicKey.ECDH()
	raw := ep.Bytes()
	b64 := base64.RawURLEncoding
	jwks, _ := json.Marshal(map[string]any{"keys": []any{map[string]any{"kty": "EC", "crv": "P-256", "kid": "push-key",
		"x": b64.EncodeToString(raw[1:33]), "y": b64.EncodeToString(raw[33:])}}})
	var rcv *receiver
	aud := ""
	v, err := core.NewPushVerifier(core.PushPolicy{Issuer: "https://agent.example", TaskID: "task-7"}, jwks, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	rcv = newReceiver(t, v)
	aud = rcv.srv.URL
	now := time.Now().Unix()
	jwt := es256JWT(t, priv, map[string]any{"iss": "https://agent.example", "aud": aud, "iat": now, "exp": now + 120,
		"jti": "n-1", "taskId": "task-7"})
	sender := push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: 10 * time.Second, FailOnError: true})
	cfg := &a2a.PushConfig{TaskID: "task-7", URL: rcv.srv.URL, Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: jwt}}
	if err := sender.SendPush(ctx, cfg, task); err != nil {
		_, last := rcv.seen()
		t.Fatalf("v2 sender with a JWT: %v (receiver said %s)", err, last)
	}
	if got, _ := rcv.seen(); len(got) != 1 || got[0].TaskID != "task-7" || got[0].Event != "task" || got[0].Proofs[0].Type != "jwt" {
		t.Fatalf("verdicts: %+v", got)
	}
	// The same notification again: a replay, refused (the SDK reports the 401).
	if err := sender.SendPush(ctx, cfg, task); err == nil || !strings.Contains(last(rcv), `"replayed"`) {
		t.Fatalf("replayed: %v (receiver said %s)", err, last(rcv))
	}
	// About another task: refused.
	other := &a2a.Task{ID: "task-8", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}
	cfg.Auth.Credentials = es256JWT(t, priv, map[string]any{"iss": "https://agent.example", "aud": aud, "iat": now, "exp": now + 120, "jti": "n-2"})
	if err := sender.SendPush(ctx, cfg, other); err == nil || !strings.Contains(last(rcv), `"task_mismatch"`) {
		t.Fatalf("another task: %v (receiver said %s)", err, last(rcv))
	}

	// Token-authenticated: v0.3's sender writes X-A2A-Notification-Token (as the Python SDK
	// does, and what the core reads) and a bare 0.3 task: accepted.
	tv, err := core.NewPushVerifier(core.PushPolicy{Token: "s3cret", TaskID: "task-7"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tv.Close()
	trcv := newReceiver(t, tv)
	s03 := push03.NewHTTPPushSender(&push03.HTTPSenderConfig{Timeout: 10 * time.Second, FailOnError: true})
	t03 := &a2a03.Task{ID: "task-7", ContextID: "ctx-1", Status: a2a03.TaskStatus{State: a2a03.TaskStateCompleted}}
	if err := s03.SendPush(ctx, &a2a03.PushConfig{URL: trcv.srv.URL, Token: "s3cret"}, t03); err != nil {
		t.Fatalf("v0.3 sender with the token: %v (receiver said %s)", err, last(trcv))
	}
	if err := s03.SendPush(ctx, &a2a03.PushConfig{URL: trcv.srv.URL, Token: "guess"}, t03); err == nil || !strings.Contains(last(trcv), `"token_mismatch"`) {
		t.Fatalf("v0.3 sender with a wrong token: %v (receiver said %s)", err, last(trcv))
	}
	// v2's sender names the header A2A-Notification-Token (no X-); the core reads both
	// spellings, so v2's token-only notifications are accepted, and a wrong token refused.
	v2task := &a2a.Task{ID: "task-7", ContextID: "ctx-2", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	before, _ := trcv.seen()
	if err := sender.SendPush(ctx, &a2a.PushConfig{TaskID: "task-7", URL: trcv.srv.URL, Token: "s3cret"}, v2task); err != nil {
		t.Fatalf("v2 sender with the token: %v (receiver said %s)", err, last(trcv))
	}
	if after, _ := trcv.seen(); len(after) != len(before)+1 || !after[len(after)-1].Accepted {
		t.Fatalf("v2 sender with the token: not accepted (receiver said %s)", last(trcv))
	}
	v2task.Status.State = a2a.TaskStateCompleted
	err = sender.SendPush(ctx, &a2a.PushConfig{TaskID: "task-7", URL: trcv.srv.URL, Token: "guess"}, v2task)
	if err == nil || !strings.Contains(last(trcv), `"token_mismatch"`) {
		t.Fatalf("v2 sender with a wrong token: %v (receiver said %s)", err, last(trcv))
	}
}
