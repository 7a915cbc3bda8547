package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

type sseFixture struct {
	Cases []struct {
		Name        string          `json:"name"`
		Source      string          `json:"source"`
		Input       *string         `json:"input"`
		InputBase64 *string         `json:"input_base64"`
		Options     map[string]any  `json:"options"`
		Events      []fixtureEvent  `json:"events"`
		Comments    int             `json:"comments"`
		Retries     []json.Number   `json:"retries"`
		Errors      []string        `json:"errors"`
		Finish      json.RawMessage `json:"finish"`
		LastEventID *string         `json:"last_event_id"`
	} `json:"cases"`
}

type fixtureEvent struct {
	Type string `json:"type"`
	Data string `json:"data"`
	ID   string `json:"id"`
}

// sseResult is what one run observed, in the fixture's shape.
type sseResult struct {
	Events   []fixtureEvent
	Comments int
	Retries  []string
	Errors   []string
	Finish   any
	LastID   string
}

func runSSE(t *testing.T, input []byte, cfg DecoderConfig, cuts []int) sseResult {
	t.Helper()
	d, err := NewDecoder(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	res := sseResult{Events: []fixtureEvent{}, Retries: []string{}, Errors: []string{}}
	prev := 0
	for _, c := range append(cuts, len(input)) {
		// Feed a fresh copy that is overwritten right after the call: the decoder must
		// not keep pointers into Go memory.
		chunk := bytes.Clone(input[prev:c])
		evs, err := d.FeedItems(chunk)
		for i := range chunk {
			chunk[i] = 0xAA
		}
		if err != nil {
			for _, e := range unjoin(err) {
				var le *LimitError
				if !errors.As(e, &le) {
					t.Fatalf("Feed: %v", err)
				}
				res.Errors = append(res.Errors, le.LimitName())
			}
		}
		for _, ev := range evs {
			switch ev.Kind {
			case KindEvent:
				res.Events = append(res.Events, fixtureEvent{lossy([]byte(ev.Type)), lossy(ev.Data), lossy([]byte(ev.ID))})
			case KindComment:
				res.Comments++
			case KindRetry:
				res.Retries = append(res.Retries, fmt.Sprint(ev.RetryMS))
			}
		}
		prev = c
	}
	fin, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f := map[string]any{"discarded": nil, "event": nil, "error": nil}
	if fin.Discarded != nil {
		f["discarded"] = map[string]any{"partial_line": json.Number(fmt.Sprint(fin.Discarded.PartialLine)),
			"event": fin.Discarded.Event, "id": fin.Discarded.ID}
	}
	if fin.Event != nil {
		f["event"] = map[string]any{"type": lossy([]byte(fin.Event.Type)), "data": lossy(fin.Event.Data), "id": lossy([]byte(fin.Event.ID))}
	}
	if fin.Err != nil {
		f["error"] = fin.Err.LimitName()
	}
	res.Finish = f
	res.LastID = lossy([]byte(d.LastEventID()))
	return res
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestSSEFixturesWholeSplitAtEveryByteAndBytewise(t *testing.T) {
	var fx sseFixture
	loadFixture(t, "sse.json", &fx)
	if len(fx.Cases) < 50 {
		t.Fatalf("sse.json lost cases: %d", len(fx.Cases))
	}
	runs := 0
	for _, c := range fx.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Source == "" {
				t.Fatal("case without source")
			}
			var input []byte
			switch {
			case c.Input != nil && c.InputBase64 == nil:
				input = []byte(*c.Input)
			case c.InputBase64 != nil && c.Input == nil:
				var err error
				if input, err = base64.StdEncoding.DecodeString(*c.InputBase64); err != nil {
					t.Fatal(err)
				}
			default:
				t.Fatal("exactly one of input, input_base64")
			}
			var cfg DecoderConfig
			if v, ok := c.Options["dispatch_at_eof"].(bool); ok {
				cfg.DispatchAtEOF = v
			}
			if v, ok := c.Options["max_line"].(json.Number); ok {
				n, _ := v.Int64()
				cfg.MaxLine = int(n)
			}
			if v, ok := c.Options["max_event"].(json.Number); ok {
				n, _ := v.Int64()
				cfg.MaxEvent = int(n)
			}
			var finish any
			if err := json.Unmarshal(c.Finish, &finish); err != nil {
				t.Fatal(err)
			}
			finish = renumber(finish)
			want := sseResult{Events: c.Events, Comments: c.Comments, Retries: []string{}, Errors: c.Errors, Finish: finish}
			if want.Events == nil {
				want.Events = []fixtureEvent{}
			}
			if want.Errors == nil {
				want.Errors = []string{}
			}
			for _, r := range c.Retries {
				want.Retries = append(want.Retries, r.String())
			}
			check := func(how string, got sseResult) {
				t.Helper()
				runs++
				if c.LastEventID != nil && got.LastID != *c.LastEventID {
					t.Errorf("%s: last_event_id %q, want %q", how, got.LastID, *c.LastEventID)
				}
				got.LastID = ""
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n got %+v\nwant %+v", how, got, want)
				}
			}
			check("whole", runSSE(t, input, cfg, nil))
			for i := 0; i <= len(input); i++ {
				check(fmt.Sprintf("split at %d", i), runSSE(t, input, cfg, []int{i}))
			}
			ones := make([]int, 0, len(input))
			for i := 1; i < len(input); i++ {
				ones = append(ones, i)
			}
			check("1-byte chunks", runSSE(t, input, cfg, ones))
		})
	}
	t.Logf("%d cases, %d decoder runs", len(fx.Cases), runs)
}

// renumber turns the float64 numbers of a generic JSON value into json.Number so that it
// compares with what runSSE builds.
func renumber(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = renumber(e)
		}
	case float64:
		return json.Number(fmt.Sprint(int64(x)))
	}
	return v
}

