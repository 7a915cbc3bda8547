package a2a

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bindings/fixtures/trust/cases.json: the trust cases every binding runs through its own
// API (cards, key URLs, push notifications, webhooks), with the card signed by the Python
// a2a-sdk's signer among them.

type trustCases struct {
	Codes map[string]Code `json:"codes"`
	Cards []struct {
		Name, Card, Keys, Expect string
		Reason                   *string
		Kid, Alg                 *string // nil: not named by the case
		JKU                      *string `json:"jku"`
		Rejected                 []string
	} `json:"cards"`
	KeyURLs []struct {
		Name, Card, Expect string
		CardURL            string `json:"card_url"`
		ExtraHosts         string `json:"extra_hosts"`
		URL                string
		Reason             *string
	} `json:"key_urls"`
	Push []struct {
		Name   string
		Policy struct {
			Token, Audience, Issuer, TaskID string
			SkewSecs                        int64 `json:"skewSecs"`
			MaxAgeSecs                      int64 `json:"maxAgeSecs"`
		}
		Keys  *string
		Steps []struct {
			Headers [][2]string
			Body    json.RawMessage
			Now     int64
			Expect  string
			Reason  *string
		}
	} `json:"push"`
	Webhooks []struct {
		URL       string
		AllowHTTP bool   `json:"allow_http"`
		Resolved  string `json:"resolved"`
		Expect    string
		Reason    *string
	} `json:"webhooks"`
}

func trustFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir(), "trust", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// expectCode checks that err matches the fixture's code name (nil for A2A_OK).
func expectCode(t *testing.T, cs *trustCases, name string, err error) {
	t.Helper()
	want, ok := cs.Codes[name]
	if !ok {
		t.Fatalf("unknown code %q", name)
	}
	if want == CodeOK {
		if err != nil {
			t.Fatalf("want success, got %v", err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("want %s, got %v", name, err)
	}
}

func reasonOf(err error) string {
	var cse *CardSignatureError
	var te *TrustError
	var we *WebhookError
	switch {
	case errors.As(err, &cse):
		return cse.Reason
	case errors.As(err, &te):
		return te.Reason
	case errors.As(err, &we):
		return we.Reason
	}
	return ""
}

func TestTrustFixtures(t *testing.T) {
	var cs trustCases
	loadFixture(t, "trust/cases.json", &cs)
	// The fixtures name the C codes; the Go constants are the same numbers.
	for name, c := range map[string]Code{"A2A_TRUST_JSON": CodeTrustJSON, "A2A_TRUST_KEY": CodeTrustKey,
		"A2A_CARD_SIGNATURE": CodeCardSignature, "A2A_PUSH_REJECTED": CodePushRejected,
		"A2A_WEBHOOK_REFUSED": CodeWebhookRefused, "A2A_OAUTH2_REFUSED": CodeOAuth2Refused, "A2A_NONE": CodeNone} {
		if cs.Codes[name] != c {
			t.Fatalf("%s: fixtures %d, Go %d", name, cs.Codes[name], c)
		}
	}
	if len(cs.Cards) == 0 || len(cs.KeyURLs) == 0 || len(cs.Push) == 0 || len(cs.Webhooks) == 0 {
		t.Fatal("empty fixture sections")
	}
	for _, c := range cs.Cards {
		sig, err := VerifyCard(trustFile(t, c.Card), trustFile(t, c.Keys))
		expectCode(t, &cs, c.Expect, err)
		if c.Reason != nil && reasonOf(err) != *c.Reason {
			t.Fatalf("card %q: reason %q, want %q (%v)", c.Name, reasonOf(err), *c.Reason, err)
		}
		differs := func(want *string, got string) bool { return want != nil && *want != got }
		if err == nil && (differs(c.Kid, sig.Kid) || differs(c.Alg, sig.Alg) || differs(c.JKU, sig.JKU)) {
			t.Fatalf("card %q: %+v", c.Name, sig)
		}
		if c.Rejected != nil {
			var cse *CardSignatureError
			errors.As(err, &cse)
			var got []string
			for _, s := range cse.Signatures {
				got = append(got, s.Reason)
			}
			if strings.Join(got, ",") != strings.Join(c.Rejected, ",") {
				t.Fatalf("card %q: rejected %v, want %v", c.Name, got, c.Rejected)
			}
		}
	}
	for _, c := range cs.KeyURLs {
		var extra []string
		if c.ExtraHosts != "" {
			extra = strings.Split(c.ExtraHosts, ",")
		}
		url, ok, err := CardKeyURL(trustFile(t, c.Card), c.CardURL, extra...)
		switch c.Expect {
		case "A2A_NONE":
			if ok || err != nil {
				t.Fatalf("key url %q: %v %v", c.Name, ok, err)
			}
		default:
			expectCode(t, &cs, c.Expect, err)
			if err == nil && (!ok || url != c.URL) {
				t.Fatalf("key url %q: %q %v", c.Name, url, ok)
			}
			if c.Reason != nil && reasonOf(err) != *c.Reason {
				t.Fatalf("key url %q: reason %q (%v)", c.Name, reasonOf(err), err)
			}
		}
	}
	for _, c := range cs.Push {
		var keys []byte
		if c.Keys != nil {
			keys = trustFile(t, *c.Keys)
		}
		p := c.Policy
		v, err := NewPushVerifier(PushPolicy{Token: p.Token, Audience: p.Audience, Issuer: p.Issuer, TaskID: p.TaskID,
			Skew: time.Duration(p.SkewSecs) * time.Second, MaxAge: time.Duration(p.MaxAgeSecs) * time.Second}, keys, 0)
		if err != nil {
			t.Fatalf("push %q: %v", c.Name, err)
		}
		for i, s := range c.Steps {
			h := http.Header{}
			for _, kv := range s.Headers {
				h.Add(kv[0], kv[1])
			}
			var body bytes.Buffer
			if err := json.Compact(&body, s.Body); err != nil {
				t.Fatal(err)
			}
			verdict := v.Check(h, body.Bytes(), time.Unix(s.Now, 0))
			expectCode(t, &cs, s.Expect, verdict.Err())
			if s.Reason != nil && verdict.Reason != *s.Reason {
				t.Fatalf("push %q step %d: %+v, want %s", c.Name, i, verdict, *s.Reason)
			}
			if s.Reason == nil && (!verdict.Accepted || verdict.Reason != "" || verdict.TaskID != p.TaskID) {
				t.Fatalf("push %q step %d: %+v", c.Name, i, verdict)
			}
		}
		v.Close()
	}
	for _, c := range cs.Webhooks {
		var addrs []netip.Addr
		if c.Resolved != "" {
			for _, a := range strings.Split(c.Resolved, ",") {
				addrs = append(addrs, netip.MustParseAddr(a))
			}
		}
		err := CheckWebhookURL(c.URL, c.AllowHTTP, addrs...)
		expectCode(t, &cs, c.Expect, err)
		if c.Reason != nil && reasonOf(err) != *c.Reason {
			t.Fatalf("webhook %q: reason %q (%v)", c.URL, reasonOf(err), err)
		}
	}
}

// The fixture keys sign here too: each private key signs the unsigned card, its key set
// verifies it, and a wrong key's signature does not verify.
func TestTrustFixtureKeysSign(t *testing.T) {
	card := trustFile(t, "card.unsigned.json")
	for _, k := range []struct{ pem, jwks, alg string }{
		{"core-eddsa.pem", "core-eddsa.jwks.json", "EdDSA"},
		{"core-rs256.pem", "core-rs256.jwks.json", "RS256"},
		{"sdk-es256.pem", "sdk-es256.jwks.json", "ES256"},
	} {
		var set struct {
			Keys []struct{ Kid string } `json:"keys"`
		}
		if err := json.Unmarshal(trustFile(t, k.jwks), &set); err != nil || len(set.Keys) == 0 {
			t.Fatalf("%s: %v", k.jwks, err)
		}
		kid := set.Keys[0].Kid
		signed, err := SignCard(card, trustFile(t, k.pem), kid, "")
		if err != nil {
			t.Fatalf("%s: %v", k.pem, err)
		}
		sig, err := VerifyCard(signed, trustFile(t, k.jwks))
		if err != nil || sig.Alg != k.alg || sig.Kid != kid {
			t.Fatalf("%s: %+v %v", k.pem, sig, err)
		}
	}
	wrong, err := SignCard(card, trustFile(t, "wrong-ed25519.pem"), "core-eddsa", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyCard(wrong, trustFile(t, "core-eddsa.jwks.json")); !errors.Is(err, CodeCardSignature) {
		t.Fatalf("a wrong key's signature: %v", err)
	}
}

// The card the Python a2a-sdk signed verifies with Go's crypto/ecdsa too (a third,
// independent verifier), over the canonical payload Canonical computes.
func TestTrustFixtureSDKCardWithGoCrypto(t *testing.T) {
	var card map[string]any
	if err := json.Unmarshal(trustFile(t, "sdk-es256.card.json"), &card); err != nil {
		t.Fatal(err)
	}
	sigs := card["signatures"].([]any)
	s := sigs[0].(map[string]any)
	delete(card, "signatures")
	unsigned, _ := json.Marshal(card)
	payload, err := Canonical(unsigned, true)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding
	raw, err := b64.DecodeString(s["signature"].(string))
	if err != nil || len(raw) != 64 {
		t.Fatalf("signature: %v %d", err, len(raw))
	}
	block, _ := pem.Decode(trustFile(t, "sdk-es256.pub.pem"))
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte(s["protected"].(string) + "." + b64.EncodeToString(payload)))
	r, ss := new(big.Int).SetBytes(raw[:32]), new(big.Int).SetBytes(raw[32:])
	if !ecdsa.Verify(pub.(*ecdsa.PublicKey), h[:], r, ss) {
		t.Fatal("Go's crypto/ecdsa does not verify the a2a-sdk signature over Canonical's payload")
	}
}
