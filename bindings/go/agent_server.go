package a2a

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// AgentServer serves an A2A agent from net/http over the core's server side: an
// http.Handler with one route set, the card at /.well-known/agent-card.json (written by the
// core's card builder for 1.0 and 0.3 clients), JSON-RPC on POST / and HTTP+JSON under /rest
// (0.3 under /rest/v1), in both protocol versions. Streams carry the proxy-safe headers and
// keep-alive comments on the core's schedule.
//
// The agent is Handler: it answers with AgentContext.Reply (a message), or reports a task
// with Status and Artifact (the task ends COMPLETED unless its last status says otherwise).
// A *ProtocolError returned before anything was reported answers the request with that A2A
// error (TaskNotFound, InvalidParams, UnsupportedOperation, ...) and keeps no task. Any
// other error or panic becomes the ADK-style FAILED status with a fresh error_id, logged with
// the cause and never sent unless DebugDetail is set. BeforeExecute refuses work by
// returning a *Refused (an admission cancel, marked so); AfterExecute may return a Hint
// appended to a FAILED text. Every answer is counted in Tally.
//
// Set the fields before serving; they must not change afterwards.
type AgentServer struct {
	Handler     func(ctx context.Context, a *AgentContext) error
	Name        string // card name (default "a2a-core agent")
	Description string // card description
	Version     string // the agent's own version (default "1.0.0")
	Skills      []AgentSkill
	// BaseURL is the URL the card advertises (default: the request's scheme and Host:
	// set it when the handler is mounted under a prefix).
	BaseURL string
	// HostNames are extra Host names answered for when the listener is on loopback (the
	// DNS-rebinding defence checks Host against the listener's address).
	HostNames     []string
	BeforeExecute func(a *AgentContext) error
	AfterExecute  func(a *AgentContext, err error) *Hint
	DebugDetail   bool
	KeepAlive     time.Duration // 0: the core's default, 15 s
	Logger        *slog.Logger  // default slog.Default()
	Tally         *Tally        // created on first use when nil

	once  sync.Once
	mu    sync.Mutex
	runs  map[string]*agentRun
	cards map[string][]byte
}

// AgentSkill is one skill of the card.
type AgentSkill struct {
	ID, Name, Description string
	Tags                  []string
}

// ProtocolError is an A2A protocol error that answers a request instead of a result. A
// Handler returns one (before it reports anything) to refuse the message with it; the core
// writes it in the request's version and binding: a JSON-RPC error object (1.0 with its
// ErrorInfo in data), or on HTTP+JSON the status the spec maps it to with a google.rpc.Status
// body. A streaming JSON-RPC request gets it as the one event of an event stream (what the
// SDK clients read).
type ProtocolError struct {
	Name    ErrorName // a protocol-channel name (others are sent as Internal)
	Message string    // "" sends the standard message
}

func (e *ProtocolError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("A2A protocol error %d", int(e.Name))
	}
	return e.Message
}

// Refused refuses a request before it runs (return it from BeforeExecute).
type Refused struct{ Reason string }

func (r *Refused) Error() string { return "refused: " + r.Reason }

// Hint is a stable hint appended to a FAILED text ("[retryable=false; reason=quota]").
type Hint struct {
	Retryable *bool
	Pairs     []HintPair
}

var (
	terminalStates    = map[string]bool{"TASK_STATE_COMPLETED": true, "TASK_STATE_FAILED": true, "TASK_STATE_CANCELED": true, "TASK_STATE_REJECTED": true}
	interruptedStates = map[string]bool{"TASK_STATE_INPUT_REQUIRED": true, "TASK_STATE_AUTH_REQUIRED": true}
)

type event = map[string]any

// AgentContext is one SendMessage / SendStreamingMessage as the handler sees it.
type AgentContext struct {
	Info      ServerRequestInfo
	Params    map[string]any // A2A 1.0 ProtoJSON whatever version the client spoke
	TaskID    string
	ContextID string
	Continues bool // the message continues a task (multi-turn)
	run       *agentRun
}

// Text is the message's text parts joined with newlines.
func (a *AgentContext) Text() string {
	msg, _ := a.Params["message"].(map[string]any)
	parts, _ := msg["parts"].([]any)
	var out []string
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok {
			if t, ok := m["text"].(string); ok {
				out = append(out, t)
			}
		}
	}
	return strings.Join(out, "\n")
}

