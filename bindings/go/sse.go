package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// EventKind says what a decoded Event is.
type EventKind uint32

// Event kinds (a2a_sse_item_kind; limit errors are returned as errors, not events).
const (
	KindEvent   EventKind = C.A2A_SSE_ITEM_KIND_EVENT   // a dispatched event: Type, Data, ID
	KindComment EventKind = C.A2A_SSE_ITEM_KIND_COMMENT // a comment (keep-alive): Data
	KindRetry   EventKind = C.A2A_SSE_ITEM_KIND_RETRY   // a valid retry field: RetryMS
)

// Event is one item decoded from an event stream, copied into Go memory.
type Event struct {
	Kind    EventKind
	Type    string // KindEvent: the event type ("message" when none was given)
	Data    []byte // KindEvent: data lines joined with LF; KindComment: the text after ':'
	ID      string // KindEvent: the last event ID in effect ("" when none was ever set)
	RetryMS uint64 // KindRetry: the server's reconnection time in milliseconds
}

// LimitError reports input over one of the decoder's limits. It is not fatal: the rest
// of that event was skipped and decoding went on.
type LimitError struct {
	Code  Code // CodeSSELineTooLong or CodeSSEEventTooLarge
	Limit int  // the limit in force, in bytes
}

// Error names the limit and its size.
func (e *LimitError) Error() string {
	return fmt.Sprintf("a2a: SSE %s (limit %d bytes)", e.Code.Error(), e.Limit)
}

// Unwrap returns the code, for errors.Is.
func (e *LimitError) Unwrap() error { return e.Code }

// LimitName is the name of the limit ("max_line", "max_event"), as in the fixtures.
func (e *LimitError) LimitName() string {
	if e.Code == CodeSSELineTooLong {
		return "max_line"
	}
	return "max_event"
}

// DecoderConfig sets a decoder's limits and end-of-stream rule. Zero fields take the
// defaults (16 MiB lines, 16 MiB events, WHATWG discard at end of stream).
type DecoderConfig struct {
	MaxLine       int  // longest line in bytes
	MaxEvent      int  // largest event data in bytes
	DispatchAtEOF bool // dispatch an unterminated last block at Finish (what several SDKs do)
}

// Decoder is an incremental SSE decoder (WHATWG event stream interpretation).
type Decoder struct {
	owned[*C.a2a_sse_decoder]
	comments int
}

const defaultLimit = 16 << 20

// NewDecoder returns a decoder with the given configuration (nil: defaults).
func NewDecoder(cfg *DecoderConfig) (*Decoder, error) {
	var c DecoderConfig
	if cfg != nil {
		c = *cfg
	}
	if c.MaxLine == 0 {
		c.MaxLine = defaultLimit
	}
	if c.MaxEvent == 0 {
		c.MaxEvent = defaultLimit
	}
	if c.MaxLine < 0 || c.MaxEvent < 0 {
		return nil, &Error{Op: "NewDecoder", Code: CodeInvalidArgument}
	}
	atEOF := C.uint32_t(C.A2A_SSE_AT_EOF_DISCARD)
	if c.DispatchAtEOF {
		atEOF = C.A2A_SSE_AT_EOF_DISPATCH
	}
	var h *C.a2a_sse_decoder
	if r := C.a2a_sse_decoder_new_with(C.size_t(c.MaxLine), C.size_t(c.MaxEvent), atEOF, &h); r != C.A2A_OK {
		return nil, codeErr("NewDecoder", r)
	}
	d := &Decoder{}
	own(d, &d.owned, h, func(h *C.a2a_sse_decoder) { C.a2a_sse_decoder_free(h) })
	return d, nil
}

// Feed decodes a chunk of the body (any size, split anywhere) and returns the events it
// completed (Kind is always KindEvent), copied into Go memory (the chunk is read during the
// call only, through the library's packed batch call: one foreign call and one copy per
// chunk). Comments (keep-alives) are counted (Comments) and a valid retry field is kept
// (Retry), as the Python and Java bindings do; FeedItems returns all of them in stream order.
//
// A non-nil error of type *LimitError (several are joined with errors.Join) means an
// event went over a limit and was dropped; the returned events are complete and valid
// and the decoder goes on. Any other error means the decoder cannot be used further.
func (d *Decoder) Feed(chunk []byte) ([]Event, error) {
	return d.feed(chunk, true)
}

// FeedItems is Feed returning every item the chunk completed, in stream order: events,
// comments (KindComment, with their text) and retry fields (KindRetry).
func (d *Decoder) FeedItems(chunk []byte) ([]Event, error) {
	return d.feed(chunk, false)
}

// Comments is the number of comment lines (keep-alives) decoded so far.
func (d *Decoder) Comments() int {
	return d.comments
}

