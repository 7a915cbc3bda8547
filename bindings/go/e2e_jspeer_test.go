package a2a

import (
	"os"
	"strings"
	"testing"
)

// The driver client against the JS @a2a-js/sdk 1.3.0 peer (LF line ends, no keep-alives,
// compact JSON): the same calls give the same outcomes as against the Python peer. Runs
// when launch.py started a JS peer (A2A_PEER_URL_JS); scripts/ci/50-go.sh starts both.
func TestE2EDriverClientJSPeer(t *testing.T) {
	base := strings.TrimRight(os.Getenv("A2A_PEER_URL_JS"), "/")
	if base == "" {
		if os.Getenv("CI") == "true" && os.Getenv("A2A_REQUIRE_JS_PEER") == "1" {
			t.Fatal("A2A_PEER_URL_JS is not set")
		}
		t.Skip("A2A_PEER_URL_JS not set (launch.py python,js -- go test ./...)")
	}
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	c, err := NewClient(base, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o, err := c.SendText("echo from go", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.Channel != ChannelTask || !o.Success || *o.State != StateCompleted {
		t.Fatalf("echo %+v", o)
	}
	f, _ := c.SendText("fail", nil)
	defer f.Close()
	if f.State == nil || *f.State != StateFailed || f.ErrorID == nil || !hex12.MatchString(*f.ErrorID) {
		t.Fatalf("fail %+v", f)
	}
	g, _ := c.GetTask("no-such-task", nil)
	defer g.Close()
	if g.Error != NameTaskNotFound || g.Retry != RetryNever {
		t.Fatalf("get %+v", g)
	}
	s, err := c.StreamText("stream 3", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var kinds []string
	for i := 0; i < 100; i++ {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == StreamEventItem {
			kinds = append(kinds, ev.Item.Kind.String())
		}
		if ev.Kind == StreamEventEnd {
			if ev.End != EndCompleted || !ev.Outcome.Success {
				t.Fatalf("end %+v %+v", ev, ev.Outcome)
			}
			break
		}
	}
	if strings.Join(kinds, " ") != "task status-update artifact-update artifact-update artifact-update status-update" {
		t.Fatalf("items %v", kinds)
	}
}