func TestDecoderCopiesAndLifetimes(t *testing.T) {
	d, err := NewDecoder(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	a, err := d.FeedItems([]byte("event: status\nid: 7\ndata: one\n\n: ping\nretry: 250\n"))
	if err != nil {
		t.Fatal(err)
	}
	// A second feed must not change what the first returned (everything was copied).
	b, err := d.Feed([]byte("data: two\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Kind: KindEvent, Type: "status", Data: []byte("one"), ID: "7"},
		{Kind: KindComment, Data: []byte(" ping")},
		{Kind: KindRetry, RetryMS: 250},
	}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("first feed %+v", a)
	}
	if len(b) != 1 || string(b[0].Data) != "two" || b[0].ID != "7" || b[0].Type != "message" {
		t.Fatalf("second feed %+v", b)
	}
	if ms, ok := d.Retry(); !ok || ms != 250 {
		t.Fatalf("Retry() = %d, %v", ms, ok)
	}
	if err := d.SetLastEventID("a\x00b"); !errors.Is(err, CodeSSEIDNul) {
		t.Fatalf("SetLastEventID with NUL: %v", err)
	}
	if err := d.SetLastEventID("42"); err != nil || d.LastEventID() != "42" {
		t.Fatalf("SetLastEventID: %v %q", err, d.LastEventID())
	}
	if _, err := d.Feed([]byte("data: half")); err != nil {
		t.Fatal(err)
	}
	if err := d.ResetForReconnect(); err != nil {
		t.Fatal(err)
	}
	fin, err := d.Finish()
	if err != nil || fin.Discarded != nil || fin.Event != nil {
		t.Fatalf("after reset: %+v %v", fin, err)
	}
	d.Close()
	d.Close()
	if _, err := d.Feed([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Feed after Close: %v", err)
	}
	if _, err := NewDecoder(&DecoderConfig{MaxLine: -1}); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("negative limit: %v", err)
	}
}

func TestLimitErrorKeepsDecoding(t *testing.T) {
	d, _ := NewDecoder(&DecoderConfig{MaxLine: 16})
	defer d.Close()
	evs, err := d.Feed([]byte("data: 0123456789abcdef\n\ndata: ok\n\n"))
	var le *LimitError
	if !errors.As(err, &le) || le.Code != CodeSSELineTooLong || le.Limit != 16 || !errors.Is(err, CodeSSELineTooLong) {
		t.Fatalf("err %v", err)
	}
	if len(evs) != 1 || string(evs[0].Data) != "ok" {
		t.Fatalf("events %+v", evs)
	}
}

func TestEncoderRoundTripsThroughDecoder(t *testing.T) {
	e, err := NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	id := "9"
	retry := uint64(1500)
	if err := e.Event(OutEvent{Data: []byte("line1\nline2"), Type: "status", ID: &id, Retry: &retry}); err != nil {
		t.Fatal(err)
	}
	if err := e.Comment("hello"); err != nil {
		t.Fatal(err)
	}
	if err := e.KeepAlive(); err != nil {
		t.Fatal(err)
	}
	bad := "x\ny"
	if err := e.Event(OutEvent{Data: []byte("d"), ID: &bad}); !errors.Is(err, CodeSSEIDLineBreak) {
		t.Fatalf("id with LF: %v", err)
	}
	if err := e.Event(OutEvent{Data: []byte("d"), Type: "a\rb"}); !errors.Is(err, CodeSSEEventTypeLineBreak) {
		t.Fatalf("type with CR: %v", err)
	}
	out := e.Bytes()
	d, _ := NewDecoder(nil)
	defer d.Close()
	evs, err := d.FeedItems(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Kind: KindRetry, RetryMS: 1500},
		{Kind: KindEvent, Type: "status", Data: []byte("line1\nline2"), ID: "9"},
		{Kind: KindComment, Data: []byte(" hello")},
		{Kind: KindComment, Data: []byte(" keep-alive")},
	}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("encoded %q decoded to %+v", out, evs)
	}
	if err := e.Clear(); err != nil || len(e.Bytes()) != 0 {
		t.Fatalf("Clear: %v %q", err, e.Bytes())
	}
}

// Feed returns events only, like the Python and Java bindings' feed: a keep-alive never
// reaches code that decodes every event's data as JSON; comments are counted, the retry
// value kept, and FeedItems has them all in order.
func TestFeedReturnsEventsOnly(t *testing.T) {
	input := []byte(": keep-alive\n\nretry: 300\ndata: {\"a\":1}\n\n: ping\n\ndata: {\"b\":2}\n\n:\n\n")
	d, err := NewDecoder(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var got []Event
	for i := range input { // one byte at a time: comments split across feeds too
		evs, err := d.Feed(input[i : i+1])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, evs...)
	}
	want := []Event{
		{Kind: KindEvent, Type: "message", Data: []byte(`{"a":1}`)},
		{Kind: KindEvent, Type: "message", Data: []byte(`{"b":2}`)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Feed gave %+v", got)
	}
	if d.Comments() != 3 {
		t.Fatalf("Comments() = %d, want 3", d.Comments())
	}
	if ms, ok := d.Retry(); !ok || ms != 300 {
		t.Fatalf("Retry() = %d, %v", ms, ok)
	}
	d2, _ := NewDecoder(nil)
	defer d2.Close()
	items, err := d2.FeedItems(input)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []EventKind
	for _, it := range items {
		kinds = append(kinds, it.Kind)
	}
	wantKinds := []EventKind{KindComment, KindRetry, KindEvent, KindComment, KindEvent, KindComment}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Fatalf("FeedItems kinds %v", kinds)
	}
}
