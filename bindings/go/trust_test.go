package a2a_test

import (
	"bytes"
	"crypto"
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
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	a2a "a2a.local/a2a"
)

// The card the signing tests sign: no empty values, so every signer's canonical form of it
// is the same.
const testCard = `{"name":"Signed Agent","description":"signs its card","version":"1.0.0",
 "supportedInterfaces":[{"url":"https://agent.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
 "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
 "skills":[{"id":"echo","name":"echo","description":"echoes","tags":["echo"]}]}`

var b64 = base64.RawURLEncoding

// testKey is a key made here with Go's own crypto, in every form the tests hand over.
type testKey struct {
	kid        string
	alg        string
	privatePEM []byte
	publicPEM  []byte
	jwk        map[string]any
	sign       func(input []byte) []byte // the JWS signature of input
}

func (k testKey) jwks() []byte {
	b, _ := json.Marshal(map[string]any{"keys": []any{k.jwk}})
	return b
}

func pemOf(t testing.TB, kind string, der []byte) []byte {
	t.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func newEd25519Key(t testing.TB, kid string) testKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p8, _ := x509.MarshalPKCS8PrivateKey(priv)
	spki, _ := x509.MarshalPKIXPublicKey(pub)
	return testKey{kid: kid, alg: "EdDSA", privatePEM: pemOf(t, "PRIVATE KEY", p8), publicPEM: pemOf(t, "PUBLIC KEY", spki),
		jwk:  map[string]any{"kty": "OKP", "crv": "Ed25519", "x": b64.EncodeToString(pub), "kid": kid, "use": "sig"},
		sign: func(in []byte) []byte { return ed25519.Sign(priv, in) }}
}

func newP256Key(t testing.TB, kid string) testKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p8, _ := x509.MarshalPKCS8PrivateKey(priv)
	spki, _ := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	ep, err := priv.PublicKey.ECDH()
	if err != nil {
		t.Fatal(err)
	}
	raw := ep.Bytes() // 0x04 || X || Y
	return testKey{kid: kid, alg: "ES256", privatePEM: pemOf(t, "PRIVATE KEY", p8), publicPEM: pemOf(t, "PUBLIC KEY", spki),
		jwk: map[string]any{"kty": "EC", "crv": "P-256", "x": b64.EncodeToString(raw[1:33]),
			"y": b64.EncodeToString(raw[33:]), "kid": kid, "use": "sig"},
		sign: func(in []byte) []byte {
			h := sha256.Sum256(in)
			r, s, err := ecdsa.Sign(rand.Reader, priv, h[:])
			if err != nil {
				t.Fatal(err)
			}
			out := make([]byte, 64)
			r.FillBytes(out[:32])
			s.FillBytes(out[32:])
			return out
		}}
}

// goSignCard signs a card with Go's crypto over the library's canonical card form (the
// payload of A2A 1.0 §8.4.1): a signer written independently of the core's.
func goSignCard(t testing.TB, card []byte, k testKey, jku string) []byte {
	t.Helper()
	payload, err := a2a.Canonical(card, true)
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]any{"alg": k.alg, "kid": k.kid, "typ": "JOSE"}
	if jku != "" {
		hdr["jku"] = jku
	}
	hb, _ := json.Marshal(hdr)
	protected := b64.EncodeToString(hb)
	sig := k.sign([]byte(protected + "." + b64.EncodeToString(payload)))
	var m map[string]any
	if err := json.Unmarshal(card, &m); err != nil {
		t.Fatal(err)
	}
	m["signatures"] = []any{map[string]any{"protected": protected, "signature": b64.EncodeToString(sig)}}
	out, _ := json.Marshal(m)
	return out
}

