package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"encoding/json"
	"runtime"
	"strings"
	"time"
	"unsafe"
)

// Asked is what the caller asked; every part is optional (zero: detect from the body).
type Asked struct {
	Version   ProtocolVersion // 0 when unknown
	Binding   Binding         // 0 when unknown
	Method    string          // JSON-RPC method or REST path ("" when unknown: a send is assumed)
	RequestID string          // JSON-RPC id as text (a string id's contents or a number's digits)
}

// Response is one complete HTTP response to classify.
type Response struct {
	Status      int
	ContentType string // the Content-Type header ("" when absent)
	RetryAfter  string // the Retry-After header ("" when absent)
	Body        []byte
	Asked       Asked
	// Now is the caller's wall clock, needed only to turn a Retry-After HTTP-date (any of
	// the three RFC 9110 forms) into Outcome.RetryAfter; the zero Time means no clock.
	Now time.Time
}

// RemoteHintPair is one key=value pair of the remote's stable hint ("[retryable=false; ...]").
type RemoteHintPair struct{ Key, Value string }

// Outcome is the outcome of one A2A call: exactly one channel, the details it carries and
// what to do next. The exported fields are copies (named like the `a2a classify --json`
// keys) and stay readable after Close; copies of an Outcome share its handle. An Outcome returned by Classify, by a tracker's
// Finish/OnTimeout/OnNonSSEBody or by NewTransportOutcome also owns the library's outcome
// handle, which Tally.Record (and the resilience calls) read; Close frees it.
type Outcome struct {
	Channel     Channel
	HTTPStatus  *int
	Code        *int64
	Error       ErrorName // 0 when the outcome is no error
	Reason      *string   // ErrorInfo reason
	Message     *string   // protocol or transport error message
	Data        *string   // JSON-RPC error.data or REST details, raw JSON text
	State       *TaskState
	Terminal    bool
	TaskID      *string
	ContextID   *string
	Text        *string // the status message text, or the direct message's text
	ErrorID     *string // the remote's 12-hex error_id
	Retry       Retry
	RetryAfter  *time.Duration // from Retry-After (delta-seconds, or an HTTP-date with Response.Now)
	Hint        *string        // version-mismatch or other hint
	Retryable   *bool          // the remote hint's retryable flag
	RemoteHint  []RemoteHintPair
	RequestSent RequestSent     // transport channel only
	Version     ProtocolVersion // as read (0: unknown)
	Binding     Binding         // as read (0: unknown)
	BodyExcerpt *string         // bounded excerpt of a non-JSON or unexpected body
	Success     bool            // a completed task or a direct message
	// LeakedDetail: a FAILED status text carries exception detail beyond its error id
	// (ADK's debug errors); ModelText then carries only the error id.
	LeakedDetail bool
	// CancelOrigin of a CANCELED task: "requested" (this client sent CancelTask, or the
	// server marked it so), "remote" or "admission" (the server's marker); nil otherwise.
	CancelOrigin *string
	// ExitCode is the exit status the `a2a` command-line tool gives this outcome (the
	// `exit_code` column of outcomes.json): 0 success, 3 transport, HTTP or malformed,
	// 4 protocol error, 5 FAILED task, 6 CANCELED, REJECTED, INPUT_REQUIRED or
	// AUTH_REQUIRED task, 7 a task not in a final state.
	ExitCode int
	// Result is the agent's answer, typed: the task or message a client send, get or
	// cancel returned; a stream item's event; a stream end's assembled answer. nil for
	// other outcomes.
	Result *Answer

	ref *outcomeRef // the library's handle, shared by copies of this Outcome
}

// outcomeRef owns one library outcome; a cleanup frees it if Close was never called.
type outcomeRef struct {
	h        *C.a2a_outcome
	call     *C.a2a_call // when set, h is the call's FINISHED outcome: freeing the call frees it
	borrowed bool        // owned by a stream handle, which invalidates it; never freed here
	cleanup  runtime.Cleanup
}

// outcomeHTTPStatus is a library outcome's HTTP status, 0 when it has none.
func outcomeHTTPStatus(h *C.a2a_outcome) int {
	var in C.struct_a2a_outcome_info
	if C.a2a_outcome_get_info(h, &in) != C.A2A_OK || !in.has_http_status {
		return 0
	}
	return int(in.http_status)
}

// readOutcome copies every field of a library outcome into Go memory: one
// a2a_outcome_get_info call for all of them (a cgo call per field cost more than the rest
// of the copy), then the remote hint's pairs, if any. The optional texts and the answer's
// JSON are copied into one Go string, and the texts and optional numbers the pointer
// fields point to share one outcomeBoxes: two allocations for all of them instead of two
// per text and one per number (the strings keep that one copy alive together; it is no
// larger than the texts and the answer's JSON).
func readOutcome(h *C.a2a_outcome) Outcome {
	return readOutcomeInfo(h, nil)
}

