package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type outcomeRow struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Input  struct {
		Transport *struct {
			Error       string `json:"error"`
			RequestSent string `json:"request_sent"`
			Message     string `json:"message"`
		} `json:"transport"`
		Status      int               `json:"status"`
		ContentType *string           `json:"content_type"`
		Version     *string           `json:"version"`
		Binding     *string           `json:"binding"`
		Method      *string           `json:"method"`
		RequestID   *string           `json:"request_id"`
		Headers     map[string]string `json:"headers"`
		Body        *string           `json:"body"`
		BodyBase64  *string           `json:"body_base64"`
		BodyRepeat  *struct {
			Head  string `json:"head"`
			Fill  string `json:"fill"`
			Count int    `json:"count"`
			Tail  string `json:"tail"`
		} `json:"body_repeat"`
		NowUnixSeconds *int64 `json:"now_unix_seconds"`
	} `json:"input"`
	// RetryAfterSecs is the optional retry_after_secs column: absent (not checked), null
	// (no readable Retry-After) or seconds.
	RetryAfterSecs  json.RawMessage `json:"retry_after_secs"`
	Expect          map[string]any  `json:"expect"`
	HintContains    []string        `json:"hint_contains"`
	MessageContains *string         `json:"message_contains"`
	ExitCode        *int            `json:"exit_code"`
	ModelPrefix     *string         `json:"model_prefix"`
	Breaker         bool            `json:"breaker"`
}

func loadOutcomeRows(t *testing.T) []outcomeRow {
	var table struct {
		Rows []outcomeRow `json:"rows"`
	}
	loadFixture(t, "outcomes.json", &table)
	if len(table.Rows) < 150 {
		t.Fatalf("outcomes.json shrank to %d rows", len(table.Rows))
	}
	return table.Rows
}