// goVerifyCard checks the core's signature with Go's crypto: the first signature over the
// canonical form of the card without its signatures.
func goVerifyCard(t *testing.T, signed []byte, pub crypto.PublicKey) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(signed, &m); err != nil {
		t.Fatal(err)
	}
	sigs, _ := m["signatures"].([]any)
	if len(sigs) != 1 {
		t.Fatalf("signatures: %v", m["signatures"])
	}
	s := sigs[0].(map[string]any)
	delete(m, "signatures")
	unsigned, _ := json.Marshal(m)
	payload, err := a2a.Canonical(unsigned, true)
	if err != nil {
		t.Fatal(err)
	}
	protected := s["protected"].(string)
	sig, err := b64.DecodeString(s["signature"].(string))
	if err != nil {
		t.Fatal(err)
	}
	input := []byte(protected + "." + b64.EncodeToString(payload))
	switch pk := pub.(type) {
	case ed25519.PublicKey:
		if !ed25519.Verify(pk, input, sig) {
			t.Fatal("Go's ed25519 does not verify the core's signature")
		}
	default:
		t.Fatalf("key type %T", pub)
	}
	hb, _ := b64.DecodeString(protected)
	var hdr map[string]any
	_ = json.Unmarshal(hb, &hdr)
	return hdr
}

func TestCanonical(t *testing.T) {
	// RFC 8785 §3.2.3's sorting example's spirit and §3.2.2's literals: members by UTF-16
	// code units, no whitespace, numbers as ECMAScript writes them.
	got, err := a2a.Canonical([]byte(`{"b": [1.0, 2e0, -0, 1e21], "a": {"z": true, "y": null}, "\u20ac": "x", "\ud83d\ude00": 1, "\ufb33": 2}`), false)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"a\":{\"y\":null,\"z\":true},\"b\":[1,2,0,1e+21],\"\u20ac\":\"x\",\"\U0001F600\":1,\"\ufb33\":2}"
	if string(got) != want {
		t.Fatalf("canonical:\n got %s\nwant %s", got, want)
	}
	// The card form: signatures excluded, defaults removed, REQUIRED fields kept (the
	// specification's §8.4.1 example, as the core's documentation shows it).
	card := `{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[],"signatures":[{"protected":"e30","signature":"AA"}]}`
	got, err = a2a.Canonical([]byte(card), true)
	if err != nil {
		t.Fatal(err)
	}
	want = `{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}`
	if string(got) != want {
		t.Fatalf("card form:\n got %s\nwant %s", got, want)
	}
	// A duplicate member is refused: two readers could see two different cards.
	_, err = a2a.Canonical([]byte(`{"a":1,"a":2}`), false)
	var te *a2a.TrustError
	if !errors.As(err, &te) || !errors.Is(err, a2a.CodeTrustJSON) || te.Reason == "" {
		t.Fatalf("duplicate member: %v", err)
	}
}