func (a *AgentContext) agentMessage(text string, inTask bool) map[string]any {
	m := map[string]any{"messageId": newID(), "role": "ROLE_AGENT",
		"parts": []any{map[string]any{"text": text}}, "contextId": a.ContextID}
	if inTask {
		m["taskId"] = a.TaskID
	}
	return m
}

// Reply answers with an agent message (no task) and ends the request.
func (a *AgentContext) Reply(text string) {
	a.run.publish(event{"message": a.agentMessage(text, false)})
}

// Status reports a status of the task ("working", "input-required", ... or TASK_STATE_*),
// with an agent message when text is not "".
func (a *AgentContext) Status(state, text string) {
	var m map[string]any
	if text != "" {
		m = a.agentMessage(text, true)
	}
	a.run.publish(a.run.statusUpdate(stateName(state), m))
}

// Artifact reports an artifact chunk (appendTo: extends artifactID already sent).
func (a *AgentContext) Artifact(artifactID, text string, appendTo, lastChunk bool) {
	if artifactID == "" {
		artifactID = newID()
	}
	a.run.publish(event{"artifactUpdate": map[string]any{"taskId": a.TaskID, "contextId": a.ContextID,
		"artifact": map[string]any{"artifactId": artifactID, "parts": []any{map[string]any{"text": text}}},
		"append":   appendTo, "lastChunk": lastChunk}})
}

// Canceled says whether the task was canceled (a long handler should stop).
func (a *AgentContext) Canceled() bool { return a.run.state() == "TASK_STATE_CANCELED" }

func stateName(s string) string {
	if strings.HasPrefix(s, "TASK_STATE_") {
		return s
	}
	return "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func deepCopy(v map[string]any) map[string]any {
	b, _ := json.Marshal(v)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// agentRun is a task the server keeps, with its live subscribers.
type agentRun struct {
	mu        sync.Mutex
	taskID    string
	contextID string
	task      map[string]any
	message   event
	started   bool
	done      bool
	subs      map[chan event]struct{}
	cancel    context.CancelFunc
	// seq orders runs by their last status change (ListTasks: newest first; its page token);
	// statusAt is when that was.
	seq      uint64
	statusAt time.Time
	// refusal is the protocol error the handler answered with instead of a task.
	refusal *ProtocolError
	// prev is the run this message continues (restored when the handler refuses it).
	prev *agentRun
}

// statusSeq numbers status changes across every server of the process (ListTasks' order).
var statusSeq atomic.Uint64

// stamp records a status change on r (r.mu held) and dates the status when it is not.
func (r *agentRun) stamp(status map[string]any) {
	r.seq = statusSeq.Add(1)
	r.statusAt = time.Now()
	if _, ok := status["timestamp"]; !ok {
		status["timestamp"] = r.statusAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	}
}

var endOfRun = event{}

func (r *agentRun) state() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, _ := r.task["status"].(map[string]any)
	s, _ := st["state"].(string)
	return s
}

func (r *agentRun) statusUpdate(state string, msg map[string]any) event {
	status := map[string]any{"state": state}
	if msg != nil {
		status["message"] = msg
	}
	return event{"statusUpdate": map[string]any{"taskId": r.taskID, "contextId": r.contextID,
		"status": status, "final": terminalStates[state] || interruptedStates[state]}}
}

// broadcast hands ev to every subscriber without waiting: a subscriber whose buffer is
// full (a reader that stopped) is dropped and its channel closed, which ends its stream
// early (the client resubscribes) rather than stalling the agent.
func (r *agentRun) broadcast(ev event) {
	for c := range r.subs {
		select {
		case c <- ev:
		default:
			delete(r.subs, c)
			close(c)
		}
	}
}

func (r *agentRun) publish(ev event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.publishLocked(ev)
}

