/* Request builders for every method, both versions, both bindings; HTTP/1.1 output. */
#include "harness.h"

static a2a_interface iface(uint32_t version, uint32_t binding) {
  a2a_interface i;
  i.version = version;
  i.binding = binding;
  i.tenant = NULL;
  i.tenant_len = 0;
  return i;
}

static a2a_call_options opts_with_id(int64_t id) {
  a2a_call_options o;
  memset(&o, 0, sizeof o);
  o.id_kind = A2A_RPC_ID_KIND_NUMBER;
  o.id_number = id;
  return o;
}

static int has_header(const a2a_request *r, const char *name, const char *value) {
  size_t i, n = a2a_request_header_count(r);
  a2a_str hn, hv;
  for (i = 0; i < n; i++)
    if (a2a_request_header(r, i, &hn, &hv) == A2A_OK && t_str_eq(hn, name) && t_str_eq(hv, value))
      return 1;
  return 0;
}

/* Params per method (hand-written, 1.0 ProtoJSON keys; the reader accepts either version's). */
static const char *params_of(uint32_t m) {
  switch (m) {
    case A2A_METHOD_SEND_MESSAGE:
    case A2A_METHOD_SEND_STREAMING_MESSAGE:
      return "{\"message\":{\"messageId\":\"m-1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]}}";
    case A2A_METHOD_LIST_TASKS:
      return "{\"pageSize\":5}";
    case A2A_METHOD_CREATE_PUSH_CONFIG:
      return "{\"taskId\":\"t-1\",\"pushNotificationConfig\":{\"id\":\"c-1\",\"url\":"
             "\"https://hook.example/x\"}}";
    case A2A_METHOD_GET_PUSH_CONFIG:
    case A2A_METHOD_DELETE_PUSH_CONFIG:
      return "{\"taskId\":\"t-1\",\"id\":\"c-1\"}";
    case A2A_METHOD_LIST_PUSH_CONFIGS:
      return "{\"taskId\":\"t-1\"}";
    case A2A_METHOD_GET_EXTENDED_AGENT_CARD:
      return NULL;
    default:
      return "{\"id\":\"t-1\"}";
  }
}

/* Appends the built request as HTTP/1.1 to `out` (what a2a_request_write_http1 did before it
 * was removed): a2a_http1_join_target, then a2a_http1_write_request with the request's
 * method, headers and body. A2A_NONE when the handle holds no request. */
static a2a_result write_http1(const a2a_request *r, a2a_buffer *out, const char *base,
                              size_t base_len, const char *host, size_t host_len,
                              size_t *written) {
  a2a_header hs[16];
  a2a_str method = a2a_request_http_method(r), path = a2a_request_path(r);
  a2a_buffer *target = NULL;
  a2a_bytes t, body = a2a_request_body(r);
  size_t i, count = a2a_request_header_count(r);
  a2a_result res;
  if (path.ptr == NULL) return A2A_NONE;
  CHECK(count <= 16);
  for (i = 0; i < count && i < 16; i++) {
    a2a_str n, v;
    CHECK(a2a_request_header(r, i, &n, &v) == A2A_OK);
    hs[i].name = n.ptr;
    hs[i].name_len = n.len;
    hs[i].value = v.ptr;
    hs[i].value_len = v.len;
  }
  CHECK(a2a_buffer_new(&target) == A2A_OK);
  res = a2a_http1_join_target(target, base, base_len, path.ptr, path.len);
  if (res == A2A_OK) {
    t = a2a_buffer_bytes(target);
    res = a2a_http1_write_request(out, method.ptr, method.len, (const char *)t.ptr, t.len, host,
                                  host_len, hs, i, body.ptr, body.len, written);
  }
  a2a_buffer_free(target);
  return res;
}

