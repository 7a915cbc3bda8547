package a2a

import (
	"reflect"
	"testing"
)

// decodeAll feeds input split at the given cuts and returns every item and limit error
// name, then what Finish reported.
func decodeAll(t *testing.T, input []byte, cuts ...int) ([]Event, []string, FinishReport) {
	d, err := NewDecoder(&DecoderConfig{MaxLine: 64, MaxEvent: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var evs []Event
	var errs []string
	prev := 0
	for _, c := range append(cuts, len(input)) {
		got, err := d.Feed(input[prev:c])
		for _, e := range unjoin(err) {
			if le, ok := e.(*LimitError); ok {
				errs = append(errs, le.LimitName())
			} else if e != nil {
				t.Fatalf("Feed: %v", err)
			}
		}
		evs = append(evs, got...)
		prev = c
	}
	fin, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return evs, errs, fin
}

// FuzzDecoderSplit: any input gives the same items, limit errors and end report whether
// it is fed whole or split at any two points (go test runs the seeds; go test -fuzz
// explores).
func FuzzDecoderSplit(f *testing.F) {
	f.Add([]byte("data: a\r\n\r\n: ping\r\nid: 1\rdata: b\r\r"), 3, 9)
	f.Add([]byte("\xef\xbb\xbfevent: x\ndata: {\"a\":1}\n\nretry: 10\ndata: 01234567890123456789012345678901234567890123456789012345678901234567890\n\n"), 1, 40)
	f.Add([]byte("data: half"), 0, 5)
	f.Fuzz(func(t *testing.T, input []byte, a, b int) {
		if len(input) > 4096 {
			return
		}
		n := len(input) + 1
		a, b = ((a%n)+n)%n, ((b%n)+n)%n
		if a > b {
			a, b = b, a
		}
		e1, x1, f1 := decodeAll(t, input)
		e2, x2, f2 := decodeAll(t, input, a, b)
		if !reflect.DeepEqual(e1, e2) || !reflect.DeepEqual(x1, x2) || !reflect.DeepEqual(f1, f2) {
			t.Fatalf("split at %d,%d differs:\n%+v %v %+v\n%+v %v %+v", a, b, e1, x1, f1, e2, x2, f2)
		}
	})
}

// FuzzClassify: any status and body is a classification in exactly one known channel,
// never an error (a stream body cut before a terminal state is a transport outcome).
func FuzzClassify(f *testing.F) {
	f.Add(200, "application/json", []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x"}}`))
	f.Add(502, "text/html", []byte("<html>bad gateway</html>"))
	f.Add(200, "text/event-stream", []byte("data: {\"result\":{\"task\":{\"id\":\"t\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}}\n\n"))
	f.Add(200, "", []byte{0xff, 0xfe, 0})
	f.Fuzz(func(t *testing.T, status int, ct string, body []byte) {
		status = ((status % 600) + 600) % 600
		o, err := Classify(Response{Status: status, ContentType: toValidUTF8(ct), Body: body})
		if err != nil {
			t.Fatalf("status %d: %v", status, err)
		}
		defer o.Close()
		if o.Channel < ChannelTransport || o.Channel > ChannelMalformed || o.Channel.String() == "" {
			t.Fatalf("channel %d", o.Channel)
		}
		if o.Retry.String() == "" {
			t.Fatalf("advice %d", o.Retry)
		}
	})
}

func toValidUTF8(s string) string {
	return string([]rune(s))
}
