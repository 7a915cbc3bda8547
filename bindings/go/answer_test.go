package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// answersDoc is bindings/fixtures/answers.json (numbers as float64, like Part.Data).
type answersDoc struct {
	Results    []answerCase `json:"results"`
	Unreadable []answerCase `json:"unreadable"`
	Streams    []answerCase `json:"streams"`
	Send       []struct {
		Name    string         `json:"name"`
		Message map[string]any `json:"message"`
	} `json:"send"`
	SendInvalid []struct {
		Name    string         `json:"name"`
		Message map[string]any `json:"message"`
	} `json:"send_invalid"`
}

type answerCase struct {
	Name     string          `json:"name"`
	Version  string          `json:"version"`
	Binding  string          `json:"binding"`
	Body     json.RawMessage `json:"body"`
	BodyText *string         `json:"body_text"`
	BodyB64  *string         `json:"body_b64"`
	Events   []string        `json:"events"`
	Expect   map[string]any  `json:"expect"`
	At       *string         `json:"at"`
	AtPrefix *string         `json:"at_prefix"`
}

func loadAnswers(t *testing.T) answersDoc {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixturesDir(), "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d answersDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func (c answerCase) vb() (ProtocolVersion, Binding) {
	v, b := V10, JSONRPC
	if c.Version == "0.3" {
		v = V03
	}
	if c.Binding != "jsonrpc" {
		b = HTTPJSON
	}
	return v, b
}

// checkParts compares typed parts with the canonical JSON ones: kinds, values, decoded
// bytes and their size, media type, name, metadata.
func checkParts(t *testing.T, name string, got []Part, want []any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d parts, want %d", name, len(got), len(want))
	}
	for i, w := range want {
		wm := w.(map[string]any)
		p := got[i]
		str := func(k string) string { s, _ := wm[k].(string); return s }
		if p.Kind != str("kind") || p.MediaType != str("media_type") || p.Name != str("name") {
			t.Errorf("%s part %d: %+v vs %v", name, i, p, wm)
		}
		md, _ := wm["metadata"].(map[string]any)
		if !reflect.DeepEqual(p.Metadata, md) {
			t.Errorf("%s part %d metadata: %v vs %v", name, i, p.Metadata, md)
		}
		switch p.Kind {
		case "text":
			if p.Text != str("text") {
				t.Errorf("%s part %d text %q", name, i, p.Text)
			}
		case "data":
			if !reflect.DeepEqual(p.Data, wm["data"]) {
				t.Errorf("%s part %d data %v vs %v", name, i, p.Data, wm["data"])
			}
		case "file":
			if b, ok := wm["bytes"].(string); ok {
				want, _ := base64.StdEncoding.DecodeString(b)
				if !bytes.Equal(p.Bytes, want) || float64(len(p.Bytes)) != wm["size"].(float64) {
					t.Errorf("%s part %d bytes %v", name, i, p.Bytes)
				}
			} else if p.URI != str("uri") || p.Bytes != nil {
				t.Errorf("%s part %d uri %q", name, i, p.URI)
			}
		}
	}
}

func checkAnswer(t *testing.T, name string, a *Answer, want map[string]any) {
	t.Helper()
	if a == nil || a.Kind != want["kind"] {
		t.Fatalf("%s: answer %+v, want kind %v", name, a, want["kind"])
	}
	if wt, _ := want["text"].(string); a.Text == nil || *a.Text != wt {
		t.Errorf("%s: text %v, want %q", name, a.Text, wt)
	}
	if a.Kind == "message" {
		if a.Message.MessageID != want["message_id"] || a.Message.Role != want["role"] {
			t.Errorf("%s: message %+v", name, a.Message)
		}
		checkParts(t, name, a.Message.Parts, want["parts"].([]any))
		if tx := a.Message.Text(); tx == nil || *tx != want["text"] {
			t.Errorf("%s: Message.Text %v", name, tx)
		}
		return
	}
	task := a.Task
	st := want["status"].(map[string]any)
	if task.ID != want["id"] || task.Status.State != st["state"] {
		t.Errorf("%s: task %+v", name, task)
	}
	if sm, ok := st["message"].(map[string]any); ok {
		if task.Status.Message == nil || task.Status.Message.MessageID != sm["message_id"] {
			t.Errorf("%s: status message %+v", name, task.Status.Message)
		}
	}
	arts := want["artifacts"].([]any)
	if len(task.Artifacts) != len(arts) {
		t.Fatalf("%s: %d artifacts, want %d", name, len(task.Artifacts), len(arts))
	}
	for i, w := range arts {
		wm := w.(map[string]any)
		if task.Artifacts[i].ArtifactID != wm["artifact_id"] {
			t.Errorf("%s: artifact %d id %q", name, i, task.Artifacts[i].ArtifactID)
		}
		checkParts(t, name, task.Artifacts[i].Parts, wm["parts"].([]any))
	}
}

func TestAnswersFixtureResults(t *testing.T) {
	d := loadAnswers(t)
	if len(d.Results) < 9 || len(d.Streams) < 4 {
		t.Fatalf("fixture too small: %d results, %d streams", len(d.Results), len(d.Streams))
	}
	for _, c := range d.Results {
		v, b := c.vb()
		a, err := ReadAnswer(c.Body, v, b, false)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		checkAnswer(t, c.Name, a, c.Expect)
	}
	for _, c := range d.Streams {
		v, b := c.vb()
		var body strings.Builder
		for _, e := range c.Events {
			body.WriteString("data: " + e + "\n\n")
		}
		a, err := ReadAnswer([]byte(body.String()), v, b, true)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		checkAnswer(t, c.Name, a, c.Expect)
	}
}

