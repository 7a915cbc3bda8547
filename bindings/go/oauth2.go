package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// ClientCredentials configures the OAuth 2.0 client-credentials grant (RFC 6749 §4.4)
// an HTTPClient uses for its calls (WithOAuth2). Its String, GoString and LogValue never
// show the secret.
type ClientCredentials struct {
	// TokenURL is the token endpoint (https; "": the tokenUrl of the card's
	// clientCredentials flow).
	TokenURL string
	ClientID string
	// ClientSecret is sent only to the token endpoint, never logged or printed.
	ClientSecret string
	// Scope is the space-separated scopes to ask for ("": none).
	Scope string
	// BasicAuth sends the client id and secret as HTTP Basic (RFC 6749 §2.3.1's
	// default); false sends them in the form body.
	BasicAuth bool
	// RefreshEarly is how long before the token expires a new one is fetched (0: 30 s).
	RefreshEarly time.Duration
	// AllowHTTPLoopback allows a plain-http token URL on a loopback host (tests, local
	// development).
	AllowHTTPLoopback bool
}

// String describes the configuration with the secret redacted.
func (c ClientCredentials) String() string {
	sec := ""
	if c.ClientSecret != "" {
		sec = "<redacted>"
	}
	return fmt.Sprintf("ClientCredentials{TokenURL:%q ClientID:%q ClientSecret:%s Scope:%q BasicAuth:%t}",
		c.TokenURL, c.ClientID, sec, c.Scope, c.BasicAuth)
}

// GoString is String (the %#v form), the secret redacted.
func (c ClientCredentials) GoString() string { return "a2a." + c.String() }

// LogValue is the configuration for log/slog, the secret redacted.
func (c ClientCredentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("token_url", c.TokenURL), slog.String("client_id", c.ClientID),
		slog.String("scope", c.Scope), slog.Bool("basic_auth", c.BasicAuth))
}

// OAuth2Error is a token request that did not give a token: Reason is the core's kind
// ("refused": the endpoint's RFC 6749 §5.2 error, in ErrorCode; "status", "body",
// "no_access_token", "token_type", "expires_in", "transport"). errors.Is(err,
// a2a.CodeOAuth2Refused) holds; Unwrap also gives the transport error, when there was one.
type OAuth2Error struct {
	Reason    string
	ErrorCode string // "invalid_client", "invalid_scope", ... ("" when the endpoint sent none)
	Detail    string
	cause     error
}

