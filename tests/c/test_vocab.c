/* Enum names and parsers: every member, unknown numbers, NULL and invalid UTF-8. */
#include "harness.h"

void test_vocab(void) {
  a2a_task_state st = A2A_TASK_STATE_WORKING;
  a2a_error_name en = A2A_ERROR_NAME_OTHER;
  unsigned n;

  STR_EQ(a2a_channel_to_str(A2A_CHANNEL_TRANSPORT), "transport");
  STR_EQ(a2a_channel_to_str(A2A_CHANNEL_MALFORMED), "malformed");
  ABSENT(a2a_channel_to_str(A2A_CHANNEL_INVALID));
  ABSENT(a2a_channel_to_str(77));
  for (n = 1; n <= 6; n++) CHECK(a2a_channel_to_str(n).len > 0);

  STR_EQ(a2a_task_state_to_str(A2A_TASK_STATE_INPUT_REQUIRED), "input-required");
  STR_EQ(a2a_task_state_to_str(A2A_TASK_STATE_UNKNOWN), "unknown");
  ABSENT(a2a_task_state_to_str(9));
  CHECK(a2a_task_state_is_terminal(A2A_TASK_STATE_COMPLETED));
  CHECK(a2a_task_state_is_terminal(A2A_TASK_STATE_REJECTED));
  CHECK(!a2a_task_state_is_terminal(A2A_TASK_STATE_WORKING));
  CHECK(!a2a_task_state_is_terminal(1000));
  CHECK(a2a_task_state_is_interrupted(A2A_TASK_STATE_AUTH_REQUIRED));
  CHECK(!a2a_task_state_is_interrupted(A2A_TASK_STATE_FAILED));
  CHECK(!a2a_task_state_is_interrupted(1000));

  CHECK(a2a_task_state_parse("TASK_STATE_CANCELLED", 20, &st) == A2A_OK);
  CHECK(st == A2A_TASK_STATE_CANCELED);
  CHECK(a2a_task_state_parse("input-required", 14, &st) == A2A_OK);
  CHECK(st == A2A_TASK_STATE_INPUT_REQUIRED);
  CHECK(a2a_task_state_parse("4", 1, &st) == A2A_OK);
  CHECK(st == A2A_TASK_STATE_FAILED);
  /* (NULL, 0) is the empty string: an unknown spelling, not an error. */
  CHECK(a2a_task_state_parse(NULL, 0, &st) == A2A_OK);
  CHECK(st == A2A_TASK_STATE_UNKNOWN);
  st = A2A_TASK_STATE_WORKING;
  CHECK(a2a_task_state_parse(NULL, 3, &st) == A2A_NULL_PARAMETER);
  CHECK(a2a_task_state_parse("\xff\xfe", 2, &st) == A2A_INVALID_UTF8);
  CHECK(st == A2A_TASK_STATE_WORKING); /* untouched on failure */
  CHECK(a2a_task_state_parse("working", 7, NULL) == A2A_NULL_PARAMETER);

  STR_EQ(a2a_retry_to_str(A2A_RETRY_UNKNOWN_OUTCOME), "unknown_outcome");
  STR_EQ(a2a_retry_to_str(A2A_RETRY_NONE), "none");
  ABSENT(a2a_retry_to_str(A2A_RETRY_INVALID));
  ABSENT(a2a_retry_to_str(10));

  STR_EQ(a2a_request_sent_to_str(A2A_REQUEST_SENT_NO), "no");
  STR_EQ(a2a_request_sent_to_str(A2A_REQUEST_SENT_UNKNOWN), "unknown");
  ABSENT(a2a_request_sent_to_str(0));

  STR_EQ(a2a_error_name_to_str(A2A_ERROR_NAME_TASK_NOT_FOUND), "TaskNotFound");
  STR_EQ(a2a_error_name_to_str(A2A_ERROR_NAME_BAD_GATEWAY), "BadGateway");
  STR_EQ(a2a_error_name_to_str(A2A_ERROR_NAME_TLS), "Tls");
  ABSENT(a2a_error_name_to_str(0));
  ABSENT(a2a_error_name_to_str(100));
  CHECK(a2a_error_name_parse("GatewayTimeout", 14, &en) == A2A_OK);
  CHECK(en == A2A_ERROR_NAME_GATEWAY_TIMEOUT);
  CHECK(a2a_error_name_parse("gatewaytimeout", 14, &en) == A2A_INVALID_ARGUMENT);
  CHECK(en == A2A_ERROR_NAME_GATEWAY_TIMEOUT);
  CHECK(a2a_error_name_parse(NULL, 0, &en) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_error_name_parse("\xc3", 1, &en) == A2A_INVALID_UTF8);
  CHECK(a2a_error_name_parse("Dns", 3, NULL) == A2A_NULL_PARAMETER);
  /* The one pair that replaces the per-enum names and parsers. */
  STR_EQ(a2a_vocab_name(A2A_VOCAB_CHANNEL, A2A_CHANNEL_TRANSPORT), "transport");
  CHECK(a2a_vocab_parse(A2A_VOCAB_ERROR_NAME, "GatewayTimeout", 14, &n) == A2A_OK);
  CHECK(n == A2A_ERROR_NAME_GATEWAY_TIMEOUT);
}
