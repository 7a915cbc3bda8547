package a2a_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	a2a "a2a.local/a2a"
)

// ExampleVerifyCard signs a card, verifies it, and refuses a tampered copy and a webhook to
// the cloud metadata address; then a push receiver accepts a notification once.
func ExampleVerifyCard() {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32)) // your key, in PEM below
	p8, _ := x509.MarshalPKCS8PrivateKey(priv)
	spki, _ := x509.MarshalPKIXPublicKey(priv.Public())
	privatePEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8})
	publicPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki})
	card := []byte(`{"name":"Echo","description":"Echoes text","version":"1.0.0","skills":[]}`)

	payload, _ := a2a.Canonical(card, true) // what the signature covers
	fmt.Println(string(payload))
	signed, _ := a2a.SignCard(card, privatePEM, "card-2026", "")
	sig, err := a2a.VerifyCard(signed, publicPEM)
	fmt.Println("verified:", sig.Alg, err)

	tampered := bytes.Replace(signed, []byte("Echoes text"), []byte("Sends your data away"), 1)
	_, err = a2a.VerifyCard(tampered, publicPEM)
	var cse *a2a.CardSignatureError
	if errors.As(err, &cse) {
		fmt.Println("tampered:", cse.Reason, cse.Signatures[0].Reason)
	}

	err = a2a.CheckWebhookURL("https://hooks.example.com/a2a", false, netip.MustParseAddr("169.254.169.254"))
	var we *a2a.WebhookError
	fmt.Println("webhook:", errors.As(err, &we), we.Reason)

	v, _ := a2a.NewPushVerifier(a2a.PushPolicy{Token: "s3cret", TaskID: "t-1"}, nil, 0)
	defer v.Close()
	h := http.Header{"X-A2A-Notification-Token": {"s3cret"}}
	body := []byte(`{"statusUpdate":{"taskId":"t-1","status":{"state":"TASK_STATE_COMPLETED"}}}`)
	for range 2 {
		verdict := v.Check(h, body, time.Now())
		fmt.Printf("push: accepted=%t event=%q reason=%q\n", verdict.Accepted, verdict.Event, verdict.Reason)
	}
	fmt.Printf("%v\n", a2a.PushPolicy{Token: "s3cret", TaskID: "t-1"})
	// Output:
	// {"description":"Echoes text","name":"Echo","skills":[],"version":"1.0.0"}
	// verified: EdDSA <nil>
	// tampered: no_valid_signature bad_signature
	// webhook: true internal
	// push: accepted=true event="statusUpdate" reason=""
	// push: accepted=false event="" reason="replayed"
	// PushPolicy{Token:<redacted> Audience:"" Issuer:"" TaskID:"t-1" Skew:0s MaxAge:0s}
}
