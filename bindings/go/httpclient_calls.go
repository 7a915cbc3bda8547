package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"
)

// The HTTPClient calls beyond text: messages of any parts, resubscribing, listing tasks,
// push-notification configs and the extended card. Each runs on the library's client
// machine (a2a_call_new with the method and its params); the answers the machine does not
// type (task lists, push configs, cards) are read here from the response's body.

// newUUID is a random (version 4) UUID, the messageId of a message sent without one.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// wirePart is a part as a request's params carry it (the machine writes it in the
// target's version and binding).
func wirePart(p Part) (map[string]any, error) {
	w := map[string]any{}
	switch {
	case p.Kind == "text":
		w["kind"], w["text"] = "text", p.Text
	case p.Kind == "data":
		w["kind"], w["data"] = "data", p.Data
	case p.Kind == "file" && p.URI != "":
		w["kind"], w["url"] = "file", p.URI
	case p.Kind == "file":
		w["kind"], w["raw"] = "file", base64.StdEncoding.EncodeToString(p.Bytes)
	default:
		return nil, &Error{Op: "HTTPClient.SendMessage", Code: CodeAnswerMessage,
			Detail: fmt.Sprintf("part kind %q is not text, data or file", p.Kind)}
	}
	if p.MediaType != "" {
		w["mediaType"] = p.MediaType
	}
	if p.Name != "" {
		w["filename"] = p.Name
	}
	if p.Metadata != nil {
		w["metadata"] = p.Metadata
	}
	return w, nil
}

// sendParams are the params of a send: the user message (a fresh messageId unless the
// options name one) and the options' history length.
func sendParams(parts []Part, metadata map[string]any, opts *HTTPCallOptions) (map[string]any, error) {
	if len(parts) == 0 {
		return nil, ErrNothingToSend
	}
	wire := make([]any, 0, len(parts))
	for _, p := range parts {
		w, err := wirePart(p)
		if err != nil {
			return nil, err
		}
		wire = append(wire, w)
	}
	msg := map[string]any{"role": "user", "parts": wire, "messageId": newUUID()}
	if metadata != nil {
		msg["metadata"] = metadata
	}
	params := map[string]any{"message": msg}
	if opts != nil {
		if opts.MessageID != "" {
			msg["messageId"] = opts.MessageID
		}
		if opts.ContextID != "" {
			msg["contextId"] = opts.ContextID
		}
		if opts.TaskID != "" {
			msg["taskId"] = opts.TaskID
		}
		if opts.HistoryLength != nil {
			params["configuration"] = map[string]any{"historyLength": *opts.HistoryLength}
		}
	}
	return params, nil
}

// newCall starts a call of method m with params (nil: none) on the client's state.
func (c *HTTPClient) newCall(ctx context.Context, op string, m Method, params any, opts *HTTPCallOptions) (*C.a2a_call, error) {
	if c.state == nil {
		return nil, ErrClosed
	}
	c.called.Store(true)
	var body []byte
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		body = b
	}
	s, err := c.newCallSettings(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer C.a2a_call_settings_free(s)
	p, n := cBytes(body)
	var call *C.a2a_call
	if r := C.a2a_call_new(c.state, C.uint32_t(m), p, n, s, C.uint64_t(nowMs()), &call); r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	return call, nil
}

// run makes a non-streaming call and drives it to its end.
func (c *HTTPClient) run(ctx context.Context, op string, m Method, params any, opts *HTTPCallOptions) (driveResult, error) {
	return c.runAuthed(ctx, true, func() (*C.a2a_call, error) { return c.newCall(ctx, op, m, params, opts) })
}

// SendMessage sends a user message of any parts (TextPart, DataPart, FilePart,
// FileURIPart) with optional message metadata, as SendText: the error is nil only for a
// success, and the answer is the outcome's Result. opts.ContextID and opts.TaskID
// continue a conversation or a task waiting for input.
func (c *HTTPClient) SendMessage(ctx context.Context, parts []Part, metadata map[string]any, opts *HTTPCallOptions) (*Outcome, error) {
	params, err := sendParams(parts, metadata, opts)
	if err != nil {
		return nil, err
	}
	res, err := c.run(ctx, "HTTPClient.SendMessage", MethodSendMessage, params, opts)
	return res.outcome, err
}

// StreamMessage sends a user message of any parts as a stream; as Stream.
func (c *HTTPClient) StreamMessage(ctx context.Context, parts []Part, metadata map[string]any, opts *HTTPCallOptions) iter.Seq2[StreamEvent, error] {
	return c.streamOf(ctx, func() (*C.a2a_call, error) {
		params, err := sendParams(parts, metadata, opts)
		if err != nil {
			return nil, err
		}
		return c.newCall(ctx, "HTTPClient.StreamMessage", MethodSendStreamingMessage, params, opts)
	})
}

