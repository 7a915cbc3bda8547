package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"runtime"
	"time"
	"unsafe"
)

// clock converts the caller's time.Time values to the library's milliseconds on a
// monotonic scale whose zero is the handle's origin (times before it count as 0).
type clock struct{ origin time.Time }

func (c clock) ms(t time.Time) C.uint64_t {
	d := t.Sub(c.origin)
	if d < 0 {
		return 0
	}
	return C.uint64_t(d / time.Millisecond)
}

func (c clock) at(ms C.uint64_t) time.Time {
	return c.origin.Add(time.Duration(ms) * time.Millisecond)
}

// StreamItemKind says what a stream event carried.
type StreamItemKind uint32

// Stream item kinds (a2a_stream_item_kind).
const (
	ItemTask           StreamItemKind = C.A2A_STREAM_ITEM_KIND_TASK
	ItemMessage        StreamItemKind = C.A2A_STREAM_ITEM_KIND_MESSAGE
	ItemStatusUpdate   StreamItemKind = C.A2A_STREAM_ITEM_KIND_STATUS_UPDATE
	ItemArtifactUpdate StreamItemKind = C.A2A_STREAM_ITEM_KIND_ARTIFACT_UPDATE
	ItemError          StreamItemKind = C.A2A_STREAM_ITEM_KIND_ERROR
	ItemMalformed      StreamItemKind = C.A2A_STREAM_ITEM_KIND_MALFORMED
)

var itemKindNames = map[StreamItemKind]string{
	ItemTask: "task", ItemMessage: "message", ItemStatusUpdate: "status-update",
	ItemArtifactUpdate: "artifact-update", ItemError: "error", ItemMalformed: "malformed",
}

// String names the kind ("task", "status-update", ...).
func (k StreamItemKind) String() string { return itemKindNames[k] }

// StreamEnd says how a stream ended.
type StreamEnd uint32

// Stream ends (a2a_stream_end_kind).
const (
	EndCompleted   StreamEnd = C.A2A_STREAM_END_KIND_COMPLETED    // terminal state or Message seen
	EndInterrupted StreamEnd = C.A2A_STREAM_END_KIND_INTERRUPTED  // input- or auth-required
	EndTruncated   StreamEnd = C.A2A_STREAM_END_KIND_TRUNCATED    // closed before a terminal state
	EndError       StreamEnd = C.A2A_STREAM_END_KIND_ERROR        // a protocol error in the stream
	EndTimedOut    StreamEnd = C.A2A_STREAM_END_KIND_TIMED_OUT    // the idle timeout expired
	EndNotAStream  StreamEnd = C.A2A_STREAM_END_KIND_NOT_A_STREAM // the response was no event stream
)

var endNames = map[StreamEnd]string{
	EndCompleted: "completed", EndInterrupted: "interrupted", EndTruncated: "truncated",
	EndError: "error", EndTimedOut: "timed_out", EndNotAStream: "not_a_stream",
}

// String names the end ("completed", "truncated", ...).
func (e StreamEnd) String() string { return endNames[e] }

// StreamItem is one typed item of a stream. Its Outcome is a copy without a library
// handle (it cannot be passed to Tally.Record; the stream's Finish outcome can).
type StreamItem struct {
	Kind       StreamItemKind
	Outcome    Outcome
	Final      *bool   // the 0.3 `final` flag of a status update, when present
	ArtifactID *string // artifact updates
	Append     bool    // artifact updates
	LastChunk  bool    // artifact updates
	EndsStream bool    // this item ends the interaction: stop reading, then Finish
}

// StreamTracker follows one streaming call (message/stream, SendStreamingMessage,
// resubscribe) to its end: it types each event, watches the idle deadline and says how
// the stream ended. Time is the caller's: pass time.Now() (or a simulated clock).
type StreamTracker struct {
	owned[*C.a2a_stream_tracker]
	clk clock
}

