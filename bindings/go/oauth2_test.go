package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	a2a "a2a.local/a2a"
)

const (
	testClientID     = "go-client"
	testClientSecret = "cs-SECRET-never-printed"
)

// tokenEndpoint is a loopback OAuth 2.0 token endpoint (RFC 6749 §4.4) that counts what it
// is asked and remembers which tokens it issued are still good.
type tokenEndpoint struct {
	*httptest.Server
	mu        sync.Mutex
	fetches   int
	issued    map[string]bool
	expiresIn int
	delay     time.Duration
	refuse    bool
	basic     int      // requests authenticated with HTTP Basic
	form      int      // requests authenticated in the form body
	bearers   []string // any Authorization other than Basic that reached it (must stay empty)
}

func newTokenEndpoint(t *testing.T) *tokenEndpoint {
	te := &tokenEndpoint{issued: map[string]bool{}, expiresIn: 3600}
	te.Server = httptest.NewServer(http.HandlerFunc(te.serve))
	t.Cleanup(te.Close)
	return te
}

func (te *tokenEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	te.mu.Lock()
	delay, refuse := te.delay, te.refuse
	if a := r.Header.Get("Authorization"); a != "" && !strings.HasPrefix(a, "Basic ") {
		te.bearers = append(te.bearers, a)
	}
	te.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":"invalid_request"}`)
		return
	}
	_ = r.ParseForm()
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	te.mu.Lock()
	defer te.mu.Unlock()
	if basic {
		te.basic++
	} else {
		te.form++
	}
	if refuse || id != testClientID || secret != testClientSecret || r.PostForm.Get("grant_type") != "client_credentials" {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":"invalid_client","error_description":"unknown client"}`)
		return
	}
	te.fetches++
	tok := fmt.Sprintf("tok-%d", te.fetches)
	te.issued[tok] = true
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": te.expiresIn})
}

// auths is how the endpoint's callers authenticated, and any other Authorization it saw.
func (te *tokenEndpoint) auths() (basic, form int, others []string) {
	te.mu.Lock()
	defer te.mu.Unlock()
	return te.basic, te.form, append([]string(nil), te.bearers...)
}

func (te *tokenEndpoint) count() int {
	te.mu.Lock()
	defer te.mu.Unlock()
	return te.fetches
}

func (te *tokenEndpoint) revokeAll() {
	te.mu.Lock()
	defer te.mu.Unlock()
	te.issued = map[string]bool{}
}

func (te *tokenEndpoint) good(auth string) bool {
	te.mu.Lock()
	defer te.mu.Unlock()
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	return ok && te.issued[tok]
}

// protectedAgent is the binding's own AgentServer behind a bearer check against the token
// endpoint's tokens; its card (public) may declare the token endpoint as its OAuth2
// clientCredentials flow, be signed, or be rewritten.
type protectedAgent struct {
	*httptest.Server
	mu        sync.Mutex
	cardAuth  []string // Authorization headers the card fetch carried
	callAuth  []string // Authorization headers of every A2A request
	unauth    int      // requests answered 401
	alwaysBad bool     // every token is refused
}

func newProtectedAgent(t *testing.T, te *tokenEndpoint, edit func(base string, card []byte) []byte) *protectedAgent {
	agent := &a2a.AgentServer{Name: "oauth-agent", Description: "needs a token", Version: "1.0.0",
		Skills: []a2a.AgentSkill{{ID: "echo", Name: "echo", Description: "echoes", Tags: []string{"echo"}}},
		Handler: func(ctx context.Context, a *a2a.AgentContext) error {
			word, rest, _ := strings.Cut(a.Text(), " ")
			if word == "count" {
				a.Status("working", "")
				a.Artifact("count", "chunk 1", false, false)
				a.Artifact("count", "chunk 2", true, true)
				return nil
			}
			a.Reply(rest)
			return nil
		}}
	pa := &protectedAgent{}
	pa.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if r.URL.Path == "/.well-known/agent-card.json" {
			pa.mu.Lock()
			pa.cardAuth = append(pa.cardAuth, auth)
			pa.mu.Unlock()
			card, err := agent.Card(pa.URL)
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			if edit != nil {
				card = edit(pa.URL, card)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(card)
			return
		}
		pa.mu.Lock()
		pa.callAuth = append(pa.callAuth, auth)
		bad := pa.alwaysBad || te == nil || !te.good(auth)
		if bad {
			pa.unauth++
		}
		pa.mu.Unlock()
		if bad {
			w.Header().Set("WWW-Authenticate", `Bearer realm="a2a"`)
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		agent.ServeHTTP(w, r)
	}))
	pa.Start() // after the assignment: the handler reads pa.URL
	t.Cleanup(pa.Close)
	return pa
}

