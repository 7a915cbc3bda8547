/* a2a_outcome: the transport constructor and every accessor, NULL handles and NULL outs.
 * Outcomes of the other channels are exercised through the classifier's tests. */
#include "harness.h"

static void null_handle(void) {
  uint16_t status = 7;
  int64_t code = 7;
  uint64_t secs = 7;
  bool flag = true;
  a2a_error_name en = A2A_ERROR_NAME_OTHER;
  a2a_task_state st = A2A_TASK_STATE_WORKING;
  a2a_request_sent rs = A2A_REQUEST_SENT_NO;
  a2a_protocol_version v = A2A_PROTOCOL_VERSION_V0_3;
  a2a_binding b = A2A_BINDING_JSON_RPC;
  a2a_str k, val;

  CHECK(a2a_outcome_channel(NULL) == A2A_CHANNEL_INVALID);
  CHECK(a2a_outcome_retry(NULL) == A2A_RETRY_INVALID);
  CHECK(!a2a_outcome_is_success(NULL));
  CHECK(!a2a_outcome_terminal(NULL));
  CHECK(!a2a_outcome_http_status(NULL, &status) && status == 7);
  CHECK(!a2a_outcome_code(NULL, &code) && code == 7);
  CHECK(!a2a_outcome_error_name(NULL, &en) && en == A2A_ERROR_NAME_OTHER);
  CHECK(!a2a_outcome_state(NULL, &st) && st == A2A_TASK_STATE_WORKING);
  CHECK(!a2a_outcome_retry_after_secs(NULL, &secs) && secs == 7);
  CHECK(!a2a_outcome_remote_hint_retryable(NULL, &flag) && flag);
  CHECK(a2a_outcome_remote_hint_count(NULL) == 0);
  CHECK(a2a_outcome_remote_hint_pair(NULL, 0, &k, &val) == A2A_NULL_PARAMETER);
  CHECK(!a2a_outcome_request_sent(NULL, &rs) && rs == A2A_REQUEST_SENT_NO);
  CHECK(!a2a_outcome_version(NULL, &v));
  CHECK(!a2a_outcome_binding(NULL, &b));
  ABSENT(a2a_outcome_reason(NULL));
  ABSENT(a2a_outcome_message(NULL));
  ABSENT(a2a_outcome_data(NULL));
  ABSENT(a2a_outcome_task_id(NULL));
  ABSENT(a2a_outcome_context_id(NULL));
  ABSENT(a2a_outcome_text(NULL));
  ABSENT(a2a_outcome_error_id(NULL));
  ABSENT(a2a_outcome_hint(NULL));
  ABSENT(a2a_outcome_body_excerpt(NULL));
  CHECK(!a2a_outcome_leaked_detail(NULL));
  ABSENT(a2a_outcome_cancel_origin(NULL));
  a2a_outcome_free(NULL); /* a no-op */
}

