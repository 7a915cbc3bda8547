/* The answer over the C ABI against the project's fault server (A2A_TEST_FAULT_URL, set by
 * scripts/ci/30-c.sh), calls run with a2a_call_run: a message of every part kind sent and
 * mirrored back, its FINISHED event's answer_json the outcome's result_json; a stream whose
 * FINISHED answer is assembled and whose items hold their events; historyLength; an
 * unreadable answer as a malformed outcome and an unreadable stream event counted;
 * a2a_answer_read on a body and on a whole event stream; refusals. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static char url_buf[512];

static const char *agent(const char *base, const char *scenario) {
  snprintf(url_buf, sizeof url_buf, "%s/%s/a2a", base, scenario);
  return url_buf;
}

/* A message of every part kind, as SendMessage params in the canonical (1.0 ProtoJSON)
 * form; the machine writes it in the agent's version. */
static const char message[] =
    "{\"message\":{\"messageId\":\"m-parts\",\"role\":\"ROLE_USER\",\"parts\":["
    "{\"text\":\"hi\"},"
    "{\"data\":{\"n\":1}},"
    "{\"raw\":\"aGVsbG8=\",\"filename\":\"h.txt\",\"mediaType\":\"text/plain\"},"
    "{\"url\":\"https://files.example/a.pdf\"}],"
    "\"metadata\":{\"trace\":\"c\"}}}";

/* What a call's events said, copied while their views were valid (the outcome's views in
 * `info` die with the call: only its scalars are read after). */
struct seen {
  int finished, items_with_event, exit_code;
  a2a_outcome_info info;
  uint32_t dropped, unreadable;
  char answer[4096];
  char message[512];
  int answer_same_as_outcome;
};

static void on_event(const a2a_event *ev, void *userdata) {
  struct seen *s = (struct seen *)userdata;
  if (ev->kind == A2A_EVENT_KIND_ITEM && ev->item.outcome != NULL &&
      t_info(ev->item.outcome).result_json.ptr != NULL)
    s->items_with_event++;
  if (ev->kind != A2A_EVENT_KIND_FINISHED) return;
  s->finished = 1;
  s->info = t_info(ev->outcome);
  s->exit_code = ev->exit_code;
  s->dropped = ev->dropped_events;
  s->unreadable = ev->unreadable_events;
  s->answer[0] = '\0';
  s->message[0] = '\0';
  if (s->info.message.ptr != NULL && s->info.message.len < sizeof s->message) {
    memcpy(s->message, s->info.message.ptr, s->info.message.len);
    s->message[s->info.message.len] = '\0';
  }
  if (ev->answer_json.ptr != NULL && ev->answer_json.len < sizeof s->answer) {
    memcpy(s->answer, ev->answer_json.ptr, ev->answer_json.len);
    s->answer[ev->answer_json.len] = '\0';
  }
  /* The event's answer is the outcome's own rendering. */
  s->answer_same_as_outcome = s->info.result_json.len == ev->answer_json.len &&
                              (ev->answer_json.len == 0 ||
                               memcmp(s->info.result_json.ptr, ev->answer_json.ptr,
                                      ev->answer_json.len) == 0);
}

/* Runs a call of `method` with `params` on the scenario's 0.3 JSON-RPC interface. */
static struct seen run(const char *base, const a2a_transport *t, const char *scenario,
                       uint32_t method, const char *params) {
  a2a_client_state *st = t_state(NULL, agent(base, scenario), A2A_PROTOCOL_VERSION_V0_3,
                                 A2A_BINDING_JSON_RPC);
  a2a_call *c = NULL;
  struct seen s;
  memset(&s, 0, sizeof s);
  CHECK(a2a_call_new(st, method, (const uint8_t *)params, strlen(params), NULL, 1000, &c) == A2A_OK);
  CHECK(t_run(c, t, 1000, on_event, &s) >= 1);
  CHECK(s.finished);
  a2a_call_free(c);
  a2a_client_state_free(st);
  return s;
}

