package a2a

/*
#include "a2a_core.h"
*/
import "C"

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
// handle (it cannot be passed to Tally.Record; the stream's end outcome can).
type StreamItem struct {
	Kind       StreamItemKind
	Outcome    Outcome
	Final      *bool   // the 0.3 `final` flag of a status update, when present
	ArtifactID *string // artifact updates
	Append     bool    // artifact updates
	LastChunk  bool    // artifact updates
	EndsStream bool    // this item ends the interaction
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