func (d *Decoder) feed(chunk []byte, eventsOnly bool) ([]Event, error) {
	if d.h == nil {
		return nil, ErrClosed
	}
	var pk C.struct_a2a_sse_packed
	p, n := cBytes(chunk)
	r := C.a2a_sse_decoder_feed_packed(d.h, p, n, &pk)
	runtime.KeepAlive(chunk)
	if r != C.A2A_OK {
		return nil, mkErr("Decoder.Feed", r, C.a2a_sse_decoder_last_error(d.h))
	}
	d.comments += int(pk.comment_count)
	if pk.item_count == 0 {
		return nil, nil
	}
	return unpack(&pk, eventsOnly)
}

// unpack copies a packed batch into ONE Go allocation (the events' values, then the
// comments' text) and slices it: the events' types, data and ids are cut at the packed
// offsets (each value is followed by one CR, see a2a_sse_packed), so a chunk of many
// events costs one copy and two allocations (that buffer and the []Event). The buffer is
// never written after this function, so the strings over it are immutable.
// With eventsOnly, comments and retry fields are left out (and comments are not copied).
func unpack(pk *C.struct_a2a_sse_packed, eventsOnly bool) ([]Event, error) {
	items := unsafe.Slice(pk.items, int(pk.item_count))
	packedLen := int(pk.bytes.len)
	total := packedLen
	if pk.comment_count > 0 && !eventsOnly {
		for i := range items {
			if items[i].kind == C.A2A_SSE_ITEM_KIND_COMMENT {
				total += int(items[i].data.len)
			}
		}
	}
	buf := make([]byte, total)
	copy(buf, unsafe.Slice((*byte)(unsafe.Pointer(pk.bytes.ptr)), packedLen))
	offs := unsafe.Slice((*uint64)(unsafe.Pointer(pk.offsets)), 3*int(pk.event_count)+1)
	// value k is buf[offs[k] : offs[k+1]-1]; capacity is cut so an append copies.
	value := func(k int) []byte {
		end := offs[k+1] - 1
		return buf[offs[k]:end:end]
	}
	str := func(k int) string {
		v := value(k)
		if len(v) == 0 {
			return ""
		}
		return unsafe.String(&v[0], len(v))
	}
	out := make([]Event, 0, len(items)-int(pk.limit_error_count))
	var errs []error
	ev, free := 0, packedLen
	for i := range items {
		it := &items[i]
		switch it.kind {
		case C.A2A_SSE_ITEM_KIND_EVENT:
			k := 3 * ev
			ev++
			out = append(out, Event{Kind: KindEvent, Type: str(k), Data: value(k + 1), ID: str(k + 2)})
		case C.A2A_SSE_ITEM_KIND_COMMENT:
			if eventsOnly {
				continue
			}
			n := copy(buf[free:], unsafe.Slice((*byte)(unsafe.Pointer(it.data.ptr)), int(it.data.len)))
			out = append(out, Event{Kind: KindComment, Data: buf[free : free+n : free+n]})
			free += n
		case C.A2A_SSE_ITEM_KIND_RETRY:
			if eventsOnly {
				continue
			}
			out = append(out, Event{Kind: KindRetry, RetryMS: uint64(it.retry_ms)})
		case C.A2A_SSE_ITEM_KIND_LIMIT_ERROR:
			errs = append(errs, &LimitError{Code: Code(it.error), Limit: int(it.limit)})
		}
	}
	if len(out) == 0 {
		out = nil
	}
	return out, errors.Join(errs...)
}

// Discarded describes what the WHATWG end-of-stream rule dropped.
type Discarded struct {
	PartialLine int  // bytes after the last line terminator
	Event       bool // a blank line there would have dispatched an event
	ID          bool // the dropped block set an event ID that was not committed
}

// FinishReport is what Finish did at the end of the body.
type FinishReport struct {
	Event     *Event      // with DispatchAtEOF: the unterminated block, dispatched
	Discarded *Discarded  // without it: what was dropped (nil for a clean end)
	Err       *LimitError // with DispatchAtEOF: the last line went over the limit
}

// Finish ends the stream (end of the response body). The decoder is then ready for a new
// stream; the last event ID and retry value are kept.
func (d *Decoder) Finish() (FinishReport, error) {
	if d.h == nil {
		return FinishReport{}, ErrClosed
	}
	var f C.struct_a2a_sse_finish
	if r := C.a2a_sse_decoder_finish(d.h, &f); r != C.A2A_OK {
		return FinishReport{}, mkErr("Decoder.Finish", r, C.a2a_sse_decoder_last_error(d.h))
	}
	var rep FinishReport
	if f.has_event {
		rep.Event = &Event{Kind: KindEvent, Type: string(goBytes(f.event.event_type)),
			Data: goBytes(f.event.data), ID: string(goBytes(f.event.id))}
		if rep.Event.Data == nil {
			rep.Event.Data = []byte{}
		}
	}
	if f.discarded {
		rep.Discarded = &Discarded{PartialLine: int(f.discarded_partial_line),
			Event: bool(f.discarded_event), ID: bool(f.discarded_id)}
	}
	if f.error != C.A2A_OK {
		rep.Err = &LimitError{Code: Code(f.error), Limit: int(f.limit)}
	}
	return rep, nil
}

