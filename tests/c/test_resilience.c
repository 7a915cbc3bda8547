/* Retry policy, circuit breaker, key derivation, model text. */
#include "harness.h"

static a2a_outcome *timeout_outcome(void) {
  a2a_outcome *o = NULL;
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_TIMEOUT, A2A_REQUEST_SENT_UNKNOWN, "read timeout", 12,
                              &o) == A2A_OK);
  return o;
}

static void policy(void) {
  a2a_retry_config cfg;
  a2a_retry_policy *p = NULL;
  a2a_retry_action a;
  a2a_outcome *o = timeout_outcome();
  uint64_t now = 0, left = 0;
  int retries = 0;

  CHECK(a2a_retry_config_default(&cfg) == A2A_OK);
  CHECK(cfg.kind == A2A_CALL_KIND_READ && cfg.max_attempts == 3 && !cfg.has_deadline);
  CHECK(a2a_retry_config_default(NULL) == A2A_NULL_PARAMETER);
  cfg.kind = A2A_CALL_KIND_WITH_IDEMPOTENCY_KEY;
  cfg.has_deadline = true;
  cfg.deadline_ms = 30000;
  cfg.attempt_estimate_ms = 5000;
  CHECK(a2a_retry_policy_new(&cfg, 0, &p) == A2A_OK && p != NULL);
  CHECK(a2a_retry_policy_remaining(p, 1000, &left) && left == 29000);
  CHECK(a2a_retry_policy_begin_attempt(p, 0) == A2A_OK);
  for (;;) {
    now += 5000;
    CHECK(a2a_retry_policy_next(p, o, now, 0x9e3779b97f4a7c15ull, &a) == A2A_OK);
    if (a.kind != A2A_RETRY_ACTION_KIND_RETRY_AFTER) break;
    retries++;
    CHECK(a.has_delay && a.message_id == A2A_ID_RULE_KEEP &&
          a.idempotency_key == A2A_ID_RULE_KEEP && a.jsonrpc_id == A2A_ID_RULE_NEW);
    now += a.delay_ms;
    CHECK(a2a_retry_policy_begin_attempt(p, now) == A2A_OK);
    if (retries > 10) break; /* bounded */
  }
  CHECK(retries == 2);
  CHECK(a.kind == A2A_RETRY_ACTION_KIND_GIVE_UP && a.give_up != A2A_GIVE_UP_REASON_NONE);
  CHECK(a.give_up_text.ptr != NULL && a.give_up_text.len > 0);
  CHECK(a2a_vocab_name(A2A_VOCAB_GIVE_UP_REASON, a.give_up).len > 0);
  CHECK(a.message_id == A2A_ID_RULE_NONE && !a.has_delay);
  CHECK(a2a_retry_policy_attempts(p) == 3);
  CHECK(a2a_retry_policy_follow_ups(p) == 0);
  CHECK(a2a_retry_policy_new_tasks(p) == 0);
  CHECK(a2a_retry_policy_estimate(p) >= 5000);
  CHECK(a2a_retry_policy_is_finished(p));
  /* Asking again after the end: give up, finished. */
  CHECK(a2a_retry_policy_next(p, o, now, 1, &a) == A2A_OK);
  CHECK(a.kind == A2A_RETRY_ACTION_KIND_GIVE_UP && a.give_up == A2A_GIVE_UP_REASON_FINISHED);
  STR_EQ(a2a_vocab_name(A2A_VOCAB_GIVE_UP_REASON, A2A_GIVE_UP_REASON_FINISHED), "finished");
  ABSENT(a2a_vocab_name(A2A_VOCAB_GIVE_UP_REASON, A2A_GIVE_UP_REASON_NONE));
  ABSENT(a2a_vocab_name(A2A_VOCAB_GIVE_UP_REASON, 1234));
  ABSENT(a2a_vocab_name(A2A_VOCAB_GIVE_UP_REASON, A2A_GIVE_UP_REASON_OTHER));
  {
    uint32_t reason = 0;
    CHECK(a2a_vocab_parse(A2A_VOCAB_GIVE_UP_REASON, "finished", 8, &reason) == A2A_OK);
    CHECK(reason == A2A_GIVE_UP_REASON_FINISHED);
  }
  a2a_retry_policy_free(p);

  /* A truncated stream with a known task: resubscribe to that task, never resend. */
  p = NULL;
  CHECK(a2a_retry_config_default(&cfg) == A2A_OK);
  cfg.kind = A2A_CALL_KIND_SIDE_EFFECTING;
  CHECK(a2a_retry_policy_new(&cfg, 0, &p) == A2A_OK);
  ABSENT(a2a_retry_policy_task_id(p));
  CHECK(a2a_retry_policy_set_task_id(p, "t-7", 3) == A2A_OK);
  STR_EQ(a2a_retry_policy_task_id(p), "t-7");
  CHECK(a2a_retry_policy_set_task_id(p, "\xff", 1) == A2A_INVALID_UTF8);
  {
    /* A stream cut after "working": the tracker's end outcome advises resubscribe. */
    a2a_stream_tracker *t = NULL;
    a2a_stream_end_kind k;
    a2a_outcome *end = NULL;
    a2a_stream_item item;
    static const char working[] =
        "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"status-update\",\"taskId\":\"t-7\","
        "\"contextId\":\"c\",\"status\":{\"state\":\"working\"},\"final\":false}}";
    CHECK(a2a_stream_tracker_new(NULL, 0, 0, &t) == A2A_OK);
    CHECK(a2a_stream_tracker_on_event(t, 1, NULL, 0, (const uint8_t *)working, strlen(working),
                                      &item) == A2A_OK);
    CHECK(a2a_stream_tracker_finish(t, &k, &end) == A2A_OK && k == A2A_STREAM_END_KIND_TRUNCATED);
    CHECK(a2a_retry_policy_next(p, end, 10, 7, &a) == A2A_OK);
    CHECK(a.kind == A2A_RETRY_ACTION_KIND_RESUBSCRIBE);
    STR_EQ(a.task_id, "t-7");
    CHECK(a.message_id == A2A_ID_RULE_NOT_SENT);
    a2a_outcome_free(end);
    a2a_stream_tracker_free(t);
  }
  a2a_retry_policy_free(p);

  /* Configuration errors and NULLs. */
  p = NULL;
  CHECK(a2a_retry_config_default(&cfg) == A2A_OK);
  cfg.max_attempts = 0;
  CHECK(a2a_retry_policy_new(&cfg, 0, &p) == A2A_CONFIG_ZERO_MAX_ATTEMPTS);
  cfg.max_attempts = 3;
  cfg.base_delay_ms = cfg.max_delay_ms + 1;
  CHECK(a2a_retry_policy_new(&cfg, 0, &p) == A2A_CONFIG_BASE_DELAY_ABOVE_CAP);
  CHECK(a2a_retry_config_default(&cfg) == A2A_OK);
  cfg.kind = 77;
  CHECK(a2a_retry_policy_new(&cfg, 0, &p) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_retry_policy_new(NULL, 0, &p) == A2A_NULL_PARAMETER);
  CHECK(a2a_retry_policy_new(&cfg, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(p == NULL);
  CHECK(a2a_retry_policy_next(NULL, o, 0, 0, &a) == A2A_NULL_PARAMETER);
  CHECK(a2a_retry_policy_begin_attempt(NULL, 0) == A2A_NULL_PARAMETER);
  CHECK(a2a_retry_policy_set_task_id(NULL, NULL, 0) == A2A_NULL_PARAMETER);
  ABSENT(a2a_retry_policy_task_id(NULL));
  CHECK(a2a_retry_policy_attempts(NULL) == 0);
  CHECK(a2a_retry_policy_follow_ups(NULL) == 0);
  CHECK(a2a_retry_policy_new_tasks(NULL) == 0);
  CHECK(a2a_retry_policy_estimate(NULL) == 0);
  CHECK(!a2a_retry_policy_remaining(NULL, 0, &left));
  CHECK(!a2a_retry_policy_is_finished(NULL));
  a2a_retry_policy_free(NULL);
  a2a_outcome_free(o);
}

/* A successful call's outcome: a JSON-RPC reply carrying a message (not counted). */
static a2a_outcome *success_outcome(void) {
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"message\","
                             "\"messageId\":\"m1\",\"role\":\"agent\",\"parts\":[]}}";
  a2a_response r;
  a2a_outcome *o = NULL;
  memset(&r, 0, sizeof r);
  r.status = 200;
  r.content_type = "application/json";
  r.content_type_len = strlen(r.content_type);
  r.body = (const uint8_t *)body;
  r.body_len = strlen(body);
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(!a2a_counts_toward_breaker(o));
  return o;
}

static void breaker(void) {
  a2a_breaker_config bc;
  a2a_breaker *b = NULL;
  a2a_breaker_snapshot s;
  a2a_outcome *o = timeout_outcome();
  a2a_outcome *ok = success_outcome();
  a2a_outcome *refusal = NULL;

  CHECK(a2a_breaker_config_default(&bc) == A2A_OK);
  CHECK(bc.failure_threshold == 5 && bc.buckets == 10);
  CHECK(a2a_breaker_config_default(NULL) == A2A_NULL_PARAMETER);
  bc.failure_threshold = 2;
  bc.cool_down_ms = 1000;
  CHECK(a2a_breaker_new("booking", 7, &bc, &b) == A2A_OK && b != NULL);
  STR_EQ(a2a_breaker_agent(b), "booking");
  CHECK(a2a_counts_toward_breaker(o));
  CHECK(!a2a_counts_toward_breaker(NULL));
  CHECK(a2a_breaker_allow(b, 10));
  CHECK(a2a_breaker_record(b, o, 10) == A2A_OK);
  CHECK(a2a_breaker_allow(b, 20));
  CHECK(a2a_breaker_record(b, o, 20) == A2A_OK);
  CHECK(a2a_breaker_snapshot_at(b, 30, &s) == A2A_OK && s.state == A2A_BREAKER_STATE_OPEN);
  CHECK(!a2a_breaker_allow(b, 30));
  CHECK(a2a_breaker_refusal(b, 30, &refusal) == A2A_OK);
  CHECK(t_info(refusal).has_error_name && t_info(refusal).error_name == A2A_ERROR_NAME_CIRCUIT_OPEN);
  CHECK(t_info(refusal).has_request_sent && t_info(refusal).request_sent == A2A_REQUEST_SENT_NO);
  a2a_outcome_free(refusal);
  CHECK(a2a_breaker_snapshot_at(b, 30, &s) == A2A_OK);
  CHECK(s.state == A2A_BREAKER_STATE_OPEN && s.times_opened == 1 && s.refused == 1);
  CHECK(s.has_half_open_at && s.half_open_at_ms == 1020);
  /* After the cool-down: half-open, one trial; releasing it returns the permit. */
  CHECK(a2a_breaker_snapshot_at(b, 1020, &s) == A2A_OK && s.state == A2A_BREAKER_STATE_HALF_OPEN);
  CHECK(a2a_breaker_allow(b, 1020));
  CHECK(a2a_breaker_release(b, 1021) == A2A_OK);
  CHECK(a2a_breaker_allow(b, 1022));
  CHECK(a2a_breaker_record(b, ok, 1023) == A2A_OK);
  CHECK(a2a_breaker_snapshot_at(b, 1024, &s) == A2A_OK && s.state == A2A_BREAKER_STATE_CLOSED);
  CHECK(a2a_breaker_record(b, NULL, 1025) == A2A_NULL_PARAMETER);
  CHECK(a2a_breaker_reset(b) == A2A_OK);
  a2a_breaker_free(b);

  b = NULL;
  CHECK(a2a_breaker_config_default(&bc) == A2A_OK);
  bc.failure_threshold = 0;
  bc.failure_rate_percent = 0;
  CHECK(a2a_breaker_new("x", 1, &bc, &b) == A2A_CONFIG_NO_OPENING_RULE);
  CHECK(a2a_breaker_config_default(&bc) == A2A_OK);
  bc.failure_rate_percent = 101;
  CHECK(a2a_breaker_new("x", 1, &bc, &b) == A2A_CONFIG_RATE_OUT_OF_RANGE);
  CHECK(a2a_breaker_config_default(&bc) == A2A_OK);
  bc.window_ms = 0;
  CHECK(a2a_breaker_new("x", 1, &bc, &b) == A2A_CONFIG_ZERO_WINDOW);
  CHECK(a2a_breaker_config_default(&bc) == A2A_OK);
  bc.buckets = 1001;
  CHECK(a2a_breaker_new("x", 1, &bc, &b) == A2A_CONFIG_BUCKETS_OUT_OF_RANGE);
  CHECK(a2a_breaker_config_default(&bc) == A2A_OK);
  bc.half_open_trials = 0;
  CHECK(a2a_breaker_new("x", 1, &bc, &b) == A2A_CONFIG_ZERO_HALF_OPEN_TRIALS);
  CHECK(a2a_breaker_config_default(&bc) == A2A_OK);
  CHECK(a2a_breaker_new("\xff", 1, &bc, &b) == A2A_INVALID_UTF8);
  CHECK(a2a_breaker_new(NULL, 0, NULL, &b) == A2A_NULL_PARAMETER);
  CHECK(a2a_breaker_new(NULL, 0, &bc, NULL) == A2A_NULL_PARAMETER);
  CHECK(b == NULL);
  CHECK(!a2a_breaker_allow(NULL, 0));
  CHECK(a2a_breaker_refusal(NULL, 0, &refusal) == A2A_NULL_PARAMETER);
  CHECK(a2a_breaker_record(NULL, o, 0) == A2A_NULL_PARAMETER);
  CHECK(a2a_breaker_release(NULL, 0) == A2A_NULL_PARAMETER);
  CHECK(a2a_breaker_snapshot_at(NULL, 0, &s) == A2A_NULL_PARAMETER);
  CHECK(a2a_breaker_reset(NULL) == A2A_NULL_PARAMETER);
  ABSENT(a2a_breaker_agent(NULL));
  a2a_breaker_free(NULL);
  a2a_outcome_free(o);
  a2a_outcome_free(ok);
}

static void keys_and_text(void) {
  a2a_bytes parts[2];
  char buf[64], buf2[64], small[8];
  size_t n = 0, n2 = 0, need = 0;
  a2a_outcome *o = timeout_outcome();
  a2a_outcome *ok = NULL;
  char line[1024];
  a2a_str instr = a2a_model_instruction();

  parts[0].ptr = (const uint8_t *)"conversation-42";
  parts[0].len = 15;
  parts[1].ptr = (const uint8_t *)"book";
  parts[1].len = 4;
  CHECK(a2a_derive_idempotency_key(parts, 2, buf, sizeof buf, &n) == A2A_OK && n == 40);
  CHECK(memcmp(buf, "a2a-ik1-", 8) == 0);
  CHECK(a2a_derive_idempotency_key(parts, 2, buf2, sizeof buf2, &n2) == A2A_OK && n2 == n);
  CHECK(memcmp(buf, buf2, n) == 0); /* deterministic */
  CHECK(a2a_derive_message_id(parts, 2, buf, sizeof buf, &n) == A2A_OK && n == 36);
  CHECK(buf[8] == '-' && buf[14] == '8'); /* RFC 9562 version 8 */
  CHECK(a2a_derive_message_id(parts, 2, small, sizeof small, &need) == A2A_INSUFFICIENT_SIZE);
  CHECK(need == 36);
  CHECK(a2a_derive_idempotency_key(parts, 2, NULL, 0, &need) == A2A_INSUFFICIENT_SIZE && need == 40);
  CHECK(a2a_derive_idempotency_key(NULL, 0, buf, sizeof buf, &n) == A2A_KEY_EMPTY_INPUT);
  parts[0].len = 0;
  parts[1].len = 0;
  CHECK(a2a_derive_message_id(parts, 2, buf, sizeof buf, &n) == A2A_KEY_EMPTY_INPUT);
  parts[0].ptr = NULL;
  parts[0].len = 3;
  CHECK(a2a_derive_message_id(parts, 2, buf, sizeof buf, &n) == A2A_NULL_PARAMETER);
  CHECK(a2a_derive_message_id(NULL, 2, buf, sizeof buf, &n) == A2A_NULL_PARAMETER);
  CHECK(a2a_derive_message_id(parts, 2, buf, sizeof buf, NULL) == A2A_NULL_PARAMETER);

  CHECK(a2a_model_text("booking", 7, o, line, sizeof line, &n) == A2A_OK);
  CHECK(n > 15 && memcmp(line, "REMOTE_UNKNOWN booking:", 23) == 0);
  CHECK(a2a_model_text("booking", 7, o, small, sizeof small, &need) == A2A_INSUFFICIENT_SIZE);
  CHECK(need == n);
  CHECK(a2a_model_text("\xff", 1, o, line, sizeof line, &n) == A2A_INVALID_UTF8);
  CHECK(a2a_model_text("a", 1, NULL, line, sizeof line, &n) == A2A_NULL_PARAMETER);
  CHECK(a2a_model_text("a", 1, o, line, sizeof line, NULL) == A2A_NULL_PARAMETER);
  STR_EQ(a2a_model_prefix(o), "REMOTE_UNKNOWN");
  ABSENT(a2a_model_prefix(NULL));
  {
    /* A success has no line. */
    a2a_response r;
    static const char msg[] =
        "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"message\",\"role\":\"agent\","
        "\"messageId\":\"m\",\"parts\":[{\"kind\":\"text\",\"text\":\"hi\"}]}}";
    memset(&r, 0, sizeof r);
    r.status = 200;
    r.body = (const uint8_t *)msg;
    r.body_len = strlen(msg);
    CHECK(a2a_classify(&r, &ok) == A2A_OK);
    CHECK(t_info(ok).channel == A2A_CHANNEL_MESSAGE);
    CHECK(a2a_model_text("a", 1, ok, line, sizeof line, &n) == A2A_NONE);
    ABSENT(a2a_model_prefix(ok));
    a2a_outcome_free(ok);
  }
  CHECK(t_contains(instr, "REMOTE_UNKNOWN"));
  a2a_outcome_free(o);
}

void test_resilience(void) {
  policy();
  breaker();
  keys_and_text();
}