// readOutcomeInfo is readOutcome with the info struct at buf (C memory the caller owns), or
// in Go memory when buf is nil.
func readOutcomeInfo(h *C.a2a_outcome, buf *C.struct_a2a_outcome_info) Outcome {
	if buf == nil {
		buf = new(C.struct_a2a_outcome_info)
	}
	if C.a2a_outcome_get_info(h, buf) != C.A2A_OK {
		panic("a2a: a2a_outcome_get_info refused a live outcome")
	}
	in := buf
	views := [...]C.struct_a2a_str{in.reason, in.message, in.data, in.task_id, in.context_id,
		in.text, in.error_id, in.hint, in.body_excerpt, in.cancel_origin, in.result_json}
	const nTexts = len(views) - 1 // the last, result_json, is read into Result
	total, present := 0, 0
	for _, v := range views {
		if v.ptr != nil {
			total += int(v.len)
			present++
		}
	}
	var all string
	if total > 0 {
		buf := make([]byte, 0, total)
		for _, v := range views {
			if v.ptr != nil && v.len > 0 {
				buf = append(buf, unsafe.Slice((*byte)(unsafe.Pointer(v.ptr)), int(v.len))...)
			}
		}
		all = unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is never written again
	}
	// The texts and the optional numbers the Outcome's pointer fields point to, in one
	// allocation (when any is present).
	var box *outcomeBoxes
	if present > 0 || in.has_http_status || in.has_code || in.has_state || in.has_retry_after_secs ||
		in.has_remote_hint_retryable {
		box = new(outcomeBoxes)
	}
	var texts [nTexts + 1]*string
	off, k := 0, 0
	for i, v := range views {
		if v.ptr == nil {
			continue
		}
		box.strs[k] = all[off : off+int(v.len)]
		off += int(v.len)
		texts[i] = &box.strs[k]
		k++
	}
	var result *Answer
	if texts[nTexts] != nil {
		result = readResultJSON(in.result_json, *texts[nTexts])
	}
	o := Outcome{
		Channel:      Channel(in.channel),
		Success:      bool(in.is_success),
		Reason:       texts[0],
		Message:      texts[1],
		Data:         texts[2],
		TaskID:       texts[3],
		ContextID:    texts[4],
		Text:         texts[5],
		ErrorID:      texts[6],
		Hint:         texts[7],
		BodyExcerpt:  texts[8],
		Terminal:     bool(in.terminal),
		Retry:        Retry(in.retry),
		ExitCode:     int(in.exit_code),
		Result:       result,
		LeakedDetail: bool(in.leaked_detail),
		CancelOrigin: texts[9],
	}
	if in.has_http_status {
		box.httpStatus = int(in.http_status)
		o.HTTPStatus = &box.httpStatus
	}
	if in.has_code {
		box.code = int64(in.code)
		o.Code = &box.code
	}
	if in.has_error_name {
		o.Error = ErrorName(in.error_name)
	}
	if in.has_state {
		box.state = TaskState(in.state)
		o.State = &box.state
	}
	if in.has_retry_after_secs {
		box.retryAfter = time.Duration(in.retry_after_secs) * time.Second
		o.RetryAfter = &box.retryAfter
	}
	if in.has_remote_hint_retryable {
		box.retryable = bool(in.remote_hint_retryable)
		o.Retryable = &box.retryable
	}
	if n := int(in.remote_hint_count); n > 0 {
		o.RemoteHint = make([]RemoteHintPair, 0, n)
		for i := range n {
			var k, v C.struct_a2a_str
			if C.a2a_outcome_remote_hint_pair(h, C.size_t(i), &k, &v) == C.A2A_OK {
				o.RemoteHint = append(o.RemoteHint, RemoteHintPair{goStr(k), goStr(v)})
			}
		}
	}
	if in.has_request_sent {
		o.RequestSent = RequestSent(in.request_sent)
	}
	if in.has_version {
		o.Version = ProtocolVersion(in.version)
	}
	if in.has_binding {
		o.Binding = Binding(in.binding)
	}
	return o
}

// outcomeBoxes is what an Outcome's pointer fields point to (its texts, its optional
// numbers): one allocation for all of them instead of one each.
type outcomeBoxes struct {
	strs       [11]string // the present texts, in the order of readOutcomeInfo's views
	httpStatus int
	code       int64
	state      TaskState
	retryAfter time.Duration
	retryable  bool
}

// ownOutcome copies an owned library outcome and keeps the handle in the result.
func ownOutcome(h *C.a2a_outcome) *Outcome {
	o := readOutcome(h)
	o.ref = &outcomeRef{h: h}
	o.ref.cleanup = runtime.AddCleanup(o.ref, func(h *C.a2a_outcome) { C.a2a_outcome_free(h) }, h)
	return &o
}

