package a2a

import (
	"errors"
	"strings"
	"testing"
)

func TestTally(t *testing.T) {
	tally, err := NewTally()
	if err != nil {
		t.Fatal(err)
	}
	defer tally.Close()
	if err := tally.Add("plan\"ner", "message/send", ChannelProtocol, "TaskNotFound", 3); err != nil {
		t.Fatal(err)
	}
	if err := tally.Add("x", "y", Channel(42), "c", 1); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("bad channel: %v", err)
	}
	if n, err := tally.Count("plan\"ner", "message/send", ChannelProtocol, "TaskNotFound"); err != nil || n != 3 {
		t.Fatalf("count %d %v", n, err)
	}
	prom, err := tally.Prometheus()
	// Label values are escaped (Prometheus text format 0.0.4).
	if err != nil || !strings.Contains(prom, `agent="plan\"ner"`) || !strings.Contains(prom, "} 3\n") {
		t.Fatalf("exposition %q %v", prom, err)
	}
}
