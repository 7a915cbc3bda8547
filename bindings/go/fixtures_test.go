package a2a

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fixturesDir is bindings/fixtures, the shared conformance cases (A2A_FIXTURES overrides).
func fixturesDir() string {
	if d := os.Getenv("A2A_FIXTURES"); d != "" {
		return d
	}
	return filepath.Join("..", "fixtures")
}

// loadFixture decodes one shared fixture file; a missing file fails the test.
func loadFixture(t *testing.T, name string, into any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixturesDir(), name))
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(into); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
}

// lossy decodes bytes as UTF-8 replacing each maximal invalid subpart with U+FFFD (the
// Unicode "substitution of maximal subparts" practice the fixtures are written with).
func lossy(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r != utf8.RuneError || size > 1 {
			sb.Write(b[:size])
			b = b[size:]
			continue
		}
		sb.WriteRune(utf8.RuneError)
		b = b[maximalSubpart(b):]
	}
	return sb.String()
}

func maximalSubpart(b []byte) int {
	c := b[0]
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(b); i++ {
		x := b[i]
		if i == 1 && (x < lo || x > hi) || i > 1 && (x < 0x80 || x > 0xBF) {
			break
		}
	}
	return i
}

func TestLossyMatchesTheFixtureConvention(t *testing.T) {
	for in, want := range map[string]string{
		"a\xe2\x82b\xffc": "a\uFFFDb\uFFFDc", // truncated sequence: one U+FFFD
		"\xff\xfe":        "\uFFFD\uFFFD",
		"\xed\xa0\x80":    "\uFFFD\uFFFD\uFFFD", // surrogate: E0-ED rule
		"h\u00e9":         "h\u00e9",
	} {
		if got := lossy([]byte(in)); got != want {
			t.Errorf("lossy(%q) = %q, want %q", in, got, want)
		}
	}
}
