package a2a

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Card verification in HTTPClient: the card the client resolves is trusted only when one
// of its signatures verifies (A2A 1.0 §8.4.3: clients SHOULD verify before trusting a
// card).

type cardVerification struct {
	keys       []byte
	jku        bool
	extraHosts []string
}

// WithCardVerification makes NewHTTPClient refuse a card none of whose signatures
// verifies with keys (a JWK Set, one JWK, or PEM public keys): the error is a
// *CardSignatureError (errors.As) and nothing is sent to the agent. With
// WithCardKeysFromJKU too, a card passes when either verifies it.
func WithCardVerification(keys []byte) HTTPOption {
	return func(o *httpOptions) {
		if o.verify == nil {
			o.verify = &cardVerification{}
		}
		o.verify.keys = keys
	}
}

// WithCardKeysFromJKU makes NewHTTPClient verify the card with the JWK Set its signature's
// jku names, fetched with the client's *http.Client and the constructor's context, once
// CardKeyURL allowed it (https only, the card's own host or one of extraHosts). A card
// without a jku, a refused jku, a key set that does not load or a card that does not
// verify is refused (a *CardSignatureError, or the fetch's error).
func WithCardKeysFromJKU(extraHosts ...string) HTTPOption {
	return func(o *httpOptions) {
		if o.verify == nil {
			o.verify = &cardVerification{}
		}
		o.verify.jku = true
		o.verify.extraHosts = extraHosts
	}
}

// CardSignature is the card signature that verified when the client was made with card
// verification (ok false without it).
func (c *HTTPClient) CardSignature() (sig VerifiedSignature, ok bool) {
	if c.cardSig == nil {
		return VerifiedSignature{}, false
	}
	return *c.cardSig, true
}

// maxKeySet bounds what is read of a jku's key set.
const maxKeySet = 1 << 20

func (v *cardVerification) check(ctx context.Context, hc *http.Client, card []byte, cardURL string) (VerifiedSignature, error) {
	var keysErr error
	if v.keys != nil {
		sig, err := VerifyCard(card, v.keys)
		if err == nil || !v.jku {
			return sig, err
		}
		keysErr = err
	}
	url, ok, err := CardKeyURL(card, cardURL, v.extraHosts...)
	if err != nil {
		return VerifiedSignature{}, err
	}
	if !ok {
		if keysErr != nil {
			return VerifiedSignature{}, keysErr
		}
		return VerifiedSignature{}, &CardSignatureError{Reason: "no_jku",
			Detail: "no signature of the card names a jku to fetch its keys from"}
	}
	keys, err := fetchKeySet(ctx, hc, url)
	if err != nil {
		return VerifiedSignature{}, err
	}
	return VerifyCard(card, keys)
}

// fetchKeySet GETs a JWK Set (200 only; redirects are not followed by the default client).
func fetchKeySet(ctx context.Context, hc *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("a2a: fetching the card's keys from %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("a2a: fetching the card's keys from %s: HTTP %d", url, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeySet+1))
	if err != nil {
		return nil, fmt.Errorf("a2a: fetching the card's keys from %s: %w", url, err)
	}
	if len(body) > maxKeySet {
		return nil, fmt.Errorf("a2a: the key set at %s is over %d bytes", url, maxKeySet)
	}
	return body, nil
}