func (pa *protectedAgent) seen() (card, calls []string, unauth int) {
	pa.mu.Lock()
	defer pa.mu.Unlock()
	return append([]string(nil), pa.cardAuth...), append([]string(nil), pa.callAuth...), pa.unauth
}

// withTokenURL declares the token endpoint in the card as an OAuth2 clientCredentials flow.
func withTokenURL(tokenURL string) func(string, []byte) []byte {
	return func(_ string, card []byte) []byte {
		var m map[string]any
		_ = json.Unmarshal(card, &m)
		m["securitySchemes"] = map[string]any{"oauth": map[string]any{"oauth2SecurityScheme": map[string]any{
			"flows": map[string]any{"clientCredentials": map[string]any{"tokenUrl": tokenURL, "scopes": map[string]any{}}}}}}
		out, _ := json.Marshal(m)
		return out
	}
}

func testCredentials(te *tokenEndpoint) a2a.ClientCredentials {
	return a2a.ClientCredentials{TokenURL: te.URL + "/token", ClientID: testClientID, ClientSecret: testClientSecret,
		BasicAuth: true, AllowHTTPLoopback: true}
}

func mustClient(t *testing.T, url string, opts ...a2a.HTTPOption) *a2a.HTTPClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := a2a.NewHTTPClient(ctx, url, opts...)
	if err != nil {
		t.Fatalf("NewHTTPClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// answerText is the answer's text: a task's artifacts or a message's parts.
func answerText(o *a2a.Outcome) string {
	if o != nil && o.Result != nil && o.Result.Text != nil {
		return *o.Result.Text
	}
	return ""
}

func sendOK(t *testing.T, c *a2a.HTTPClient, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o, err := c.SendText(ctx, "echo "+text, nil)
	if err != nil {
		t.Fatalf("SendText: %v", err)
	}
	if got := answerText(o); got != text {
		t.Fatalf("answer %q", got)
	}
}

func TestOAuth2CachedSingleFlight(t *testing.T) {
	for _, path := range []struct {
		name string
		opts []a2a.HTTPOption
	}{{"net/http", nil}, {"reference-driver", []a2a.HTTPOption{a2a.WithReferenceDriver()}}} {
		t.Run(path.name, func(t *testing.T) {
			te := newTokenEndpoint(t)
			te.delay = 100 * time.Millisecond // every caller arrives while the first fetch is out
			agent := newProtectedAgent(t, te, nil)
			c := mustClient(t, agent.URL, append(path.opts, a2a.WithOAuth2(testCredentials(te)))...)
			var wg sync.WaitGroup
			errs := make(chan error, 16)
			for i := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					o, err := c.SendText(ctx, fmt.Sprintf("echo n%d", i), nil)
					if err == nil {
						if got := answerText(o); got != fmt.Sprintf("n%d", i) {
							err = fmt.Errorf("call %d answered %q", i, got)
						}
					}
					errs <- err
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if n := te.count(); n != 1 || c.TokenFetches() != 1 {
				t.Fatalf("16 concurrent calls fetched %d tokens (client counted %d), want 1", n, c.TokenFetches())
			}
			for i := range 3 {
				sendOK(t, c, fmt.Sprintf("again%d", i))
			}
			if n := te.count(); n != 1 {
				t.Fatalf("cached token: %d fetches", n)
			}
			card, calls, unauth := agent.seen()
			if len(card) != 1 || card[0] != "" {
				t.Fatalf("the card fetch carried %q", card)
			}
			if len(calls) != 19 || unauth != 0 {
				t.Fatalf("%d calls, %d refused", len(calls), unauth)
			}
			for _, a := range calls {
				if a != "Bearer tok-1" {
					t.Fatalf("a call carried %q", a)
				}
			}
			if basic, form, others := te.auths(); basic != 1 || form != 0 || len(others) != 0 {
				t.Fatalf("token endpoint: basic %d form %d other %q", basic, form, others)
			}
		})
	}
}

func TestOAuth2TokenURLFromCard(t *testing.T) {
	te := newTokenEndpoint(t)
	agent := newProtectedAgent(t, te, withTokenURL(te.URL+"/oauth2/token"))
	cc := testCredentials(te)
	cc.TokenURL, cc.BasicAuth = "", false // from the card; credentials in the form body
	c := mustClient(t, agent.URL, a2a.WithOAuth2(cc))
	sendOK(t, c, "from the card")
	if basic, form, _ := te.auths(); te.count() != 1 || form != 1 || basic != 0 {
		t.Fatalf("fetches %d, form %d, basic %d", te.count(), form, basic)
	}
	// Without a token URL and without a flow in the card there is nothing to fetch from.
	plain := newProtectedAgent(t, te, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := a2a.NewHTTPClient(ctx, plain.URL, a2a.WithOAuth2(cc)); !errors.Is(err, a2a.CodeInvalidArgument) {
		t.Fatalf("no token URL anywhere: %v", err)
	}
}

func TestOAuth2RefreshAfterExpiry(t *testing.T) {
	te := newTokenEndpoint(t)
	te.expiresIn = 1
	agent := newProtectedAgent(t, te, nil)
	cc := testCredentials(te)
	cc.RefreshEarly = time.Millisecond
	c := mustClient(t, agent.URL, a2a.WithOAuth2(cc))
	sendOK(t, c, "first")
	time.Sleep(1100 * time.Millisecond) // past expires_in
	sendOK(t, c, "second")
	_, calls, _ := agent.seen()
	if te.count() != 2 || len(calls) != 2 || calls[0] != "Bearer tok-1" || calls[1] != "Bearer tok-2" {
		t.Fatalf("fetches %d, calls %q", te.count(), calls)
	}
}

func TestOAuth2Unauthorized(t *testing.T) {
	te := newTokenEndpoint(t)
	agent := newProtectedAgent(t, te, nil)
	c := mustClient(t, agent.URL, a2a.WithOAuth2(testCredentials(te)))
	sendOK(t, c, "one")
	// The agent stops honouring the token: the 401 makes the client fetch a fresh one and
	// make the call once more.
	te.revokeAll()
	sendOK(t, c, "two")
	_, calls, unauth := agent.seen()
	if te.count() != 2 || unauth != 1 || len(calls) != 3 || calls[2] != "Bearer tok-2" {
		t.Fatalf("fetches %d, refused %d, calls %q", te.count(), unauth, calls)
	}
	// The same for a stream refused before its first event.
	te.revokeAll()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	items := 0
	for ev, err := range c.Stream(ctx, "count 2", nil) {
		if ev.Kind == a2a.StreamEventEnd {
			if err != nil {
				t.Fatalf("stream end: %v", err)
			}
			break
		}
		items++
	}
	if items == 0 || te.count() != 3 {
		t.Fatalf("stream: %d items, %d fetches", items, te.count())
	}
	// An agent that refuses every token: one retry, then the 401 is the call's error.
	agent.mu.Lock()
	agent.alwaysBad = true
	agent.mu.Unlock()
	_, err := c.SendText(ctx, "echo never", nil)
	var oe *a2a.OutcomeError
	if !errors.As(err, &oe) {
		t.Fatalf("refused: %v", err)
	}
	if st, _ := oe.Outcome.GetHTTPStatus(); st != 401 || te.count() != 4 {
		t.Fatalf("refused: status %d, fetches %d", st, te.count())
	}
}

func TestOAuth2TokenEndpointRefuses(t *testing.T) {
	te := newTokenEndpoint(t)
	te.refuse = true
	agent := newProtectedAgent(t, te, nil)
	c := mustClient(t, agent.URL, a2a.WithOAuth2(testCredentials(te)))
	_, err := c.SendText(context.Background(), "echo x", nil)
	var oe *a2a.OAuth2Error
	if !errors.As(err, &oe) || !errors.Is(err, a2a.CodeOAuth2Refused) || oe.Reason != "refused" || oe.ErrorCode != "invalid_client" {
		t.Fatalf("refused: %v", err)
	}
	if strings.Contains(err.Error(), testClientSecret) || strings.Contains(fmt.Sprintf("%+v %#v", c, oe), testClientSecret) {
		t.Fatalf("the secret printed: %v", err)
	}
	if _, calls, _ := agent.seen(); len(calls) != 0 {
		t.Fatalf("the agent was called without a token: %q", calls)
	}
	// A fetch cut by the call's context is handed back: the next call fetches again.
	te.mu.Lock()
	te.refuse, te.delay = false, time.Second
	te.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = c.SendText(ctx, "echo late", nil)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, a2a.CodeOAuth2Refused) {
		t.Fatalf("cut fetch: %v", err)
	}
	te.mu.Lock()
	te.delay = 0
	te.mu.Unlock()
	sendOK(t, c, "after")
}

func TestOAuth2TokenNeverToAnotherHost(t *testing.T) {
	te := newTokenEndpoint(t)
	var otherHits []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		otherHits = append(otherHits, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no", 500)
	}))
	defer other.Close()
	// A card whose interface points at another origin is refused before anything is sent.
	agent := newProtectedAgent(t, te, func(base string, card []byte) []byte {
		return []byte(strings.ReplaceAll(string(card), base, other.URL))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := a2a.NewHTTPClient(ctx, agent.URL, a2a.WithOAuth2(testCredentials(te)))
	var oe *a2a.OutcomeError
	if !errors.As(err, &oe) {
		t.Fatalf("a card pointing elsewhere: %v", err)
	}
	// An agent that redirects a call elsewhere: the redirect is the answer, not followed.
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	c := mustClient(t, redirecting.URL, a2a.WithOAuth2(testCredentials(te)),
		a2a.WithInterface(a2a.V1_0, a2a.JSON_RPC))
	if _, err := c.SendText(ctx, "echo x", nil); err == nil {
		t.Fatal("a redirected call succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(otherHits) != 0 {
		t.Fatalf("the other host was called: %q", otherHits)
	}
	if te.count() != 1 {
		t.Fatalf("fetches: %d", te.count())
	}
	if _, _, others := te.auths(); len(others) != 0 {
		t.Fatalf("the token endpoint got a bearer token: %q", others)
	}
}

// ExtendedCard with OAuth2: a 401 drops the token and the call is made once more with a
// fresh one, as for every other call; the extended card then replaces the public one.
func TestOAuth2ExtendedCardAfterA401(t *testing.T) {
	te := newTokenEndpoint(t)
	var mu sync.Mutex
	var auths []string
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		card := fmt.Sprintf(`{"name":"ext","description":"d","version":"1","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"extendedAgentCard":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, srv.URL+"/")
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			fmt.Fprint(w, card)
			return
		}
		auth := r.Header.Get("Authorization")
		mu.Lock()
		auths = append(auths, auth)
		mu.Unlock()
		if !te.good(auth) {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &req)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, strings.Replace(card, `"name":"ext"`, `"name":"ext-authenticated"`, 1))
	}))
	t.Cleanup(srv.Close)
	c := mustClient(t, srv.URL, a2a.WithOAuth2(testCredentials(te)))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.ExtendedCard(ctx, nil); err != nil {
		t.Fatalf("first extended card: %v", err)
	}
	te.revokeAll()
	card, err := c.ExtendedCard(ctx, nil)
	if err != nil {
		t.Fatalf("extended card after the token was revoked: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if card.Name != "ext-authenticated" || te.count() != 2 || len(auths) != 3 || auths[2] != "Bearer tok-2" {
		t.Fatalf("card %q, fetches %d, requests %q", card.Name, te.count(), auths)
	}
}

func TestOAuth2WaitTaskSurvivesA401(t *testing.T) {
	te := newTokenEndpoint(t)
	agent := newProtectedAgent(t, te, nil)
	c := mustClient(t, agent.URL, a2a.WithOAuth2(testCredentials(te)))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o, err := c.SendText(ctx, "count 2", nil)
	if err != nil || o.TaskID == nil {
		t.Fatalf("send: %v %+v", err, o)
	}
	// The token stops being honoured while the client waits: the poll answered 401 is made
	// once more with a fresh token and the wait goes on to the task's end.
	te.revokeAll()
	w, err := c.WaitTask(ctx, *o.TaskID, &a2a.WaitOptions{PollInterval: 50 * time.Millisecond, Timeout: 10 * time.Second})
	if err != nil || w.State == nil || *w.State != a2a.StateCompleted {
		t.Fatalf("wait after a revoked token: %v %+v", err, w)
	}
	if _, _, unauth := agent.seen(); unauth != 1 || te.count() != 2 {
		t.Fatalf("refused %d, fetches %d", unauth, te.count())
	}
	// An agent that refuses every token: one fresh token, then the 401 ends the wait.
	agent.mu.Lock()
	agent.alwaysBad = true
	agent.mu.Unlock()
	_, err = c.WaitTask(ctx, *o.TaskID, &a2a.WaitOptions{PollInterval: 50 * time.Millisecond, Timeout: 10 * time.Second})
	var oe *a2a.OutcomeError
	if !errors.As(err, &oe) {
		t.Fatalf("refused wait: %v", err)
	}
	if st, _ := oe.Outcome.GetHTTPStatus(); st != 401 || te.count() != 3 {
		t.Fatalf("refused wait: status %d, fetches %d", st, te.count())
	}
	if _, _, unauth := agent.seen(); unauth != 3 {
		t.Fatalf("refused wait: %d refusals, want 3", unauth)
	}
}
