/* Breaker inputs, key derivation, model text. */
#include "harness.h"

static a2a_outcome *timeout_outcome(void) {
  a2a_outcome *o = NULL;
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_TIMEOUT, A2A_REQUEST_SENT_UNKNOWN, "read timeout", 12,
                              &o) == A2A_OK);
  return o;
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

/* What counts toward the client machine's breaker, and its default configuration (the
 * standalone a2a_breaker and a2a_retry_policy handles are gone: the machine keeps both). */
static void breaker_inputs(void) {
  a2a_breaker_config bc;
  a2a_outcome *o = timeout_outcome();
  a2a_outcome *ok = success_outcome();
  CHECK(a2a_counts_toward_breaker(o));
  CHECK(!a2a_counts_toward_breaker(NULL));
  memset(&bc, 0, sizeof bc);
  CHECK(a2a_breaker_config_default(&bc) == A2A_OK);
  CHECK(bc.failure_threshold == 5 && bc.buckets == 10 && bc.cool_down_ms == 15000 && bc.window_ms == 30000);
  CHECK(a2a_breaker_config_default(NULL) == A2A_NULL_PARAMETER);
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
  breaker_inputs();
  keys_and_text();
}