// Error formats the reason, the endpoint's error code and the detail.
func (e *OAuth2Error) Error() string {
	s := "a2a: oauth2 token: " + e.Reason
	if e.ErrorCode != "" {
		s += " (" + e.ErrorCode + ")"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.cause != nil {
		s += ": " + e.cause.Error()
	}
	return s
}

// Unwrap returns CodeOAuth2Refused and the transport error, for errors.Is and errors.As.
func (e *OAuth2Error) Unwrap() []error {
	if e.cause != nil {
		return []error{CodeOAuth2Refused, e.cause}
	}
	return []error{CodeOAuth2Refused}
}

// WithOAuth2 makes every call of the client carry `Authorization: Bearer <token>` from
// the client-credentials grant cc: the token is fetched through the client's own
// *http.Client with the call's context, cached until shortly before it expires, fetched
// by one goroutine at a time while the others wait (single flight), sent only with the
// calls' requests (the interface the card resolution validated; never the card fetch,
// never the token endpoint), and when the agent answers 401 it is forgotten and the call
// is made once more with a fresh one. cc.TokenURL "" takes the token URL from the card's
// clientCredentials flow. A token that cannot be had fails the call with an
// *OAuth2Error, nothing sent to the agent.
func WithOAuth2(cc ClientCredentials) HTTPOption {
	return func(o *httpOptions) { o.oauth2 = &cc }
}

// oauth2Tokens is an HTTPClient's token source: the library's sans-IO tracker (one token,
// single flight) and the channel waiters block on while another goroutine fetches.
type oauth2Tokens struct {
	h       *C.a2a_oauth2
	http    *http.Client
	mu      sync.Mutex
	fetched chan struct{} // closed (and replaced) whenever a fetch ends
	fetches int           // token requests made (tests read it through TokenFetches)
}

func newOAuth2Tokens(cc *ClientCredentials, card *Card, hc *http.Client) (*oauth2Tokens, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	var cfg C.struct_a2a_oauth2_config
	cfg.token_url.ptr, cfg.token_url.len = pinText(&pin, cc.TokenURL)
	cfg.client_id.ptr, cfg.client_id.len = pinText(&pin, cc.ClientID)
	cfg.client_secret.ptr, cfg.client_secret.len = pinText(&pin, cc.ClientSecret)
	cfg.scope.ptr, cfg.scope.len = pinText(&pin, cc.Scope)
	cfg.basic_auth = C.bool(cc.BasicAuth)
	cfg.refresh_early_ms = C.uint64_t(cc.RefreshEarly / time.Millisecond)
	cfg.allow_http_loopback = C.bool(cc.AllowHTTPLoopback)
	if card != nil {
		cfg.card = card.h
	}
	var h *C.a2a_oauth2
	r := C.a2a_oauth2_new(&cfg, &h)
	runtime.KeepAlive(card)
	if r != C.A2A_OK {
		detail := "the token URL is missing (and the card names no clientCredentials flow), not https, or the client id is empty"
		return nil, &Error{Op: "WithOAuth2", Code: Code(r), Detail: detail}
	}
	return &oauth2Tokens{h: h, http: hc, fetched: make(chan struct{})}, nil
}

func (t *oauth2Tokens) free() {
	if t != nil && t.h != nil {
		C.a2a_oauth2_free(t.h)
		t.h = nil
	}
}

func wallMs() C.uint64_t { return C.uint64_t(time.Now().UnixMilli()) }

// token returns the access token to send, fetching one when the library says so.
func (t *oauth2Tokens) token(ctx context.Context) (string, error) {
	for {
		t.mu.Lock()
		wait := t.fetched // taken before asking: a fetch ending after the answer closes it
		t.mu.Unlock()
		var r C.a2a_result
		_, tok, err := trustCall("oauth2.token", func(b *C.a2a_buffer) C.a2a_result {
			r = C.a2a_oauth2_token(t.h, wallMs(), b)
			return r
		})
		if err != nil {
			return "", err
		}
		switch r {
		case C.A2A_OK:
			return string(tok), nil
		case C.A2A_NEED_MORE:
			if err := t.fetch(ctx); err != nil {
				return "", err
			}
		case C.A2A_IN_USE:
			select {
			case <-wait:
			case <-ctx.Done():
				return "", context.Cause(ctx)
			}
		default:
			return "", codeErr("oauth2.token", r)
		}
	}
}

// fetch performs the token request the library describes and hands the answer back
// (exactly once, also when the request failed).
func (t *oauth2Tokens) fetch(ctx context.Context) error {
	status, body, cause := t.exchange(ctx)
	bp, bn := cBytes(body)
	r, out, err := trustCall("oauth2.handle_response", func(b *C.a2a_buffer) C.a2a_result {
		return C.a2a_oauth2_handle_response(t.h, C.uint16_t(status), bp, bn, wallMs(), b)
	})
	runtime.KeepAlive(body)
	t.mu.Lock()
	t.fetches++
	close(t.fetched)
	t.fetched = make(chan struct{})
	t.mu.Unlock()
	if err != nil {
		return err
	}
	if r == C.A2A_OK {
		return nil
	}
	if Code(r) != CodeOAuth2Refused {
		return codeErr("oauth2.handle_response", r)
	}
	var rep struct {
		Reason string  `json:"reason"`
		Error  *string `json:"error"`
		Detail string  `json:"detail"`
	}
	_ = json.Unmarshal(out, &rep)
	e := &OAuth2Error{Reason: rep.Reason, Detail: rep.Detail, cause: cause}
	if rep.Error != nil {
		e.ErrorCode = *rep.Error
	}
	return e
}

// maxTokenBody bounds what is read of a token endpoint's answer.
const maxTokenBody = 64 << 10

// exchange posts the token request; status 0 with the error when it failed in transport.
func (t *oauth2Tokens) exchange(ctx context.Context) (int, []byte, error) {
	var url, form, authz []byte
	r := func() C.a2a_result {
		var bu, bf, ba *C.a2a_buffer
		for _, b := range []**C.a2a_buffer{&bu, &bf, &ba} {
			if r := C.a2a_buffer_new(b); r != C.A2A_OK {
				return r
			}
		}
		defer C.a2a_buffer_free(bu)
		defer C.a2a_buffer_free(bf)
		defer C.a2a_buffer_free(ba)
		r := C.a2a_oauth2_request(t.h, bu, bf, ba)
		url, form, authz = goBytes(C.a2a_buffer_bytes(bu)), goBytes(C.a2a_buffer_bytes(bf)), goBytes(C.a2a_buffer_bytes(ba))
		return r
	}()
	if r != C.A2A_OK {
		return 0, nil, codeErr("oauth2.request", r)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, string(url), bytes.NewReader(form))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if len(authz) > 0 {
		req.Header.Set("Authorization", string(authz))
	}
	resp, err := t.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenBody))
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, body, nil
}

// invalidate forgets the token (the agent answered 401 with it).
func (t *oauth2Tokens) invalidate() { C.a2a_oauth2_invalidate(t.h) }

// TokenFetches is how many token requests the client's WithOAuth2 made (0 without it).
func (c *HTTPClient) TokenFetches() int {
	if c.oauth2 == nil {
		return 0
	}
	c.oauth2.mu.Lock()
	defer c.oauth2.mu.Unlock()
	return c.oauth2.fetches
}
