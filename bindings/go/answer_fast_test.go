package a2a

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// canonicalAnswerTexts is every canonical answer text the library renders for
// bindings/fixtures/answers.json (each result body; each stream whole), and the fixture's
// expected answers as encoding/json writes them.
func canonicalAnswerTexts(t testing.TB) []string {
	t.Helper()
	d := loadAnswers(t.(*testing.T))
	var out []string
	for _, c := range d.Results {
		v, b := c.vb()
		text, err := readAnswerText(c.Body, v, b, false)
		if err != nil || text == nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		out = append(out, string(text))
		exp, _ := json.Marshal(c.Expect)
		out = append(out, string(exp))
	}
	for _, c := range d.Streams {
		v, b := c.vb()
		var body strings.Builder
		for _, e := range c.Events {
			body.WriteString("data: " + e + "\n\n")
		}
		text, err := readAnswerText([]byte(body.String()), v, b, true)
		if err != nil || text == nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		out = append(out, string(text))
		exp, _ := json.Marshal(c.Expect)
		out = append(out, string(exp))
	}
	return out
}

// fastMsg is a message in the canonical shape.
const fastMsg = `{"message_id":"m-1","role":"agent","context_id":"c-1","task_id":"t-1","parts":[{"kind":"text","text":"hi"},{"kind":"data","data":{"n":1}},{"kind":"file","bytes":"aGk=","media_type":"text/plain","name":"f","size":2}],"metadata":{"k":"v"},"kind":"message","text":"hi"}`