static void transport(void) {
  a2a_outcome *o = NULL;
  uint16_t status = 7;
  int64_t code = 7;
  uint64_t secs = 7;
  bool flag = true;
  a2a_error_name en = A2A_ERROR_NAME_OTHER;
  a2a_task_state st = A2A_TASK_STATE_WORKING;
  a2a_request_sent rs = A2A_REQUEST_SENT_NO;
  a2a_protocol_version v = A2A_PROTOCOL_VERSION_V0_3;
  a2a_binding b = A2A_BINDING_JSON_RPC;
  a2a_str k = {NULL, 0}, val = {NULL, 0};
  const char *msg = "read timed out after 30000 ms";

  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_TIMEOUT, A2A_REQUEST_SENT_UNKNOWN, msg,
                              strlen(msg), &o) == A2A_OK);
  CHECK(o != NULL);
  CHECK(a2a_outcome_channel(o) == A2A_CHANNEL_TRANSPORT);
  CHECK(a2a_outcome_retry(o) == A2A_RETRY_UNKNOWN_OUTCOME);
  CHECK(!a2a_outcome_is_success(o));
  CHECK(!a2a_outcome_terminal(o));
  STR_EQ(a2a_outcome_message(o), msg);
  CHECK(a2a_outcome_error_name(o, &en) && en == A2A_ERROR_NAME_TIMEOUT);
  CHECK(a2a_outcome_request_sent(o, &rs) && rs == A2A_REQUEST_SENT_UNKNOWN);
  CHECK(!a2a_outcome_http_status(o, &status) && status == 7);
  CHECK(!a2a_outcome_code(o, &code) && code == 7);
  CHECK(!a2a_outcome_state(o, &st) && st == A2A_TASK_STATE_WORKING);
  CHECK(!a2a_outcome_retry_after_secs(o, &secs) && secs == 7);
  CHECK(!a2a_outcome_remote_hint_retryable(o, &flag) && flag);
  CHECK(a2a_outcome_remote_hint_count(o) == 0);
  CHECK(a2a_outcome_remote_hint_pair(o, 0, &k, &val) == A2A_INVALID_ARGUMENT);
  CHECK(k.ptr == NULL && val.ptr == NULL);
  CHECK(a2a_outcome_remote_hint_pair(o, 0, NULL, &val) == A2A_NULL_PARAMETER);
  CHECK(!a2a_outcome_version(o, &v) && v == A2A_PROTOCOL_VERSION_V0_3);
  CHECK(!a2a_outcome_binding(o, &b) && b == A2A_BINDING_JSON_RPC);
  ABSENT(a2a_outcome_reason(o));
  ABSENT(a2a_outcome_data(o));
  ABSENT(a2a_outcome_task_id(o));
  ABSENT(a2a_outcome_context_id(o));
  ABSENT(a2a_outcome_text(o));
  ABSENT(a2a_outcome_error_id(o));
  ABSENT(a2a_outcome_hint(o));
  ABSENT(a2a_outcome_body_excerpt(o));
  CHECK(!a2a_outcome_leaked_detail(o));
  ABSENT(a2a_outcome_cancel_origin(o));
  {
    /* The same outcome in one call: every field as the accessors gave it. */
    a2a_outcome_info info;
    memset(&info, 0xAB, sizeof info);
    CHECK(a2a_outcome_get_info(o, &info) == A2A_OK);
    CHECK(info.channel == A2A_CHANNEL_TRANSPORT);
    CHECK(info.retry == A2A_RETRY_UNKNOWN_OUTCOME);
    CHECK(!info.is_success && !info.terminal && !info.leaked_detail);
    CHECK(info.has_error_name && info.error_name == A2A_ERROR_NAME_TIMEOUT);
    CHECK(info.has_request_sent && info.request_sent == A2A_REQUEST_SENT_UNKNOWN);
    CHECK(!info.has_http_status && info.http_status == 0);
    CHECK(!info.has_code && !info.has_state && !info.has_retry_after_secs);
    CHECK(!info.has_remote_hint_retryable && info.remote_hint_count == 0);
    CHECK(!info.has_version && !info.has_binding && info.version == 0);
    CHECK(info.exit_code == a2a_outcome_exit_code(o));
    STR_EQ(info.message, msg);
    CHECK(info.message.ptr == a2a_outcome_message(o).ptr); /* a view, not a copy */
    ABSENT(info.reason);
    ABSENT(info.task_id);
    ABSENT(info.text);
    ABSENT(info.cancel_origin);
    ABSENT(info.result_json);
    /* NULL arguments: refused, *out untouched. */
    memset(&info, 0xAB, sizeof info);
    CHECK(a2a_outcome_get_info(NULL, &info) == A2A_NULL_PARAMETER);
    CHECK(info.exit_code != 0 && info.message.len != 0);
    CHECK(a2a_outcome_get_info(o, NULL) == A2A_NULL_PARAMETER);
  }
  /* NULL out-parameters on a live handle. */
  CHECK(!a2a_outcome_error_name(o, NULL));
  CHECK(!a2a_outcome_request_sent(o, NULL));
  CHECK(!a2a_outcome_http_status(o, NULL));
  a2a_outcome_free(o);

  /* request not sent: backoff; empty message (NULL, 0) is present and empty. */
  o = NULL;
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_CONNECT_FAILED, A2A_REQUEST_SENT_NO, NULL, 0,
                              &o) == A2A_OK);
  CHECK(a2a_outcome_retry(o) == A2A_RETRY_BACKOFF);
  CHECK(a2a_outcome_message(o).ptr != NULL && a2a_outcome_message(o).len == 0);
  a2a_outcome_free(o);

  /* Refusals leave *out untouched. */
  o = NULL;
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_TASK_NOT_FOUND, A2A_REQUEST_SENT_NO, NULL, 0,
                              &o) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_UNAVAILABLE, A2A_REQUEST_SENT_NO, NULL, 0,
                              &o) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_TLS, 0, NULL, 0, &o) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_outcome_transport(9999, A2A_REQUEST_SENT_NO, NULL, 0, &o) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_DNS, A2A_REQUEST_SENT_NO, "\xe2\x82", 2, &o) ==
        A2A_INVALID_UTF8);
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_DNS, A2A_REQUEST_SENT_NO, NULL, 5, &o) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_DNS, A2A_REQUEST_SENT_NO, NULL, 0, NULL) ==
        A2A_NULL_PARAMETER);
  CHECK(o == NULL);
}

void test_outcome(void) {
  null_handle();
  transport();
}