// keepCall gives o, the copy of call's FINISHED outcome h, that handle: o keeps the call
// (and frees it with itself), so that the handle stays valid as an owned outcome's would.
func (o *Outcome) keepCall(h *C.a2a_outcome, call *C.a2a_call) {
	o.ref = &outcomeRef{h: h, call: call}
	o.ref.cleanup = runtime.AddCleanup(o.ref, func(call *C.a2a_call) { C.a2a_call_free(call) }, call)
}

// Close frees the library's outcome handle (the fields stay readable). Calling it twice,
// or on an Outcome without a handle, is harmless.
func (o *Outcome) Close() error {
	if o.ref != nil && o.ref.h != nil && !o.ref.borrowed {
		o.ref.cleanup.Stop()
		if o.ref.call != nil {
			C.a2a_call_free(o.ref.call)
			o.ref.call = nil
		} else {
			C.a2a_outcome_free(o.ref.h)
		}
		o.ref.h = nil
	}
	return nil
}

// handle returns the live handle or ErrClosed (also for outcomes copied from stream items,
// which never own one).
func (o *Outcome) handle() (*C.a2a_outcome, error) {
	if o == nil || o.ref == nil || o.ref.h == nil {
		return nil, ErrClosed
	}
	return o.ref.h, nil
}

// Classify classifies one complete response into exactly one outcome. The body may be
// any bytes (invalid JSON is a classification, not an error); errors are for invalid
// arguments (a header, method or request id that is not UTF-8, an unknown enum number).
func Classify(r Response) (*Outcome, error) {
	if r.Status < 0 || r.Status > 0xFFFF {
		return nil, &Error{Op: "Classify", Code: CodeInvalidArgument, Detail: "status out of range"}
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var resp C.struct_a2a_response
	fillResponse(&pin, &resp, &r)
	fillAsked(&pin, &resp.asked, &r.Asked)
	var h *C.a2a_outcome
	if rc := C.a2a_classify(&resp, &h); rc != C.A2A_OK {
		return nil, codeErr("Classify", rc)
	}
	return ownOutcome(h), nil
}

func fillResponse(pin *runtime.Pinner, resp *C.struct_a2a_response, r *Response) {
	resp.status = C.uint16_t(r.Status)
	resp.content_type, resp.content_type_len = pinText(pin, r.ContentType)
	resp.retry_after, resp.retry_after_len = pinText(pin, r.RetryAfter)
	resp.body, resp.body_len = pinBytes(pin, r.Body)
	resp.now_unix_seconds = 0 // no clock
	if !r.Now.IsZero() && r.Now.Unix() > 0 {
		resp.now_unix_seconds = C.uint64_t(r.Now.Unix())
	}
}

func fillAsked(pin *runtime.Pinner, a *C.struct_a2a_asked, asked *Asked) {
	a.version = C.uint32_t(asked.Version)
	a.binding = C.uint32_t(asked.Binding)
	a.method, a.method_len = pinText(pin, asked.Method)
	a.request_id, a.request_id_len = pinText(pin, asked.RequestID)
}

// NewTransportOutcome builds a transport-channel outcome for a call that produced no HTTP
// response (error is one of the transport names, NameConnectFailed ... NameTLS).
func NewTransportOutcome(name ErrorName, sent RequestSent, message string) (*Outcome, error) {
	p, n := cText(message)
	var h *C.a2a_outcome
	if r := C.a2a_outcome_transport(C.uint32_t(name), C.uint32_t(sent), p, n, &h); r != C.A2A_OK {
		return nil, codeErr("NewTransportOutcome", r)
	}
	return ownOutcome(h), nil
}

// cliJSON is the `a2a classify --json` object, keys in the CLI's order.
type cliJSON struct {
	Channel    string  `json:"channel"`
	HTTPStatus *int    `json:"http_status"`
	Code       *int64  `json:"code"`
	Error      *string `json:"error"`
	Reason     *string `json:"reason"`
	Message    *string `json:"message"`
	State      *string `json:"state"`
	Terminal   bool    `json:"terminal"`
	TaskID     *string `json:"task_id"`
	ContextID  *string `json:"context_id"`
	Text       *string `json:"text"`
	ErrorID    *string `json:"error_id"`
	Retry      string  `json:"retry"`
	Hint       *string `json:"hint"`
	// RemoteHint is the pairs as one object in the remote's order (first of a repeated key).
	RemoteHint   json.RawMessage `json:"remote_hint"`
	LeakedDetail bool            `json:"leaked_detail"`
	CancelOrigin *string         `json:"cancel_origin"`
}

// remoteHintJSON writes the remote hint's pairs as one JSON object in order, keeping the
// first of a repeated key (as the CLI does); null when there is no hint.
func remoteHintJSON(pairs []RemoteHintPair) json.RawMessage {
	if len(pairs) == 0 {
		return json.RawMessage("null")
	}
	var b strings.Builder
	b.WriteByte('{')
	seen := map[string]bool{}
	for _, p := range pairs {
		if seen[p.Key] {
			continue
		}
		if len(seen) > 0 {
			b.WriteByte(',')
		}
		seen[p.Key] = true
		k, _ := json.Marshal(p.Key)
		v, _ := json.Marshal(p.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// MarshalJSON writes the object `a2a classify --json` prints (the same keys, null for
// absent values).
func (o *Outcome) MarshalJSON() ([]byte, error) {
	j := cliJSON{
		Channel: o.Channel.String(), HTTPStatus: o.HTTPStatus, Code: o.Code,
		Reason: o.Reason, Message: o.Message, Terminal: o.Terminal, TaskID: o.TaskID,
		ContextID: o.ContextID, Text: o.Text, ErrorID: o.ErrorID, Retry: o.Retry.String(),
		Hint: o.Hint, RemoteHint: remoteHintJSON(o.RemoteHint), LeakedDetail: o.LeakedDetail,
		CancelOrigin: o.CancelOrigin,
	}
	if o.Error != 0 {
		s := o.Error.String()
		j.Error = &s
	}
	if o.State != nil {
		s := o.State.String()
		j.State = &s
	}
	return json.Marshal(j)
}

// Err is nil when the outcome is a success (exit code 0: a completed task, a direct
// message, an answered read) and otherwise an *OutcomeError wrapping it, for the usual
// `if err := o.Err(); err != nil`. A nil Outcome has no error.
func (o *Outcome) Err() error {
	if o == nil || o.ExitCode == 0 {
		return nil
	}
	return &OutcomeError{Outcome: o}
}

// The optional fields as (value, ok) pairs, safe on a nil Outcome: ok is false when the
// outcome does not carry the field (the pointer field is nil).

func optOf[T any](o *Outcome, f func(*Outcome) *T) (T, bool) {
	var zero T
	if o == nil {
		return zero, false
	}
	if p := f(o); p != nil {
		return *p, true
	}
	return zero, false
}

// GetHTTPStatus is the response's HTTP status, if one arrived.
func (o *Outcome) GetHTTPStatus() (int, bool) {
	return optOf(o, func(o *Outcome) *int { return o.HTTPStatus })
}

// GetCode is the protocol error's code (JSON-RPC or the REST mapping), if any.
func (o *Outcome) GetCode() (int64, bool) {
	return optOf(o, func(o *Outcome) *int64 { return o.Code })
}

// GetState is the task's state, if the answer was a task or a task event.
func (o *Outcome) GetState() (TaskState, bool) {
	return optOf(o, func(o *Outcome) *TaskState { return o.State })
}

// GetMessage is the protocol or transport error's message, if any.
func (o *Outcome) GetMessage() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.Message })
}

// GetReason is the ErrorInfo reason, if any.
func (o *Outcome) GetReason() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.Reason })
}