func TestSignCardVerifiedByGoCrypto(t *testing.T) {
	k := newEd25519Key(t, "ed-1")
	signed, err := a2a.SignCard([]byte(testCard), k.privatePEM, "ed-1", "https://agent.example/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(k.publicPEM)
	pk, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	hdr := goVerifyCard(t, signed, pk)
	if hdr["alg"] != "EdDSA" || hdr["kid"] != "ed-1" || hdr["jku"] != "https://agent.example/.well-known/jwks.json" {
		t.Fatalf("protected header: %v", hdr)
	}
	// And by the library, with the key as a JWK Set and as PEM.
	for name, keys := range map[string][]byte{"jwks": k.jwks(), "pem": k.publicPEM} {
		sig, err := a2a.VerifyCard(signed, keys)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sig.Alg != "EdDSA" || sig.JKU != "https://agent.example/.well-known/jwks.json" {
			t.Fatalf("%s: %+v", name, sig)
		}
		if name == "jwks" && sig.Kid != "ed-1" {
			t.Fatalf("kid: %+v", sig)
		}
	}
}

func TestVerifyCardSignedByGoCrypto(t *testing.T) {
	for _, k := range []testKey{newP256Key(t, "p256-1"), newEd25519Key(t, "ed-2")} {
		signed := goSignCard(t, []byte(testCard), k, "")
		sig, err := a2a.VerifyCard(signed, k.jwks())
		if err != nil {
			t.Fatalf("%s: %v", k.alg, err)
		}
		if sig.Kid != k.kid || sig.Alg != k.alg || sig.JKU != "" {
			t.Fatalf("%s: %+v", k.alg, sig)
		}
	}
}

func TestVerifyCardRefusals(t *testing.T) {
	k := newP256Key(t, "p256-1")
	signed, err := a2a.SignCard([]byte(testCard), k.privatePEM, "p256-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a2a.VerifyCard(signed, k.jwks()); err != nil {
		t.Fatalf("the untouched card: %v", err)
	}
	tampered := bytes.Replace(signed, []byte(`"echoes"`), []byte(`"echoes and exfiltrates"`), 1)
	if bytes.Equal(tampered, signed) {
		t.Fatal("the tampering changed nothing")
	}
	other := newP256Key(t, "p256-1") // the same kid, another key
	stranger := newP256Key(t, "someone-else")
	cases := []struct {
		name, card   string
		keys         []byte
		reason, sigs string
	}{
		{"tampered card", string(tampered), k.jwks(), "no_valid_signature", "bad_signature"},
		{"wrong key, same kid", string(signed), other.jwks(), "no_valid_signature", "bad_signature"},
		{"wrong key, unknown kid", string(signed), stranger.jwks(), "no_valid_signature", "unknown_key"},
		{"unsigned card", testCard, k.jwks(), "unsigned", ""},
	}
	for _, c := range cases {
		_, err := a2a.VerifyCard([]byte(c.card), c.keys)
		var cse *a2a.CardSignatureError
		if !errors.As(err, &cse) || !errors.Is(err, a2a.CodeCardSignature) {
			t.Fatalf("%s: %v", c.name, err)
		}
		if cse.Reason != c.reason {
			t.Fatalf("%s: reason %q (%v)", c.name, cse.Reason, err)
		}
		if c.sigs != "" && (len(cse.Signatures) != 1 || cse.Signatures[0].Reason != c.sigs || cse.Signatures[0].Kid != "p256-1") {
			t.Fatalf("%s: signatures %+v", c.name, cse.Signatures)
		}
		if !strings.Contains(err.Error(), c.reason) {
			t.Fatalf("%s: message %q", c.name, err)
		}
	}
	// Keys that cannot be read are the caller's error, not the card's.
	_, err = a2a.VerifyCard(signed, []byte("-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n"))
	var te *a2a.TrustError
	if !errors.As(err, &te) || !errors.Is(err, a2a.CodeTrustKey) {
		t.Fatalf("unreadable keys: %v", err)
	}
	_, err = a2a.VerifyCard([]byte(`{"name":`), k.jwks())
	if !errors.Is(err, a2a.CodeTrustJSON) && !errors.Is(err, a2a.CodeCardSignature) {
		t.Fatalf("a card that is not JSON: %v", err)
	}
	// A private key is no signing key for SignCard's purposes when it is SEC1, and a public
	// key cannot sign.
	if _, err := a2a.SignCard([]byte(testCard), k.publicPEM, "x", ""); !errors.Is(err, a2a.CodeTrustKey) {
		t.Fatalf("signing with a public key: %v", err)
	}
}

func TestCardKeyURL(t *testing.T) {
	k := newEd25519Key(t, "ed-1")
	sign := func(jku string) []byte {
		s, err := a2a.SignCard([]byte(testCard), k.privatePEM, "ed-1", jku)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const cardURL = "https://agent.example/.well-known/agent-card.json"
	url, ok, err := a2a.CardKeyURL(sign("https://agent.example/jwks.json"), cardURL)
	if err != nil || !ok || url != "https://agent.example/jwks.json" {
		t.Fatalf("same host: %q %v %v", url, ok, err)
	}
	_, ok, err = a2a.CardKeyURL(sign(""), cardURL)
	if err != nil || ok {
		t.Fatalf("no jku: %v %v", ok, err)
	}
	// The signer refuses to publish a jku that is not https; a card signed elsewhere may
	// name one all the same, and CardKeyURL refuses it.
	_, err = a2a.SignCard([]byte(testCard), k.privatePEM, "ed-1", "http://agent.example/jwks.json")
	var te *a2a.TrustError
	if !errors.As(err, &te) || te.Reason != "jku" {
		t.Fatalf("signing with an http jku: %v", err)
	}
	for _, card := range [][]byte{sign("https://keys.attacker.example/jwks.json"), goSignCard(t, []byte(testCard), k, "http://agent.example/jwks.json")} {
		_, ok, err = a2a.CardKeyURL(card, cardURL)
		var cse *a2a.CardSignatureError
		if ok || !errors.As(err, &cse) || cse.Reason != "jku_refused" {
			t.Fatalf("%s: %v %v", card, ok, err)
		}
	}
	url, ok, err = a2a.CardKeyURL(sign("https://keys.example.com/jwks.json"), cardURL, "keys.example.com")
	if err != nil || !ok || url != "https://keys.example.com/jwks.json" {
		t.Fatalf("an extra host: %q %v %v", url, ok, err)
	}
}

func TestCheckWebhookURL(t *testing.T) {
	for _, ok := range []string{"https://hooks.example.com/a2a", "https://93.184.215.14/cb"} {
		if err := a2a.CheckWebhookURL(ok, false); err != nil {
			t.Fatalf("%s: %v", ok, err)
		}
	}
	if err := a2a.CheckWebhookURL("http://hooks.example.com/a2a", true); err != nil {
		t.Fatalf("http allowed: %v", err)
	}
	refused := map[string]string{
		"http://hooks.example.com/a2a":        "scheme",
		"https://user:pw@hooks.example.com/":  "userinfo",
		"https://127.0.0.1/cb":                "internal",
		"https://localhost/cb":                "internal",
		"https://[::1]/cb":                    "internal",
		"https://10.1.2.3/cb":                 "internal",
		"https://192.168.0.7/cb":              "internal",
		"https://169.254.169.254/latest/meta": "internal", // cloud metadata, link-local
		"https://[fe80::1]/cb":                "internal",
		"https://0.0.0.0/cb":                  "internal",
		"https://2130706433/cb":               "internal", // 127.0.0.1 spelled as one number
		"not a url":                           "",
	}
	for url, reason := range refused {
		err := a2a.CheckWebhookURL(url, false)
		var we *a2a.WebhookError
		if !errors.As(err, &we) || !errors.Is(err, a2a.CodeWebhookRefused) {
			t.Fatalf("%s: %v", url, err)
		}
		if reason != "" && we.Reason != reason {
			t.Fatalf("%s: reason %q (%v)", url, we.Reason, err)
		}
		if we.URL != url {
			t.Fatalf("%s: URL %q", url, we.URL)
		}
	}
	// A public name that resolved to an internal address (DNS rebinding) is refused too.
	for _, addr := range []string{"127.0.0.1", "10.0.0.5", "169.254.169.254", "::1", "::ffff:192.168.1.1"} {
		err := a2a.CheckWebhookURL("https://hooks.example.com/a2a", false, netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr(addr))
		var we *a2a.WebhookError
		if !errors.As(err, &we) || we.Reason != "internal" {
			t.Fatalf("resolved to %s: %v", addr, err)
		}
	}
	if err := a2a.CheckWebhookURL("https://hooks.example.com/a2a", false, netip.MustParseAddr("93.184.215.14")); err != nil {
		t.Fatalf("a public address: %v", err)
	}
}

// WebhookHTTPClient refuses at dial time what CheckWebhookURL refuses: a loopback listener
// here, reached by its address and by a name that resolves to it.
func TestWebhookHTTPClient(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	c := a2a.WebhookHTTPClient(5 * time.Second)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, url := range []string{srv.URL + "/hook", "http://localhost:" + port + "/hook"} {
		resp, err := c.Post(url, "application/json", strings.NewReader(`{}`))
		if resp != nil {
			resp.Body.Close()
		}
		var we *a2a.WebhookError
		if !errors.As(err, &we) || we.Reason != "internal" || !errors.Is(err, a2a.CodeWebhookRefused) {
			t.Fatalf("%s: %v", url, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the loopback listener was reached %d times", n)
	}
}
