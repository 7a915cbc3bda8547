package a2a_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	a2a "a2a.local/a2a"
)

// signedCardAgent serves the binding's own agent with its card signed by k (jku: "" none,
// "self": the server's own /jwks.json), then passed through tamper (nil: untouched).
func signedCardAgent(t *testing.T, k testKey, tls bool, jku string, tamper func([]byte) []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	agent := &a2a.AgentServer{Name: "signed-agent", Description: "a signed card", Version: "1.0.0",
		Skills: []a2a.AgentSkill{{ID: "echo", Name: "echo", Description: "echoes", Tags: []string{"echo"}}},
		Handler: func(ctx context.Context, a *a2a.AgentContext) error {
			_, rest, _ := strings.Cut(a.Text(), " ")
			a.Reply(rest)
			return nil
		}}
	var calls atomic.Int32
	var srv *httptest.Server
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/agent-card.json":
			card, err := agent.Card(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			u := jku
			if u == "self" {
				u = srv.URL + "/jwks.json"
			}
			if k.privatePEM != nil {
				if card, err = a2a.SignCard(card, k.privatePEM, k.kid, u); err != nil {
					t.Error(err)
					return
				}
			}
			if tamper != nil {
				card = tamper(card)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(card)
		case "/jwks.json":
			w.Header().Set("Content-Type", "application/jwk-set+json")
			_, _ = w.Write(k.jwks())
		default:
			calls.Add(1)
			agent.ServeHTTP(w, r)
		}
	})
	srv = httptest.NewUnstartedServer(h) // started after the assignment: h reads srv.URL
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestHTTPClientCardVerification(t *testing.T) {
	k := newEd25519Key(t, "card-key")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	srv, calls := signedCardAgent(t, k, false, "", nil)
	c := mustClient(t, srv.URL, a2a.WithCardVerification(k.jwks()))
	if sig, ok := c.CardSignature(); !ok || sig.Kid != "card-key" || sig.Alg != "EdDSA" {
		t.Fatalf("CardSignature: %+v %v", sig, ok)
	}
	sendOK(t, c, "verified")
	if calls.Load() != 1 {
		t.Fatalf("calls: %d", calls.Load())
	}
	if _, ok := mustClient(t, srv.URL).CardSignature(); ok {
		t.Fatal("a client without verification reports a signature")
	}

	stranger := newEd25519Key(t, "card-key")
	tampered, tcalls := signedCardAgent(t, k, false, "", func(card []byte) []byte {
		return bytes.Replace(card, []byte(`"echoes"`), []byte(`"echoes, and mails your data away"`), 1)
	})
	unsigned, ucalls := signedCardAgent(t, testKey{kid: "none"}, false, "", nil)
	for _, c := range []struct {
		name   string
		url    string
		keys   []byte
		reason string
	}{
		{"wrong key", srv.URL, stranger.jwks(), "no_valid_signature"},
		{"tampered card", tampered.URL, k.jwks(), "no_valid_signature"},
		{"unsigned card", unsigned.URL, k.jwks(), "unsigned"},
	} {
		_, err := a2a.NewHTTPClient(ctx, c.url, a2a.WithCardVerification(c.keys))
		var cse *a2a.CardSignatureError
		if !errors.As(err, &cse) || cse.Reason != c.reason {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	if calls.Load() != 1 || tcalls.Load() != 0 || ucalls.Load() != 0 {
		t.Fatalf("a refused card's agent was called: %d %d %d", calls.Load(), tcalls.Load(), ucalls.Load())
	}
	if _, err := a2a.NewHTTPClient(ctx, srv.URL, a2a.WithCardVerification(k.jwks()), a2a.WithInterface(a2a.V1_0, a2a.JSON_RPC)); !errors.Is(err, a2a.CodeInvalidArgument) {
		t.Fatalf("verification without a card: %v", err)
	}
}

func TestHTTPClientCardKeysFromJKU(t *testing.T) {
	k := newP256Key(t, "jku-key")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv, _ := signedCardAgent(t, k, true, "self", nil)
	c := mustClient(t, srv.URL, a2a.WithHTTPClient(srv.Client()), a2a.WithCardKeysFromJKU())
	if sig, ok := c.CardSignature(); !ok || sig.Kid != "jku-key" || sig.JKU != srv.URL+"/jwks.json" {
		t.Fatalf("CardSignature: %+v %v", sig, ok)
	}
	sendOK(t, c, "over tls")

	// A jku on another host is not fetched unless named.
	elsewhere, calls := signedCardAgent(t, k, true, "https://keys.example.com/jwks.json", nil)
	_, err := a2a.NewHTTPClient(ctx, elsewhere.URL, a2a.WithHTTPClient(elsewhere.Client()), a2a.WithCardKeysFromJKU())
	var cse *a2a.CardSignatureError
	if !errors.As(err, &cse) || cse.Reason != "jku_refused" || calls.Load() != 0 {
		t.Fatalf("a jku elsewhere: %v", err)
	}
	// No jku and no keys: nothing to verify with.
	nojku, _ := signedCardAgent(t, k, true, "", nil)
	_, err = a2a.NewHTTPClient(ctx, nojku.URL, a2a.WithHTTPClient(nojku.Client()), a2a.WithCardKeysFromJKU())
	if !errors.As(err, &cse) || cse.Reason != "no_jku" {
		t.Fatalf("no jku: %v", err)
	}
	// Trusted keys first, the jku as the alternative: either verifying passes.
	other := newP256Key(t, "other")
	c = mustClient(t, srv.URL, a2a.WithHTTPClient(srv.Client()), a2a.WithCardVerification(other.jwks()), a2a.WithCardKeysFromJKU())
	if sig, _ := c.CardSignature(); sig.Kid != "jku-key" {
		t.Fatalf("keys then jku: %+v", sig)
	}
}
