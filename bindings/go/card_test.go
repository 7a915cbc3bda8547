package a2a

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCardFixtures(t *testing.T) {
	var fx struct {
		Cases []struct {
			Name        string          `json:"name"`
			Source      string          `json:"source"`
			Card        json.RawMessage `json:"card"`
			CardURL     string          `json:"card_url"`
			Preferences struct {
				Versions []string `json:"versions"`
				Bindings []string `json:"bindings"`
				Order    string   `json:"order"`
			} `json:"preferences"`
			Policy struct {
				AllowHTTP      bool     `json:"allow_http"`
				AllowedOrigins []string `json:"allowed_origins"`
			} `json:"policy"`
			Expect struct {
				Error   *string `json:"error"`
				URL     string  `json:"url"`
				Version string  `json:"version"`
				Binding string  `json:"binding"`
				Tenant  *string `json:"tenant"`
				Origin  *string `json:"origin"`
			} `json:"expect"`
			Credentials *[][]string `json:"credentials"`
		} `json:"cases"`
		Locations []struct {
			Input    string  `json:"input"`
			Source   string  `json:"source"`
			Primary  string  `json:"primary"`
			Fallback *string `json:"fallback"`
			Error    *string `json:"error"`
		} `json:"locations"`
	}
	loadFixture(t, "cards.json", &fx)
	if len(fx.Cases) < 40 || len(fx.Locations) < 10 {
		t.Fatalf("cards.json lost cases: %d, %d", len(fx.Cases), len(fx.Locations))
	}
	credentialCases := 0
	for _, c := range fx.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Source == "" {
				t.Fatal("no source")
			}
			card, err := ParseCard(c.Card)
			if err != nil {
				t.Fatal(err)
			}
			defer card.Close()
			if c.Credentials != nil {
				credentialCases++
				checkCredentials(t, card, *c.Credentials)
			}
			var prefs CardPreferences
			for _, v := range c.Preferences.Versions {
				pv, err := ParseProtocolVersion(v)
				if err != nil {
					t.Fatal(err)
				}
				prefs.Versions = append(prefs.Versions, pv)
			}
			for _, b := range c.Preferences.Bindings {
				pb, err := ParseBinding(b)
				if err != nil {
					t.Fatal(err)
				}
				prefs.Bindings = append(prefs.Bindings, pb)
			}
			switch c.Preferences.Order {
			case "client":
				prefs.Order = ClientFirst
			case "card":
				prefs.Order = CardFirst
			default:
				t.Fatalf("order %q", c.Preferences.Order)
			}
			policy := CardPolicy{AllowHTTP: c.Policy.AllowHTTP, AllowedOrigins: c.Policy.AllowedOrigins}
			got, err := card.Resolve(c.CardURL, &prefs, &policy)
			if c.Expect.Error != nil {
				if err == nil {
					t.Fatalf("resolved %+v, want error %s", got, *c.Expect.Error)
				}
				if k := CardErrorKind(err); k != *c.Expect.Error {
					t.Fatalf("error kind %q (%v), want %q", k, err, *c.Expect.Error)
				}
				if !strings.Contains(err.Error(), "(") {
					t.Errorf("error without detail: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v, want %s", err, c.Expect.URL)
			}
			if got.URL != c.Expect.URL || got.Version.String() != c.Expect.Version || got.Binding.String() != c.Expect.Binding {
				t.Errorf("got %s %s %s, want %s %s %s", got.URL, got.Version, got.Binding, c.Expect.URL, c.Expect.Version, c.Expect.Binding)
			}
			if (got.Tenant == nil) != (c.Expect.Tenant == nil) || got.Tenant != nil && *got.Tenant != *c.Expect.Tenant {
				t.Errorf("tenant %v, want %v", got.Tenant, c.Expect.Tenant)
			}
			if c.Expect.Origin != nil && got.Origin() != *c.Expect.Origin {
				t.Errorf("origin %q, want %q", got.Origin(), *c.Expect.Origin)
			}
			if got.Explain == "" {
				t.Error("no explanation")
			}
			info, err := card.Info()
			if err != nil || got.Index >= len(info.Interfaces) || info.Interfaces[got.Index].URL != got.URL {
				t.Errorf("choice index %d not the chosen interface in %+v (%v)", got.Index, info.Interfaces, err)
			}
		})
	}
	if credentialCases < 4 {
		t.Errorf("only %d cases with a credentials column", credentialCases)
	}
	for _, l := range fx.Locations {
		if l.Source == "" {
			t.Errorf("%s: no source", l.Input)
		}
		primary, fallback, err := CardLocation(l.Input)
		if l.Error != nil {
			if k := CardErrorKind(err); k != *l.Error {
				t.Errorf("%s: %q %q %v, want error %s", l.Input, primary, fallback, err, *l.Error)
			}
			continue
		}
		want := ""
		if l.Fallback != nil {
			want = *l.Fallback
		}
		if err != nil || primary != l.Primary || fallback != want {
			t.Errorf("%s: %q %q %v, want %q %q", l.Input, primary, fallback, err, l.Primary, want)
		}
	}
}