static void every_method(void) {
  a2a_request *r = NULL;
  uint32_t m, v, b;
  a2a_call_options o = opts_with_id(1);
  size_t built = 0;
  CHECK(a2a_request_new(&r) == A2A_OK && r != NULL);
  for (m = A2A_METHOD_SEND_MESSAGE; m <= A2A_METHOD_GET_EXTENDED_AGENT_CARD; m++) {
    for (v = A2A_PROTOCOL_VERSION_V0_3; v <= A2A_PROTOCOL_VERSION_V1_0; v++) {
      for (b = A2A_BINDING_JSON_RPC; b <= A2A_BINDING_HTTP_JSON; b++) {
        a2a_interface i = iface(v, b);
        const char *p = params_of(m);
        a2a_result res = a2a_request_build(r, &i, m, (const uint8_t *)p, p ? strlen(p) : 0, &o);
        a2a_method got;
        if (m == A2A_METHOD_LIST_TASKS && v == A2A_PROTOCOL_VERSION_V0_3) {
          CHECK(res == A2A_REQUEST_NOT_IN_VERSION);
          continue;
        }
        CHECK(res == A2A_OK);
        if (res != A2A_OK) {
          a2a_str e = a2a_request_last_error(r);
          fprintf(stderr, "  method %u version %u binding %u: %.*s\n", m, v, b, (int)e.len, e.ptr);
          continue;
        }
        built++;
        CHECK(a2a_request_a2a_method(r, &got) && got == m);
        CHECK(a2a_request_http_method(r).len >= 3);
        if (b == A2A_BINDING_JSON_RPC) {
          CHECK(a2a_request_path(r).len == 0);
          CHECK(t_str_eq(a2a_request_http_method(r), "POST"));
          CHECK(t_str_eq(a2a_request_rpc_id(r), "1"));
          a2a_str body;
          body.ptr = (const char *)a2a_request_body(r).ptr;
          body.len = a2a_request_body(r).len;
          CHECK(t_contains(body, "\"jsonrpc\":\"2.0\""));
        } else {
          CHECK(a2a_request_path(r).len > 0 && a2a_request_path(r).ptr[0] == '/');
          ABSENT(a2a_request_rpc_id(r));
        }
        CHECK(has_header(r, "A2A-Version", "1.0") == (v == A2A_PROTOCOL_VERSION_V1_0));
        if (m == A2A_METHOD_SEND_STREAMING_MESSAGE || m == A2A_METHOD_SUBSCRIBE_TO_TASK)
          CHECK(has_header(r, "Accept", "text/event-stream"));
      }
    }
  }
  CHECK(built == 11 * 4 - 2);
  a2a_request_free(r);
}

