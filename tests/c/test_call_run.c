/* a2a_call_run: client machines run over the driver's native transport against the
 * project's fault server (A2A_TEST_FAULT_URL, set by scripts/ci/30-c.sh): a send, a stream
 * whose items arrive over several runs, a failed task with its error_id, a 503 retried per
 * the send-retries option, a cut stream resubscribed, the idle timeout, the total deadline,
 * an abort from another thread during a blocked run (bounded waits), NULL and misuse. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"

static void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

/* What a whole call showed: per-kind counts, how many runs handed out items, and the
 * FINISHED event's fields copied out (its views die with the call). */
struct seen {
  int runs, item_runs, items, retrying, resubscribing, aborts, finished;
  uint32_t last_attempt;
  a2a_outcome_info end;
  int exit_code;
  uint32_t attempts, resubscribes;
  int text_has_echo, error_id_ok;
  uint64_t now;
};

static a2a_client_state *state_for(const char *base, const char *scenario, a2a_client_option opt,
                                   uint64_t value) {
  char url[512];
  a2a_client_config_builder *b = a2a_client_config_builder_new();
  a2a_machine_config *cfg = NULL;
  a2a_client_state *st = NULL;
  snprintf(url, sizeof url, "%s/%s/a2a", base, scenario);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  if (opt != 0) CHECK(a2a_client_config_builder_set(b, opt, value) == A2A_OK);
  CHECK(a2a_client_config_builder_build(b, &cfg) == A2A_OK);
  a2a_client_config_builder_free(b);
  CHECK(a2a_client_state_new(cfg, url, strlen(url), A2A_PROTOCOL_VERSION_V0_3,
                             A2A_BINDING_JSON_RPC, 11, &st) == A2A_OK);
  a2a_machine_config_free(cfg);
  return st;
}

static a2a_call *text_call(a2a_client_state *st, bool streaming, const char *text) {
  a2a_call *call = NULL;
  CHECK(a2a_call_new_text(st, streaming, text, strlen(text), NULL, 1000, &call) == A2A_OK);
  return call;
}

/* Runs `call` to its FINISHED event (at most 200 runs), draining after each run. */
static struct seen run_all(a2a_call *call, const a2a_transport *t, const a2a_abort *abort,
                           const char *echo) {
  struct seen s;
  uint64_t now = 1000;
  memset(&s, 0, sizeof s);
  while (!s.finished && s.runs < 200) {
    uint64_t reached = 0;
    a2a_event ev;
    int items = 0, events = 0;
    a2a_result r = a2a_call_run(call, t, abort, now, &reached);
    CHECK(r == A2A_OK);
    if (r != A2A_OK) break;
    CHECK(reached >= now);
    now = reached;
    s.runs++;
    while (a2a_call_poll_event(call, &ev) == A2A_OK) {
      events++;
      switch (ev.kind) {
        case A2A_EVENT_KIND_ITEM: items++; break;
        case A2A_EVENT_KIND_RETRYING: s.retrying++; s.last_attempt = ev.attempt; break;
        case A2A_EVENT_KIND_RESUBSCRIBING: s.resubscribing++; s.last_attempt = ev.attempt; break;
        case A2A_EVENT_KIND_ABORT: s.aborts++; break;
        case A2A_EVENT_KIND_FINISHED:
          s.finished = 1;
          s.end = t_info(ev.outcome);
          s.exit_code = ev.exit_code;
          s.attempts = ev.correlation.attempts;
          s.resubscribes = ev.resubscribes;
          s.text_has_echo = echo != NULL && t_contains(ev.answer_text, echo);
          s.error_id_ok = t_str_eq(s.end.error_id, "0f1e2d3c4b5a");
          break;
      }
    }
    CHECK(events > 0); /* a run returns with an event queued */
    s.items += items;
    if (items > 0) s.item_runs++;
  }
  CHECK(s.finished);
  CHECK(s.aborts == 0); /* ABORT events are the loop's own */
  s.now = now;
  CHECK(a2a_call_run(call, t, abort, now, NULL) == A2A_CALL_FINISHED);
  return s;
}

/* Runs one text call on `scenario` and frees it. */
static struct seen one(const char *base, const a2a_transport *t, const char *scenario,
                       a2a_client_option opt, uint64_t value, bool streaming,
                       const char *text) {
  a2a_client_state *st = state_for(base, scenario, opt, value);
  a2a_call *call = text_call(st, streaming, text);
  struct seen s = run_all(call, t, NULL, text);
  a2a_call_free(call);
  a2a_client_state_free(st);
  return s;
}

struct runner {
  a2a_call *call;
  const a2a_transport *t;
  const a2a_abort *abort;
  a2a_result r;
};

static void *run_blocked(void *arg) {
  struct runner *x = (struct runner *)arg;
  uint64_t now = 0;
  x->r = a2a_call_run(x->call, x->t, x->abort, 1000, &now);
  return NULL;
}