// outcomeOfRow runs one row's input through Classify or NewTransportOutcome.
func outcomeOfRow(t *testing.T, row outcomeRow) *Outcome {
	t.Helper()
	in := row.Input
	if tr := in.Transport; tr != nil {
		name, err := ParseErrorName(tr.Error)
		if err != nil {
			t.Fatal(err)
		}
		sent := map[string]RequestSent{"no": RequestSentNo, "unknown": RequestSentUnknown}[tr.RequestSent]
		o, err := NewTransportOutcome(name, sent, tr.Message)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	r := Response{Status: in.Status}
	switch {
	case in.Body != nil:
		r.Body = []byte(*in.Body)
	case in.BodyBase64 != nil:
		var err error
		if r.Body, err = base64.StdEncoding.DecodeString(*in.BodyBase64); err != nil {
			t.Fatal(err)
		}
	case in.BodyRepeat != nil:
		rep := in.BodyRepeat
		r.Body = []byte(rep.Head + strings.Repeat(rep.Fill, rep.Count) + rep.Tail)
	default:
		t.Fatal("row without body")
	}
	if in.NowUnixSeconds != nil {
		r.Now = time.Unix(*in.NowUnixSeconds, 0)
	}
	if in.ContentType != nil {
		r.ContentType = *in.ContentType
	}
	for k, v := range in.Headers {
		if strings.EqualFold(k, "Retry-After") {
			r.RetryAfter = v
		}
	}
	if in.Version != nil {
		v, err := ParseProtocolVersion(*in.Version)
		if err != nil {
			t.Fatal(err)
		}
		r.Asked.Version = v
	}
	if in.Binding != nil {
		b, err := ParseBinding(*in.Binding)
		if err != nil {
			t.Fatal(err)
		}
		r.Asked.Binding = b
	}
	if in.Method != nil {
		r.Asked.Method = *in.Method
	}
	if in.RequestID != nil {
		r.Asked.RequestID = *in.RequestID
	}
	o, err := Classify(r)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func asGeneric(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOutcomeTable(t *testing.T) {
	rows := loadOutcomeRows(t)
	seen := map[string]bool{}
	checked := 0
	for _, row := range rows {
		t.Run(row.ID, func(t *testing.T) {
			if seen[row.ID] {
				t.Fatal("duplicate id")
			}
			seen[row.ID] = true
			if row.Source == "" {
				t.Fatal("row without source")
			}
			o := outcomeOfRow(t, row)
			defer o.Close()
			got := asGeneric(t, o)
			for k, want := range row.Expect {
				g, ok := got[k]
				if !ok {
					t.Errorf("key %s missing from the Go outcome", k)
					continue
				}
				if !reflect.DeepEqual(g, want) {
					t.Errorf("%s: got %#v, want %#v", k, g, want)
				}
				checked++
			}
			for _, p := range row.HintContains {
				if o.Hint == nil || !strings.Contains(*o.Hint, p) {
					t.Errorf("hint %v lacks %q", o.Hint, p)
				}
			}
			if p := row.MessageContains; p != nil {
				if o.Message == nil || !strings.Contains(*o.Message, *p) {
					t.Errorf("message %v lacks %q", o.Message, *p)
				}
			}
			if len(row.RetryAfterSecs) > 0 {
				var want *int64
				if err := json.Unmarshal(row.RetryAfterSecs, &want); err != nil {
					t.Fatal(err)
				}
				switch {
				case want == nil && o.RetryAfter != nil:
					t.Errorf("RetryAfter %v, want none", *o.RetryAfter)
				case want != nil && (o.RetryAfter == nil || *o.RetryAfter != time.Duration(*want)*time.Second):
					t.Errorf("RetryAfter %v, want %ds", o.RetryAfter, *want)
				}
			} else if r := row.Input.Headers["Retry-After"]; r != "" {
				if d, ok := ParseRetryAfter(r); !ok || o.RetryAfter == nil || *o.RetryAfter != d {
					t.Errorf("RetryAfter %v, header %q", o.RetryAfter, r)
				}
			}
			// The resilience columns of the table, through the C ABI.
			wantPrefix := ""
			if row.ModelPrefix != nil {
				wantPrefix = *row.ModelPrefix
			}
			if got := o.ModelPrefix(); got != wantPrefix {
				t.Errorf("model_prefix %q, want %q", got, wantPrefix)
			}
			line, hasLine, err := ModelText("planner", o)
			if err != nil {
				t.Fatal(err)
			}
			if hasLine != (wantPrefix != "") || hasLine && !strings.HasPrefix(line, wantPrefix+" planner: ") {
				t.Errorf("model text %q (%v) for prefix %q", line, hasLine, wantPrefix)
			}
			if counts, err := o.CountsTowardBreaker(); err != nil || counts != row.Breaker {
				t.Errorf("breaker %v (%v), want %v", counts, err, row.Breaker)
			}
			if row.ExitCode == nil {
				t.Error("row without exit_code")
			} else if o.ExitCode != *row.ExitCode {
				t.Errorf("exit_code %d, want %d", o.ExitCode, *row.ExitCode)
			}
			// A success needs no action; interrupted states need none either but are no
			// success.
			if o.Success && o.Retry != RetryNone {
				t.Errorf("Success with advice %v", o.Retry)
			}
			if o.Success != (o.Channel == ChannelMessage || o.State != nil && *o.State == StateCompleted) {
				t.Errorf("Success %v for channel %v state %v", o.Success, o.Channel, o.State)
			}
		})
	}
	t.Logf("%d rows, %d expected keys compared", len(rows), checked)
}

func TestClassifyArgumentErrors(t *testing.T) {
	if _, err := Classify(Response{Status: 200, Asked: Asked{Method: "\xff"}}); !errors.Is(err, CodeInvalidUTF8) {
		t.Fatalf("method not UTF-8: %v", err)
	}
	if _, err := Classify(Response{Status: 200, Asked: Asked{Version: 77}}); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("version 77: %v", err)
	}
	if _, err := Classify(Response{Status: 70000}); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("status 70000: %v", err)
	}
	if _, err := NewTransportOutcome(NameTaskNotFound, RequestSentNo, ""); !errors.Is(err, CodeInvalidArgument) {
		t.Fatalf("protocol name as transport: %v", err)
	}
	// Any body bytes are a classification, never an error or a crash.
	for _, body := range [][]byte{nil, {0xff, 0}, []byte("{"), bytes.Repeat([]byte("["), 100000)} {
		o, err := Classify(Response{Status: 200, ContentType: "application/json", Body: body})
		if err != nil {
			t.Fatalf("body %q: %v", body[:min(len(body), 8)], err)
		}
		if o.Channel != ChannelMalformed {
			t.Errorf("body %q: channel %v", body[:min(len(body), 8)], o.Channel)
		}
		o.Close()
	}
}

func TestOutcomeCloseKeepsFieldsAndSharesHandle(t *testing.T) {
	o, err := Classify(Response{Status: 503, RetryAfter: "7", Body: nil})
	if err != nil {
		t.Fatal(err)
	}
	cp := *o
	if err := cp.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.handle(); !errors.Is(err, ErrClosed) {
		t.Fatal("closing a copy must close the shared handle")
	}
	o.Close() // harmless twice
	if o.Channel != ChannelHTTP || o.Error != NameUnavailable || o.Retry != RetryBackoff ||
		*o.HTTPStatus != 503 || o.RetryAfter == nil || o.RetryAfter.Seconds() != 7 {
		t.Fatalf("fields after Close: %+v", o)
	}
}

func TestVocabularyRoundTrips(t *testing.T) {
	for _, s := range []TaskState{StateUnknown, StateSubmitted, StateWorking, StateCompleted, StateFailed,
		StateCanceled, StateInputRequired, StateRejected, StateAuthRequired} {
		back, err := ParseTaskState(s.String())
		if err != nil || back != s {
			t.Errorf("state %v -> %v %v", s, back, err)
		}
	}
	if st, _ := ParseTaskState("TASK_STATE_CANCELLED"); st != StateCanceled || !st.IsTerminal() || st.IsInterrupted() {
		t.Errorf("TASK_STATE_CANCELLED: %v", st)
	}
	if !StateAuthRequired.IsInterrupted() || StateWorking.IsTerminal() {
		t.Error("interrupted/terminal")
	}
	for n := ErrorName(1); n < 300; n++ {
		if s := n.String(); s != "" {
			if back, err := ParseErrorName(s); err != nil || back != n {
				t.Errorf("error name %d %q -> %v %v", n, s, back, err)
			}
		}
	}
	if ErrorNameOfCode(-32001) != NameTaskNotFound || ErrorNameOfCode(1) != NameOther {
		t.Error("ErrorNameOfCode")
	}
	if _, err := ParseErrorName("taskNotFound"); !errors.Is(err, CodeInvalidArgument) {
		t.Error("ParseErrorName is case-sensitive")
	}
	if v, err := ParseProtocolVersion(" 1.2 "); err != nil || v != V1_0 || v.String() != "1.0" || v.HeaderValue() != "1.0" {
		t.Errorf("1.2: %v %v", v, err)
	}
	if _, err := ParseProtocolVersion("2.0"); !errors.Is(err, CodeVersionUnsupported) {
		t.Errorf("2.0: %v", err)
	}
	if _, err := ParseProtocolVersion("x"); !errors.Is(err, CodeVersionMalformed) {
		t.Errorf("x: %v", err)
	}
	if v, err := ProtocolVersionFromHeader(""); err != nil || v != V0_3 || V0_3.HeaderValue() != "" {
		t.Errorf("absent header: %v %v", v, err)
	}
	if ma, mi, err := ParseVersionNumber("3.14.1"); err != nil || ma != 3 || mi != 14 {
		t.Errorf("3.14.1: %d %d %v", ma, mi, err)
	}
	if b, err := ParseBinding("rest"); err != nil || b != HTTP_JSON || b.String() != "HTTP+JSON" {
		t.Errorf("rest: %v %v", b, err)
	}
	if _, err := ParseBinding("GRPC"); !errors.Is(err, CodeBindingUnknown) {
		t.Errorf("GRPC: %v", err)
	}
	if ChannelTask.String() != "task" || RetryUnknownOutcome.String() != "unknown_outcome" ||
		RequestSentNo.String() != "no" || Channel(0).String() != "" {
		t.Error("names")
	}
	if CodeOK.Error() != "ok" || LibraryVersion() != HeaderVersion {
		t.Errorf("describe %q, library %q header %q", CodeOK.Error(), LibraryVersion(), HeaderVersion)
	}
}
