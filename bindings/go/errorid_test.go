package a2a

import (
	"strings"
	"testing"
	"unsafe"
)

func TestErrorIDFixtures(t *testing.T) {
	var fx struct {
		Cases []struct {
			Text   string  `json:"text"`
			Expect *string `json:"expect"`
			Source string  `json:"source"`
		} `json:"cases"`
	}
	loadFixture(t, "error_ids.json", &fx)
	if len(fx.Cases) < 10 {
		t.Fatalf("error_ids.json lost cases: %d", len(fx.Cases))
	}
	for _, c := range fx.Cases {
		if c.Source == "" {
			t.Errorf("%q: no source", c.Text)
		}
		id, ok := ExtractErrorID(c.Text)
		switch {
		case c.Expect == nil && ok:
			t.Errorf("%q: found %q, want none", c.Text, id)
		case c.Expect != nil && (!ok || id != *c.Expect):
			t.Errorf("%q: got %q %v, want %q", c.Text, id, ok, *c.Expect)
		case ok && !isSubstringOf(id, c.Text):
			t.Errorf("%q: the id is not a view of the text", c.Text)
		}
	}
}

// isSubstringOf checks that s shares memory with text (ExtractErrorID copies nothing).
func isSubstringOf(s, text string) bool {
	b, e := uintptr(unsafe.Pointer(unsafe.StringData(text))), uintptr(len(text))
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return p >= b && p+uintptr(len(s)) <= b+e
}

func TestLeakedExceptionRetryAfterEventStream(t *testing.T) {
	class, msg, ok := LeakedException("Agent execution failed: java.lang.IllegalStateException: boom")
	if !ok || class != "java.lang.IllegalStateException" || msg != "boom" {
		t.Errorf("leaked: %q %q %v", class, msg, ok)
	}
	if _, _, ok := LeakedException("Agent execution failed. (error_id: 3f9c0a7b12de)"); ok {
		t.Error("no exception detail in the ADK text")
	}
	if d, ok := ParseRetryAfter("120"); !ok || d.Seconds() != 120 {
		t.Errorf("120: %v %v", d, ok)
	}
	if _, ok := ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"); ok {
		t.Error("an HTTP-date needs a clock")
	}
	if !IsEventStream("Text/Event-Stream; charset=utf-8") || IsEventStream("application/json") || IsEventStream("") {
		t.Error("IsEventStream")
	}
	if _, ok := ExtractErrorID(strings.Repeat("error_id=", 1000)); ok {
		t.Error("no id in repeated prefixes")
	}
}
