package a2a

import (
	"errors"
	"reflect"
	"testing"
)

func TestTraceparent(t *testing.T) {
	// W3C Trace Context §3.2 example value.
	const example = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tp, err := ParseTraceparent(" " + example + "\t")
	if err != nil {
		t.Fatal(err)
	}
	if tp.TraceID[0] != 0x4b || tp.ParentID[7] != 0xb7 || tp.Flags != 1 {
		t.Fatalf("parsed %+v", tp)
	}
	if s, err := tp.Format(); err != nil || s != example {
		t.Fatalf("format %q %v", s, err)
	}
	child, ok, err := tp.Child([8]byte{1, 2, 3, 4, 5, 6, 7, 8})
	if s, _ := child.Format(); err != nil || !ok || s != "00-4bf92f3577b34da6a3ce929d0e0e4736-0102030405060708-01" {
		t.Fatalf("child %q %v %v", s, ok, err)
	}
	if _, ok, _ := tp.Child([8]byte{}); ok {
		t.Fatal("an all-zero span id")
	}
	for _, bad := range []string{"", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"} {
		if _, err := ParseTraceparent(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	var random [24]byte
	for i := range random {
		random[i] = byte(i + 1)
	}
	fresh, ok, err := TraceparentFromRandom(random, true)
	if s, _ := fresh.Format(); err != nil || !ok || s != "00-0102030405060708090a0b0c0d0e0f10-1112131415161718-01" {
		t.Fatalf("from random %q %v %v", s, ok, err)
	}
	if _, ok, _ := TraceparentFromRandom([24]byte{}, false); ok {
		t.Fatal("all-zero random bytes")
	}
	a, _ := NewTrace(false)
	b, _ := NewTrace(false)
	if a == b || a.Flags != 0 {
		t.Fatalf("two fresh traces %+v %+v", a, b)
	}
	if _, err := (Traceparent{}).Format(); !errors.Is(err, Code(207)) {
		t.Fatalf("zero trace id: %v", err)
	}
}

func TestTallyEntries(t *testing.T) {
	tally, _ := NewTally()
	defer tally.Close()
	tally.Add("b", "GetTask", ChannelProtocol, "TaskNotFound", 2)
	tally.Add("a", "SendMessage", ChannelTask, "completed", 5)
	got, err := tally.Entries()
	want := []TallyEntry{{"a", "SendMessage", ChannelTask, "completed", 5}, {"b", "GetTask", ChannelProtocol, "TaskNotFound", 2}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("entries %+v %v", got, err)
	}
}
