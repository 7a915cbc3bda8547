/* Server side: parse both bindings and versions, refusals, results, errors, frames,
 * FAILED with error_id. Request/reply shapes hand-written from the A2A 0.3 and 1.0 specs. */
#include "harness.h"

static a2a_header hdr(const char *n, const char *v) {
  a2a_header h;
  h.name = n;
  h.name_len = strlen(n);
  h.value = v;
  h.value_len = strlen(v);
  return h;
}

/* The response read in one call; all zero when the handle holds no response yet. */
static a2a_server_response_info resp_info(const a2a_server_response *r) {
  a2a_server_response_info i;
  memset(&i, 0, sizeof i);
  if (a2a_server_response_get_info(r, &i) != A2A_OK) memset(&i, 0, sizeof i);
  return i;
}

static a2a_str body_str(const a2a_server_response *r) {
  a2a_str s;
  a2a_server_response_info i = resp_info(r);
  s.ptr = (const char *)i.body.ptr;
  s.len = i.body.len;
  return s;
}

/* What the response served, through `*served`; A2A_NONE when it holds none. */
static a2a_result served_of(const a2a_server_response *r, a2a_served *served) {
  a2a_server_response_info i;
  a2a_result rc = a2a_server_response_get_info(r, &i);
  if (rc == A2A_OK) *served = i.served;
  return rc;
}

static a2a_str buf_str(const a2a_buffer *b) {
  a2a_str s;
  s.ptr = (const char *)a2a_buffer_bytes(b).ptr;
  s.len = a2a_buffer_bytes(b).len;
  return s;
}