// publishLocked folds ev into the task and hands it to the subscribers (r.mu held).
func (r *agentRun) publishLocked(ev event) {
	if _, ok := ev["message"]; ok {
		r.message = ev
		r.broadcast(ev)
		r.finishLocked()
		return
	}
	if !r.started {
		r.started = true
		r.broadcast(event{"task": deepCopy(r.task)})
	}
	if u, ok := ev["statusUpdate"].(map[string]any); ok {
		st := u["status"].(map[string]any)
		r.stamp(st)
		r.task["status"] = st
		if m, ok := st["message"]; ok {
			r.task["history"] = append(r.task["history"].([]any), m)
		}
	} else if u, ok := ev["artifactUpdate"].(map[string]any); ok {
		a := u["artifact"].(map[string]any)
		arts := r.task["artifacts"].([]any)
		merged := false
		if ap, _ := u["append"].(bool); ap {
			for _, old := range arts {
				o := old.(map[string]any)
				if o["artifactId"] == a["artifactId"] {
					o["parts"] = append(o["parts"].([]any), a["parts"].([]any)...)
					merged = true
				}
			}
		}
		if !merged {
			r.task["artifacts"] = append(arts, deepCopy(a))
		}
	}
	r.broadcast(deepCopy(ev))
}

// cancelNow sets the task CANCELED and ends the run, also when its handler already returned
// (a task waiting in INPUT_REQUIRED or AUTH_REQUIRED).
func (r *agentRun) cancelNow() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.publishLocked(r.statusUpdate("TASK_STATE_CANCELED", nil))
	r.finishLocked()
}

// refuse ends a run that reported nothing with the handler's protocol error: subscribers
// get an event carrying only that error, then the end.
func (r *agentRun) refuse(pe *ProtocolError) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.started || r.message != nil {
		return false
	}
	r.refusal = pe
	r.broadcast(event{"error": pe})
	r.finishLocked()
	return true
}

func (r *agentRun) finishLocked() {
	if r.done {
		return
	}
	r.done = true
	r.broadcast(endOfRun)
	r.subs = map[chan event]struct{}{}
}

func (r *agentRun) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishLocked()
}

// subscribe is a channel of the run's events (the snapshot first when asked); buffered so
// that publishing never waits for a slow reader.
func (r *agentRun) subscribe(snapshot bool) chan event {
	c := make(chan event, 4096)
	r.mu.Lock()
	defer r.mu.Unlock()
	if snapshot {
		c <- event{"task": deepCopy(r.task)}
	}
	if r.done {
		c <- endOfRun
	} else {
		r.subs[c] = struct{}{}
	}
	return c
}

func (r *agentRun) unsubscribe(c chan event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.subs, c)
}

func (s *AgentServer) init() {
	s.once.Do(func() {
		s.runs = map[string]*agentRun{}
		s.cards = map[string][]byte{}
		if s.Tally == nil {
			s.Tally, _ = NewTally()
		}
		if s.Logger == nil {
			s.Logger = slog.Default()
		}
		if s.Name == "" {
			s.Name = "a2a-core agent"
		}
		if s.Description == "" {
			s.Description = "An A2A agent served by a2a-core"
		}
		if s.Version == "" {
			s.Version = "1.0.0"
		}
	})
}

// Card is the card for interfaces under baseURL (cached per URL).
func (s *AgentServer) Card(baseURL string) ([]byte, error) {
	s.init()
	base := strings.TrimSuffix(baseURL, "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.cards[base]; ok {
		return c, nil
	}
	b, err := NewCardBuilder(s.Name, s.Description, s.Version)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	for _, v := range []ProtocolVersion{V1_0, V0_3} {
		if err := b.AddInterface(base+"/", v, JSON_RPC); err != nil {
			return nil, err
		}
		if err := b.AddInterface(base+"/rest", v, HTTP_JSON); err != nil {
			return nil, err
		}
	}
	if err := b.SetCapabilities(true, false); err != nil {
		return nil, err
	}
	for _, sk := range s.Skills {
		if err := b.AddSkill(sk.ID, sk.Name, sk.Description, sk.Tags, nil); err != nil {
			return nil, err
		}
	}
	card, err := b.Build()
	if err == nil {
		s.cards[base] = card
	}
	return card, err
}