func TestCardParseErrorsAndValidation(t *testing.T) {
	if _, err := ParseCard([]byte("{")); !errors.Is(err, CodeCardJSON) || !strings.Contains(err.Error(), "line") {
		t.Errorf("truncated JSON: %v", err)
	}
	if _, err := ParseCard([]byte("[]")); !errors.Is(err, CodeCardNotAnObject) {
		t.Errorf("array: %v", err)
	}
	if same, err := ValidateInterfaceURL("https://agent.example.com/a2a", "https://agent.example.com/.well-known/agent-card.json", nil); err != nil || !same {
		t.Errorf("same origin: %v %v", same, err)
	}
	if _, err := ValidateInterfaceURL("https://evil.example.org/a2a", "https://agent.example.com/.well-known/agent-card.json", nil); CardErrorKind(err) != "host_mismatch" {
		t.Errorf("other host: %v", err)
	}
	if same, err := ValidateInterfaceURL("https://api.example.net/a2a", "https://agent.example.com/card", &CardPolicy{AllowedOrigins: []string{"https://api.example.net"}}); err != nil || same {
		t.Errorf("allow-listed origin: %v %v", same, err)
	}
	if _, err := ValidateInterfaceURL("http://agent.example.com/a2a", "http://agent.example.com/card", nil); CardErrorKind(err) != "plain_http" {
		t.Errorf("plain http: %v", err)
	}
	card, err := ParseCard([]byte(`{"name":"n","description":"d","version":"1","url":"https://a.example/rpc","preferredTransport":"JSONRPC","protocolVersion":"0.3.0","capabilities":{"streaming":true},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer card.Close()
	info, err := card.Info()
	if err != nil || info.Name != "n" || !info.Streaming || info.Shape != CardV0_3 || len(info.Interfaces) != 1 ||
		info.Interfaces[0].WireVersion != V0_3 || info.Interfaces[0].KnownBinding != JSON_RPC {
		t.Fatalf("info %+v %v", info, err)
	}
	if _, err := card.Select(&CardPreferences{Versions: []ProtocolVersion{V1_0}}); !errors.Is(err, CodeCardNoUsableInterface) {
		t.Errorf("1.0 only from a 0.3 card: %v", err)
	}
	if ch, err := card.Select(nil); err != nil || ch.URL != "https://a.example/rpc" || ch.Origin() != "url/preferredTransport" {
		t.Errorf("default select: %+v %v", ch, err)
	}
	card.Close()
	if _, err := card.Info(); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// checkCredentials compares a card's plan with the fixture's words and checks that each
// need says which header (if any) it travels in.
func checkCredentials(t *testing.T, card *Card, want [][]string) {
	t.Helper()
	plan, err := card.Credentials()
	if err != nil {
		t.Fatal(err)
	}
	got := [][]string{}
	for _, alt := range plan.Alternatives {
		words := []string{}
		for _, n := range alt {
			words = append(words, n.Word())
			if n.Scheme == "" {
				t.Errorf("need %+v without a scheme name", n)
			}
			wantHeader := ""
			switch n.Kind {
			case CredentialBearer, CredentialBasic, CredentialOtherHTTP:
				wantHeader = "Authorization"
			case CredentialAPIKey:
				if n.APIKeyLocation == APIKeyHeader {
					wantHeader = n.APIKeyName
				}
			}
			if n.HeaderName != wantHeader {
				t.Errorf("%s: header %q, want %q", n.Word(), n.HeaderName, wantHeader)
			}
		}
		got = append(got, words)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("credentials %q, want %q", got, want)
	}
}

func TestCardCredentialDetails(t *testing.T) {
	card, err := ParseCard([]byte(`{"url":"https://h/a2a",
		"securitySchemes":{
			"oauth":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://h/t","scopes":{}}}},
			"jwt":{"type":"http","scheme":"Bearer","bearerFormat":"JWT"},
			"q":{"type":"apiKey","in":"query","name":"key"},
			"sig":{"type":"http","scheme":"HOBA"}},
		"security":[{"oauth":["read","write"]},{"jwt":[],"q":[]},{"sig":[]},{"nope":[]},{}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer card.Close()
	plan, err := card.Credentials()
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Stated || len(plan.Alternatives) != 5 {
		t.Fatalf("plan %+v", plan)
	}
	alts := plan.Alternatives
	oauth := alts[0][0]
	if len(alts[0]) != 1 || oauth.Kind != CredentialBearer || oauth.BearerSource != BearerOAuth2 ||
		!reflect.DeepEqual(oauth.Scopes, []string{"read", "write"}) || oauth.Scheme != "oauth" {
		t.Errorf("oauth %+v", alts[0])
	}
	if len(alts[1]) != 2 {
		t.Fatalf("jwt+q %+v", alts[1])
	}
	jwt, q := alts[1][0], alts[1][1]
	if jwt.BearerSource != BearerHTTP || jwt.BearerFormat != "JWT" || jwt.HeaderName != "Authorization" || jwt.Scopes != nil {
		t.Errorf("jwt %+v", jwt)
	}
	if q.Word() != "api_key:query:key" || q.HeaderName != "" || q.APIKeyLocation.String() != "query" {
		t.Errorf("q %+v", q)
	}
	if w := alts[2][0].Word(); w != "other_http:HOBA" {
		t.Errorf("other http %q", w)
	}
	if n := alts[3][0]; n.Kind != CredentialUnknown || n.Word() != "unknown" || n.Scheme != "nope" || n.HeaderName != "" {
		t.Errorf("undeclared scheme %+v", n)
	}
	if len(alts[4]) != 0 {
		t.Errorf("anonymous alternative %+v", alts[4])
	}

	// Schemes without a requirement: each offered alone, not stated.
	card2, err := ParseCard([]byte(`{"url":"https://h/","securitySchemes":{"b":{"type":"http","scheme":"Basic"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer card2.Close()
	if plan, err := card2.Credentials(); err != nil || plan.Stated || len(plan.Alternatives) != 1 ||
		len(plan.Alternatives[0]) != 1 || plan.Alternatives[0][0].Word() != "basic" {
		t.Errorf("unstated plan %+v (%v)", plan, err)
	}
	// No schemes: nothing needed.
	card3, err := ParseCard([]byte(`{"url":"https://h/"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer card3.Close()
	if plan, err := card3.Credentials(); err != nil || plan.Alternatives != nil {
		t.Errorf("plan of a card without schemes %+v (%v)", plan, err)
	}
	card3.Close()
	if _, err := card3.Credentials(); !errors.Is(err, ErrClosed) {
		t.Errorf("closed card: %v", err)
	}
}