// Resubscribe streams a task's events again (SubscribeToTask; 0.3 tasks/resubscribe):
// what the agent replays, then the task live, to its end; as Stream.
func (c *HTTPClient) Resubscribe(ctx context.Context, taskID string, opts *HTTPCallOptions) iter.Seq2[StreamEvent, error] {
	return c.streamOf(ctx, func() (*C.a2a_call, error) {
		return c.newCall(ctx, "HTTPClient.Resubscribe", MethodSubscribeToTask, map[string]any{"id": taskID}, opts)
	})
}

// result is the answer of a response body that succeeded: the JSON-RPC envelope's result,
// or the HTTP+JSON body itself. The envelope is recognised by its content ("jsonrpc":
// "2.0"), as the Python and Java bindings do, not by the binding chosen at open: an
// adopted extended card may name an interface of the other binding.
func (c *HTTPClient) result(op string, body []byte) (json.RawMessage, error) {
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		if c.binding != JSON_RPC {
			return body, nil
		}
		return nil, fmt.Errorf("a2a: %s: the answer is not JSON-RPC: %w", op, err)
	}
	if env.JSONRPC == "2.0" {
		return env.Result, nil
	}
	return body, nil
}

// ListTasksRequest filters and pages ListTasks (every field optional; protocol 1.0 only:
// a 0.3 agent has no such method, and the call fails unsent).
type ListTasksRequest struct {
	ContextID string
	Status    TaskState // 0: any state
	PageSize  int       // 0: the agent's default (50); at most 100
	PageToken string    // the previous page's NextPageToken
	// HistoryLength asks for that many history messages per task (nil: the agent's choice).
	HistoryLength *int
	// StatusTimestampAfter keeps only tasks whose status changed after it (zero: no filter).
	StatusTimestampAfter time.Time
	IncludeArtifacts     bool
}

// TaskPage is one page of ListTasks.
type TaskPage struct {
	Tasks         []*Task
	NextPageToken string // "" on the last page
	PageSize      int
	TotalSize     int
}

// wireState is a task state's 1.0 enum name (TASK_STATE_INPUT_REQUIRED).
func wireState(s TaskState) string {
	return "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(s.String(), "-", "_"))
}