// GetData is the error's data as raw JSON text, if any.
func (o *Outcome) GetData() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.Data })
}

// GetTaskID is the task's id, if the answer named one.
func (o *Outcome) GetTaskID() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.TaskID })
}

// GetContextID is the context's id, if the answer named one.
func (o *Outcome) GetContextID() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.ContextID })
}

// GetText is the status message's or the direct message's text, if any.
func (o *Outcome) GetText() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.Text })
}

// GetErrorID is the remote's 12-hex error_id, if its text carried one.
func (o *Outcome) GetErrorID() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.ErrorID })
}

// GetRetryAfter is the Retry-After the response asked for, if any.
func (o *Outcome) GetRetryAfter() (time.Duration, bool) {
	return optOf(o, func(o *Outcome) *time.Duration { return o.RetryAfter })
}

// GetHint is the version-mismatch or other hint, if any.
func (o *Outcome) GetHint() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.Hint })
}

// GetRetryable is the remote hint's retryable flag, if it gave one.
func (o *Outcome) GetRetryable() (bool, bool) {
	return optOf(o, func(o *Outcome) *bool { return o.Retryable })
}

// GetBodyExcerpt is the bounded excerpt of a non-JSON or unexpected body, if any.
func (o *Outcome) GetBodyExcerpt() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.BodyExcerpt })
}

// GetCancelOrigin is who canceled a CANCELED task ("requested", "remote", "admission"), if known.
func (o *Outcome) GetCancelOrigin() (string, bool) {
	return optOf(o, func(o *Outcome) *string { return o.CancelOrigin })
}
