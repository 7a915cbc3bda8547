package a2a

/*
#include <stdlib.h>
#include "a2a_core.h"
*/
import "C"

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// CodeAnswerUnreadable: the agent's answer could not be read (ReadAnswer's error says
// what and where). CodeAnswerMessage: a message to send is not of the canonical shape.
const (
	CodeAnswerUnreadable Code = C.A2A_ANSWER_UNREADABLE
	CodeAnswerMessage    Code = C.A2A_ANSWER_MESSAGE
)

// Part is one part of a message or artifact: Kind "text" (Text), "data" (Data: any JSON
// value, decoded into Go values) or "file" (Bytes, decoded; or URI, never fetched), each
// with an optional media type, name and metadata.
type Part struct {
	Kind      string
	Text      string
	Data      any
	Bytes     []byte // file bytes, decoded (nil for a file by URI)
	URI       string
	MediaType string
	Name      string
	Metadata  map[string]any
}

// TextPart is a text part.
func TextPart(text string) Part { return Part{Kind: "text", Text: text} }

// DataPart is a structured data part (any JSON value; a 0.3 peer only carries objects).
func DataPart(data any) Part { return Part{Kind: "data", Data: data} }

// FilePart is a file part with inline bytes.
func FilePart(name, mediaType string, data []byte) Part {
	return Part{Kind: "file", Name: name, MediaType: mediaType, Bytes: data}
}

// FileURIPart is a file part by reference (the library passes the URI on, never fetches it).
func FileURIPart(uri, mediaType string) Part {
	return Part{Kind: "file", URI: uri, MediaType: mediaType}
}

type partJSON struct {
	Kind      string          `json:"kind"`
	Text      *string         `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Bytes     *string         `json:"bytes,omitempty"`
	URI       *string         `json:"uri,omitempty"`
	MediaType *string         `json:"media_type,omitempty"`
	Name      *string         `json:"name,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
}

func optStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// decodeBase64 accepts standard or URL-safe base64, padded or not (as ProtoJSON readers do).
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawURLEncoding.DecodeString(s)
}

// UnmarshalJSON reads a part in the canonical shape.
func (p *Part) UnmarshalJSON(b []byte) error {
	var j partJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = Part{Kind: j.Kind, Text: optStr(j.Text), URI: optStr(j.URI), MediaType: optStr(j.MediaType),
		Name: optStr(j.Name), Metadata: j.Metadata}
	if j.Kind == "data" {
		if err := json.Unmarshal(j.Data, &p.Data); err != nil {
			return err
		}
	}
	if j.Bytes != nil {
		data, err := decodeBase64(*j.Bytes)
		if err != nil {
			return fmt.Errorf("a2a: file bytes: %w", err)
		}
		p.Bytes = data
	}
	return nil
}

// MarshalJSON writes a part in the canonical shape (what SendMessage sends).
func (p Part) MarshalJSON() ([]byte, error) {
	j := partJSON{Kind: p.Kind, Metadata: p.Metadata}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	j.MediaType, j.Name = opt(p.MediaType), opt(p.Name)
	switch p.Kind {
	case "text":
		j.Text = &p.Text
	case "data":
		d, err := json.Marshal(p.Data)
		if err != nil {
			return nil, err
		}
		j.Data = d
	case "file":
		if p.URI != "" {
			j.URI = &p.URI
		} else {
			b := base64.StdEncoding.EncodeToString(p.Bytes)
			j.Bytes = &b
		}
	default:
		return nil, fmt.Errorf("a2a: unknown part kind %q", p.Kind)
	}
	return json.Marshal(j)
}

func joinText(parts []Part) *string {
	var texts []string
	for _, p := range parts {
		if p.Kind == "text" {
			texts = append(texts, p.Text)
		}
	}
	if texts == nil {
		return nil
	}
	s := strings.Join(texts, "\n")
	return &s
}

// Message is a message: the agent's direct answer, a status message, a history entry.
type Message struct {
	MessageID string         `json:"message_id"`
	Role      string         `json:"role"` // "user", "agent" or "unspecified"
	ContextID *string        `json:"context_id"`
	TaskID    *string        `json:"task_id"`
	Parts     []Part         `json:"parts"`
	Metadata  map[string]any `json:"metadata"`
}

// Text is the message's text parts joined with newlines (nil without a text part).
func (m *Message) Text() *string { return joinText(m.Parts) }

// TaskStatus is a task's state (the CLI's words: "completed", "input-required", ...), the
// agent's status message and its timestamp.
type TaskStatus struct {
	State     string   `json:"state"`
	Message   *Message `json:"message"`
	Timestamp *string  `json:"timestamp"`
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string         `json:"artifact_id"`
	Name        *string        `json:"name"`
	Description *string        `json:"description"`
	Parts       []Part         `json:"parts"`
	Metadata    map[string]any `json:"metadata"`
}