// edgeAnswerTexts are texts the fast reader must either read as encoding/json does or
// leave to it: escapes, surrogates, keys in another case, repeated keys, unknown keys,
// white space, numbers, nulls where lists or objects go, wrong types, bad input.
var edgeAnswerTexts = []string{
	`{"kind":"task","id":"t-1","context_id":"c-1","status":{"state":"completed","message":` + fastMsg + `,"timestamp":"2026-01-01T00:00:00Z"},"artifacts":[{"artifact_id":"a-1","name":"n","description":"d","parts":[{"kind":"text","text":"out"},{"kind":"file","uri":"https://x/y"}],"metadata":{"a":1}}],"history":[` + fastMsg + `],"metadata":{"m":true},"text":"out"}`,
	`{"kind":"task","id":"t-2","status":{"state":"working"}}`,
	`{"kind":"task","id":"t-3"}`,
	`{"kind":"message","text":"hi",` + fastMsg[1:],
	`{"kind":"status-update","task_id":"t-1","context_id":"c-1","status":{"state":"working"},"final":true,"metadata":{"x":null}}`,
	`{"kind":"status-update","task_id":null,"status":null}`,
	`{"kind":"artifact-update","task_id":"t-1","artifact":{"artifact_id":"a-2","parts":[{"kind":"text","text":"chunk"}]},"append":true,"last_chunk":true,"text":"chunk"}`,
	`{"kind":"artifact-update","artifact":null,"append":null,"final":false,"last_chunk":false}`,
	` { "kind" : "message" , "parts" : [ ] , "metadata" : { } , "role" : null } `,
	"\t{\"kind\":\"message\",\r\n\"parts\":null}\n",
	`{"kind":"message","text":"a\"b\\c\/d\b\f\n\r\t\u00e9\u20AC\ud83d\ude00 é €"}`,
	`{"kind":"message","parts":[{"kind":"text","text":"\ud83d"}]}`,
	`{"kind":"message","parts":[{"kind":"text","text":"\ude00x"}]}`,
	`{"kind":"message","parts":[{"kind":"text","text":"\ud83d\u0041"}]}`,
	`{"kind":"message","parts":[{"kind":"text","text":"\uZZZZ"}]}`,
	// Stops found eight bytes at a time: at each offset of a step, past the first step,
	// beside bytes from 0x80 (never stops), and keys that are no field names.
	`{"kind":"message","parts":[{"kind":"text","text":"0123456789abcdef\"quoted\" \\ tail 0123456789"}]}`,
	`{"kind":"message","parts":[{"kind":"text","text":"01234567\n"},{"kind":"text","text":"0123456\t"},{"kind":"text","text":"012345678\/"}]}`,
	`{"kind":"message","parts":[{"kind":"text","text":"0123456789` + "\x01" + `"}]}`,
	`{"kind":"message","parts":[{"kind":"text","text":"0123456` + "\x1f" + `"}]}`,
	`{"kind":"message","parts":[{"kind":"text","text":"ééééééé\"\u00e9 ÿ€ \ud83d\ude00"}],"role":"user"}`,
	`{"kind":"message","message_i\u0064":"m"}`,
	`{"kind":"message","context_id_is_long\"":"m"}`,
	`{"kind\"":"message"}`,
	`{"kind":"message","long_unknown_key_0123456789":{"k\u0069nd":"x","` + "\x01" + `":1}}`,
	`{"kind":"message","meta` + "\x01" + `data":{}}`,
	`{"kind":"message","metadata":{"0123456789abcdefgh\"":"0123456789abcdefgh\\"}}`,
	`{"kind":"message","parts":[{"kind":"text","text":"\x"}]}`,
	`{"Kind":"message","ROLE":"agent"}`,
	`{"kind":"message","k\u0069nd":"task"}`,
	`{"kind":"message","kind":"task"}`,
	`{"kind":"message","metadata":{"a":1},"metadata":{"b":2}}`,
	`{"kind":"message","metadata":{"a":1,"a":2,"\u0062":[1,[2,{}]],"c":[]}}`,
	`{"kind":"task","id":"t","unknown":{"deep":[1,2,{"x":null}]},"size":3}`,
	`{"kind":"message","parts":[{"kind":"data","data":[1,-0,0.5,1e3,1E-2,-12.5e+2,123456789012345678901234567890]}]}`,
	`{"kind":"message","parts":[{"kind":"data","data":1e400}]}`,
	`{"kind":"message","parts":[{"kind":"data","data":01}]}`,
	`{"kind":"message","parts":[{"kind":"data","data":1.}]}`,
	`{"kind":"message","parts":[{"kind":"data","data":-}]}`,
	`{"kind":"message","parts":[{"kind":"data","data":null}]}`,
	`{"kind":"message","parts":[{"kind":"data"}]}`,
	`{"kind":"message","parts":[{"kind":"text","data":{"ignored":true},"text":"t"}]}`,
	`{"kind":"message","parts":[{"kind":"file","bytes":"aGk"},{"kind":"file","bytes":"aG-_"},{"kind":"file","bytes":""}]}`,
	`{"kind":"message","parts":[{"kind":"file","bytes":"!!"}]}`,
	`{"kind":"message","parts":[null]}`,
	`{"kind":"task","artifacts":[null],"history":[null]}`,
	`{"kind":"task","status":{"state":"working","message":null,"timestamp":null,"State":"x"}}`,
	`{"kind":"message","message_id":"m","role":"agent","id":7}`,
	`{"kind":"task","id":7}`,
	`{"kind":"task","final":"yes"}`,
	`{"kind":"task","metadata":[]}`,
	`{"kind":"poem"}`,
	`{"kind":"task"} x`,
	`{"kind":"task",}`,
	`{"kind":"task"`,
	`{"kind":"ta` + "\x01" + `sk"}`,
	`{"kind":"t` + "\xff" + `"}`,
	`[]`,
	`null`,
	``,
	`{"kind":"message","metadata":` + strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001) + `}`,
	`{"kind":"message","metadata":{"d":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `}}`,
}

// checkFastAnswer: when the fast reader reads text, encoding/json reads it too, to the
// same value.
func checkFastAnswer(t *testing.T, text string) (fast bool) {
	t.Helper()
	var got, want answerJSON
	ferr := readAnswerJSON([]byte(text), &got)
	jerr := json.Unmarshal([]byte(text), &want)
	if ferr != nil {
		if ferr != errNotFast {
			t.Errorf("%.200s: fast reader error %v is not errNotFast", text, ferr)
		}
		return false
	}
	if jerr != nil {
		t.Errorf("%.200s: fast reader read what encoding/json refuses (%v)", text, jerr)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("%.200s:\n fast %+v\n json %+v", text, got, want)
	}
	return true
}

func TestFastAnswerMatchesEncodingJSON(t *testing.T) {
	canon := canonicalAnswerTexts(t)
	if len(canon) < 26 {
		t.Fatalf("only %d canonical texts", len(canon))
	}
	for _, text := range canon {
		// Every text the library renders takes the fast path, or it is useless.
		if !checkFastAnswer(t, text) {
			t.Errorf("canonical text not read by the fast reader: %.300s", text)
		}
	}
	fast := 0
	for _, text := range edgeAnswerTexts {
		if checkFastAnswer(t, text) {
			fast++
		}
	}
	if fast < 15 || fast == len(edgeAnswerTexts) {
		t.Errorf("%d of %d edge texts read fast: the list no longer exercises both paths", fast, len(edgeAnswerTexts))
	}
	// Every prefix of every text (cut anywhere: unterminated strings, numbers, literals).
	for _, text := range append(canon[:4], edgeAnswerTexts[:12]...) {
		for n := range len(text) {
			checkFastAnswer(t, text[:n])
		}
	}
}

// TestFastAnswerThroughUnmarshal: Answer.UnmarshalJSON gives the same answer and error with
// the fast reader as the encoding/json-only read did (perKindAnswer, the reference).
func TestFastAnswerThroughUnmarshal(t *testing.T) {
	for _, d := range append(canonicalAnswerTexts(t), edgeAnswerTexts...) {
		if !json.Valid([]byte(d)) {
			continue // json.Unmarshal refuses it before UnmarshalJSON runs
		}
		want, wantErr := perKindAnswer([]byte(d))
		var got Answer
		err := json.Unmarshal([]byte(d), &got)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%.200s: error %v, want %v", d, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%.200s:\n got %+v\nwant %+v", d, got, want)
		}
	}
}

// FuzzFastAnswer: whatever the text, the fast reader reads it as encoding/json does or
// leaves it to encoding/json (go test runs the seeds; go test -fuzz explores).
func FuzzFastAnswer(f *testing.F) {
	for _, text := range edgeAnswerTexts[:len(edgeAnswerTexts)-2] {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFastAnswer(t, text)
	})
}

// TestFastAnswerKnowsEveryField: the fast reader's field lists are the json names of the
// types it fills, so that a field added to one of them is not skipped as unknown.
func TestFastAnswerKnowsEveryField(t *testing.T) {
	tags := func(v any) []string {
		var out []string
		ty := reflect.TypeOf(v)
		for i := range ty.NumField() {
			if tag, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ","); tag != "" {
				out = append(out, tag)
			}
		}
		return out
	}
	same := func(name string, got, want []string) {
		g := append([]string(nil), got...)
		w := append([]string(nil), want...)
		slices.Sort(g)
		slices.Sort(w)
		if !slices.Equal(g, w) {
			t.Errorf("%s: fast reader knows %v, the type has %v", name, g, w)
		}
	}
	same("answerJSON", answerFields, tags(answerJSON{}))
	same("partJSON", partFields, tags(partJSON{}))
	same("Message", messageFields, tags(Message{}))
	same("TaskStatus", statusFields, tags(TaskStatus{}))
	same("Artifact", artifactFields, tags(Artifact{}))
}

// TestFastAnswerReadsDriverAnswers: every answer the driver hands out for a send and for a
// stream (each item and the assembled end; status and artifact updates, every part kind,
// metadata, escapes) takes the fast path, and reads to the expected values.
func TestFastAnswerReadsDriverAnswers(t *testing.T) {
	events := []string{
		`{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"submitted"},"metadata":{"m":[1,{"x":null}]}}`,
		`{"kind":"status-update","taskId":"t-1","contextId":"c-1","status":{"state":"working","message":{"kind":"message","role":"agent","messageId":"m-1","parts":[{"kind":"text","text":"th\u00e9 \"quoted\"\n"}]}},"final":false}`,
		`{"kind":"artifact-update","taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a-1","name":"n","parts":[{"kind":"text","text":"one"}]}}`,
		`{"kind":"artifact-update","taskId":"t-1","contextId":"c-1","append":true,"lastChunk":true,"artifact":{"artifactId":"a-1","parts":[{"kind":"data","data":{"k":[1.5,true,"s"]},"metadata":{"p":1}},{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"f.txt"}},{"kind":"file","file":{"uri":"https://x/y","mimeType":"application/pdf"}}]}}`,
		`{"kind":"status-update","taskId":"t-1","contextId":"c-1","status":{"state":"completed","timestamp":"2026-01-01T00:00:00Z"},"final":true}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.Method == "message/send" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"task","id":"t-2","contextId":"c-2","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"done \ud83d\ude00"}]}]}}`, req.ID)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, e)
		}
	}))
	defer srv.Close()
	cfg := DefaultClientConfig()
	cfg.AllowHTTP = true
	c, err := NewClientWithTarget(srv.URL+"/", V03, JSONRPC, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := answerFallbacks.Load()
	o, err := c.SendText("hi", nil)
	if err != nil || o.Result == nil || o.Result.Text == nil || *o.Result.Text != "done 😀" {
		t.Fatalf("send: %v %+v", err, o)
	}
	o.Close()
	s, err := c.StreamText("hi", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var kinds []string
	for range 10 {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == StreamEventEnd {
			task := ev.Outcome.Result.Task
			if task == nil || len(task.Artifacts) != 1 || len(task.Artifacts[0].Parts) != 4 ||
				string(task.Artifacts[0].Parts[2].Bytes) != "hi" || task.Metadata["m"] == nil {
				t.Fatalf("end answer %+v", ev.Outcome.Result)
			}
			break
		}
		kinds = append(kinds, ev.Item.Outcome.Result.Kind)
		if u := ev.Item.Outcome.Result.Update; u != nil && u.Status != nil && u.Status.Message != nil &&
			u.Status.Message.Parts[0].Text != "thé \"quoted\"\n" {
			t.Errorf("status text %q", u.Status.Message.Parts[0].Text)
		}
	}
	if strings.Join(kinds, ",") != "task,status-update,artifact-update,artifact-update,status-update" {
		t.Errorf("items %v", kinds)
	}
	if n := answerFallbacks.Load() - before; n != 0 {
		t.Errorf("%d of the driver's answers were left to encoding/json", n)
	}
}

// TestFastAnswerListsDoNotShare: the lists the fast reader fills from its own slots are
// handed out with their capacity cut to their length, so that an append to one never
// writes into another list's elements; more elements than the slots hold move out of them.
func TestFastAnswerListsDoNotShare(t *testing.T) {
	part := func(s string) string { return `{"kind":"text","text":"` + s + `"}` }
	msg := func(parts ...string) string {
		return `{"message_id":"m","role":"user","parts":[` + strings.Join(parts, ",") + `]}`
	}
	text := `{"kind":"task","id":"t","artifacts":[{"artifact_id":"a","parts":[` + part("a1") + `]},{"artifact_id":"b","parts":[` +
		part("b1") + `,` + part("b2") + `,` + part("b3") + `]}],"history":[` + msg(part("h1")) + `,` + msg(part("h2"), part("h3")) + `]}`
	var j answerJSON
	if err := readAnswerJSON([]byte(text), &j); err != nil {
		t.Fatal(err)
	}
	var want answerJSON
	if err := json.Unmarshal([]byte(text), &want); err != nil {
		t.Fatal(err)
	}
	lists := [][]Part{j.Artifacts[0].Parts, j.Artifacts[1].Parts, j.History[0].Parts, j.History[1].Parts}
	for i, l := range lists {
		if cap(l) != len(l) {
			t.Errorf("list %d: capacity %d, length %d", i, cap(l), len(l))
		}
		_ = append(l, TextPart("appended"))
	}
	if cap(j.Artifacts) != len(j.Artifacts) || cap(j.History) != len(j.History) {
		t.Errorf("artifacts or history with spare capacity")
	}
	_ = append(j.Artifacts, Artifact{ArtifactID: "appended"})
	_ = append(j.History, Message{MessageID: "appended"})
	if !reflect.DeepEqual(j, want) {
		t.Errorf("after appends:\n fast %+v\n json %+v", j, want)
	}
}
