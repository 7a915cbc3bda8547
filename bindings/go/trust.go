package a2a

/*
#include <stdlib.h>
#include "a2a_core.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Trust (issue 26): signed agent cards (A2A 1.0 §8.4), webhook URL checks, and the
// typed errors of the trust functions of the C ABI (a2a_trust_*, a2a_card_sign*,
// a2a_webhook_url_check). Push notifications are in push.go, OAuth2 in oauth2.go.

// Result codes of the trust functions (the 1200 range).
const (
	CodeTrustJSON      Code = C.A2A_TRUST_JSON      // input is not the JSON it should be (card, policy, JWKS)
	CodeTrustKey       Code = C.A2A_TRUST_KEY       // a key (PEM, JWK, JWKS) cannot be read or used
	CodeCardSignature  Code = C.A2A_CARD_SIGNATURE  // the card's signatures do not verify (or there are none)
	CodePushRejected   Code = C.A2A_PUSH_REJECTED   // the notification failed a check
	CodeWebhookRefused Code = C.A2A_WEBHOOK_REFUSED // the webhook URL (or an address it resolves to) is refused
	CodeOAuth2Refused  Code = C.A2A_OAUTH2_REFUSED  // the token endpoint refused or answered nonsense
)

// TrustError is a trust function's refusal of its input: a card or key set that is not
// JSON (CodeTrustJSON), a key that cannot be read or used (CodeTrustKey), or an argument
// out of range (CodeInvalidArgument: e.g. a jku to sign with that is not https). Reason
// is the core's kind word ("json", "duplicate_name", "pem", "no_keys", "jku", ...);
// errors.Is(err, a2a.CodeTrustKey) matches the code.
type TrustError struct {
	Op     string // the Go function, e.g. "VerifyCard"
	Code   Code
	Reason string
	Detail string
}

// Error formats the operation, the reason and the detail.
func (e *TrustError) Error() string {
	return fmt.Sprintf("a2a: %s: %s: %s", e.Op, e.Reason, e.Detail)
}

// Unwrap returns the code, for errors.Is.
func (e *TrustError) Unwrap() error { return e.Code }

// VerifiedSignature says which of a card's signatures verified: its key id, algorithm
// and the jku its protected header named ("" when none).
type VerifiedSignature struct {
	Kid string
	Alg string
	JKU string
}

// SignatureRejection is why one of a card's signatures did not verify (Reason:
// "unknown_key", "bad_signature", "alg_none", "alg_symmetric", "malformed", ...).
type SignatureRejection struct {
	Kid    string
	Alg    string
	Reason string
}

// CardSignatureError is a card that is not to be trusted: none of its signatures
// verified with the keys given, it has none, or the jku it names is refused.
// errors.As(err, &cse) reads it; errors.Is(err, a2a.CodeCardSignature) holds.
type CardSignatureError struct {
	// Reason is the core's kind word: "unsigned", "no_valid_signature", "no_keys",
	// "too_many_signatures", "shape", "card_json", or for a refused jku the reason
	// CardKeyURL reports.
	Reason     string
	Detail     string
	Signatures []SignatureRejection // one per signature, when there were any
}

// Error formats the reason, the detail and each signature's rejection.
func (e *CardSignatureError) Error() string {
	var b strings.Builder
	b.WriteString("a2a: card signature: ")
	b.WriteString(e.Reason)
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	for _, s := range e.Signatures {
		fmt.Fprintf(&b, " [kid %q %s: %s]", s.Kid, s.Alg, s.Reason)
	}
	return b.String()
}

// Unwrap returns CodeCardSignature, for errors.Is.
func (e *CardSignatureError) Unwrap() error { return CodeCardSignature }

// WebhookError is a webhook URL the sender must not call: Reason is "scheme" (not https,
// or http not allowed), "userinfo", "internal" (a loopback, private, link-local,
// unspecified, ... host or resolved address) or "invalid". errors.Is(err,
// a2a.CodeWebhookRefused) holds.
type WebhookError struct {
	URL    string
	Reason string
	Detail string
}

// Error formats the URL, the reason and the detail.
func (e *WebhookError) Error() string {
	return fmt.Sprintf("a2a: webhook %q refused: %s: %s", e.URL, e.Reason, e.Detail)
}

// Unwrap returns CodeWebhookRefused, for errors.Is.
func (e *WebhookError) Unwrap() error { return CodeWebhookRefused }

// trustReport is the JSON report of a refusal (every trust function writes one).
type trustReport struct {
	Verified   bool   `json:"verified"`
	Kid        string `json:"kid"`
	Alg        string `json:"alg"`
	JKU        string `json:"jku"`
	Reason     string `json:"reason"`
	Detail     string `json:"detail"`
	Error      string `json:"error"`
	Message    string `json:"message"`
	Signatures []struct {
		Kid      string `json:"kid"`
		Alg      string `json:"alg"`
		Rejected string `json:"rejected"`
	} `json:"signatures"`
}

func readReport(out []byte) trustReport {
	var r trustReport
	_ = json.Unmarshal(out, &r) // a report that does not read leaves the fields empty
	if r.Detail == "" {
		r.Detail = r.Message
	}
	return r
}

// trustCall runs fn with a fresh buffer and returns the result code and a copy of what
// the buffer holds (the output, or the refusal's report), even when the call failed.
func trustCall(op string, fn func(*C.a2a_buffer) C.a2a_result) (C.a2a_result, []byte, error) {
	var b *C.a2a_buffer
	if r := C.a2a_buffer_new(&b); r != C.A2A_OK {
		return r, nil, codeErr(op, r)
	}
	defer C.a2a_buffer_free(b)
	r := fn(b)
	out := goBytes(C.a2a_buffer_bytes(b))
	if out == nil {
		out = []byte{}
	}
	return r, out, nil
}

// trustErr turns a failed trust call into its typed error.
func trustErr(op string, r C.a2a_result, out []byte) error {
	switch Code(r) {
	case CodeTrustJSON, CodeTrustKey:
		rep := readReport(out)
		return &TrustError{Op: op, Code: Code(r), Reason: rep.Reason, Detail: rep.Detail}
	case CodeCardSignature:
		rep := readReport(out)
		e := &CardSignatureError{Reason: rep.Reason, Detail: rep.Detail}
		for _, s := range rep.Signatures {
			e.Signatures = append(e.Signatures, SignatureRejection{Kid: s.Kid, Alg: s.Alg, Reason: s.Rejected})
		}
		return e
	}
	if rep := readReport(out); rep.Reason != "" {
		return &TrustError{Op: op, Code: Code(r), Reason: rep.Reason, Detail: rep.Detail}
	}
	return &Error{Op: op, Code: Code(r), Detail: string(out)}
}

// Canonical returns the RFC 8785 (JCS) canonical form of a JSON document, or with
// cardForm an agent card's signing payload (A2A 1.0 §8.4.1: signatures excluded,
// default values removed; what `a2a card canonical` prints). JSON the core refuses
// (a duplicate member name, a lone surrogate, ...) is a *TrustError (CodeTrustJSON).
func Canonical(doc []byte, cardForm bool) ([]byte, error) {
	p, n := cBytes(doc)
	r, out, err := trustCall("Canonical", func(b *C.a2a_buffer) C.a2a_result {
		return C.a2a_trust_canonical(p, n, C.bool(cardForm), b)
	})
	runtime.KeepAlive(doc)
	if err != nil {
		return nil, err
	}
	if r != C.A2A_OK {
		return nil, trustErr("Canonical", r, out)
	}
	return out, nil
}

// VerifyCard verifies an agent card's JWS signatures (A2A 1.0 §8.4.3) against keys: a
// JWK Set document, one JWK, or one or more PEM public keys (detected). It returns the
// signature that verified; a card none of whose signatures verifies (or that has none) is
// a *CardSignatureError with each signature's rejection; unreadable keys or a card that
// is not JSON are a *TrustError.
func VerifyCard(card, keys []byte) (VerifiedSignature, error) {
	cp, cn := cBytes(card)
	kp, kn := cBytes(keys)
	r, out, err := trustCall("VerifyCard", func(b *C.a2a_buffer) C.a2a_result {
		return C.a2a_card_signature_verify(cp, cn, kp, kn, b)
	})
	runtime.KeepAlive(card)
	runtime.KeepAlive(keys)
	if err != nil {
		return VerifiedSignature{}, err
	}
	if r != C.A2A_OK {
		return VerifiedSignature{}, trustErr("VerifyCard", r, out)
	}
	rep := readReport(out)
	return VerifiedSignature{Kid: rep.Kid, Alg: rep.Alg, JKU: rep.JKU}, nil
}

// CardKeyURL says where the keys verifying a card may be fetched from: the jku its
// signatures name, checked (https only; on the host the card was fetched from, cardURL,
// or one of extraHosts). ok is false when no signature names a jku; a jku named but
// refused is a *CardSignatureError.
func CardKeyURL(card []byte, cardURL string, extraHosts ...string) (url string, ok bool, err error) {
	extra := strings.Join(extraHosts, ",")
	cp, cn := cBytes(card)
	up, un := cText(cardURL)
	ep, en := cText(extra)
	r, out, err := trustCall("CardKeyURL", func(b *C.a2a_buffer) C.a2a_result {
		return C.a2a_card_signature_key_url(cp, cn, up, un, ep, en, b)
	})
	runtime.KeepAlive(card)
	runtime.KeepAlive(cardURL)
	runtime.KeepAlive(extra)
	switch {
	case err != nil:
		return "", false, err
	case r == C.A2A_OK:
		return string(out), true, nil
	case r == C.A2A_NONE:
		return "", false, nil
	}
	return "", false, trustErr("CardKeyURL", r, out)
}

// SignCard signs an agent card (the server side, A2A 1.0 §8.4.2): one entry is added to
// its signatures over its canonical form, with a private key in PEM (PKCS#8 EC P-256 or
// P-384, RSA, Ed25519; PKCS#1 RSA), its key id kid and, when not "", the jku to publish.
// It returns the signed card's JSON. A key that cannot sign is a *TrustError
// (CodeTrustKey).
func SignCard(card, privateKeyPEM []byte, kid, jku string) ([]byte, error) {
	cp, cn := cBytes(card)
	kp, kn := cBytes(privateKeyPEM)
	ip, in := cText(kid)
	jp, jn := cText(jku)
	r, out, err := trustCall("SignCard", func(b *C.a2a_buffer) C.a2a_result {
		return C.a2a_card_sign(cp, cn, kp, kn, ip, in, jp, jn, b)
	})
	runtime.KeepAlive(card)
	runtime.KeepAlive(privateKeyPEM)
	runtime.KeepAlive(kid)
	runtime.KeepAlive(jku)
	if err != nil {
		return nil, err
	}
	if r != C.A2A_OK {
		return nil, trustErr("SignCard", r, out)
	}
	return out, nil
}

// CheckWebhookURL says whether a push config's webhook URL may be called (the sending
// side's defence against server-side request forgery, A2A 1.0 §13.2): https only (http
// too when allowHTTP), no userinfo, and no loopback, private, shared, link-local, unique
// local, unspecified or multicast host. resolved are the addresses the host resolved to
// (check them right before connecting): each is held to the same rules. A refusal is a
// *WebhookError.
func CheckWebhookURL(url string, allowHTTP bool, resolved ...netip.Addr) error {
	addrs := make([]string, len(resolved))
	for i, a := range resolved {
		addrs[i] = a.String()
	}
	list := strings.Join(addrs, ",")
	up, un := cText(url)
	lp, ln := cText(list)
	r, out, err := trustCall("CheckWebhookURL", func(b *C.a2a_buffer) C.a2a_result {
		return C.a2a_webhook_url_check(up, un, C.bool(allowHTTP), lp, ln, b)
	})
	runtime.KeepAlive(url)
	runtime.KeepAlive(list)
	if err != nil {
		return err
	}
	switch Code(r) {
	case CodeOK:
		return nil
	case CodeWebhookRefused:
		rep := readReport(out)
		return &WebhookError{URL: url, Reason: rep.Reason, Detail: rep.Detail}
	}
	return trustErr("CheckWebhookURL", r, out)
}

// WebhookHTTPClient is an *http.Client for the sending side of push notifications that
// holds every connection to CheckWebhookURL's rules at dial time: the address a host name
// resolved to is checked right before connecting, so a public name that resolves to a
// loopback, private, link-local, ... address (DNS rebinding) is never reached. Redirects
// are returned, not followed; no proxy is used (a proxy would hide the address); timeout
// bounds each request (0: none). A refused connection's error wraps a *WebhookError.
// Check the URL itself first with CheckWebhookURL (scheme, userinfo, literal hosts).
func WebhookHTTPClient(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &WebhookError{URL: address, Reason: "invalid", Detail: err.Error()}
		}
		// The address as a URL host: the same classes as for resolved addresses.
		return CheckWebhookURL("https://"+netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String()+"/", true)
	}}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         dialer.DialContext,
			ForceAttemptHTTP2:   true,
			TLSHandshakeTimeout: 10 * time.Second,
			IdleConnTimeout:     30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