static void jsonrpc(void) {
  a2a_server_request *r = NULL;
  a2a_server_response *resp = NULL;
  a2a_server_request_info info;
  a2a_served served;
  a2a_header hs[4];
  a2a_str hn, hv, ext;
  const char *v10 = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{\"message\":"
                    "{\"messageId\":\"m-1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]}}}";
  const char *v03 = "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"message/send\",\"params\":{\"message\":"
                    "{\"kind\":\"message\",\"messageId\":\"m-1\",\"role\":\"user\",\"parts\":[{\"kind\":"
                    "\"text\",\"text\":\"hi\"}]}}}";
  const char *reply_msg = "{\"message\":{\"messageId\":\"m-2\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"hi\"}]}}";
  const char *reply_task = "{\"task\":{\"id\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":"
                           "\"TASK_STATE_COMPLETED\"}}}";

  CHECK(a2a_server_request_new(&r) == A2A_OK && r != NULL);
  CHECK(a2a_server_response_new(&resp) == A2A_OK && resp != NULL);
  CHECK(a2a_server_request_get_info(r, &info) == A2A_NONE);
  CHECK(a2a_server_request_params(r).ptr == NULL);
  CHECK(a2a_server_result_response(r, NULL, 0, resp) == A2A_NONE);
  CHECK(a2a_server_error_response(r, A2A_ERROR_NAME_INTERNAL, NULL, 0, resp) == A2A_NONE);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_NONE);
  {
    a2a_server_response_info ri;
    ri.status = 7;
    CHECK(a2a_server_response_get_info(resp, &ri) == A2A_NONE && ri.status == 7);
  }
  ABSENT(a2a_server_request_traceparent(r));
  ABSENT(a2a_server_request_idempotency_key(r));
  ABSENT(a2a_server_request_traceparent(NULL));
  ABSENT(a2a_server_request_idempotency_key(NULL));

  /* Issue 12: the keep-alive schedule (default 15 s) and its comment. */
  {
    uint64_t wait = 7;
    a2a_bytes k;
    CHECK(!a2a_server_keepalive_due(0, 1000, 0, &wait, &k) && wait == 14000 && k.ptr == NULL);
    CHECK(a2a_server_keepalive_due(0, 15000, 0, &wait, &k) && wait == 0);
    CHECK(k.ptr != NULL && k.len >= 3 && k.ptr[0] == ':' && k.ptr[k.len - 1] == '\n');
    CHECK(a2a_server_keepalive_due(500, 2000, 1500, NULL, NULL));
    CHECK(!a2a_server_keepalive_due(500, 1800, 1500, &wait, NULL) && wait == 200);
  }

  /* Issue 12: the caller's traceparent and Idempotency-Key. */
  hs[0] = hdr("A2A-Version", "1.0");
  hs[1] = hdr("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  hs[2] = hdr("Idempotency-Key", "conv-9:book:12A");
  hs[3] = hdr("Content-Type", "application/json");
  CHECK(a2a_server_parse_jsonrpc(r, hs, 4, (const uint8_t *)v10, strlen(v10), NULL) == A2A_OK);
  STR_EQ(a2a_server_request_traceparent(r), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  STR_EQ(a2a_server_request_idempotency_key(r), "conv-9:book:12A");

  hs[0] = hdr("Content-Type", "application/json");
  hs[1] = hdr("A2A-Version", "1.0");
  hs[2] = hdr("A2A-Extensions", "https://ext.example/a");
  CHECK(a2a_server_parse_jsonrpc(r, hs, 3, (const uint8_t *)v10, strlen(v10), NULL) == A2A_OK);
  CHECK(a2a_server_request_get_info(r, &info) == A2A_OK);
  CHECK(info.version == A2A_PROTOCOL_VERSION_V1_0 && info.binding == A2A_BINDING_JSON_RPC);
  CHECK(info.method == A2A_METHOD_SEND_MESSAGE && !info.streaming);
  STR_EQ(info.rpc_id, "1");
  ABSENT(info.tenant);
  CHECK(info.extension_count == 1);
  ABSENT(a2a_server_request_traceparent(r)); /* none sent this time */
  ABSENT(a2a_server_request_idempotency_key(r));
  CHECK(a2a_server_request_extension(r, 0, &ext) == A2A_OK);
  STR_EQ(ext, "https://ext.example/a");
  CHECK(a2a_server_request_extension(r, 1, &ext) == A2A_INVALID_ARGUMENT);
  {
    a2a_str params;
    params.ptr = (const char *)a2a_server_request_params(r).ptr;
    params.len = a2a_server_request_params(r).len;
    CHECK(t_contains(params, "\"messageId\":\"m-1\""));
  }
  CHECK(a2a_server_result_response(r, (const uint8_t *)reply_msg, strlen(reply_msg), resp) == A2A_OK);
  CHECK(resp_info(resp).status == 200);
  CHECK(t_contains(body_str(resp), "\"result\""));
  CHECK(t_contains(body_str(resp), "\"id\":1"));
  CHECK(resp_info(resp).header_count >= 1);
  CHECK(a2a_server_response_header(resp, 0, &hn, &hv) == A2A_OK);
  STR_EQ(hn, "Content-Type");
  CHECK(a2a_server_response_header(resp, 99, &hn, &hv) == A2A_INVALID_ARGUMENT);
  CHECK(served_of(resp, &served) == A2A_OK);
  CHECK(served.channel == A2A_CHANNEL_MESSAGE);
  STR_EQ(served.code, "message");
  STR_EQ(served.method, "SendMessage");
  /* The wrong shape for the method is refused with a message. */
  CHECK(a2a_server_result_response(r, (const uint8_t *)"[1]", 3, resp) == A2A_SERVER_REPLY);
  CHECK(a2a_server_request_last_error(r).len > 0);
  /* Handler error: written in the request's version and binding (JSON-RPC: HTTP 200). */
  CHECK(a2a_server_error_response(r, A2A_ERROR_NAME_TASK_NOT_FOUND, "no such task", 12, resp) == A2A_OK);
  CHECK(resp_info(resp).status == 200);
  CHECK(t_contains(body_str(resp), "-32001"));
  CHECK(served_of(resp, &served) == A2A_OK && served.channel == A2A_CHANNEL_PROTOCOL);
  STR_EQ(served.code, "TaskNotFound");
  CHECK(a2a_server_error_response(r, 9999, NULL, 0, resp) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_server_error_response(r, A2A_ERROR_NAME_INTERNAL, "\xff", 1, resp) == A2A_INVALID_UTF8);

  /* 0.3, answered in 0.3 (kebab-case state, kind discriminator). */
  CHECK(a2a_server_parse_jsonrpc(r, hs, 1, (const uint8_t *)v03, strlen(v03), NULL) == A2A_OK);
  CHECK(a2a_server_request_get_info(r, &info) == A2A_OK && info.version == A2A_PROTOCOL_VERSION_V0_3);
  STR_EQ(info.rpc_id, "r1");
  CHECK(a2a_server_result_response(r, (const uint8_t *)reply_task, strlen(reply_task), resp) == A2A_OK);
  CHECK(t_contains(body_str(resp), "\"state\":\"completed\""));
  CHECK(t_contains(body_str(resp), "\"kind\":\"task\""));
  CHECK(served_of(resp, &served) == A2A_OK && served.channel == A2A_CHANNEL_TASK);
  STR_EQ(served.code, "completed");

  /* Refusals: a 1.0 method name without A2A-Version (means 0.3) -> VersionNotSupported;
   * garbage -> ParseError; a server that speaks only 0.3. */
  CHECK(a2a_server_parse_jsonrpc(r, hs, 1, (const uint8_t *)v10, strlen(v10), NULL) == A2A_SERVER_REFUSED);
  CHECK(a2a_server_request_get_info(r, &info) == A2A_NONE);
  CHECK(a2a_server_request_last_error(r).len > 0);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_OK);
  CHECK(t_contains(body_str(resp), "-32009"));
  CHECK(a2a_server_parse_jsonrpc(r, hs, 1, (const uint8_t *)"{nope", 5, NULL) == A2A_SERVER_REFUSED);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_OK);
  CHECK(t_contains(body_str(resp), "-32700"));
  CHECK(a2a_server_parse_jsonrpc(r, hs, 1, NULL, 0, NULL) == A2A_SERVER_REFUSED);
  {
    a2a_server_options only03;
    memset(&only03, 0, sizeof only03); /* every field not set is off (no Host check) */
    only03.v0_3 = true;
    only03.v1_0 = false;
    CHECK(a2a_server_parse_jsonrpc(r, hs, 2, (const uint8_t *)v10, strlen(v10), &only03) ==
          A2A_SERVER_REFUSED);
  }
  CHECK(a2a_server_parse_jsonrpc(r, NULL, 1, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_parse_jsonrpc(NULL, hs, 1, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  a2a_server_response_free(resp);
  a2a_server_request_free(r);
}

static void rest_and_streams(void) {
  a2a_server_request *r = NULL;
  a2a_server_response *resp = NULL;
  a2a_buffer *b = NULL;
  a2a_server_request_info info;
  a2a_header hs[2];
  uint8_t id[12];
  const uint8_t rnd[6] = {0x3f, 0x9c, 0x0a, 0x7b, 0x12, 0xde};
  const char *task = "{\"id\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}";
  const char *stream = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"SendStreamingMessage\",\"params\":"
                       "{\"message\":{\"messageId\":\"m-1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"go\"}]}}}";
  const char *event = "{\"statusUpdate\":{\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"status\":"
                      "{\"state\":\"TASK_STATE_WORKING\"}}}";
  a2a_str n, v;
  size_t i;

  CHECK(a2a_server_request_new(&r) == A2A_OK);
  CHECK(a2a_server_response_new(&resp) == A2A_OK);
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  hs[0] = hdr("A2A-Version", "1.0");
  CHECK(a2a_server_parse_rest(r, "GET", 3, "/acme/tasks/t-1?historyLength=2", 31, hs, 1, NULL, 0, NULL) ==
        A2A_OK);
  CHECK(a2a_server_request_get_info(r, &info) == A2A_OK);
  CHECK(info.binding == A2A_BINDING_HTTP_JSON && info.method == A2A_METHOD_GET_TASK);
  STR_EQ(info.tenant, "acme");
  ABSENT(info.rpc_id);
  CHECK(a2a_server_result_response(r, (const uint8_t *)task, strlen(task), resp) == A2A_OK);
  CHECK(resp_info(resp).status == 200);
  CHECK(t_contains(body_str(resp), "TASK_STATE_WORKING"));
  CHECK(a2a_server_error_response(r, A2A_ERROR_NAME_TASK_NOT_FOUND, NULL, 0, resp) == A2A_OK);
  CHECK(resp_info(resp).status == 404);
  /* Wrong verb on a known path: 405 with Allow. */
  CHECK(a2a_server_parse_rest(r, "DELETE", 6, "/tasks/t-1", 10, hs, 1, NULL, 0, NULL) == A2A_SERVER_REFUSED);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_OK);
  CHECK(resp_info(resp).status == 405);
  CHECK(a2a_server_parse_rest(r, "GET", 3, "\xff", 1, hs, 1, NULL, 0, NULL) == A2A_INVALID_UTF8);
  CHECK(a2a_server_parse_rest(NULL, "GET", 3, "/", 1, hs, 1, NULL, 0, NULL) == A2A_NULL_PARAMETER);

  /* Streaming: frames, not a response. */
  hs[1] = hdr("Content-Type", "application/json");
  CHECK(a2a_server_parse_jsonrpc(r, hs, 2, (const uint8_t *)stream, strlen(stream), NULL) == A2A_OK);
  CHECK(a2a_server_request_get_info(r, &info) == A2A_OK && info.streaming);
  CHECK(a2a_server_result_response(r, NULL, 0, resp) == A2A_SERVER_STREAMING);
  CHECK(a2a_server_event_frame(r, (const uint8_t *)event, strlen(event), b) == A2A_OK);
  CHECK(t_contains(buf_str(b), "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":"));
  CHECK(a2a_server_event_frame(r, (const uint8_t *)"{}", 2, b) == A2A_SERVER_REPLY);
  CHECK(a2a_buffer_last_error(b).len > 0);
  a2a_buffer_free(b); /* start over: a new buffer */
  b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  CHECK(a2a_server_error_frame(r, A2A_ERROR_NAME_INTERNAL, "boom", 4, b) == A2A_OK);
  CHECK(t_contains(buf_str(b), "-32603"));
  CHECK(a2a_server_error_frame(r, 0, NULL, 0, b) == A2A_INVALID_ARGUMENT);
  a2a_buffer_free(b); /* start over: a new buffer */
  b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  CHECK(a2a_server_error_id_from_random(rnd, id) == A2A_OK);
  CHECK(memcmp(id, "3f9c0a7b12de", 12) == 0);
  CHECK(a2a_server_error_id_from_random(NULL, id) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_error_id_from_random(rnd, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_failed_frame(r, "t-1", 3, "c-1", 3, "m-9", 3, (const char *)id, 12, NULL, 0, b) == A2A_OK);
  CHECK(t_contains(buf_str(b), "Agent execution failed. (error_id: 3f9c0a7b12de)"));
  CHECK(t_contains(buf_str(b), "TASK_STATE_FAILED"));
  /* A client classifying that frame finds the error_id again. */
  {
    a2a_str e;
    CHECK(a2a_extract_error_id(buf_str(b).ptr, buf_str(b).len, &e) == A2A_OK);
    STR_EQ(e, "3f9c0a7b12de");
  }
  CHECK(a2a_server_failed_frame(r, "t", 1, "c", 1, "m", 1, "3F9C0A7B12DE", 12, NULL, 0, b) ==
        A2A_SERVER_ERROR_ID);
  CHECK(a2a_server_failed_frame(r, "t", 1, "c", 1, "m", 1, NULL, 0, NULL, 0, b) == A2A_SERVER_ERROR_ID);
  CHECK(a2a_server_failed_frame(r, "t", 1, "c", 1, "m", 1, "3f9c", 4, NULL, 5, b) == A2A_NULL_PARAMETER);
  a2a_buffer_free(b); /* start over: a new buffer */
  b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  CHECK(a2a_server_failure_text("3f9c0a7b12de", 12, "ValueError: x", 13, b) == A2A_OK);
  CHECK(t_str_eq(buf_str(b), "Agent execution failed. (error_id: 3f9c0a7b12de): ValueError: x"));
  CHECK(a2a_server_failure_text("nothex!!!!!!", 12, NULL, 0, b) == A2A_SERVER_ERROR_ID);
  CHECK(a2a_server_failure_text("3f9c0a7b12de", 12, NULL, 0, NULL) == A2A_NULL_PARAMETER);

  /* The stream headers. */
  for (i = 0; a2a_server_stream_header(i, &n, &v) == A2A_OK; i++) {
    CHECK(n.len > 0 && v.len > 0);
  }
  CHECK(i == 3);
  CHECK(a2a_server_stream_header(0, &n, &v) == A2A_OK);
  STR_EQ(n, "Content-Type");
  STR_EQ(v, "text/event-stream");
  CHECK(a2a_server_stream_header(0, NULL, &v) == A2A_NULL_PARAMETER);

  /* NULLs. */
  CHECK(a2a_server_request_new(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_response_new(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_request_get_info(NULL, &info) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_request_params(NULL).ptr == NULL);
  CHECK(a2a_server_request_extension(NULL, 0, &n) == A2A_NULL_PARAMETER);
  ABSENT(a2a_server_request_last_error(NULL));
  CHECK(a2a_server_result_response(r, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_error_response(NULL, 5, NULL, 0, resp) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_refusal_response(r, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_event_frame(r, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_error_frame(NULL, 5, NULL, 0, b) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_failed_frame(NULL, "t", 1, "c", 1, "m", 1, (const char *)id, 12, NULL, 0, b) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_server_response_header(NULL, 0, &n, &v) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_response_get_info(NULL, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_server_response_get_info(resp, NULL) == A2A_NULL_PARAMETER);
  a2a_buffer_free(b);
  a2a_server_response_free(resp);
  a2a_server_request_free(r);
  a2a_server_response_free(NULL);
  a2a_server_request_free(NULL);
}

/* Issue 21: what a web page could send a loopback agent is refused before any handler
 * sees it: a foreign Host (DNS rebinding: 421), a body not declared JSON (a CORS "simple"
 * request: 415), a batch, a REST id that decodes to '/' or a control character (400). */
static void hardening(void) {
  a2a_server_request *r = NULL;
  a2a_server_response *resp = NULL;
  a2a_server_options o;
  a2a_header hs[2];
  a2a_str names[1];
  const char *get = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"t\"}}";
  const char *batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"t\"}}]";

  CHECK(a2a_server_request_new(&r) == A2A_OK);
  CHECK(a2a_server_response_new(&resp) == A2A_OK);
  hs[0] = hdr("Content-Type", "text/plain");
  CHECK(a2a_server_parse_jsonrpc(r, hs, 1, (const uint8_t *)get, strlen(get), NULL) == A2A_SERVER_REFUSED);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_OK);
  CHECK(resp_info(resp).status == 415);
  CHECK(t_contains(body_str(resp), "-32005"));
  CHECK(a2a_server_parse_jsonrpc(r, NULL, 0, (const uint8_t *)get, strlen(get), NULL) == A2A_SERVER_REFUSED);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_OK && resp_info(resp).status == 415);
  hs[0] = hdr("Content-Type", "application/json; charset=utf-8");
  CHECK(a2a_server_parse_jsonrpc(r, hs, 1, (const uint8_t *)get, strlen(get), NULL) == A2A_OK);
  CHECK(a2a_server_parse_jsonrpc(r, hs, 1, (const uint8_t *)batch, strlen(batch), NULL) == A2A_SERVER_REFUSED);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_OK);
  CHECK(t_contains(body_str(resp), "-32600") && body_str(resp).ptr[0] == '{');
  CHECK(a2a_server_parse_rest(r, "GET", 3, "/v1/tasks/a%2Fb", 15, NULL, 0, NULL, 0, NULL) == A2A_SERVER_REFUSED);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_OK && resp_info(resp).status == 400);
  CHECK(a2a_server_parse_rest(r, "GET", 3, "/v1/tasks/a%0D%0Ab", 18, NULL, 0, NULL, 0, NULL) == A2A_SERVER_REFUSED);

  /* The Host check: the bound address, localhost on its port, and the listed names. */
  memset(&o, 0, sizeof o);
  o.v0_3 = true;
  o.v1_0 = true;
  o.bound_addr = "127.0.0.1:8080";
  o.bound_addr_len = strlen(o.bound_addr);
  names[0].ptr = "agent.example.com";
  names[0].len = strlen(names[0].ptr);
  o.host_names = names;
  o.host_names_len = 1;
  hs[0] = hdr("Content-Type", "application/json");
  hs[1] = hdr("Host", "attacker.example:8080");
  CHECK(a2a_server_parse_jsonrpc(r, hs, 2, (const uint8_t *)get, strlen(get), &o) == A2A_SERVER_REFUSED);
  CHECK(a2a_server_request_last_error(r).len > 0);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_OK);
  CHECK(resp_info(resp).status == 421);
  CHECK(t_contains(body_str(resp), "-32600"));
  hs[1] = hdr("Host", "localhost:8080");
  CHECK(a2a_server_parse_jsonrpc(r, hs, 2, (const uint8_t *)get, strlen(get), &o) == A2A_OK);
  /* The handle keeps its copy: answering after the caller's views are gone is fine. */
  CHECK(a2a_server_error_response(r, A2A_ERROR_NAME_TASK_NOT_FOUND, NULL, 0, resp) == A2A_OK);
  hs[1] = hdr("Host", "agent.example.com");
  CHECK(a2a_server_parse_rest(r, "GET", 3, "/v1/tasks/t", 11, &hs[1], 1, NULL, 0, &o) == A2A_OK);
  CHECK(a2a_server_parse_rest(r, "GET", 3, "/v1/tasks/t", 11, NULL, 0, NULL, 0, &o) == A2A_SERVER_REFUSED);
  CHECK(a2a_server_refusal_response(r, resp) == A2A_OK && resp_info(resp).status == 400);

  /* Options that are not an address or a name are the caller's error. */
  o.bound_addr = "localhost";
  o.bound_addr_len = strlen(o.bound_addr);
  CHECK(a2a_server_parse_jsonrpc(r, hs, 2, (const uint8_t *)get, strlen(get), &o) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_server_request_last_error(r).len > 0);
  o.bound_addr = "127.0.0.1:8080";
  o.bound_addr_len = strlen(o.bound_addr);
  names[0].ptr = "a/b";
  names[0].len = 3;
  CHECK(a2a_server_parse_jsonrpc(r, hs, 2, (const uint8_t *)get, strlen(get), &o) == A2A_INVALID_ARGUMENT);
  o.host_names = NULL;
  CHECK(a2a_server_parse_jsonrpc(r, hs, 2, (const uint8_t *)get, strlen(get), &o) == A2A_NULL_PARAMETER);
  o.host_names_len = 0;
  o.bound_addr = "\xff";
  o.bound_addr_len = 1;
  CHECK(a2a_server_parse_jsonrpc(r, hs, 2, (const uint8_t *)get, strlen(get), &o) == A2A_INVALID_UTF8);
  o.bound_addr = NULL;
  o.bound_addr_len = 0;
  o.host_names = names;
  o.host_names_len = 1;
  CHECK(a2a_server_parse_jsonrpc(r, hs, 2, (const uint8_t *)get, strlen(get), &o) == A2A_INVALID_ARGUMENT);
  a2a_server_response_free(resp);
  a2a_server_request_free(r);
}

void test_server(void) {
  jsonrpc();
  rest_and_streams();
  hardening();
}
