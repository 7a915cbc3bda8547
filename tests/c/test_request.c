/* The A2A methods' JSON-RPC names in both protocol versions. (The request builder
 * a2a_request_* is gone: the client machine builds every request; tests/c/test_machine.c.) */
#include "harness.h"

void test_request(void) {
  uint32_t m = 0;
  /* Method names: one vocabulary per protocol version. */
  STR_EQ(a2a_vocab_name(A2A_VOCAB_METHOD_JSONRPC_V0_3, A2A_METHOD_SEND_MESSAGE), "message/send");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_METHOD_JSONRPC_V0_3, A2A_METHOD_SUBSCRIBE_TO_TASK),
         "tasks/resubscribe");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_METHOD_JSONRPC_V1_0, A2A_METHOD_CREATE_PUSH_CONFIG),
         "CreateTaskPushNotificationConfig");
  ABSENT(a2a_vocab_name(A2A_VOCAB_METHOD_JSONRPC_V0_3, A2A_METHOD_LIST_TASKS));
  ABSENT(a2a_vocab_name(A2A_VOCAB_METHOD_JSONRPC_V1_0, 0));
  ABSENT(a2a_vocab_name(0, A2A_METHOD_GET_TASK));
  /* A name of either version: try 1.0's names, then 0.3's. */
  CHECK(a2a_vocab_parse(A2A_VOCAB_METHOD_JSONRPC_V1_0, "tasks/cancel", 12, &m) == A2A_NONE);
  CHECK(a2a_vocab_parse(A2A_VOCAB_METHOD_JSONRPC_V0_3, "tasks/cancel", 12, &m) == A2A_OK);
  CHECK(m == A2A_METHOD_CANCEL_TASK);
  CHECK(a2a_vocab_parse(A2A_VOCAB_METHOD_JSONRPC_V1_0, "ListTasks", 9, &m) == A2A_OK);
  CHECK(m == A2A_METHOD_LIST_TASKS);
  CHECK(a2a_vocab_parse(A2A_VOCAB_METHOD_JSONRPC_V0_3, "ListTasks", 9, &m) == A2A_NONE);
  CHECK(a2a_vocab_parse(A2A_VOCAB_METHOD_JSONRPC_V1_0, "tasks/nope", 10, &m) == A2A_NONE);
  CHECK(a2a_vocab_parse(A2A_VOCAB_METHOD_JSONRPC_V0_3, "tasks/nope", 10, &m) == A2A_NONE);
  CHECK(a2a_vocab_parse(A2A_VOCAB_METHOD_JSONRPC_V0_3, "\xff", 1, &m) == A2A_INVALID_UTF8);
  CHECK(a2a_vocab_parse(A2A_VOCAB_METHOD_JSONRPC_V1_0, "ListTasks", 9, NULL) == A2A_NULL_PARAMETER);
}