// ListTasks reads one page of the agent's tasks. Every task is read as a GetTask answer
// would be (the same Task type). The error is nil only for a success; otherwise an
// *OutcomeError (a 0.3 agent: transport/InvalidRequest, nothing sent).
func (c *HTTPClient) ListTasks(ctx context.Context, req *ListTasksRequest, opts *HTTPCallOptions) (*TaskPage, error) {
	params := map[string]any{}
	if req != nil {
		if req.ContextID != "" {
			params["contextId"] = req.ContextID
		}
		if req.Status != 0 {
			params["status"] = wireState(req.Status)
		}
		if req.PageSize != 0 {
			params["pageSize"] = req.PageSize
		}
		if req.PageToken != "" {
			params["pageToken"] = req.PageToken
		}
		if req.HistoryLength != nil {
			params["historyLength"] = *req.HistoryLength
		}
		if !req.StatusTimestampAfter.IsZero() {
			params["statusTimestampAfter"] = req.StatusTimestampAfter.UTC().Format(time.RFC3339Nano)
		}
		if req.IncludeArtifacts {
			params["includeArtifacts"] = true
		}
	}
	res, err := c.run(ctx, "HTTPClient.ListTasks", MethodListTasks, params, opts)
	if err != nil {
		return nil, err
	}
	raw, err := c.result("ListTasks", res.body)
	if err != nil {
		return nil, err
	}
	var page struct {
		Tasks         []json.RawMessage `json:"tasks"`
		NextPageToken string            `json:"nextPageToken"`
		PageSize      int               `json:"pageSize"`
		TotalSize     int               `json:"totalSize"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, fmt.Errorf("a2a: ListTasks: the answer does not read: %w", err)
	}
	out := &TaskPage{NextPageToken: page.NextPageToken, PageSize: page.PageSize, TotalSize: page.TotalSize}
	for i, t := range page.Tasks {
		// A listed task is a 1.0 Task object: the HTTP+JSON GetTask answer's shape.
		a, err := ReadAnswer(t, V1_0, HTTP_JSON, false)
		if err != nil || a == nil || a.Task == nil {
			return nil, fmt.Errorf("a2a: ListTasks: task %d does not read: %v", i, err)
		}
		out.Tasks = append(out.Tasks, a.Task)
	}
	return out, nil
}

// AllTasks ranges over every task ListTasks finds, page after page (req.PageToken is the
// first page's; nil: from the start), stopping at the first error (yielded with a nil
// task). Breaking out of the loop stops fetching.
func (c *HTTPClient) AllTasks(ctx context.Context, req *ListTasksRequest, opts *HTTPCallOptions) iter.Seq2[*Task, error] {
	return func(yield func(*Task, error) bool) {
		var r ListTasksRequest
		if req != nil {
			r = *req
		}
		for {
			page, err := c.ListTasks(ctx, &r, opts)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, t := range page.Tasks {
				if !yield(t, nil) {
					return
				}
			}
			if page.NextPageToken == "" || page.NextPageToken == r.PageToken {
				return
			}
			r.PageToken = page.NextPageToken
		}
	}
}

// PushAuthentication is how the agent authenticates to a push-notification URL.
type PushAuthentication struct {
	Schemes     []string // e.g. "Bearer"
	Credentials string
}

// PushConfig is a task's push-notification config: where the agent posts the task's
// updates. TaskID and ID name it; URL is required to create one.
type PushConfig struct {
	TaskID         string
	ID             string
	URL            string
	Token          string
	Authentication *PushAuthentication
}

type pushAuthJSON struct {
	Schemes     []string `json:"schemes,omitempty"`
	Scheme      string   `json:"scheme,omitempty"` // 1.0 writes one scheme
	Credentials string   `json:"credentials,omitempty"`
}

type pushConfigJSON struct {
	ID             string        `json:"id,omitempty"`
	URL            string        `json:"url,omitempty"`
	Token          string        `json:"token,omitempty"`
	Authentication *pushAuthJSON `json:"authentication,omitempty"`
}

// taskPushJSON is every shape a push config comes back in: 1.0 flat ({id, taskId, url,
// ...}), nested ({taskId, pushNotificationConfig}) and 0.3 REST ({name, ...}).
type taskPushJSON struct {
	pushConfigJSON
	TaskID string          `json:"taskId"`
	Name   string          `json:"name"`
	Nested *pushConfigJSON `json:"pushNotificationConfig"`
}

func (j *taskPushJSON) config() PushConfig {
	src := j.pushConfigJSON
	if j.Nested != nil {
		src = *j.Nested
	}
	pc := PushConfig{TaskID: j.TaskID, ID: src.ID, URL: src.URL, Token: src.Token}
	if pc.TaskID == "" && strings.HasPrefix(j.Name, "tasks/") { // tasks/{task}/pushNotificationConfigs/{id}
		rest := strings.TrimPrefix(j.Name, "tasks/")
		pc.TaskID, _, _ = strings.Cut(rest, "/")
		if pc.ID == "" {
			if i := strings.LastIndex(rest, "/"); i >= 0 {
				pc.ID = rest[i+1:]
			}
		}
	}
	if a := src.Authentication; a != nil {
		pa := &PushAuthentication{Schemes: a.Schemes, Credentials: a.Credentials}
		if len(pa.Schemes) == 0 && a.Scheme != "" {
			pa.Schemes = []string{a.Scheme}
		}
		pc.Authentication = pa
	}
	return pc
}

func (c *HTTPClient) readPushConfig(op string, body []byte) (*PushConfig, error) {
	raw, err := c.result(op, body)
	if err != nil {
		return nil, err
	}
	var j taskPushJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("a2a: %s: the answer does not read: %w", op, err)
	}
	pc := j.config()
	return &pc, nil
}

// CreateTaskPushConfig asks the agent to post a task's updates to cfg.URL (0.3
// tasks/pushNotificationConfig/set) and returns the config as the agent stored it. An
// agent without push notifications answers PushNotificationNotSupported (the error).
func (c *HTTPClient) CreateTaskPushConfig(ctx context.Context, cfg PushConfig, opts *HTTPCallOptions) (*PushConfig, error) {
	params := map[string]any{"taskId": cfg.TaskID, "url": cfg.URL}
	if cfg.ID != "" {
		params["id"] = cfg.ID
	}
	if cfg.Token != "" {
		params["token"] = cfg.Token
	}
	if a := cfg.Authentication; a != nil {
		params["authentication"] = pushAuthJSON{Schemes: a.Schemes, Credentials: a.Credentials}
	}
	res, err := c.run(ctx, "HTTPClient.CreateTaskPushConfig", MethodCreatePushConfig, params, opts)
	if err != nil {
		return nil, err
	}
	return c.readPushConfig("CreateTaskPushConfig", res.body)
}

// GetTaskPushConfig reads one of a task's push configs.
func (c *HTTPClient) GetTaskPushConfig(ctx context.Context, taskID, configID string, opts *HTTPCallOptions) (*PushConfig, error) {
	res, err := c.run(ctx, "HTTPClient.GetTaskPushConfig", MethodGetPushConfig,
		map[string]any{"taskId": taskID, "id": configID}, opts)
	if err != nil {
		return nil, err
	}
	return c.readPushConfig("GetTaskPushConfig", res.body)
}

// ListTaskPushConfigs reads a task's push configs.
func (c *HTTPClient) ListTaskPushConfigs(ctx context.Context, taskID string, opts *HTTPCallOptions) ([]PushConfig, error) {
	res, err := c.run(ctx, "HTTPClient.ListTaskPushConfigs", MethodListPushConfigs, map[string]any{"taskId": taskID}, opts)
	if err != nil {
		return nil, err
	}
	raw, err := c.result("ListTaskPushConfigs", res.body)
	if err != nil {
		return nil, err
	}
	var list []taskPushJSON // 0.3: an array
	if err := json.Unmarshal(raw, &list); err != nil {
		var page struct { // 1.0: {configs, nextPageToken}
			Configs []taskPushJSON `json:"configs"`
		}
		if err2 := json.Unmarshal(raw, &page); err2 != nil {
			return nil, fmt.Errorf("a2a: ListTaskPushConfigs: the answer does not read: %w", err2)
		}
		list = page.Configs
	}
	out := make([]PushConfig, 0, len(list))
	for i := range list {
		out = append(out, list[i].config())
	}
	return out, nil
}

// DeleteTaskPushConfig deletes one of a task's push configs.
func (c *HTTPClient) DeleteTaskPushConfig(ctx context.Context, taskID, configID string, opts *HTTPCallOptions) error {
	_, err := c.run(ctx, "HTTPClient.DeleteTaskPushConfig", MethodDeletePushConfig,
		map[string]any{"taskId": taskID, "id": configID}, opts)
	return err
}

// AgentCard is an agent card as received: its summary and its JSON.
type AgentCard struct {
	CardInfo
	JSON json.RawMessage
}

// ErrNoAnswer is the error of a call that succeeded without the answer it needs.
var ErrNoAnswer = errors.New("a2a: the agent's answer carried no result")

// ExtendedCard fetches the agent's extended (authenticated) card (0.3
// agent/getAuthenticatedExtendedCard, 1.0 GetExtendedAgentCard), with the call's
// credentials (header hooks or opts.Headers). An agent without one answers an error. For a
// client made from a card, the extended card then replaces the public one (A2A §8.6.2):
// later calls use its interface URL, its binding and version, credentials and capabilities.
// A card that fails the public card's rules
// (an interface on another host: CodeCardHostMismatch) is the error, and nothing changes.
func (c *HTTPClient) ExtendedCard(ctx context.Context, opts *HTTPCallOptions) (*AgentCard, error) {
	const op = "HTTPClient.ExtendedCard"
	// As runAuthed, but the call is kept: the adoption below reads it. With OAuth2 a 401
	// drops the token and the call is made once more with a fresh one.
	var call *C.a2a_call
	var res driveResult
	for attempt := 0; ; attempt++ {
		var err error
		if call, err = c.newCall(ctx, op, MethodGetExtendedAgentCard, nil, opts); err != nil {
			return nil, err
		}
		res = c.drive(ctx, call, func(*C.struct_a2a_event) bool { return true }, nil)
		if c.oauth2 == nil || !unauthorized(res.outcome) {
			break
		}
		c.oauth2.invalidate()
		if attempt == 1 {
			break
		}
		C.a2a_call_free(call)
	}
	defer C.a2a_call_free(call)
	if res.err != nil {
		return nil, res.err
	}
	raw, err := c.result("ExtendedCard", res.body)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return nil, ErrNoAnswer
	}
	card, err := ParseCard(raw)
	if err != nil {
		return nil, err
	}
	defer card.Close()
	info, err := card.Info()
	if err != nil {
		return nil, err
	}
	// The extended card replaces the public one (A2A §8.6.2) for a client made from a card:
	// checked with the public card's rules against its URL; a refusal (CodeCardHostMismatch
	// for an interface on another host, ...) is the error and the public card stays.
	if c.fromCard {
		if r := C.a2a_client_state_adopt_extended_card(c.state, call); r != C.A2A_OK {
			return nil, codeErr(op, r)
		}
	}
	return &AgentCard{CardInfo: info, JSON: raw}, nil
}