static int has(const struct seen *s, const char *text) { return strstr(s->answer, text) != NULL; }

static void test_send_message(const char *base, const a2a_transport *t) {
  struct seen s = run(base, t, "mirror", A2A_METHOD_SEND_MESSAGE, message);
  a2a_client_state *st;
  a2a_call *c = NULL;
  CHECK(s.info.channel == A2A_CHANNEL_TASK);
  CHECK(s.info.has_state && s.info.has_http_status && s.info.http_status == 200);
  CHECK(s.info.task_id.len > 0);
  CHECK(s.answer_same_as_outcome);
  CHECK(has(&s, "\"kind\":\"task\""));
  CHECK(has(&s, "\"data\":{\"n\":1}"));
  CHECK(has(&s, "\"bytes\":\"aGVsbG8=\""));
  CHECK(has(&s, "\"size\":5"));
  CHECK(has(&s, "\"uri\":\"https://files.example/a.pdf\""));
  CHECK(has(&s, "\"metadata\":{\"trace\":\"c\"}"));
  CHECK(has(&s, "\"text\":\"hi\""));

  /* Params that are not a SendMessage request are refused and nothing is sent. */
  st = t_state(NULL, agent(base, "mirror"), A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC);
  CHECK(a2a_call_new(st, A2A_METHOD_SEND_MESSAGE, (const uint8_t *)"[]", 2, NULL, 0, &c) ==
        A2A_REQUEST_PARAMS);
  CHECK(c == NULL);
  CHECK(a2a_call_new(st, A2A_METHOD_SEND_MESSAGE, (const uint8_t *)"{", 1, NULL, 0, &c) ==
        A2A_REQUEST_PARAMS);
  a2a_client_state_free(st);

  /* An answer that cannot be read: malformed, no answer, the message says where. */
  s = run(base, t, "badbytes", A2A_METHOD_SEND_MESSAGE,
          "{\"message\":{\"messageId\":\"m-x\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"x\"}]}}");
  CHECK(s.info.channel == A2A_CHANNEL_MALFORMED);
  CHECK(s.info.exit_code == 3 && s.exit_code == 3);
  CHECK(strstr(s.message, "at artifacts[0].parts[1].bytes") != NULL);
  ABSENT(s.info.result_json);
  CHECK(s.answer[0] == '\0');
}

/* historyLength in the params: the fault server's `history` agent keeps the last N of its
 * three history messages when asked; unset is not 0. */
static void test_history_length(const char *base, const a2a_transport *t) {
  struct seen s = run(base, t, "history", A2A_METHOD_GET_TASK, "{\"id\":\"task-h\"}");
  CHECK(has(&s, "hist-1") && has(&s, "hist-2") && has(&s, "hist-3"));
  s = run(base, t, "history", A2A_METHOD_GET_TASK, "{\"id\":\"task-h\",\"historyLength\":1}");
  CHECK(!has(&s, "hist-1") && !has(&s, "hist-2") && has(&s, "hist-3"));
  s = run(base, t, "history", A2A_METHOD_SEND_MESSAGE,
          "{\"message\":{\"messageId\":\"m-h\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]},"
          "\"configuration\":{\"historyLength\":0}}");
  CHECK(s.info.channel == A2A_CHANNEL_TASK);
  CHECK(s.answer[0] != '\0' && !has(&s, "hist-"));
}

