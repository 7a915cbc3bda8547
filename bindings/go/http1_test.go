package a2a

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func TestAppendRequest(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t1"}}`)
	got, err := AppendRequest([]byte("keep:"), "POST", "/a2a", "agent.example.com:8443",
		[]Header{{"Content-Type", "application/json"}, {"A2A-Version", "1.0"}}, body)
	if err != nil {
		t.Fatal(err)
	}
	// RFC 9112 §3 (request line), §3.2 (Host), §6.2 (Content-Length), hand-written.
	want := "keep:POST /a2a HTTP/1.1\r\nHost: agent.example.com:8443\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + string(body)
	if string(got) != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	head, err := AppendRequestHead(nil, "POST", "/a2a", "h", nil, 7)
	if err != nil || string(head) != "POST /a2a HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\n\r\n" {
		t.Fatalf("head %q %v", head, err)
	}
	for _, c := range []struct {
		name    string
		headers []Header
		target  string
		code    Code
	}{
		{"CRLF in a value", []Header{{"X", "a\r\nEvil: 1"}}, "/", CodeHTTP1HeaderValue},
		{"space in a name", []Header{{"Bad Name", "v"}}, "/", CodeHTTP1HeaderName},
		{"Content-Length is the serializer's", []Header{{"content-length", "5"}}, "/", CodeHTTP1ReservedHeader},
		{"space in the target", nil, "/a b", CodeHTTP1Target},
	} {
		out, err := AppendRequest([]byte("x"), "POST", c.target, "h", c.headers, nil)
		if !errors.Is(err, c.code) || string(out) != "x" {
			t.Errorf("%s: %v, out %q", c.name, err, out)
		}
	}
	if j, err := JoinTarget("/a2a/v1/", "/tasks/t1?historyLength=2"); err != nil || j != "/a2a/v1/tasks/t1?historyLength=2" {
		t.Errorf("JoinTarget %q %v", j, err)
	}
	if j, _ := JoinTarget("/rest", "message:send"); j != "/rest/message:send" {
		t.Errorf("JoinTarget %q", j)
	}
}

// A chunked SSE response as the Python peer sends it (docs/peers.md §1.5 head and
// framing; the chunk sizes hand-computed).
const chunkedResponse = "HTTP/1.1 200 OK\r\ncache-control: no-store\r\ncontent-type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n" +
	"d\r\ndata: one\r\n\r\n\r\n" +
	"5\r\ndata:\r\n" +
	"8\r\n two\r\n\r\n\r\n" +
	"0\r\nX-Trailer: t\r\n\r\n"

// readAll drives a reader over input handed out in pieces of size step (0: whole); it
// returns the head and the body.
func readAll(t *testing.T, input []byte, step int) (HTTP1Head, []byte, *ResponseReader) {
	t.Helper()
	r, err := NewResponseReader("POST", nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf, body []byte
	var head HTTP1Head
	fed := 0
	for !r.IsDone() {
		if step == 0 {
			buf, fed = append(buf, input...), len(input)
		} else if fed < len(input) {
			n := min(step, len(input)-fed)
			buf = append(buf, input[fed:fed+n]...)
			fed += n
		}
		for {
			st, err := r.Feed(buf)
			if err != nil {
				t.Fatal(err)
			}
			if st.Event == HTTP1Body {
				body = append(body, st.Body...)
			}
			if st.Event == HTTP1HeadDone {
				head, _ = r.Head()
			}
			buf = buf[st.Consumed:]
			if st.Event == HTTP1NeedMore || st.Event == HTTP1End {
				break
			}
		}
		if fed == len(input) && !r.IsDone() && len(buf) == 0 {
			break
		}
	}
	return head, body, r
}

func TestResponseReaderSplitAtEveryByte(t *testing.T) {
	in := []byte(chunkedResponse)
	for step := 0; step <= len(in); step++ {
		head, body, r := readAll(t, in, step)
		if !r.IsDone() || string(body) != "data: one\r\n\r\ndata: two\r\n\r\n" {
			t.Fatalf("step %d: done %v body %q", step, r.IsDone(), body)
		}
		if ct, _ := head.Get("Content-Type"); head.Status != 200 || head.Framing != FramingChunked || ct != "text/event-stream; charset=utf-8" {
			t.Fatalf("step %d: head %+v", step, head)
		}
		if v, ok := r.Header("TRANSFER-ENCODING"); !ok || v != "chunked" {
			t.Fatalf("Header: %q %v", v, ok)
		}
		if tr := r.Trailers(); len(tr) != 1 || tr[0].Name != "X-Trailer" || string(tr[0].Value) != "t" {
			t.Fatalf("trailers %+v", tr)
		}
		if r.BodyReceived() != uint64(len(body)) || !r.Reusable() || r.Finish() != nil {
			t.Fatalf("received %d reusable %v", r.BodyReceived(), r.Reusable())
		}
		r.Close()
	}
}

func TestResponseReaderErrors(t *testing.T) {
	r, _ := NewResponseReader("GET", nil)
	defer r.Close()
	if err := r.Finish(); !errors.Is(err, CodeHTTP1ClosedBeforeResponse) {
		t.Errorf("EOF before a byte: %v", err)
	}
	r2, _ := NewResponseReader("GET", nil)
	defer r2.Close()
	st, err := r2.Feed([]byte("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"))
	for err == nil && st.Event != HTTP1NeedMore {
		st, err = r2.Feed([]byte("abc")[:0])
	}
	if err := r2.Finish(); !errors.Is(err, CodeHTTP1TruncatedBody) {
		t.Errorf("truncated body: %v", err)
	}
	r3, _ := NewResponseReader("GET", nil)
	defer r3.Close()
	_, err = r3.Feed([]byte("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"))
	if !errors.Is(err, CodeHTTP1ConflictingLength) {
		t.Errorf("conflicting lengths: %v", err)
	}
	lim := DefaultHTTP1Limits()
	lim.MaxHeadBytes = 32
	r4, err := NewResponseReader("GET", &lim)
	if err != nil {
		t.Fatal(err)
	}
	defer r4.Close()
	if _, err := r4.Feed(append([]byte("HTTP/1.1 200 OK\r\nX: "), bytes.Repeat([]byte("a"), 64)...)); !errors.Is(err, CodeHTTP1HeadTooLarge) {
		t.Errorf("head limit: %v", err)
	}
}
