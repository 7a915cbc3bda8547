/* The answer over the C ABI against the project's fault server (A2A_TEST_FAULT_URL, set by
 * scripts/ci/30-c.sh): a message of every part kind sent with a2a_client_send_message and
 * mirrored back, read with a2a_outcome_get_info (its result_json); a stream started with
 * a2a_client_stream_message whose END outcome holds the assembled answer and whose items
 * hold their events; an unreadable answer as a malformed outcome and an unreadable stream
 * event counted; a2a_answer_read on a body and on a whole event stream; refusals. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static char url_buf[512];

static const char *agent(const char *base, const char *scenario) {
  snprintf(url_buf, sizeof url_buf, "%s/%s/", base, scenario);
  return url_buf;
}

static const char message[] =
    "{\"parts\":[{\"kind\":\"text\",\"text\":\"hi\"},"
    "{\"kind\":\"data\",\"data\":{\"n\":1}},"
    "{\"kind\":\"file\",\"bytes\":\"aGVsbG8=\",\"name\":\"h.txt\",\"media_type\":\"text/plain\"},"
    "{\"kind\":\"file\",\"uri\":\"https://files.example/a.pdf\"}],"
    "\"metadata\":{\"trace\":\"c\"}}";

static a2a_client *client_for(const char *base, const char *scenario) {
  a2a_client_config cfg;
  a2a_client *c = NULL;
  CHECK(a2a_client_config_default(&cfg) == A2A_OK);
  cfg.allow_http = true;
  cfg.connect_timeout_ms = 2000;
  const char *u = agent(base, scenario); /* before strlen: argument order is unspecified */
  CHECK(a2a_client_new(u, strlen(u), &cfg, &c, NULL) == A2A_OK);
  return c;
}

static void test_send_message(const char *base) {
  a2a_client *c = client_for(base, "mirror");
  a2a_outcome *o = NULL;
  a2a_str json = {NULL, 0};
  CHECK(a2a_client_send_message(c, message, strlen(message), NULL, &o) == A2A_OK);
  CHECK(t_info(o).channel == A2A_CHANNEL_TASK);
  json = t_info(o).result_json;
  CHECK(json.ptr != NULL);
  CHECK(t_contains(json, "\"kind\":\"task\""));
  CHECK(t_contains(json, "\"data\":{\"n\":1}"));
  CHECK(t_contains(json, "\"bytes\":\"aGVsbG8=\""));
  CHECK(t_contains(json, "\"size\":5"));
  CHECK(t_contains(json, "\"uri\":\"https://files.example/a.pdf\""));
  CHECK(t_contains(json, "\"metadata\":{\"trace\":\"c\"}"));
  CHECK(t_contains(json, "\"text\":\"hi\""));
  {
    /* The packed read carries the same answer view, and the task's fields. */
    a2a_outcome_info info;
    CHECK(a2a_outcome_get_info(o, &info) == A2A_OK);
    CHECK(info.result_json.ptr == json.ptr && info.result_json.len == json.len);
    CHECK(info.channel == A2A_CHANNEL_TASK && info.has_state && info.has_http_status &&
          info.http_status == 200);
    CHECK(info.task_id.ptr == t_info(o).task_id.ptr && info.task_id.len > 0);
  }
  a2a_outcome_free(o);
  /* A message that is not the canonical shape is refused and nothing is sent. */
  o = NULL;
  CHECK(a2a_client_send_message(c, "{\"parts\":[]}", 12, NULL, &o) == A2A_ANSWER_MESSAGE);
  CHECK(o == NULL);
  CHECK(a2a_client_send_message(c, "{\"parts\":[{\"kind\":\"file\",\"bytes\":\"*\"}]}", 39,
                                NULL, &o) == A2A_ANSWER_MESSAGE);
  a2a_client_free(c);

  /* An answer that cannot be read: malformed, no result, the message says where. */
  c = client_for(base, "badbytes");
  CHECK(a2a_client_send_text(c, "x", 1, NULL, &o) == A2A_OK);
  CHECK(t_info(o).channel == A2A_CHANNEL_MALFORMED);
  CHECK(t_info(o).exit_code == 3);
  CHECK(t_contains(t_info(o).message, "at artifacts[0].parts[1].bytes"));
  ABSENT(t_info(o).result_json);
  a2a_outcome_free(o);
  a2a_client_free(c);
}