static void test_stream_message(const char *base, const a2a_transport *t) {
  struct seen s = run(base, t, "burst-3", A2A_METHOD_SEND_STREAMING_MESSAGE, message);
  CHECK(s.items_with_event == 5);
  CHECK(s.dropped == 0 && s.unreadable == 0);
  CHECK(has(&s, "\"text\":\"chunk 0;\\nchunk 1;\\nchunk 2;\""));

  s = run(base, t, "badevent", A2A_METHOD_SEND_STREAMING_MESSAGE,
          "{\"message\":{\"messageId\":\"m-b\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"x\"}]}}");
  CHECK(s.unreadable == 1);
  /* The last state is still reported, and the lost event makes the exit status 3: never a
   * success when content was lost. */
  CHECK(s.info.channel == A2A_CHANNEL_TASK && s.info.state == A2A_TASK_STATE_COMPLETED);
  CHECK(s.exit_code == 3);
}

static void test_answer_read(void) {
  static const char body[] =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"message\":{\"messageId\":\"m\",\"role\":"
      "\"ROLE_AGENT\",\"parts\":[{\"data\":[1,2]},{\"raw\":\"AAE=\",\"filename\":\"b\"}]}}}";
  static const char sse[] =
      "data: {\"artifactUpdate\":{\"taskId\":\"t\",\"contextId\":\"c\",\"artifact\":"
      "{\"artifactId\":\"a\",\"parts\":[{\"text\":\"x\"}]}}}\n\n"
      "data: {\"artifactUpdate\":{\"taskId\":\"t\",\"contextId\":\"c\",\"append\":true,"
      "\"artifact\":{\"artifactId\":\"a\",\"parts\":[{\"text\":\"y\"}]}}}\n\n";
  static const char bad[] =
      "{\"message\":{\"messageId\":\"m\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"raw\":\"*\"}]}}";
  a2a_buffer *b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  CHECK(a2a_answer_read((const uint8_t *)body, strlen(body), A2A_PROTOCOL_VERSION_V10,
                        A2A_BINDING_JSON_RPC, false, b) == A2A_OK);
  a2a_bytes out = a2a_buffer_bytes(b);
  a2a_str text = {(const char *)out.ptr, out.len};
  CHECK(t_contains(text, "\"data\":[1,2]"));
  CHECK(t_contains(text, "\"size\":2"));
  a2a_buffer_free(b); /* start over: a new buffer */
  b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  CHECK(a2a_answer_read((const uint8_t *)sse, strlen(sse), A2A_PROTOCOL_VERSION_V10,
                        A2A_BINDING_HTTP_JSON, true, b) == A2A_OK);
  out = a2a_buffer_bytes(b);
  text.ptr = (const char *)out.ptr;
  text.len = out.len;
  CHECK(t_contains(text, "\"text\":\"x\\ny\""));
  a2a_buffer_free(b); /* start over: a new buffer */
  b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  CHECK(a2a_answer_read((const uint8_t *)bad, strlen(bad), A2A_PROTOCOL_VERSION_V10,
                        A2A_BINDING_HTTP_JSON, false, b) == A2A_ANSWER_UNREADABLE);
  CHECK(a2a_buffer_bytes(b).len == 0);
  CHECK(t_contains(a2a_buffer_last_error(b), "at parts[0].bytes"));
  CHECK(a2a_answer_read((const uint8_t *)"", 0, A2A_PROTOCOL_VERSION_V10,
                        A2A_BINDING_HTTP_JSON, true, b) == A2A_NONE);
  CHECK(a2a_answer_read((const uint8_t *)body, strlen(body), 99, A2A_BINDING_JSON_RPC, false,
                        b) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_answer_read((const uint8_t *)body, strlen(body), A2A_PROTOCOL_VERSION_V10,
                        A2A_BINDING_JSON_RPC, false, NULL) == A2A_NULL_PARAMETER);
  a2a_buffer_free(b);
}

void test_answer(void) {
  const char *base = getenv("A2A_TEST_FAULT_URL");
  test_answer_read();
  CHECK(base != NULL && base[0] != '\0');
  if (base == NULL || base[0] == '\0') return;
  {
    a2a_transport *t = t_transport(2000);
    test_send_message(base, t);
    test_history_length(base, t);
    test_stream_message(base, t);
    a2a_transport_free(t);
  }
}