// NewStreamTracker starts tracking a call asked as asked, with an idle timeout (0: none)
// counted from now.
func NewStreamTracker(asked Asked, idle time.Duration, now time.Time) (*StreamTracker, error) {
	if idle < 0 {
		return nil, &Error{Op: "NewStreamTracker", Code: CodeInvalidArgument}
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var a C.struct_a2a_asked
	fillAsked(&pin, &a, &asked)
	clk := clock{origin: now}
	var h *C.a2a_stream_tracker
	if r := C.a2a_stream_tracker_new(&a, C.uint64_t(idle/time.Millisecond), clk.ms(now), &h); r != C.A2A_OK {
		return nil, codeErr("NewStreamTracker", r)
	}
	t := &StreamTracker{clk: clk}
	own(t, &t.owned, h, func(h *C.a2a_stream_tracker) { C.a2a_stream_tracker_free(h) })
	return t, nil
}

// OnBytes records that bytes arrived at now (the connection is alive).
func (t *StreamTracker) OnBytes(now time.Time) error {
	if t.h == nil {
		return ErrClosed
	}
	if r := C.a2a_stream_tracker_on_bytes(t.h, t.clk.ms(now)); r != C.A2A_OK {
		return codeErr("StreamTracker.OnBytes", r)
	}
	return nil
}

// OnComment records a comment (keep-alive) at now.
func (t *StreamTracker) OnComment(now time.Time) error {
	if t.h == nil {
		return ErrClosed
	}
	if r := C.a2a_stream_tracker_on_comment(t.h, t.clk.ms(now)); r != C.A2A_OK {
		return codeErr("StreamTracker.OnComment", r)
	}
	return nil
}

// OnEvent types one decoded SSE event that arrived at now. It returns nil (and no error)
// for an event with empty data (nothing to classify).
func (t *StreamTracker) OnEvent(now time.Time, eventType string, data []byte) (*StreamItem, error) {
	if t.h == nil {
		return nil, ErrClosed
	}
	tp, tn := cText(eventType)
	dp, dn := cBytes(data)
	var it C.struct_a2a_stream_item
	r := C.a2a_stream_tracker_on_event(t.h, t.clk.ms(now), (*C.uint8_t)(unsafe.Pointer(tp)), tn, dp, dn, &it)
	runtime.KeepAlive(eventType)
	runtime.KeepAlive(data)
	switch r {
	case C.A2A_OK:
	case C.A2A_NONE:
		return nil, nil
	default:
		return nil, codeErr("StreamTracker.OnEvent", r)
	}
	return readStreamItem(&it), nil
}

// readStreamItem copies a library stream item (its outcome without a handle).
func readStreamItem(it *C.struct_a2a_stream_item) *StreamItem {
	item := &StreamItem{
		Kind:       StreamItemKind(it.kind),
		Outcome:    readOutcome(it.outcome),
		ArtifactID: goOptStr(it.artifact_id),
		Append:     bool(it.append),
		LastChunk:  bool(it.last_chunk),
		EndsStream: bool(it.ends_stream),
	}
	if it.has_final {
		f := bool(it.final_flag)
		item.Final = &f
	}
	return item
}

// OnSSE routes one item of Decoder.FeedItems: an event to OnEvent, a comment to OnComment, a retry
// field to OnBytes (activity). Only events can yield an item.
func (t *StreamTracker) OnSSE(now time.Time, ev Event) (*StreamItem, error) {
	switch ev.Kind {
	case KindEvent:
		return t.OnEvent(now, ev.Type, ev.Data)
	case KindComment:
		return nil, t.OnComment(now)
	default:
		return nil, t.OnBytes(now)
	}
}

// NextDeadline is when OnTimeout must be called at the latest; ok is false when there
// is no idle timeout or the stream has ended.
func (t *StreamTracker) NextDeadline() (deadline time.Time, ok bool) {
	if t.h == nil {
		return time.Time{}, false
	}
	var ms C.uint64_t
	if !C.a2a_stream_tracker_next_deadline(t.h, &ms) {
		return time.Time{}, false
	}
	return t.clk.at(ms), true
}

// OnTimeout checks the idle deadline at now: when it has passed it returns the transport
// outcome (advice resubscribe when the task id is known); nil before the deadline.
func (t *StreamTracker) OnTimeout(now time.Time) (*Outcome, error) {
	if t.h == nil {
		return nil, ErrClosed
	}
	var h *C.a2a_outcome
	switch r := C.a2a_stream_tracker_on_timeout(t.h, t.clk.ms(now), &h); r {
	case C.A2A_OK:
		return ownOutcome(h), nil
	case C.A2A_NONE:
		return nil, nil
	default:
		return nil, codeErr("StreamTracker.OnTimeout", r)
	}
}

// OnNonSSEBody classifies a response that was not text/event-stream (an up-front error)
// and ends the tracker. r.Asked is ignored (the tracker's own is used).
func (t *StreamTracker) OnNonSSEBody(r Response) (*Outcome, error) {
	if t.h == nil {
		return nil, ErrClosed
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var resp C.struct_a2a_response
	fillResponse(&pin, &resp, &r)
	var h *C.a2a_outcome
	if rc := C.a2a_stream_tracker_on_non_sse_body(t.h, &resp, &h); rc != C.A2A_OK {
		return nil, codeErr("StreamTracker.OnNonSSEBody", rc)
	}
	return ownOutcome(h), nil
}

// Finish ends the body: how the stream ended and the call's outcome. Calling it again
// returns the same end.
func (t *StreamTracker) Finish() (StreamEnd, *Outcome, error) {
	if t.h == nil {
		return 0, nil, ErrClosed
	}
	var kind C.a2a_stream_end_kind
	var h *C.a2a_outcome
	if r := C.a2a_stream_tracker_finish(t.h, &kind, &h); r != C.A2A_OK {
		return 0, nil, codeErr("StreamTracker.Finish", r)
	}
	return StreamEnd(kind), ownOutcome(h), nil
}

// IsOver reports whether the interaction is over (stop reading and close).
func (t *StreamTracker) IsOver() bool {
	return t.h != nil && bool(C.a2a_stream_tracker_is_over(t.h))
}

// TaskID is the task id seen so far ("" and false when none).
func (t *StreamTracker) TaskID() (string, bool) {
	if t.h == nil {
		return "", false
	}
	s := goOptStr(C.a2a_stream_tracker_task_id(t.h))
	if s == nil {
		return "", false
	}
	return *s, true
}

// LastState is the last task state seen so far.
func (t *StreamTracker) LastState() (TaskState, bool) {
	if t.h == nil {
		return 0, false
	}
	var s C.a2a_task_state
	if !C.a2a_stream_tracker_last_state(t.h, &s) {
		return 0, false
	}
	return TaskState(s), true
}

// Events is the number of events that produced an item so far.
func (t *StreamTracker) Events() uint64 {
	if t.h == nil {
		return 0
	}
	return uint64(C.a2a_stream_tracker_events(t.h))
}
