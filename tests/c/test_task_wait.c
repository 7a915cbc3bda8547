/* Waiting for a task (a2a_task_wait) with each poll a machine call answered in memory:
   working then completed, a deadline that gives up with a typed outcome; and a send with
   return-immediately. */
#include <stdlib.h>

#include "harness.h"

static a2a_client_state *wait_state(void) {
  const char *url = "http://agent.test/a2a";
  a2a_client_config_builder *b = a2a_client_config_builder_new();
  a2a_machine_config *cfg = NULL;
  a2a_client_state *st = NULL;
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_build(b, &cfg) == A2A_OK);
  a2a_client_config_builder_free(b);
  CHECK(a2a_client_state_new(cfg, url, strlen(url), A2A_PROTOCOL_VERSION_V0_3,
                             A2A_BINDING_JSON_RPC, 3, &st) == A2A_OK);
  a2a_machine_config_free(cfg);
  return st;
}

/* One poll of `w` at `now`, answered with a task in `state` 10 ms later; the step read. */
static a2a_wait_step poll_once(a2a_task_wait *w, a2a_client_state *st, uint64_t now,
                               const char *state, uint64_t *deadline) {
  a2a_call *call = NULL;
  a2a_transmit t;
  a2a_event e;
  a2a_header h;
  a2a_wait_step step;
  char id[64], body[256];
  int n;
  memset(&step, 0, sizeof step);
  CHECK(a2a_task_wait_poll(w, st, NULL, now, &call) == A2A_OK);
  CHECK(a2a_call_poll_transmit(call, now, &t) == A2A_OK);
  CHECK(t_bytes_contain(t.body, "\"method\":\"tasks/get\""));
  CHECK(t_bytes_contain(t.body, "\"id\":\"t-1\""));
  *deadline = t.deadline_ms;
  t_rpc_id(t.body, id, sizeof id);
  n = snprintf(body, sizeof body,
               "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
               "\"contextId\":\"c-1\",\"status\":{\"state\":\"%s\"}}}",
               id, state);
  h.name = "Content-Type";
  h.name_len = 12;
  h.value = "application/json";
  h.value_len = 16;
  CHECK(a2a_call_handle_head(call, t.request_id, 200, &h, 1, now + 10) == A2A_OK);
  CHECK(a2a_call_handle_body(call, t.request_id, (const uint8_t *)body, (size_t)n, now + 10) ==
        A2A_OK);
  CHECK(a2a_call_handle_end(call, t.request_id, now + 10) == A2A_OK);
  CHECK(a2a_call_poll_event(call, &e) == A2A_OK);
  CHECK(e.kind == A2A_EVENT_KIND_FINISHED);
  CHECK(a2a_task_wait_read(w, e.outcome, now + 10, &step) == A2A_OK);
  a2a_call_free(call);
  return step;
}

static void wait_until_completed(void) {
  a2a_client_state *st = wait_state();
  a2a_task_wait *w = NULL;
  a2a_wait_step step;
  uint64_t deadline = 0;
  CHECK(a2a_task_wait_new("t-1", 3, -1, 100, 400, 60000, 1000, &w) == A2A_OK);
  step = poll_once(w, st, 1000, "working", &deadline);
  CHECK(deadline <= 61000);
  CHECK(step.kind == A2A_WAIT_STEP_KIND_POLL_AT);
  CHECK(step.poll_at_ms == 1110);
  CHECK(step.outcome == NULL);
  step = poll_once(w, st, step.poll_at_ms, "completed", &deadline);
  CHECK(step.kind == A2A_WAIT_STEP_KIND_DONE);
  CHECK(step.outcome == NULL);
  a2a_task_wait_free(w);
  a2a_task_wait_free(NULL);
  a2a_client_state_free(st);
}

static void wait_gives_up(void) {
  a2a_client_state *st = wait_state();
  a2a_task_wait *w = NULL;
  a2a_wait_step step;
  a2a_outcome_info info;
  uint64_t now = 0, deadline = 0;
  int polls = 0;
  CHECK(a2a_task_wait_new("t-1", 3, 0, 200, 200, 1000, 0, &w) == A2A_OK);
  do {
    step = poll_once(w, st, now, "working", &deadline);
    CHECK(deadline <= 1000);
    now = step.poll_at_ms;
    polls++;
  } while (step.kind == A2A_WAIT_STEP_KIND_POLL_AT && polls < 30);
  CHECK(step.kind == A2A_WAIT_STEP_KIND_GAVE_UP);
  CHECK(step.outcome != NULL);
  CHECK(a2a_outcome_get_info(step.outcome, &info) == A2A_OK);
  CHECK(info.channel == A2A_CHANNEL_TRANSPORT);
  CHECK(info.has_error_name && info.error_name == A2A_ERROR_NAME_TIMEOUT);
  STR_EQ(info.task_id, "t-1");
  CHECK(info.has_state && info.state == A2A_TASK_STATE_WORKING);
  CHECK(info.retry == A2A_RETRY_POLL);
  CHECK(t_contains(info.message, "still working"));
  a2a_outcome_free(step.outcome);
  /* Misuse. */
  CHECK(a2a_task_wait_new("", 0, -1, 0, 0, 0, 0, &w) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_task_wait_poll(NULL, st, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_task_wait_read(NULL, NULL, 0, &step) == A2A_NULL_PARAMETER);
  a2a_task_wait_free(w);
  a2a_client_state_free(st);
}

static void send_returns_immediately(void) {
  a2a_client_state *st = wait_state();
  a2a_call_settings *s = a2a_call_settings_new();
  a2a_call *call = NULL;
  a2a_transmit t;
  CHECK(a2a_call_settings_set(s, A2A_CALL_OPTION_RETURN_IMMEDIATELY, 1) == A2A_OK);
  CHECK(a2a_call_settings_set(NULL, A2A_CALL_OPTION_RETURN_IMMEDIATELY, 1) == A2A_NULL_PARAMETER);
  CHECK(a2a_call_new_text(st, false, "slow", 4, s, 0, &call) == A2A_OK);
  CHECK(a2a_call_poll_transmit(call, 0, &t) == A2A_OK);
  CHECK(t_bytes_contain(t.body, "\"blocking\":false"));
  a2a_call_free(call);
  a2a_call_settings_free(s);
  a2a_client_state_free(st);
}

void test_task_wait(void) {
  wait_until_completed();
  wait_gives_up();
  send_returns_immediately();
}
