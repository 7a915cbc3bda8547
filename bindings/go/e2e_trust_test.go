package a2a_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	a2a "a2a.local/a2a"
)

// demoAgent starts the project's reference agent, `a2a demo --serve` with args, from
// $A2A_BIN (scripts/ci/50-go.sh builds and sets it; skipped without it, failing under
// CI=true), and returns its URL; the cleanup stops it with SIGTERM.
func demoAgent(t *testing.T, args ...string) string {
	t.Helper()
	bin := os.Getenv("A2A_BIN")
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("A2A_BIN is not set (scripts/ci/50-go.sh builds the a2a binary and sets it)")
		}
		t.Skip("A2A_BIN is not set: no a2a binary to run `a2a demo --serve` with")
	}
	cmd := exec.Command(bin, append([]string{"demo", "--serve"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- strings.TrimSpace(line)
	}()
	var line string
	select {
	case line = <-ready:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("a2a demo --serve printed no READY line")
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("a2a demo --serve did not stop on SIGTERM")
		}
	})
	url, ok := strings.CutPrefix(line, "READY ")
	if !ok {
		t.Fatalf("READY line %q", line)
	}
	return url
}

// The reference agent with a bearer token, its own OAuth2 token endpoint (/oauth2/token,
// named by its card's clientCredentials flow) and a signed card: HTTPClient verifies the
// card, takes the token URL from it, fetches the token once and calls with it.
func TestDemoAgentOAuth2AndSignedCard(t *testing.T) {
	k := newP256Key(t, "unused")
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "card.pem")
	if err := os.WriteFile(keyFile, k.privatePEM, 0o600); err != nil {
		t.Fatal(err)
	}
	const secret = "demo-SECRET-token"
	url := demoAgent(t, "--bearer-token", secret, "--sign-card", keyFile, "--card-kid", "demo-card")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cc := a2a.ClientCredentials{ClientID: "demo", ClientSecret: secret, BasicAuth: true, AllowHTTPLoopback: true}

	// Without a token the call is not even sent: the card asks for credentials (the card
	// itself stays public).
	plain := mustClient(t, url)
	_, err := plain.SendText(ctx, "echo no token", nil)
	var oe *a2a.OutcomeError
	if !errors.As(err, &oe) || oe.Outcome.Error != a2a.NameUnauthenticated {
		t.Fatalf("without a token: %v", err)
	}

	c := mustClient(t, url, a2a.WithOAuth2(cc), a2a.WithCardVerification(k.publicPEM))
	if sig, ok := c.CardSignature(); !ok || sig.Alg != "ES256" {
		t.Fatalf("card signature: %+v %v", sig, ok)
	}
	for _, text := range []string{"hi there", "again"} {
		o, err := c.SendText(ctx, "echo "+text, nil)
		if err != nil {
			t.Fatalf("SendText: %v", err)
		}
		if got := answerText(o); got != text {
			t.Fatalf("answer %q", got)
		}
	}
	if c.TokenFetches() != 1 {
		t.Fatalf("token fetches: %d", c.TokenFetches())
	}
	ended := false
	for ev, err := range c.Stream(ctx, "echo streamed", nil) {
		if ev.Kind == a2a.StreamEventEnd {
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			ended = true
		}
	}
	if !ended || c.TokenFetches() != 1 {
		t.Fatalf("stream: ended %v, fetches %d", ended, c.TokenFetches())
	}

	// The wrong secret: the demo's endpoint answers invalid_client, nothing reaches the agent.
	bad := cc
	bad.ClientSecret = "wrong"
	c2 := mustClient(t, url, a2a.WithOAuth2(bad))
	_, err = c2.SendText(ctx, "echo x", nil)
	var o2 *a2a.OAuth2Error
	if !errors.As(err, &o2) || o2.ErrorCode != "invalid_client" {
		t.Fatalf("wrong secret: %v", err)
	}
	// Another key does not verify the demo's card.
	other := newP256Key(t, "other")
	if _, err := a2a.NewHTTPClient(ctx, url, a2a.WithCardVerification(other.publicPEM)); !errors.Is(err, a2a.CodeCardSignature) {
		t.Fatalf("wrong card key: %v", err)
	}
}