func writeWhole(w http.ResponseWriter, status int, headers []Header, body []byte) {
	for _, h := range headers {
		if !strings.EqualFold(h.Name, "content-length") {
			w.Header().Add(h.Name, h.Value)
		}
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// ServeHTTP serves one request (see AgentServer).
func (s *AgentServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.init()
	path := r.URL.Path
	if path == "" {
		path = "/"
	}
	if path == "/.well-known/agent-card.json" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		base := s.BaseURL
		if base == "" {
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			base = scheme + "://" + r.Host
		}
		card, err := s.Card(base)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeWhole(w, 200, []Header{{"Content-Type", "application/json"}}, card)
		return
	}
	rest := path == "/rest" || strings.HasPrefix(path, "/rest/")
	if !rest && !(path == "/" && r.Method == http.MethodPost) {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	opts := &ServerOptions{V0_3: true, V1_0: true, BoundAddr: ListenerAddr(r), HostNames: s.HostNames}
	var req *ServerRequest
	if rest {
		target := strings.TrimPrefix(path, "/rest")
		if target == "" {
			target = "/"
		}
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		req, err = ParseREST(r.Method, target, RequestHeaders(r), body, opts)
	} else {
		req, err = ParseJSONRPC(RequestHeaders(r), body, opts)
	}
	if req == nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer req.Close()
	if err != nil {
		s.answer(w)(req.RefusalResponse())
		return
	}
	s.dispatch(w, r, req)
}

// answer returns the function that writes a response (or the error of making it) to w.
func (s *AgentServer) answer(w http.ResponseWriter) func(*ServerResponse, error) {
	return func(resp *ServerResponse, err error) { s.write(w, resp, err) }
}

func (s *AgentServer) write(w http.ResponseWriter, resp *ServerResponse, err error) {
	if err != nil {
		s.Logger.Error("a2a: cannot write the answer", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	_ = s.Tally.Add(s.Name, resp.Served.Method, resp.Served.Channel, resp.Served.Code, 1)
	writeWhole(w, resp.Status, resp.Headers, resp.Body)
}

func (s *AgentServer) find(params map[string]any) (*agentRun, error) {
	id, _ := params["id"].(string)
	s.mu.Lock()
	run := s.runs[id]
	s.mu.Unlock()
	if run == nil {
		return nil, &ProtocolError{NameTaskNotFound, "no task " + id}
	}
	return run, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (s *AgentServer) dispatch(w http.ResponseWriter, hr *http.Request, req *ServerRequest) {
	info, _ := req.Info()
	var params map[string]any
	_ = json.Unmarshal(req.Params(), &params)
	err := func() error {
		switch info.Method {
		case MethodSendMessage, MethodSendStreamingMessage:
			return s.send(w, hr, req, info, params)
		case MethodGetTask:
			run, err := s.find(params)
			if err != nil {
				return err
			}
			run.mu.Lock()
			t := deepCopy(run.task)
			run.mu.Unlock()
			trimHistory(t, params)
			s.answer(w)(req.ResultResponse(mustJSON(t)))
		case MethodCancelTask:
			run, err := s.find(params)
			if err != nil {
				return err
			}
			if terminalStates[run.state()] {
				return &ProtocolError{NameTaskNotCancelable, "task " + run.taskID + " already ended"}
			}
			// CANCELED first, then the handler's context: a handler that returns at once
			// must find the task canceled, not complete it.
			run.cancelNow()
			if run.cancel != nil {
				run.cancel()
			}
			run.mu.Lock()
			t := deepCopy(run.task)
			run.mu.Unlock()
			s.answer(w)(req.ResultResponse(mustJSON(t)))
		case MethodSubscribeToTask:
			run, err := s.find(params)
			if err != nil {
				return err
			}
			if terminalStates[run.state()] {
				return &ProtocolError{NameUnsupportedOperation, "task " + run.taskID + " already ended"}
			}
			s.stream(w, hr, req, run, run.subscribe(true))
		case MethodListTasks:
			out, err := s.list(params)
			if err != nil {
				return err
			}
			s.answer(w)(req.ResultResponse(mustJSON(out)))
		case MethodGetExtendedAgentCard:
			// The card declares no extendedAgentCard: UnsupportedOperation, as docs/serving.md §5 says.
			return &ProtocolError{NameUnsupportedOperation, "this agent declares no extended agent card"}
		default:
			return &ProtocolError{NamePushNotificationNotSupported, ""}
		}
		return nil
	}()
	var pe *ProtocolError
	if errors.As(err, &pe) {
		s.answerError(w, req, info, pe)
	}
}

// answerError answers the request with a protocol error: on a streaming JSON-RPC request
// (SendStreamingMessage, SubscribeToTask) as an event stream of that one error, as the
// reference agent and the Python SDK do (the SDK clients read a stream there); otherwise as
// the core's error response.
func (s *AgentServer) answerError(w http.ResponseWriter, req *ServerRequest, info ServerRequestInfo, pe *ProtocolError) {
	resp, err := req.ErrorResponse(pe.Name, pe.Message)
	if err != nil || !info.Streaming || info.Binding != JSON_RPC {
		s.write(w, resp, err)
		return
	}
	frame, err := req.ErrorFrame(pe.Name, pe.Message)
	if err != nil {
		s.write(w, resp, nil)
		return
	}
	_ = s.Tally.Add(s.Name, resp.Served.Method, resp.Served.Channel, resp.Served.Code, 1)
	for _, h := range StreamHeaders() {
		w.Header().Set(h.Name, h.Value)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(frame)
}

// defaultPageSize is ListTasks' page size when the request names none (the spec's default).
const defaultPageSize = 50

// trimHistory keeps the last historyLength messages of task t (all when unset). The core
// has refused a negative one.
func trimHistory(t map[string]any, params map[string]any) {
	n, ok := params["historyLength"].(float64)
	if !ok {
		return
	}
	h, _ := t["history"].([]any)
	if keep := int(max(n, 0)); len(h) > keep {
		t["history"] = h[len(h)-keep:]
	}
}

// list answers ListTasks as the reference agent does: the filters (contextId, status,
// statusTimestampAfter: status changed at or after it), newest status change first, pages of
// pageSize (default 50; the core checked 1 to 100) whose nextPageToken is the last task's
// position ("" on the last page; a token this server did not write is InvalidParams),
// historyLength applied to every task, artifacts only with includeArtifacts.
func (s *AgentServer) list(params map[string]any) (map[string]any, error) {
	before := uint64(0)
	if tok, _ := params["pageToken"].(string); tok != "" {
		n, err := strconv.ParseUint(tok, 10, 64)
		if err != nil || n == 0 {
			return nil, &ProtocolError{NameInvalidParams, "Invalid params: pageToken is not a page token this agent wrote"}
		}
		before = n
	}
	var after time.Time
	if ts, _ := params["statusTimestampAfter"].(string); ts != "" {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil { // the core validated it; a form Go does not read is refused the same way
			return nil, &ProtocolError{NameInvalidParams, "Invalid params: statusTimestampAfter is not an RFC 3339 timestamp"}
		}
		after = t
	}
	ctxID, _ := params["contextId"].(string)
	status, _ := params["status"].(string)
	if status != "" {
		status = stateName(status)
	}
	size := defaultPageSize
	if n, ok := params["pageSize"].(float64); ok && n >= 1 {
		size = int(n)
	}
	withArtifacts, _ := params["includeArtifacts"].(bool)
	type hit struct {
		seq  uint64
		task map[string]any
	}
	var hits []hit
	s.mu.Lock()
	for _, run := range s.runs {
		run.mu.Lock()
		st, _ := run.task["status"].(map[string]any)
		state, _ := st["state"].(string)
		if (ctxID == "" || ctxID == run.contextID) && (status == "" || status == state) &&
			(after.IsZero() || !run.statusAt.Before(after)) && run.message == nil {
			hits = append(hits, hit{run.seq, deepCopy(run.task)})
		}
		run.mu.Unlock()
	}
	s.mu.Unlock()
	slices.SortFunc(hits, func(a, b hit) int {
		switch {
		case a.seq > b.seq:
			return -1
		case a.seq < b.seq:
			return 1
		}
		return 0
	})
	tasks := []any{}
	next, lastSeq := "", uint64(0)
	for _, h := range hits {
		if before != 0 && h.seq >= before {
			continue
		}
		if len(tasks) == size { // one more matches: the next page starts after the last one
			next = strconv.FormatUint(lastSeq, 10)
			break
		}
		trimHistory(h.task, params)
		if !withArtifacts {
			delete(h.task, "artifacts")
		}
		tasks = append(tasks, h.task)
		lastSeq = h.seq
	}
	return map[string]any{"tasks": tasks, "nextPageToken": next, "pageSize": len(tasks), "totalSize": len(hits)}, nil
}

func (s *AgentServer) send(w http.ResponseWriter, hr *http.Request, req *ServerRequest, info ServerRequestInfo, params map[string]any) error {
	msg, _ := params["message"].(map[string]any)
	taskID, _ := msg["taskId"].(string)
	contextID, _ := msg["contextId"].(string)
	var existing map[string]any
	var prev *agentRun
	if taskID != "" {
		var err error
		prev, err = s.find(map[string]any{"id": taskID})
		if err != nil {
			return err
		}
		if terminalStates[prev.state()] {
			return &ProtocolError{NameUnsupportedOperation, "task " + taskID + " already ended"}
		}
		prev.mu.Lock()
		existing = deepCopy(prev.task)
		prev.mu.Unlock()
	} else {
		taskID = newID()
	}
	if contextID == "" {
		if existing != nil {
			contextID, _ = existing["contextId"].(string)
		} else {
			contextID = newID()
		}
	}
	task := existing
	if task == nil {
		task = map[string]any{"history": []any{}, "artifacts": []any{}}
	}
	task["id"], task["contextId"] = taskID, contextID
	task["status"] = map[string]any{"state": "TASK_STATE_SUBMITTED"}
	um := deepCopy(msg)
	um["taskId"], um["contextId"] = taskID, contextID
	if task["history"] == nil {
		task["history"] = []any{}
	}
	if task["artifacts"] == nil {
		task["artifacts"] = []any{}
	}
	task["history"] = append(task["history"].([]any), um)
	run := &agentRun{taskID: taskID, contextID: contextID, task: task, subs: map[chan event]struct{}{}, prev: prev}
	run.stamp(task["status"].(map[string]any))
	a := &AgentContext{Info: info, Params: params, TaskID: taskID, ContextID: contextID, Continues: existing != nil, run: run}
	mine := run.subscribe(false)
	ctx, cancel := context.WithCancel(context.Background())
	run.cancel = cancel
	go s.execute(ctx, a, run)
	if info.Streaming {
		s.stream(w, hr, req, run, mine)
		return nil
	}
	for ev := range mine {
		_, isMsg := ev["message"]
		st := run.state()
		if len(ev) == 0 || isMsg || terminalStates[st] || interruptedStates[st] {
			break
		}
	}
	run.unsubscribe(mine)
	run.mu.Lock()
	refusal := run.refusal
	run.mu.Unlock()
	if refusal != nil {
		s.answerError(w, req, info, refusal)
		return nil
	}
	run.mu.Lock()
	var reply []byte
	if run.message != nil {
		reply = mustJSON(run.message)
	} else {
		reply = mustJSON(map[string]any{"task": deepCopy(run.task)})
	}
	run.mu.Unlock()
	s.answer(w)(req.ResultResponse(reply))
	return nil
}

// maxKeptTasks bounds the tasks kept in memory: past it, finished tasks are dropped (any of
// them: map order) before a new one is kept.
const maxKeptTasks = 10000

func (s *AgentServer) keep(run *agentRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, old := range s.runs {
		if len(s.runs) < maxKeptTasks {
			break
		}
		old.mu.Lock()
		done := old.done
		old.mu.Unlock()
		if done {
			delete(s.runs, id)
		}
	}
	s.runs[run.taskID] = run
}

func (s *AgentServer) execute(ctx context.Context, a *AgentContext, run *agentRun) {
	defer run.cancel()
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		if s.BeforeExecute != nil {
			var refused *Refused
			if e := s.BeforeExecute(a); errors.As(e, &refused) {
				s.keep(run)
				status, serr := AdmissionStatus(run.taskID, run.contextID, newID(), refused.Reason)
				var st map[string]any
				if serr == nil && json.Unmarshal(status, &st) == nil {
					ev := run.statusUpdate("TASK_STATE_CANCELED", nil)
					ev["statusUpdate"].(map[string]any)["status"] = st
					run.publish(ev)
				}
				run.finish()
				return
			} else if e != nil {
				err = e
				return
			}
		}
		s.keep(run)
		err = s.Handler(ctx, a)
	}()
	var pe *ProtocolError
	if errors.As(err, &pe) && run.refuse(pe) {
		// Answered with the error: no task is kept (a continued task stays as it was).
		s.mu.Lock()
		if s.runs[run.taskID] == run {
			delete(s.runs, run.taskID)
			if run.prev != nil {
				s.runs[run.taskID] = run.prev
			}
		}
		s.mu.Unlock()
		return
	}
	if run.state() == "TASK_STATE_CANCELED" {
		run.finish()
		return
	}
	if err != nil {
		s.fail(a, run, err)
	} else {
		run.mu.Lock()
		isMsg := run.message != nil
		run.mu.Unlock()
		if st := run.state(); !isMsg && !terminalStates[st] && !interruptedStates[st] {
			run.publish(run.statusUpdate("TASK_STATE_COMPLETED", nil))
		}
		if isMsg {
			s.mu.Lock()
			delete(s.runs, run.taskID)
			s.mu.Unlock()
		}
		if s.AfterExecute != nil {
			s.AfterExecute(a, nil)
		}
	}
	run.finish()
}

func (s *AgentServer) fail(a *AgentContext, run *agentRun, cause error) {
	id, err := NewErrorID()
	if err != nil {
		id = "000000000000"
	}
	s.Logger.Error("agent execution failed", "error_id", id, "task", run.taskID, "err", cause)
	var hint *Hint
	if s.AfterExecute != nil {
		hint = s.AfterExecute(a, cause)
	}
	detail := ""
	if s.DebugDetail {
		detail = fmt.Sprintf("%T: %v", cause, cause)
	}
	text, ferr := FailureText(id, detail)
	if ferr != nil {
		text = "Agent execution failed. (error_id: " + id + ")"
	}
	if hint != nil {
		if h, herr := HintText(hint.Retryable, hint.Pairs); herr == nil {
			text += " " + h
		}
	}
	run.publish(run.statusUpdate("TASK_STATE_FAILED", a.agentMessage(text, true)))
}

func (s *AgentServer) stream(w http.ResponseWriter, hr *http.Request, req *ServerRequest, run *agentRun, events chan event) {
	defer run.unsubscribe(events)
	flusher, _ := w.(http.Flusher)
	// The headers go out with the first event or keep-alive, so that a handler's protocol
	// error before any event is still answered as an error.
	open := false
	write := func(b []byte) {
		if !open {
			open = true
			for _, h := range StreamHeaders() {
				w.Header().Set(h.Name, h.Value)
			}
			w.WriteHeader(http.StatusOK)
		}
		_, _ = w.Write(b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	start := time.Now()
	last := time.Since(start)
	var lastEvent event
	for {
		due, wait := KeepAliveDue(s.KeepAlive, time.Since(start), last)
		if due {
			write(KeepAliveComment())
			last = time.Since(start)
			continue
		}
		var ev event
		select {
		case ev = <-events:
		case <-time.After(wait):
			continue
		case <-hr.Context().Done():
			// A client may hang up as soon as it has read the final event, before the
			// run closes its events: that stream was served whole and is counted.
			if !finalEvent(lastEvent) {
				return
			}
		}
		if len(ev) == 0 {
			break
		}
		if pe, ok := ev["error"].(*ProtocolError); ok {
			info, _ := req.Info()
			if !open {
				s.answerError(w, req, info, pe)
				return
			}
			if frame, err := req.ErrorFrame(pe.Name, pe.Message); err == nil {
				write(frame)
			}
			if resp, err := req.ErrorResponse(pe.Name, pe.Message); err == nil {
				_ = s.Tally.Add(s.Name, resp.Served.Method, resp.Served.Channel, resp.Served.Code, 1)
			}
			return
		}
		lastEvent = ev
		frame, err := req.EventFrame(mustJSON(ev))
		if err != nil {
			s.Logger.Error("a2a: cannot write a stream event", "err", err)
			break
		}
		write(frame)
		last = time.Since(start)
		_, isMsg := ev["message"]
		_, isStatus := ev["statusUpdate"]
		if isMsg || (isStatus && interruptedStates[run.state()]) {
			break
		}
	}
	if !open {
		write(nil)
	}
	method := req.methodName()
	if _, ok := lastEvent["message"]; ok {
		_ = s.Tally.Add(s.Name, method, ChannelMessage, "message", 1)
		return
	}
	state := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(run.state(), "TASK_STATE_"), "_", "-"))
	_ = s.Tally.Add(s.Name, method, ChannelTask, state, 1)
}

// finalEvent reports whether ev ended its stream: a message, or a status update marked final.
func finalEvent(ev event) bool {
	if _, ok := ev["message"]; ok {
		return true
	}
	su, ok := ev["statusUpdate"].(map[string]any)
	return ok && su["final"] == true
}

func (s *ServerRequest) methodName() string {
	info, _ := s.Info()
	return info.Method.String()
}
