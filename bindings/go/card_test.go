package a2a

import (
	"encoding/json"
	"errors"
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
	if err != nil || info.Name != "n" || !info.Streaming || info.Shape != CardV03 || len(info.Interfaces) != 1 ||
		info.Interfaces[0].WireVersion != V03 || info.Interfaces[0].KnownBinding != JSONRPC {
		t.Fatalf("info %+v %v", info, err)
	}
	if _, err := card.Select(&CardPreferences{Versions: []ProtocolVersion{V10}}); !errors.Is(err, CodeCardNoUsableInterface) {
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
