package a2a

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"testing"
)

// benchStream is a Python-peer-like 1.0 stream: CRLF line endings, spaced JSON, a
// keep-alive comment every 10 events; 1000 events of about 300 bytes.
func benchStream() []byte {
	var b bytes.Buffer
	for i := range 1000 {
		if i%10 == 0 {
			b.WriteString(": ping - 2026-11-30 00:12:27.571686+00:00\r\n\r\n")
		}
		fmt.Fprintf(&b, `data: {"result": {"artifactUpdate": {"taskId": "0939c926-5e2a-4f0e-9d7e-3f7b2c1a9e55", "contextId": "28767125-1b1c-4a57-a0f4-5b8e8e0c2d11", "artifact": {"artifactId": "chunk-%d", "name": "chunk-%d", "parts": [{"text": "chunk %d of the benchmark stream"}]}, "lastChunk": true}}, "id": 41, "jsonrpc": "2.0"}`+"\r\n\r\n", i, i, i)
	}
	return b.Bytes()
}

const benchChunk = 4096

// BenchmarkDecoder feeds the stream in 4 KiB chunks through Decoder.Feed (one cgo call
// per chunk, every event copied into Go memory).
func BenchmarkDecoder(b *testing.B) {
	data := benchStream()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, _ := NewDecoder(nil)
		events := 0
		for off := 0; off < len(data); off += benchChunk {
			evs, err := d.Feed(data[off:min(off+benchChunk, len(data))])
			if err != nil {
				b.Fatal(err)
			}
			for i := range evs {
				if evs[i].Kind == KindEvent {
					events++
				}
			}
		}
		d.Close()
		if events != 1000 {
			b.Fatalf("%d events", events)
		}
	}
}

// scannerEvent is what the plain reader yields.
type scannerEvent struct {
	Type string
	Data []byte
	ID   string
}

// scanSSE is the SSE reader many Go clients write: bufio.Scanner over lines (LF or CRLF
// only; CR-only endings, BOM, and lines over the scanner's buffer are not handled).
func scanSSE(r io.Reader, emit func(scannerEvent)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var ev scannerEvent
	var data bytes.Buffer
	has := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if has {
				ev.Data = bytes.Clone(bytes.TrimSuffix(data.Bytes(), []byte("\n")))
				if ev.Type == "" {
					ev.Type = "message"
				}
				emit(ev)
			}
			ev, has = scannerEvent{ID: ev.ID}, false
			data.Reset()
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			data.Write(value)
			data.WriteByte('\n')
			has = true
		case "event":
			ev.Type = string(value)
		case "id":
			ev.ID = string(value)
		}
	}
	return sc.Err()
}

// chunkReader hands out the stream in fixed chunks, like a socket.
type chunkReader struct {
	data []byte
	off  int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.off >= len(c.data) {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), benchChunk)], c.data[c.off:])
	c.off += n
	return n, nil
}

// BenchmarkBufioScanner is the same stream through scanSSE, for comparison.
func BenchmarkBufioScanner(b *testing.B) {
	data := benchStream()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		events := 0
		if err := scanSSE(&chunkReader{data: data}, func(scannerEvent) { events++ }); err != nil {
			b.Fatal(err)
		}
		if events != 1000 {
			b.Fatalf("%d events", events)
		}
	}
}

func TestScannerBaselineAgreesOnTheBenchStream(t *testing.T) {
	data := benchStream()
	var want []scannerEvent
	if err := scanSSE(&chunkReader{data: data}, func(e scannerEvent) { want = append(want, e) }); err != nil {
		t.Fatal(err)
	}
	d, _ := NewDecoder(nil)
	defer d.Close()
	var got []scannerEvent
	for off := 0; off < len(data); off += 1000 {
		evs, err := d.Feed(data[off:min(off+1000, len(data))])
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Kind == KindEvent {
				got = append(got, scannerEvent{e.Type, e.Data, e.ID})
			}
		}
	}
	if len(got) != len(want) || len(got) != 1000 {
		t.Fatalf("%d vs %d events", len(got), len(want))
	}
	for i := range got {
		if got[i].Type != want[i].Type || !bytes.Equal(got[i].Data, want[i].Data) || got[i].ID != want[i].ID {
			t.Fatalf("event %d: %+v vs %+v", i, got[i], want[i])
		}
	}
}