/* historyLength through a2a_client_call_options: the fault server's `history` agent keeps
 * the last N of its three history messages when asked; unset (a zeroed struct) is not 0. */
static void test_history_length(const char *base) {
  a2a_client *c = client_for(base, "history");
  a2a_client_call_options opts;
  a2a_outcome *o = NULL;
  a2a_str json = {NULL, 0};
  memset(&opts, 0, sizeof opts);
  CHECK(a2a_client_get_task(c, "task-h", 6, &opts, &o) == A2A_OK);
  json = t_info(o).result_json;
  CHECK(json.ptr != NULL);
  CHECK(t_contains(json, "hist-1") && t_contains(json, "hist-2") && t_contains(json, "hist-3"));
  a2a_outcome_free(o);
  opts.has_history_length = true;
  opts.history_length = 1;
  o = NULL;
  CHECK(a2a_client_get_task(c, "task-h", 6, &opts, &o) == A2A_OK);
  json = t_info(o).result_json;
  CHECK(json.ptr != NULL);
  CHECK(!t_contains(json, "hist-1") && !t_contains(json, "hist-2") && t_contains(json, "hist-3"));
  a2a_outcome_free(o);
  opts.history_length = 0;
  o = NULL;
  CHECK(a2a_client_send_text(c, "hi", 2, &opts, &o) == A2A_OK);
  CHECK(t_info(o).channel == A2A_CHANNEL_TASK);
  json = t_info(o).result_json;
  CHECK(json.ptr != NULL);
  CHECK(!t_contains(json, "hist-"));
  a2a_outcome_free(o);
  /* More than INT32_MAX is refused before anything is sent. */
  opts.history_length = 0x80000000u;
  o = NULL;
  CHECK(a2a_client_get_task(c, "task-h", 6, &opts, &o) == A2A_INVALID_ARGUMENT);
  CHECK(o == NULL);
  a2a_client_free(c);
}

static void test_stream_message(const char *base) {
  a2a_client *c = client_for(base, "burst-3");
  a2a_client_stream *s = NULL;
  a2a_client_stream_event ev;
  a2a_str json = {NULL, 0};
  int items_with_event = 0, ended = 0;
  CHECK(a2a_client_stream_message(c, message, strlen(message), NULL, &s) == A2A_OK);
  for (int i = 0; i < 100 && a2a_client_stream_next(s, &ev) == A2A_OK; i++) {
    if (ev.kind == A2A_CLIENT_STREAM_EVENT_KIND_ITEM &&
        (json = t_info(ev.item.outcome).result_json).ptr != NULL)
      items_with_event++;
    if (ev.kind == A2A_CLIENT_STREAM_EVENT_KIND_END) {
      ended = 1;
      CHECK(ev.dropped_events == 0 && ev.unreadable_events == 0);
      json = t_info(ev.outcome).result_json;
      CHECK(json.ptr != NULL);
      CHECK(t_contains(json, "\"text\":\"chunk 0;\\nchunk 1;\\nchunk 2;\""));
    }
  }
  CHECK(ended && items_with_event == 5);
  a2a_client_stream_free(s);
  CHECK(a2a_client_stream_message(c, "[]", 2, NULL, &s) == A2A_ANSWER_MESSAGE);
  a2a_client_free(c);

  c = client_for(base, "badevent");
  ended = 0;
  CHECK(a2a_client_stream_text(c, "x", 1, NULL, &s) == A2A_OK);
  for (int i = 0; i < 100 && a2a_client_stream_next(s, &ev) == A2A_OK; i++) {
    if (ev.kind == A2A_CLIENT_STREAM_EVENT_KIND_END) {
      ended = 1;
      CHECK(ev.unreadable_events == 1);
      CHECK(t_info(ev.outcome).exit_code == 0); /* the last state is still reported */
    }
  }
  CHECK(ended);
  a2a_client_stream_free(s);
  a2a_client_free(c);
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
  test_send_message(base);
  test_history_length(base);
  test_stream_message(base);
}