// Task is a task: its status, its artifacts (put together when streamed) and history.
type Task struct {
	ID        string         `json:"id"`
	ContextID *string        `json:"context_id"`
	Status    TaskStatus     `json:"status"`
	Artifacts []Artifact     `json:"artifacts"`
	History   []Message      `json:"history"`
	Metadata  map[string]any `json:"metadata"`
}

// Answer is the agent's answer, the same whatever the protocol version and binding:
// Kind "task" (Task) or "message" (Message); for a stream item, also "status-update" or
// "artifact-update" (Update). Text is the answer's text: text parts joined with "\n",
// the artifacts' first, else the status message's or the message's.
type Answer struct {
	Kind    string
	Task    *Task
	Message *Message
	Update  *Update
	Text    *string
}

// Update is a stream item's event: a status change or an artifact (chunk).
type Update struct {
	TaskID    string         `json:"task_id"`
	ContextID *string        `json:"context_id"`
	Status    *TaskStatus    `json:"status"`
	Final     bool           `json:"final"`
	Artifact  *Artifact      `json:"artifact"`
	Append    bool           `json:"append"`
	LastChunk bool           `json:"last_chunk"`
	Metadata  map[string]any `json:"metadata"`
}

// Parts is every part of the answer: a task's artifacts' parts in order, a message's parts.
func (a *Answer) Parts() []Part {
	switch {
	case a.Task != nil:
		var out []Part
		for _, art := range a.Task.Artifacts {
			out = append(out, art.Parts...)
		}
		return out
	case a.Message != nil:
		return a.Message.Parts
	case a.Update != nil && a.Update.Artifact != nil:
		return a.Update.Artifact.Parts
	}
	return nil
}

// answerJSON is every field of every answer kind, so that an answer is read in one pass
// (encoding/json validates and decodes the whole document on each Unmarshal: reading the
// kind first and then the kind's type cost two passes per answer, the largest part of
// the binding's own time per send).
type answerJSON struct {
	Kind string  `json:"kind"`
	Text *string `json:"text"`
	// Task.
	ID        string     `json:"id"`
	Artifacts []Artifact `json:"artifacts"`
	History   []Message  `json:"history"`
	// Message.
	MessageID string `json:"message_id"`
	Role      string `json:"role"`
	Parts     []Part `json:"parts"`
	// Update.
	Final     bool      `json:"final"`
	Artifact  *Artifact `json:"artifact"`
	Append    bool      `json:"append"`
	LastChunk bool      `json:"last_chunk"`
	// Shared.
	ContextID *string        `json:"context_id"`
	TaskID    *string        `json:"task_id"`
	Status    *TaskStatus    `json:"status"`
	Metadata  map[string]any `json:"metadata"`
}

// UnmarshalJSON reads the canonical JSON of an answer.
func (a *Answer) UnmarshalJSON(b []byte) error {
	return a.fromJSON(b, string(b), false)
}

// fromJSON is UnmarshalJSON of a text given both ways: doc (the same bytes as b) is what
// the fast reader reads, and its strings point into it. valid: doc is known to be valid
// UTF-8 (the library's text).
func (a *Answer) fromJSON(b []byte, doc string, valid bool) error {
	var j answerJSON
	var err error
	if valid {
		err = readValidDoc(doc, &j) // the canonical shape without reflection (answer_fast.go)
	} else {
		err = readAnswerDoc(doc, &j)
	}
	return a.fromFields(b, &j, nil, err)
}

