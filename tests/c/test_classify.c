/* Classifier, error_id helpers, stream tracker and tally. */
#include "harness.h"

/* A 0.3 JSON-RPC FAILED task as ADK servers write it (shape from the A2A 0.3 spec,
 * error_id convention from ADK; hand-written). */
static const char LEAKED_TASK[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"task\",\"id\":\"t-2\",\"contextId\":\"c-1\","
    "\"status\":{\"state\":\"failed\",\"message\":{\"kind\":\"message\",\"messageId\":\"m\",\"role\":\"agent\","
    "\"parts\":[{\"kind\":\"text\",\"text\":\"Agent execution failed. (error_id: 3f9c0a7b12de): "
    "java.lang.IllegalStateException: card 4111 declined [retryable=false; contact=payments-oncall]\"}]}}}}";
static const char ADMISSION_TASK[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"task\",\"id\":\"t-3\",\"contextId\":\"c-1\","
    "\"status\":{\"state\":\"canceled\",\"message\":{\"kind\":\"message\",\"messageId\":\"m\",\"role\":\"agent\","
    "\"parts\":[{\"kind\":\"text\",\"text\":\"Refused before running: queue full\"}]}}}}";
static const char FAILED_TASK[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
    "\"contextId\":\"c-1\",\"status\":{\"state\":\"failed\",\"message\":{\"kind\":\"message\","
    "\"role\":\"agent\",\"messageId\":\"m\",\"parts\":[{\"kind\":\"text\",\"text\":"
    "\"Agent execution failed. (error_id: 3f9c0a7b12de)\"}]}}}}";

static const char TASK_NOT_FOUND[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"error\":{\"code\":-32001,\"message\":\"Task not found\"}}";

static a2a_asked asked_send(void) {
  a2a_asked a;
  a.version = A2A_PROTOCOL_VERSION_V0_3;
  a.binding = A2A_BINDING_JSON_RPC;
  a.method = "message/send";
  a.method_len = strlen(a.method);
  a.request_id = "1";
  a.request_id_len = 1;
  return a;
}

static a2a_response resp(uint16_t status, const char *ct, const char *body) {
  a2a_response r;
  r.status = status;
  r.content_type = ct;
  r.content_type_len = ct ? strlen(ct) : 0;
  r.retry_after = NULL;
  r.retry_after_len = 0;
  r.body = (const uint8_t *)body;
  r.body_len = body ? strlen(body) : 0;
  r.asked = asked_send();
  r.now_unix_seconds = 0; /* no wall clock */
  return r;
}

/* The CLI exit status of outcomes of every channel (values from the outcome table's
 * exit_code column: 0 success, 3 transport/http/malformed, 4 protocol, 5 failed, 6
 * canceled/rejected/input/auth, 7 not final). */
static int exit_of(uint16_t status, const char *ct, const char *body) {
  a2a_outcome *o = NULL;
  a2a_response r = resp(status, ct, body);
  int code = -2;
  if (a2a_classify(&r, &o) == A2A_OK) code = t_info(o).exit_code;
  a2a_outcome_free(o);
  return code;
}

static void exit_codes(void) {
  a2a_outcome *o = NULL;
  CHECK(exit_of(200, "application/json", FAILED_TASK) == 5);
  CHECK(exit_of(200, "application/json", TASK_NOT_FOUND) == 4);
  CHECK(exit_of(404, "text/html", "<html>Not Found</html>") == 3);
  CHECK(exit_of(200, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":") == 3);
  CHECK(exit_of(200, "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"message\","
                "\"role\":\"agent\",\"messageId\":\"m\",\"parts\":[{\"kind\":\"text\","
                "\"text\":\"hi\"}]}}") == 0);
  CHECK(exit_of(200, "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"task\",\"id\":\"t\","
                "\"contextId\":\"c\",\"status\":{\"state\":\"completed\"}}}") == 0);
  CHECK(exit_of(200, "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"task\",\"id\":\"t\","
                "\"contextId\":\"c\",\"status\":{\"state\":\"input-required\"}}}") == 6);
  CHECK(exit_of(200, "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"task\",\"id\":\"t\","
                "\"contextId\":\"c\",\"status\":{\"state\":\"working\"}}}") == 7);
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_CONNECT_FAILED, A2A_REQUEST_SENT_NO, NULL, 0, &o) ==
        A2A_OK);
  CHECK(t_info(o).exit_code == 3);
  a2a_outcome_free(o);
}

static void classify(void) {
  a2a_outcome *o = NULL;
  a2a_response r = resp(200, "application/json", FAILED_TASK);

  CHECK(a2a_classify(&r, &o) == A2A_OK && o != NULL);
  CHECK(t_info(o).channel == A2A_CHANNEL_TASK);
  CHECK(t_info(o).has_state && t_info(o).state == A2A_TASK_STATE_FAILED);
  CHECK(t_info(o).terminal);
  STR_EQ(t_info(o).error_id, "3f9c0a7b12de");
  STR_EQ(t_info(o).task_id, "t-1");
  STR_EQ(t_info(o).context_id, "c-1");
  CHECK(!t_info(o).leaked_detail);
  ABSENT(t_info(o).cancel_origin);
  a2a_outcome_free(o);

  /* Issue 12: ADK's debug shape leaks detail; the remote's hint says never retry. */
  r = resp(200, "application/json", LEAKED_TASK);
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(t_info(o).leaked_detail);
  CHECK(t_info(o).retry == A2A_RETRY_NEVER);
  STR_EQ(t_info(o).error_id, "3f9c0a7b12de");
  a2a_outcome_free(o);
  r = resp(200, "application/json", ADMISSION_TASK);
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  STR_EQ(t_info(o).cancel_origin, "admission");
  CHECK(!t_info(o).leaked_detail);
  a2a_outcome_free(o);

  r = resp(200, "application/json", TASK_NOT_FOUND);
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(t_info(o).channel == A2A_CHANNEL_PROTOCOL);
  CHECK(t_info(o).has_code && t_info(o).code == -32001);
  CHECK(t_info(o).has_error_name && t_info(o).error_name == A2A_ERROR_NAME_TASK_NOT_FOUND);
  STR_EQ(t_info(o).message, "Task not found");
  a2a_outcome_free(o);

  /* A proxy's HTML page with Retry-After. */
  r = resp(503, "text/html", "<html><body>Service Unavailable</body></html>");
  r.retry_after = "30";
  r.retry_after_len = 2;
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(t_info(o).channel == A2A_CHANNEL_HTTP);
  CHECK(t_info(o).has_error_name && t_info(o).error_name == A2A_ERROR_NAME_UNAVAILABLE);
  CHECK(t_info(o).has_retry_after_secs && t_info(o).retry_after_secs == 30);
  CHECK(t_info(o).retry == A2A_RETRY_BACKOFF);
  a2a_outcome_free(o);

  /* Retry-After as an HTTP-date (each RFC 9110 form): seconds only with the caller's clock. */
  r.retry_after = "Sun, 06 Nov 1994 08:49:37 GMT";
  r.retry_after_len = strlen(r.retry_after);
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(!t_info(o).has_retry_after_secs);
  a2a_outcome_free(o);
  r.now_unix_seconds = 784111777 - 45;
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(t_info(o).has_retry_after_secs && t_info(o).retry_after_secs == 45);
  a2a_outcome_free(o);
  r.retry_after = "Sunday, 06-Nov-94 08:49:37 GMT";
  r.retry_after_len = strlen(r.retry_after);
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(t_info(o).has_retry_after_secs && t_info(o).retry_after_secs == 45);
  a2a_outcome_free(o);
  r.retry_after = "Sun Nov  6 08:49:37 1994";
  r.retry_after_len = strlen(r.retry_after);
  r.now_unix_seconds = 784111777 + 10; /* already past: retry now */
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(t_info(o).has_retry_after_secs && t_info(o).retry_after_secs == 0);
  a2a_outcome_free(o);

  /* Empty body, nothing known: (NULL, 0) everywhere is valid. */
  r = resp(200, NULL, NULL);
  r.asked.version = 0;
  r.asked.binding = 0;
  r.asked.method = NULL;
  r.asked.method_len = 0;
  r.asked.request_id = NULL;
  r.asked.request_id_len = 0;
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(t_info(o).channel == A2A_CHANNEL_MALFORMED);
  a2a_outcome_free(o);

  /* Invalid UTF-8 in the body is a classification, not an error. */
  r = resp(200, "application/json", "{\"jsonrpc\":\"2.0\",\xff}");
  o = NULL;
  CHECK(a2a_classify(&r, &o) == A2A_OK);
  CHECK(t_info(o).channel == A2A_CHANNEL_MALFORMED);
  a2a_outcome_free(o);

  /* Argument errors leave *out untouched. */
  o = NULL;
  r = resp(200, "application/json", "{}");
  r.asked.version = 7;
  CHECK(a2a_classify(&r, &o) == A2A_INVALID_ARGUMENT);
  r.asked.version = 0;
  r.asked.binding = 9;
  CHECK(a2a_classify(&r, &o) == A2A_INVALID_ARGUMENT);
  r.asked.binding = 0;
  r.content_type = "\xff";
  r.content_type_len = 1;
  CHECK(a2a_classify(&r, &o) == A2A_INVALID_UTF8);
  r.content_type = NULL;
  r.content_type_len = 4;
  CHECK(a2a_classify(&r, &o) == A2A_NULL_PARAMETER);
  r = resp(200, "application/json", NULL);
  r.body_len = 3;
  CHECK(a2a_classify(&r, &o) == A2A_NULL_PARAMETER);
  CHECK(a2a_classify(NULL, &o) == A2A_NULL_PARAMETER);
  r = resp(200, "application/json", "{}");
  CHECK(a2a_classify(&r, NULL) == A2A_NULL_PARAMETER);
  CHECK(o == NULL);
}

static void helpers(void) {
  const char *t = "Agent execution failed. (error_id: 3f9c0a7b12de)";
  const char *leak = "failed: java.lang.IllegalStateException: boom";
  a2a_str v = {NULL, 0}, cls = {NULL, 0}, msg = {NULL, 0};

  CHECK(a2a_extract_error_id(t, strlen(t), &v) == A2A_OK);
  STR_EQ(v, "3f9c0a7b12de");
  CHECK(v.ptr >= t && v.ptr < t + strlen(t)); /* a view into the caller's text */
  CHECK(a2a_extract_error_id("error_id: 3F9C0A7B12DE", 22, &v) == A2A_NONE);
  CHECK(a2a_extract_error_id(NULL, 0, &v) == A2A_NONE);
  CHECK(a2a_extract_error_id(NULL, 1, &v) == A2A_NULL_PARAMETER);
  CHECK(a2a_extract_error_id("\xff", 1, &v) == A2A_INVALID_UTF8);
  CHECK(a2a_extract_error_id(t, strlen(t), NULL) == A2A_NULL_PARAMETER);

  CHECK(a2a_leaked_exception(leak, strlen(leak), &cls, &msg) == A2A_OK);
  STR_EQ(cls, "java.lang.IllegalStateException");
  STR_EQ(msg, "boom");
  CHECK(a2a_leaked_exception("all good", 8, &cls, &msg) == A2A_NONE);
  CHECK(a2a_leaked_exception(leak, strlen(leak), NULL, &msg) == A2A_NULL_PARAMETER);
  CHECK(a2a_leaked_exception(leak, strlen(leak), &cls, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_leaked_exception("\xc3", 1, &cls, &msg) == A2A_INVALID_UTF8);

  /* A Retry-After value alone (what a2a_parse_retry_after did before it was removed): an
   * HTTP error with no body, then the outcome's retry_after_secs. */
  {
    const char *values[] = {"120", "Wed, 21 Oct 2015 07:28:00 GMT", "soon", "", "-1"};
    const int ok[] = {1, 0, 0, 0, 0};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
      a2a_response r = resp(503, NULL, NULL);
      a2a_outcome *o = NULL;
      r.retry_after = values[i];
      r.retry_after_len = strlen(values[i]);
      CHECK(a2a_classify(&r, &o) == A2A_OK);
      a2a_outcome_info info = t_info(o);
      CHECK(info.has_retry_after_secs == ok[i]);
      CHECK(ok[i] ? info.retry_after_secs == 120 : info.retry_after_secs == 0);
      a2a_outcome_free(o);
    }
    a2a_response r = resp(503, NULL, NULL);
    a2a_outcome *o = NULL;
    r.retry_after = "\xff";
    r.retry_after_len = 1;
    CHECK(a2a_classify(&r, &o) == A2A_INVALID_UTF8 && o == NULL);
  }

  CHECK(a2a_is_event_stream("text/event-stream", 17));
  CHECK(a2a_is_event_stream("Text/Event-Stream; charset=utf-8", 32));
  CHECK(!a2a_is_event_stream("application/json", 16));
  CHECK(!a2a_is_event_stream(NULL, 0));
  CHECK(!a2a_is_event_stream(NULL, 5));
  CHECK(!a2a_is_event_stream("\xff", 1));

  CHECK(a2a_error_name_of_code(-32001) == A2A_ERROR_NAME_TASK_NOT_FOUND);
  CHECK(a2a_error_name_of_code(-32601) == A2A_ERROR_NAME_METHOD_NOT_FOUND);
  CHECK(a2a_error_name_of_code(12345) == A2A_ERROR_NAME_OTHER);
}

static void tally(void) {
  a2a_tally *t = NULL;
  a2a_outcome *o = NULL;
  a2a_str text = {NULL, 0};
  uint64_t n = 99;
  const char *want =
      "a2a_outcomes_total{agent=\"pl\\\"an\",method=\"message/send\",channel=\"transport\","
      "code=\"Timeout\"} 2\n";

  CHECK(a2a_tally_new(&t) == A2A_OK && t != NULL);
  CHECK(a2a_tally_new(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_outcome_transport(A2A_ERROR_NAME_TIMEOUT, A2A_REQUEST_SENT_UNKNOWN, NULL, 0, &o) ==
        A2A_OK);
  CHECK(a2a_tally_record(t, "pl\"an", 5, "message/send", 12, o) == A2A_OK);
  CHECK(a2a_tally_record(t, "pl\"an", 5, "message/send", 12, o) == A2A_OK);
  CHECK(a2a_tally_record(t, "x", 1, "y", 1, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_tally_record(t, "\xff", 1, "y", 1, o) == A2A_INVALID_UTF8);
  CHECK(a2a_tally_count(t, "pl\"an", 5, "message/send", 12, A2A_CHANNEL_TRANSPORT, "Timeout", 7,
                        &n) == A2A_OK && n == 2);
  CHECK(a2a_tally_count(t, "nobody", 6, "m", 1, A2A_CHANNEL_HTTP, "503", 3, &n) == A2A_OK && n == 0);
  CHECK(a2a_tally_count(t, NULL, 0, NULL, 0, 42, NULL, 0, &n) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_tally_count(t, NULL, 0, NULL, 0, A2A_CHANNEL_HTTP, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_tally_add(t, "b", 1, "tasks/get", 9, A2A_CHANNEL_HTTP, "503", 3, 5) == A2A_OK);
  CHECK(a2a_tally_add(t, "b", 1, "tasks/get", 9, A2A_CHANNEL_INVALID, "503", 3, 5) ==
        A2A_INVALID_ARGUMENT);
  CHECK(a2a_tally_add(t, "b", 1, "tasks/get", 9, A2A_CHANNEL_HTTP, "\xfe", 1, 5) == A2A_INVALID_UTF8);
  CHECK(a2a_tally_total(t) == 7);
  CHECK(a2a_tally_entry_count(t) == 2);
  {
    a2a_tally_entry e;
    CHECK(a2a_tally_get_entry(t, 0, &e) == A2A_OK);
    STR_EQ(e.agent, "b");
    STR_EQ(e.method, "tasks/get");
    CHECK(e.channel == A2A_CHANNEL_HTTP && e.count == 5);
    STR_EQ(e.code, "503");
    CHECK(a2a_tally_get_entry(t, 1, &e) == A2A_OK);
    STR_EQ(e.agent, "pl\"an");
    CHECK(e.channel == A2A_CHANNEL_TRANSPORT && e.count == 2);
    CHECK(a2a_tally_get_entry(t, 2, &e) == A2A_INVALID_ARGUMENT);
    CHECK(a2a_tally_get_entry(t, 0, NULL) == A2A_NULL_PARAMETER);
    CHECK(a2a_tally_get_entry(NULL, 0, &e) == A2A_NULL_PARAMETER);
    CHECK(a2a_tally_entry_count(NULL) == 0);
  }
  CHECK(a2a_tally_render_prometheus(t, &text) == A2A_OK);
  /* The view is not NUL-terminated: t_contains searches within its length only. */
  CHECK(t_contains(text, "# TYPE a2a_outcomes_total counter\n"));
  CHECK(t_contains(text, want));
  CHECK(a2a_tally_render_prometheus(t, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_tally_render_prometheus(NULL, &text) == A2A_NULL_PARAMETER);
  CHECK(a2a_tally_total(NULL) == 0);
  CHECK(a2a_tally_add(NULL, NULL, 0, NULL, 0, 1, NULL, 0, 1) == A2A_NULL_PARAMETER);
  a2a_outcome_free(o);
  a2a_tally_free(t);
  a2a_tally_free(NULL);
}

void test_classify(void) {
  exit_codes();
  classify();
  helpers();
  tally();
}
