/* a2a_outcome: the transport constructor, reading every field in one call
 * (a2a_outcome_get_info), the remote hint's pairs, NULL handles and NULL outs. Outcomes of
 * the other channels are exercised through the classifier's tests. */
#include "harness.h"

static void null_handle(void) {
  a2a_outcome_info info;
  a2a_str k, val;

  /* NULL arguments: refused, *out untouched. */
  memset(&info, 0xAB, sizeof info);
  CHECK(a2a_outcome_get_info(NULL, &info) == A2A_NULL_PARAMETER);
  CHECK(info.exit_code != 0 && info.message.len != 0);
  CHECK(a2a_outcome_remote_hint_pair(NULL, 0, &k, &val) == A2A_NULL_PARAMETER);
  a2a_outcome_free(NULL); /* a no-op */
}

static void transport(void) {
  a2a_outcome *o = NULL;
  a2a_str k = {NULL, 0}, val = {NULL, 0};
  const char *msg = "read timed out after 30000 ms";

  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_TIMEOUT, A2A_REQUEST_SENT_UNKNOWN, msg,
                              strlen(msg), &o) == A2A_OK);
  CHECK(o != NULL);
  {
    /* Every field in one call; absent fields are zero with their has_ flag false. */
    a2a_outcome_info info, again;
    memset(&info, 0xAB, sizeof info);
    CHECK(a2a_outcome_get_info(o, &info) == A2A_OK);
    CHECK(info.channel == A2A_CHANNEL_TRANSPORT);
    CHECK(info.retry == A2A_RETRY_UNKNOWN_OUTCOME);
    CHECK(!info.is_success && !info.terminal && !info.leaked_detail);
    CHECK(info.has_error_name && info.error_name == A2A_ERROR_NAME_TIMEOUT);
    CHECK(info.has_request_sent && info.request_sent == A2A_REQUEST_SENT_UNKNOWN);
    CHECK(!info.has_http_status && info.http_status == 0);
    CHECK(!info.has_code && info.code == 0);
    CHECK(!info.has_state && info.state == 0);
    CHECK(!info.has_retry_after_secs && info.retry_after_secs == 0);
    CHECK(!info.has_remote_hint_retryable && !info.remote_hint_retryable);
    CHECK(info.remote_hint_count == 0);
    CHECK(!info.has_version && info.version == 0);
    CHECK(!info.has_binding && info.binding == 0);
    CHECK(info.exit_code == 3); /* transport: the CLI's 3 */
    STR_EQ(info.message, msg);
    ABSENT(info.reason);
    ABSENT(info.data);
    ABSENT(info.task_id);
    ABSENT(info.context_id);
    ABSENT(info.text);
    ABSENT(info.error_id);
    ABSENT(info.hint);
    ABSENT(info.body_excerpt);
    ABSENT(info.cancel_origin);
    ABSENT(info.result_json);
    /* Views into the outcome, not copies: a second call points at the same bytes. */
    CHECK(a2a_outcome_get_info(o, &again) == A2A_OK);
    CHECK(info.message.ptr == again.message.ptr);
    /* NULL out-parameter on a live handle. */
    CHECK(a2a_outcome_get_info(o, NULL) == A2A_NULL_PARAMETER);
  }
  CHECK(a2a_outcome_remote_hint_pair(o, 0, &k, &val) == A2A_INVALID_ARGUMENT);
  CHECK(k.ptr == NULL && val.ptr == NULL);
  CHECK(a2a_outcome_remote_hint_pair(o, 0, NULL, &val) == A2A_NULL_PARAMETER);
  a2a_outcome_free(o);

  /* request not sent: backoff; empty message (NULL, 0) is present and empty. */
  o = NULL;
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_CONNECT_FAILED, A2A_REQUEST_SENT_NO, NULL, 0,
                              &o) == A2A_OK);
  {
    a2a_outcome_info info = t_info(o);
    CHECK(info.retry == A2A_RETRY_BACKOFF);
    CHECK(info.has_request_sent && info.request_sent == A2A_REQUEST_SENT_NO);
    CHECK(info.message.ptr != NULL && info.message.len == 0);
  }
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