// LastEventID is the ID to send as Last-Event-ID when reconnecting ("" when none).
func (d *Decoder) LastEventID() string {
	if d.h == nil {
		return ""
	}
	return string(goBytes(C.a2a_sse_decoder_last_event_id(d.h)))
}

// SetLastEventID sets the last event ID (e.g. one persisted by an earlier process).
func (d *Decoder) SetLastEventID(id string) error {
	if d.h == nil {
		return ErrClosed
	}
	p, n := cText(id)
	if r := C.a2a_sse_decoder_set_last_event_id(d.h, (*C.uint8_t)(unsafe.Pointer(p)), n); r != C.A2A_OK {
		return mkErr("Decoder.SetLastEventID", r, C.a2a_sse_decoder_last_error(d.h))
	}
	return nil
}

// Retry is the last valid retry value (ms) seen on any stream of this decoder.
func (d *Decoder) Retry() (ms uint64, ok bool) {
	if d.h == nil {
		return 0, false
	}
	var out C.uint64_t
	if C.a2a_sse_decoder_retry(d.h, &out) {
		return uint64(out), true
	}
	return 0, false
}

// ResetForReconnect forgets the stream in progress for a new connection, keeping the
// last event ID and the retry value.
func (d *Decoder) ResetForReconnect() error {
	if d.h == nil {
		return ErrClosed
	}
	if r := C.a2a_sse_decoder_reset_for_reconnect(d.h); r != C.A2A_OK {
		return codeErr("Decoder.ResetForReconnect", r)
	}
	return nil
}

// Encoder writes an event stream into a buffer it owns (the server side).
type Encoder struct {
	owned[*C.a2a_sse_encoder]
}

// NewEncoder returns an encoder with an empty buffer.
func NewEncoder() (*Encoder, error) {
	var h *C.a2a_sse_encoder
	if r := C.a2a_sse_encoder_new(&h); r != C.A2A_OK {
		return nil, codeErr("NewEncoder", r)
	}
	e := &Encoder{}
	own(e, &e.owned, h, func(h *C.a2a_sse_encoder) { C.a2a_sse_encoder_free(h) })
	return e, nil
}

// OutEvent is one event to write. Empty Type writes no event: line; ID nil writes no id:
// line (a pointer to "" resets the client's last event ID); Retry nil writes no retry:.
type OutEvent struct {
	Data  []byte
	Type  string
	ID    *string
	Retry *uint64
}

// Event appends one event; nothing is appended on error.
func (e *Encoder) Event(ev OutEvent) error {
	if e.h == nil {
		return ErrClosed
	}
	dp, dn := cBytes(ev.Data)
	tp, tn := cText(ev.Type)
	var ip *C.char
	var in C.size_t
	if ev.ID != nil {
		ip, in = cText(*ev.ID)
	}
	var retry C.uint64_t
	if ev.Retry != nil {
		retry = C.uint64_t(*ev.Retry)
	}
	r := C.a2a_sse_encoder_event(e.h, dp, dn, (*C.uint8_t)(unsafe.Pointer(tp)), tn,
		C.bool(ev.ID != nil), (*C.uint8_t)(unsafe.Pointer(ip)), in, C.bool(ev.Retry != nil), retry)
	runtime.KeepAlive(ev)
	if r != C.A2A_OK {
		return mkErr("Encoder.Event", r, C.a2a_sse_encoder_last_error(e.h))
	}
	return nil
}

// Comment appends a comment (a line break starts another comment line).
func (e *Encoder) Comment(text string) error {
	if e.h == nil {
		return ErrClosed
	}
	p, n := cText(text)
	if r := C.a2a_sse_encoder_comment(e.h, (*C.uint8_t)(unsafe.Pointer(p)), n); r != C.A2A_OK {
		return mkErr("Encoder.Comment", r, C.a2a_sse_encoder_last_error(e.h))
	}
	return nil
}

// KeepAlive appends ": keep-alive" and a blank line.
func (e *Encoder) KeepAlive() error {
	if e.h == nil {
		return ErrClosed
	}
	if r := C.a2a_sse_encoder_keep_alive(e.h); r != C.A2A_OK {
		return codeErr("Encoder.KeepAlive", r)
	}
	return nil
}

// Bytes returns a copy of everything written since creation or the last Clear.
func (e *Encoder) Bytes() []byte {
	if e.h == nil {
		return nil
	}
	b := goBytes(C.a2a_sse_encoder_output(e.h))
	if b == nil {
		b = []byte{}
	}
	return b
}

// Clear empties the buffer (e.g. after the bytes were sent).
func (e *Encoder) Clear() error {
	if e.h == nil {
		return ErrClosed
	}
	if r := C.a2a_sse_encoder_clear(e.h); r != C.A2A_OK {
		return codeErr("Encoder.Clear", r)
	}
	return nil
}