// fromFields makes a of j, the fast reader's reading of b (err: its error), or reads b
// with encoding/json when the fast reader did not. t, when not nil, is the Task a task
// answer uses (the caller's allocation).
func (a *Answer) fromFields(b []byte, j *answerJSON, t *Task, err error) error {
	if err != nil {
		answerFallbacks.Add(1)
		slow := new(answerJSON) // encoding/json's target escapes: not the caller's (on its stack)
		err = json.Unmarshal(b, slow)
		j = slow
	}
	if err == nil {
		switch j.Kind {
		case "task":
			if t == nil {
				t = new(Task)
			}
			*t = Task{ID: j.ID, ContextID: j.ContextID, Artifacts: j.Artifacts, History: j.History, Metadata: j.Metadata}
			if j.Status != nil {
				t.Status = *j.Status
			}
			*a = Answer{Kind: j.Kind, Text: j.Text, Task: t}
			return nil
		case "message":
			*a = Answer{Kind: j.Kind, Text: j.Text, Message: &Message{MessageID: j.MessageID, Role: j.Role,
				ContextID: j.ContextID, TaskID: j.TaskID, Parts: j.Parts, Metadata: j.Metadata}}
			return nil
		case "status-update", "artifact-update":
			u := &Update{ContextID: j.ContextID, Status: j.Status, Final: j.Final, Artifact: j.Artifact,
				Append: j.Append, LastChunk: j.LastChunk, Metadata: j.Metadata}
			if j.TaskID != nil {
				u.TaskID = *j.TaskID
			}
			*a = Answer{Kind: j.Kind, Text: j.Text, Update: u}
			return nil
		}
	}
	// Not a known kind, or a field of another kind's type did not read: the kind's own
	// type says what is wrong.
	var head struct {
		Kind string  `json:"kind"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*a = Answer{Kind: head.Kind, Text: head.Text}
	switch head.Kind {
	case "task":
		a.Task = new(Task)
		return json.Unmarshal(b, a.Task)
	case "message":
		a.Message = new(Message)
		return json.Unmarshal(b, a.Message)
	case "status-update", "artifact-update":
		a.Update = new(Update)
		return json.Unmarshal(b, a.Update)
	}
	return fmt.Errorf("a2a: unknown answer kind %q", head.Kind)
}

// readResultJSON reads the answer an outcome carries from doc, a Go copy of its
// result_json view (nil when the view is absent).
func readResultJSON(v C.struct_a2a_str, doc string) *Answer {
	if v.ptr == nil {
		return nil
	}
	// The scanner, the answer and a task answer's Task in one allocation (Go's allocations
	// cost more than the bytes a message or update answer leaves unused here).
	blk := new(struct {
		s fastScan
		a Answer
		t Task
	})
	var j answerJSON
	err := blk.s.read(doc, &j) // the library's text: a Rust String, valid UTF-8
	// encoding/json, when the fast reader leaves the text to it, reads the library's view
	// in place: it is valid until the outcome is freed, and encoding/json keeps no
	// reference to its input (every string and RawMessage is copied out). Straight to the
	// reader: json.Unmarshal(text, &a) would validate the whole document once more.
	text := unsafe.Slice((*byte)(unsafe.Pointer(v.ptr)), int(v.len))
	if err := blk.a.fromFields(text, &j, &blk.t, err); err != nil {
		// The library renders valid canonical JSON; a failure here is a binding bug.
		panic(fmt.Sprintf("a2a: answer JSON from the library does not read: %v", err))
	}
	return &blk.a
}

// ErrNothingToSend is returned by SendMessage and StreamMessage without any part.
var ErrNothingToSend = errors.New("a2a: nothing to send: give at least one part")

func messageJSON(parts []Part, metadata map[string]any) (string, error) {
	if len(parts) == 0 {
		return "", ErrNothingToSend
	}
	doc := struct {
		Parts    []Part         `json:"parts"`
		Metadata map[string]any `json:"metadata,omitempty"`
	}{parts, metadata}
	b, err := json.Marshal(doc)
	return string(b), err
}

// SendMessage sends a user message of any parts (text, data, file bytes, file URI) with
// optional message metadata and waits for the answer (BLOCKS, bounded by the call
// timeout); the answer is the outcome's Result.
func (c *Client) SendMessage(parts []Part, metadata map[string]any, opts *ClientCallOptions) (*Outcome, error) {
	return c.sendParts("Client.SendMessage", parts, metadata, opts)
}

// StreamMessage starts a streaming send of a user message of any parts; as StreamText.
// The end event's Outcome.Result is the answer put together from the stream.
func (c *Client) StreamMessage(parts []Part, metadata map[string]any, opts *ClientCallOptions) (*ClientStream, error) {
	return c.streamParts("Client.StreamMessage", parts, metadata, opts)
}

// ReadAnswer reads the answer in a body you received yourself: a send, get or cancel
// response, or (stream true) a whole text/event-stream body whose events are put
// together. It returns nil, nil for a stream without events, and an error wrapping
// CodeAnswerUnreadable that says what could not be read and where.
func ReadAnswer(body []byte, version ProtocolVersion, binding Binding, stream bool) (*Answer, error) {
	text, err := readAnswerText(body, version, binding, stream)
	if text == nil || err != nil {
		return nil, err
	}
	var a Answer
	if err := json.Unmarshal(text, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// readAnswerText is the canonical JSON text a2a_answer_read renders (nil, nil: a stream
// without events).
func readAnswerText(body []byte, version ProtocolVersion, binding Binding, stream bool) ([]byte, error) {
	var buf *C.a2a_buffer
	if r := C.a2a_buffer_new(&buf); r != C.A2A_OK {
		return nil, codeErr("ReadAnswer", r)
	}
	defer C.a2a_buffer_free(buf)
	bp, bn := cBytes(body)
	r := C.a2a_answer_read(bp, bn, C.uint32_t(version), C.uint32_t(binding), C.bool(stream), buf)
	runtime.KeepAlive(body)
	switch r {
	case C.A2A_OK:
	case C.A2A_NONE:
		return nil, nil
	default:
		return nil, mkErr("ReadAnswer", r, C.a2a_buffer_last_error(buf))
	}
	return goBytes(C.a2a_buffer_bytes(buf)), nil
}