static void text_and_options(void) {
  a2a_request *r = NULL;
  a2a_buffer *buf = NULL;
  a2a_interface i = iface(A2A_PROTOCOL_VERSION_V1_0, A2A_BINDING_HTTP_JSON);
  a2a_call_options o;
  a2a_str exts[2];
  a2a_header hs[2];
  a2a_str hn, hv;
  size_t n = 0;
  uint32_t m;

  memset(&o, 0, sizeof o);
  exts[0].ptr = "https://ext.example/a";
  exts[0].len = strlen(exts[0].ptr);
  exts[1].ptr = "https://ext.example/b";
  exts[1].len = strlen(exts[1].ptr);
  o.extensions = exts;
  o.extensions_len = 2;
  hs[0].name = "Authorization";
  hs[0].name_len = 13;
  hs[0].value = "Bearer t0k";
  hs[0].value_len = 10;
  o.headers = hs;
  o.headers_len = 1;
  i.tenant = "acme";
  i.tenant_len = 4;
  CHECK(a2a_request_new(&r) == A2A_OK);
  CHECK(a2a_request_build_text(r, &i, "m-9", 3, "tell me a joke", 14, &o) == A2A_OK);
  STR_EQ(a2a_request_http_method(r), "POST");
  STR_EQ(a2a_request_path(r), "/acme/message:send");
  CHECK(has_header(r, "A2A-Extensions", "https://ext.example/a,https://ext.example/b"));
  CHECK(has_header(r, "Authorization", "Bearer t0k"));
  CHECK(has_header(r, "Content-Type", "application/a2a+json"));
  CHECK(a2a_request_header(r, 99, &hn, &hv) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_request_header(r, 0, NULL, &hv) == A2A_NULL_PARAMETER);
  CHECK(a2a_request_body(r).len > 0);
  CHECK(a2a_request_a2a_method(r, &m) && m == A2A_METHOD_SEND_MESSAGE);
  CHECK(!a2a_request_a2a_method(r, NULL));

  CHECK(a2a_buffer_new(&buf) == A2A_OK);
  CHECK(write_http1(r, buf, "/a2a/v1", 7, "agent.example", 13, &n) == A2A_OK);
  CHECK(n == a2a_buffer_bytes(buf).len);
  {
    const char *want = "POST /a2a/v1/acme/message:send HTTP/1.1\r\nHost: agent.example\r\n";
    CHECK(a2a_buffer_bytes(buf).len > strlen(want) &&
          memcmp(a2a_buffer_bytes(buf).ptr, want, strlen(want)) == 0);
  }
  CHECK(write_http1(r, buf, "/", 1, "bad host/", 9, &n) == A2A_HTTP1_HOST);

  /* Refusals: reserved and injected headers, bad extension, string id, bad numbers. */
  hs[0].name = "Content-Type";
  hs[0].name_len = 12;
  CHECK(a2a_request_build_text(r, &i, "m", 1, "x", 1, &o) == A2A_REQUEST_RESERVED_HEADER);
  CHECK(t_contains(a2a_request_last_error(r), "Content-Type"));
  ABSENT(a2a_request_path(r));
  CHECK(a2a_request_header_count(r) == 0);
  CHECK(a2a_request_body(r).ptr == NULL);
  CHECK(write_http1(r, buf, NULL, 0, "h", 1, &n) == A2A_NONE);
  hs[0].name = "X-Trace";
  hs[0].name_len = 7;
  hs[0].value = "a\r\nb";
  hs[0].value_len = 4;
  CHECK(a2a_request_build_text(r, &i, "m", 1, "x", 1, &o) == A2A_REQUEST_BAD_HEADER);
  o.headers_len = 0;
  exts[0].ptr = "a,b";
  exts[0].len = 3;
  CHECK(a2a_request_build_text(r, &i, "m", 1, "x", 1, &o) == A2A_REQUEST_BAD_EXTENSION);
  o.extensions_len = 0;
  o.id_kind = 7;
  CHECK(a2a_request_build_text(r, &i, "m", 1, "x", 1, &o) == A2A_INVALID_ARGUMENT);
  o.id_kind = A2A_RPC_ID_KIND_STRING;
  o.id_string = "req-1";
  o.id_string_len = 5;
  i = iface(A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC);
  CHECK(a2a_request_build_text(r, &i, "m", 1, "x", 1, &o) == A2A_OK);
  STR_EQ(a2a_request_rpc_id(r), "req-1");
  i.tenant = "acme"; /* 0.3 has no tenant */
  i.tenant_len = 4;
  CHECK(a2a_request_build_text(r, &i, "m", 1, "x", 1, &o) == A2A_REQUEST_NOT_REPRESENTABLE);
  i = iface(A2A_PROTOCOL_VERSION_V1_0, A2A_BINDING_JSON_RPC);
  CHECK(a2a_request_build_text(r, &i, "m", 1, "x", 1, NULL) == A2A_REQUEST_MISSING_ID);
  CHECK(a2a_request_build(r, &i, A2A_METHOD_GET_TASK, (const uint8_t *)"{\"id\":", 6, &o) ==
        A2A_REQUEST_PARAMS);
  CHECK(a2a_request_build(r, &i, A2A_METHOD_GET_TASK, (const uint8_t *)"{\"id\":5}", 8, &o) ==
        A2A_REQUEST_PARAMS);
  CHECK(a2a_request_build(r, &i, 0, NULL, 0, &o) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_request_build(r, &i, 12, NULL, 0, &o) == A2A_INVALID_ARGUMENT);
  i.version = 9;
  CHECK(a2a_request_build(r, &i, A2A_METHOD_GET_TASK, NULL, 0, &o) == A2A_INVALID_ARGUMENT);
  i = iface(A2A_PROTOCOL_VERSION_V1_0, 0);
  CHECK(a2a_request_build_text(r, &i, "m", 1, "x", 1, &o) == A2A_INVALID_ARGUMENT);
  i = iface(A2A_PROTOCOL_VERSION_V1_0, A2A_BINDING_JSON_RPC);
  CHECK(a2a_request_build_text(r, &i, "\xff", 1, "x", 1, &o) == A2A_INVALID_UTF8);
  CHECK(a2a_request_build(r, &i, A2A_METHOD_GET_TASK, NULL, 3, &o) == A2A_NULL_PARAMETER);
  CHECK(a2a_request_build(r, NULL, A2A_METHOD_GET_TASK, NULL, 0, &o) == A2A_NULL_PARAMETER);
  CHECK(a2a_request_build(NULL, &i, A2A_METHOD_GET_TASK, NULL, 0, &o) == A2A_NULL_PARAMETER);
  CHECK(a2a_request_build_text(NULL, &i, "m", 1, "x", 1, &o) == A2A_NULL_PARAMETER);
  CHECK(a2a_request_new(NULL) == A2A_NULL_PARAMETER);
  a2a_buffer_free(buf);
  a2a_request_free(r);
  a2a_request_free(NULL);
  ABSENT(a2a_request_http_method(NULL));
  ABSENT(a2a_request_path(NULL));
  ABSENT(a2a_request_rpc_id(NULL));
  ABSENT(a2a_request_last_error(NULL));
  CHECK(a2a_request_header_count(NULL) == 0);
  CHECK(a2a_request_body(NULL).ptr == NULL);
  CHECK(a2a_request_header(NULL, 0, &hn, &hv) == A2A_NULL_PARAMETER);

  /* Method names. */
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

void test_request(void) {
  every_method();
  text_and_options();
}