static void test_abort(const char *base, const a2a_transport *t) {
  a2a_client_state *st = state_for(base, "hang", (a2a_client_option)0, 0);
  a2a_call *call = text_call(st, false, "hello");
  a2a_abort *ab = NULL;
  struct runner x;
  pthread_t th;
  a2a_event ev;
  int waited = 0, finished = 0;

  CHECK(a2a_abort_new(&ab) == A2A_OK);
  x.call = call;
  x.t = t;
  x.abort = ab;
  x.r = A2A_PANIC;
  CHECK(pthread_create(&th, NULL, run_blocked, &x) == 0);
  /* Wait (at most 10 s) until the run holds the call: a harmless input is then refused. */
  while (a2a_call_handle_timeout(call, 0) != A2A_IN_USE && waited < 500) {
    sleep_ms(20);
    waited++;
  }
  CHECK(waited < 500);
  CHECK(a2a_call_run(call, t, NULL, 1000, NULL) == A2A_IN_USE);
  sleep_ms(200);
  a2a_abort_trigger(ab);
  pthread_join(th, NULL);
  CHECK(x.r == A2A_OK);
  while (a2a_call_poll_event(call, &ev) == A2A_OK) {
    if (ev.kind == A2A_EVENT_KIND_FINISHED) {
      a2a_outcome_info i = t_info(ev.outcome);
      finished = 1;
      CHECK(i.channel == A2A_CHANNEL_TRANSPORT); /* the cancel outcome, never a success */
      CHECK(i.has_error_name && i.error_name == A2A_ERROR_NAME_RESET);
      CHECK(!i.is_success && ev.exit_code != 0);
    }
  }
  CHECK(finished);
  a2a_abort_free(ab);
  a2a_call_free(call);
  a2a_client_state_free(st);
}

void test_call_run(void) {
  const char *base = getenv("A2A_TEST_FAULT_URL");
  a2a_transport *t = NULL;
  struct seen s;

  CHECK(base != NULL && base[0] != '\0');
  if (base == NULL || base[0] == '\0') {
    fprintf(stderr, "A2A_TEST_FAULT_URL is not set: run the C tests via scripts/ci/30-c.sh\n");
    return;
  }
  t = t_transport(2000);

  /* NULL call or transport. */
  CHECK(a2a_call_run(NULL, t, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  {
    a2a_client_state *st = state_for(base, "ok", (a2a_client_option)0, 0);
    a2a_call *call = text_call(st, false, "x");
    uint64_t now = 7;
    CHECK(a2a_call_run(call, NULL, NULL, 0, &now) == A2A_NULL_PARAMETER);
    CHECK(now == 7);
    a2a_call_free(call);
    a2a_client_state_free(st);
  }

  /* A send: the agent's text, one run. */
  s = one(base, t, "ok", (a2a_client_option)0, 0, false, "hello run");
  CHECK(s.runs == 1);
  CHECK(s.end.channel == A2A_CHANNEL_TASK && s.end.state == A2A_TASK_STATE_COMPLETED);
  CHECK(s.text_has_echo);
  CHECK(s.exit_code == 0);

  /* A stream: items over several runs, then completed. */
  s = one(base, t, "flow-100-500", (a2a_client_option)0, 0, true, "go");
  CHECK(s.item_runs >= 3);
  CHECK(s.end.state == A2A_TASK_STATE_COMPLETED && s.exit_code == 0);

  /* A failed task with its error_id. */
  s = one(base, t, "ok", (a2a_client_option)0, 0, false, "fail now");
  CHECK(s.end.channel == A2A_CHANNEL_TASK && s.end.state == A2A_TASK_STATE_FAILED);
  CHECK(s.error_id_ok);
  CHECK(s.exit_code != 0);

  /* A 503 retried once (send retries 1): RETRYING for attempt 2, two attempts. */
  s = one(base, t, "status-503", A2A_CLIENT_OPTION_SEND_RETRIES, 1, false, "again");
  CHECK(s.retrying == 1 && s.last_attempt == 2);
  CHECK(s.end.channel == A2A_CHANNEL_HTTP && s.end.http_status == 503);
  CHECK(s.attempts == 2);

  /* A cut stream resubscribed, not resent. */
  s = one(base, t, "stream-drop", A2A_CLIENT_OPTION_STREAM_RESUBSCRIBES, 2, true, "go");
  CHECK(s.resubscribing == 1 && s.resubscribes == 1);
  CHECK(s.end.state == A2A_TASK_STATE_COMPLETED);

  /* The idle timeout: a silent stream ends as transport/Timeout. */
  s = one(base, t, "stall", A2A_CLIENT_OPTION_STREAM_IDLE_TIMEOUT_MS, 300, true, "go");
  CHECK(s.end.channel == A2A_CHANNEL_TRANSPORT);
  CHECK(s.end.has_error_name && s.end.error_name == A2A_ERROR_NAME_TIMEOUT);

  /* The total deadline: a hung call ends at max time as transport/Timeout. */
  s = one(base, t, "hang", A2A_CLIENT_OPTION_MAX_TIME_MS, 400, false, "hello");
  CHECK(s.end.channel == A2A_CHANNEL_TRANSPORT);
  CHECK(s.end.has_error_name && s.end.error_name == A2A_ERROR_NAME_TIMEOUT);
  CHECK(s.now >= 1400); /* the clock reached the deadline */

  test_abort(base, t);
  a2a_transport_free(t);
}