func TestAnswersFixtureUnreadable(t *testing.T) {
	for _, c := range loadAnswers(t).Unreadable {
		v, b := c.vb()
		var body []byte
		if c.BodyText != nil {
			body = []byte(*c.BodyText)
		} else {
			body, _ = base64.StdEncoding.DecodeString(*c.BodyB64)
		}
		a, err := ReadAnswer(body, v, b, false)
		if a != nil || !errors.Is(err, CodeAnswerUnreadable) {
			t.Fatalf("%s: %v, %v", c.Name, a, err)
		}
		where := c.At
		if where == nil {
			where = c.AtPrefix
		}
		if !strings.Contains(err.Error(), *where) {
			t.Errorf("%s: %v does not say %q", c.Name, err, *where)
		}
	}
}

func TestAnswersFixtureSend(t *testing.T) {
	d := loadAnswers(t)
	c, err := NewClientWithTarget("http://127.0.0.1:1/a2a", V10, JSONRPC, &ClientConfig{AllowHTTP: true, ConnectTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range d.Send {
		raw, _ := json.Marshal(s.Message["parts"])
		var parts []Part
		if err := json.Unmarshal(raw, &parts); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		md, _ := s.Message["metadata"].(map[string]any)
		// Typed parts write back as the same canonical message.
		msg, err := messageJSON(parts, md)
		if err != nil {
			t.Fatal(err)
		}
		var got, want any
		_ = json.Unmarshal([]byte(msg), &got)
		w, _ := json.Marshal(s.Message)
		_ = json.Unmarshal(w, &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s vs %s", s.Name, msg, w)
		}
		// Accepted by the library: the call goes out and fails in transport.
		o, err := c.SendMessage(parts, md, nil)
		if err != nil || o.Channel != ChannelTransport || o.Result != nil {
			t.Errorf("%s: %v %+v", s.Name, err, o)
		}
	}
	// A part of no known kind is refused before anything is sent. (The fixture's
	// send_invalid messages were raw canonical JSON for the typed client's reader, which
	// the Go API never hands the library now: parts go out as the machine's params.)
	if _, err := c.SendMessage([]Part{{Kind: "video"}}, nil, nil); !errors.Is(err, CodeAnswerMessage) {
		t.Errorf("unknown part kind: %v", err)
	}
	if _, err := c.SendMessage(nil, nil, nil); !errors.Is(err, ErrNothingToSend) {
		t.Errorf("no parts: %v", err)
	}
}

// perKindAnswer reads an answer the way Answer.UnmarshalJSON did before its one-pass
// form: the kind first, then the kind's own type.
func perKindAnswer(b []byte) (Answer, error) {
	var head struct {
		Kind string  `json:"kind"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Answer{}, err
	}
	a := Answer{Kind: head.Kind, Text: head.Text}
	var err error
	switch head.Kind {
	case "task":
		a.Task = new(Task)
		err = json.Unmarshal(b, a.Task)
	case "message":
		a.Message = new(Message)
		err = json.Unmarshal(b, a.Message)
	case "status-update", "artifact-update":
		a.Update = new(Update)
		err = json.Unmarshal(b, a.Update)
	default:
		err = fmt.Errorf("a2a: unknown answer kind %q", head.Kind)
	}
	return a, err
}

func TestAnswerUnmarshalInOnePassReadsWhatThePerKindReadDid(t *testing.T) {
	msg := `{"message_id":"m-1","role":"agent","context_id":"c-1","task_id":"t-1","parts":[{"kind":"text","text":"hi"},{"kind":"data","data":{"n":1}},{"kind":"file","bytes":"aGk=","media_type":"text/plain","name":"f"}],"metadata":{"k":"v"}}`
	docs := []string{
		`{"kind":"task","id":"t-1","context_id":"c-1","status":{"state":"completed","message":` + msg + `,"timestamp":"2026-01-01T00:00:00Z"},"artifacts":[{"artifact_id":"a-1","name":"n","description":"d","parts":[{"kind":"text","text":"out"},{"kind":"file","uri":"https://x/y"}],"metadata":{"a":1}}],"history":[` + msg + `],"metadata":{"m":true},"text":"out"}`,
		`{"kind":"task","id":"t-2","status":{"state":"working"}}`,
		`{"kind":"task","id":"t-3"}`,
		`{"kind":"message","text":"hi",` + msg[1:],
		`{"kind":"status-update","task_id":"t-1","context_id":"c-1","status":{"state":"working"},"final":true,"metadata":{"x":null}}`,
		`{"kind":"status-update","task_id":null,"status":null}`,
		`{"kind":"artifact-update","task_id":"t-1","artifact":{"artifact_id":"a-2","parts":[{"kind":"text","text":"chunk"}]},"append":true,"last_chunk":true,"text":"chunk"}`,
		// Errors: an unknown kind, a part that does not read, a field of the wrong type.
		`{"kind":"poem"}`,
		`{"kind":"task","id":"t-1","artifacts":[{"artifact_id":"a","parts":[{"kind":"file","bytes":"!!"}]}]}`,
		`{"kind":"message","message_id":"m","role":"agent","id":7}`,
		`{"kind":"task","id":7}`,
		`[]`,
	}
	for _, d := range docs {
		want, wantErr := perKindAnswer([]byte(d))
		var got Answer
		err := json.Unmarshal([]byte(d), &got)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%s: error %v, want %v", d, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", d, got, want)
		}
	}
}
