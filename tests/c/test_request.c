/* The A2A methods' JSON-RPC names in both protocol versions. (The request builder
 * a2a_request_* is gone: the client machine builds every request; tests/c/test_machine.c.) */
#include "harness.h"

void test_request(void) {
  a2a_method m;
  a2a_protocol_version pv;
  STR_EQ(a2a_method_jsonrpc_name(A2A_METHOD_SEND_MESSAGE, A2A_PROTOCOL_VERSION_V0_3), "message/send");
  STR_EQ(a2a_method_jsonrpc_name(A2A_METHOD_SUBSCRIBE_TO_TASK, A2A_PROTOCOL_VERSION_V0_3),
         "tasks/resubscribe");
  STR_EQ(a2a_method_jsonrpc_name(A2A_METHOD_CREATE_PUSH_CONFIG, A2A_PROTOCOL_VERSION_V1_0),
         "CreateTaskPushNotificationConfig");
  ABSENT(a2a_method_jsonrpc_name(A2A_METHOD_LIST_TASKS, A2A_PROTOCOL_VERSION_V0_3));
  ABSENT(a2a_method_jsonrpc_name(0, A2A_PROTOCOL_VERSION_V1_0));
  ABSENT(a2a_method_jsonrpc_name(A2A_METHOD_GET_TASK, 0));
  CHECK(a2a_method_from_jsonrpc_name("tasks/cancel", 12, &m, &pv) == A2A_OK);
  CHECK(m == A2A_METHOD_CANCEL_TASK && pv == A2A_PROTOCOL_VERSION_V0_3);
  CHECK(a2a_method_from_jsonrpc_name("ListTasks", 9, &m, &pv) == A2A_OK);
  CHECK(m == A2A_METHOD_LIST_TASKS && pv == A2A_PROTOCOL_VERSION_V1_0);
  CHECK(a2a_method_from_jsonrpc_name("tasks/nope", 10, &m, &pv) == A2A_NONE);
  CHECK(a2a_method_from_jsonrpc_name("\xff", 1, &m, &pv) == A2A_INVALID_UTF8);
  CHECK(a2a_method_from_jsonrpc_name("ListTasks", 9, NULL, &pv) == A2A_NULL_PARAMETER);
}
