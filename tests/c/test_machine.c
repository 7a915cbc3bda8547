/* The client machine (a2a_call) driven by an in-memory agent: a send, a stream split at
   every byte, a timeout, a retry, cancel, a card fetch, configuration builders, misuse. */
#include <stdlib.h>

#include "harness.h"

static a2a_machine_config *make_config(uint32_t retries, uint64_t call_timeout_ms) {
  a2a_client_config_builder *b = a2a_client_config_builder_new();
  a2a_machine_config *cfg = NULL;
  a2a_breaker_config breaker;
  CHECK(b != NULL);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_SEND_RETRIES, retries) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_CALL_TIMEOUT_MS, call_timeout_ms) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_CALL_TIMEOUT_MS, 0) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_CONNECT_TIMEOUT_MS, 2000) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_MAX_TIME_MS, 0) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_MAX_RESPONSE_BYTES, 1 << 20) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_CLIENT_CERTIFICATE, 0) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_STREAM_IDLE_TIMEOUT_MS, 60000) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_STREAM_RESUBSCRIBES, 0) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_MAX_EVENT_BYTES, 1 << 20) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_CARD_TIMEOUT_MS, 30000) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_PREFER_CARD_ORDER, 0) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_INTERFACE_VERSION, 9) ==
        A2A_INVALID_ARGUMENT);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_INTERFACE_BINDING, 9) ==
        A2A_INVALID_ARGUMENT);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_INTERFACE_VERSION, 0) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_INTERFACE_BINDING, 0) == A2A_OK);
  /* A flag is 0 or 1; a count fits uint32_t; an option number this library does not know
     (a newer header's) is refused and changes nothing. */
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 2) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_SEND_RETRIES, UINT64_C(1) << 32) ==
        A2A_INVALID_ARGUMENT);
  CHECK(a2a_client_config_builder_set(b, (a2a_client_option)999, 1) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_breaker_config_default(&breaker) == A2A_OK);
  breaker.buckets = 0;
  CHECK(a2a_client_config_builder_set_breaker(b, &breaker) == A2A_CONFIG_BUCKETS_OUT_OF_RANGE);
  CHECK(a2a_client_config_builder_set_breaker(b, NULL) == A2A_OK);
  CHECK(a2a_client_config_builder_build(b, &cfg) == A2A_OK);
  a2a_client_config_builder_free(b);
  return cfg;
}

static a2a_client_state *make_state(uint32_t retries, uint64_t call_timeout_ms) {
  const char *url = "http://agent.test/a2a";
  a2a_machine_config *cfg = make_config(retries, call_timeout_ms);
  a2a_client_state *st = NULL;
  CHECK(a2a_client_state_new(cfg, url, strlen(url), A2A_PROTOCOL_VERSION_V0_3,
                             A2A_BINDING_JSON_RPC, 42, &st) == A2A_OK);
  a2a_machine_config_free(cfg);
  return st;
}

static a2a_call *start_text(a2a_client_state *st, bool streaming, const char *key) {
  a2a_call_settings *s = a2a_call_settings_new();
  a2a_call *call = NULL;
  CHECK(a2a_call_settings_set_text(s, A2A_CALL_TEXT_OPTION_MESSAGE_ID, "m-1", 3) == A2A_OK);
  CHECK(a2a_call_settings_set_text(s, A2A_CALL_TEXT_OPTION_IDEMPOTENCY_KEY, key, strlen(key)) == A2A_OK);
  CHECK(a2a_call_new_text(st, streaming, "hello", 5, s, 1000, &call) == A2A_OK);
  a2a_call_settings_free(s);
  return call;
}

static a2a_result give_head(a2a_call *call, uint32_t id, uint16_t status, const char *ct) {
  a2a_header h;
  h.name = "Content-Type";
  h.name_len = 12;
  h.value = ct;
  h.value_len = strlen(ct);
  return a2a_call_handle_head(call, id, status, &h, 1, 1001);
}

static void send_once(void) {
  a2a_client_state *st = make_state(0, 45000);
  a2a_call *call = start_text(st, false, "");
  a2a_transmit t;
  a2a_event e;
  a2a_outcome_info info;
  char id[64], body[512];
  size_t i, n;
  a2a_client_state_free(st); /* the call keeps it alive */
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  STR_EQ(t.method, "POST");
  STR_EQ(t.url, "http://agent.test/a2a");
  CHECK(t.deadline_ms == 46000);
  CHECK(t.connect_by_ms == 3000);
  CHECK(t.headers_len > 0);
  CHECK(t_bytes_contain(t.body, "\"messageId\":\"m-1\""));
  t_rpc_id(t.body, id, sizeof id);
  CHECK(id[0] != '\0');
  n = (size_t)snprintf(body, sizeof body,
                       "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
                       "\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\"},\"artifacts\":"
                       "[{\"artifactId\":\"a\",\"parts\":[{\"kind\":\"text\",\"text\":\"hi there\"}]}]}}",
                       id);
  CHECK(give_head(call, t.request_id, 200, "application/json") == A2A_OK);
  for (i = 0; i < n; i += 5) {
    size_t len = n - i < 5 ? n - i : 5;
    CHECK(a2a_call_handle_body(call, t.request_id, (const uint8_t *)body + i, len, 1002) == A2A_OK);
  }
  CHECK(a2a_call_handle_end(call, t.request_id, 1003) == A2A_OK);
  CHECK(a2a_call_poll_event(call, &e) == A2A_OK);
  CHECK(e.kind == A2A_EVENT_KIND_FINISHED);
  CHECK(e.exit_code == 0);
  CHECK(t_contains(e.answer_json, "\"text\":\"hi there\""));
  STR_EQ(e.answer_text, "hi there");
  STR_EQ(e.correlation.message_id, "m-1");
  STR_EQ(e.correlation.task_id, "t-1");
  CHECK(e.correlation.attempts == 1);
  CHECK(e.has_response && e.response_status == 200);
  CHECK(a2a_outcome_get_info(e.outcome, &info) == A2A_OK);
  CHECK(info.channel == A2A_CHANNEL_TASK);
  CHECK(info.result_json.len == e.answer_json.len);
  /* After finish: refused, nothing left. */
  CHECK(a2a_call_poll_event(call, &e) == A2A_NONE);
  CHECK(a2a_call_handle_end(call, t.request_id, 1004) == A2A_CALL_FINISHED);
  CHECK(a2a_call_poll_transmit(call, 1005, &t) == A2A_NONE);
  a2a_call_free(call);
}

static void stream_every_byte(void) {
  a2a_client_state *st = make_state(0, 45000);
  a2a_call *call = start_text(st, true, "");
  a2a_transmit t;
  a2a_event e;
  char id[64], body[2048];
  const char *events[3];
  size_t i, n = 0, k;
  int items = 0, finished = 0, answer_ok = 0, exit_code = -1;
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  CHECK(t_bytes_contain(t.body, "message/stream"));
  t_rpc_id(t.body, id, sizeof id);
  events[0] = "{\"kind\":\"status-update\",\"taskId\":\"t-1\",\"contextId\":\"c-1\","
              "\"status\":{\"state\":\"working\"},\"final\":false}";
  events[1] = "{\"kind\":\"artifact-update\",\"taskId\":\"t-1\",\"contextId\":\"c-1\","
              "\"artifact\":{\"artifactId\":\"a\",\"parts\":[{\"kind\":\"text\",\"text\":\"streamed\"}]}}";
  events[2] = "{\"kind\":\"status-update\",\"taskId\":\"t-1\",\"contextId\":\"c-1\","
              "\"status\":{\"state\":\"completed\"},\"final\":true}";
  for (k = 0; k < 3; k++)
    n += (size_t)snprintf(body + n, sizeof body - n,
                          "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\r\n\r\n", id, events[k]);
  CHECK(give_head(call, t.request_id, 200, "text/event-stream") == A2A_OK);
  for (i = 0; i < n && !finished; i++) {
    CHECK(a2a_call_handle_body(call, t.request_id, (const uint8_t *)body + i, 1, 1002 + i) == A2A_OK);
    while (a2a_call_poll_event(call, &e) == A2A_OK) {
      if (e.kind == A2A_EVENT_KIND_ITEM) {
        items++;
        CHECK(e.item.outcome == e.outcome);
        if (e.item.kind == A2A_STREAM_ITEM_KIND_ARTIFACT_UPDATE) {
          CHECK(t_contains(e.answer_json, "streamed"));
          STR_EQ(e.answer_text, "streamed");
        }
      } else if (e.kind == A2A_EVENT_KIND_FINISHED) {
        finished = 1;
        exit_code = e.exit_code;
        answer_ok = t_contains(e.answer_json, "\"text\":\"streamed\"") && t_str_eq(e.answer_text, "streamed");
        CHECK(e.has_end_kind && e.end_kind == A2A_STREAM_END_KIND_COMPLETED);
        CHECK(e.dropped_events == 0 && e.unreadable_events == 0);
      }
    }
  }
  CHECK(items == 3);
  CHECK(finished);
  CHECK(exit_code == 0);
  CHECK(answer_ok);
  a2a_call_free(call);
  a2a_client_state_free(st);
}

static void retry_then_timeout(void) {
  a2a_client_state *st = make_state(1, 500);
  a2a_call *call = start_text(st, false, "key-1");
  a2a_transmit t;
  a2a_event e;
  a2a_outcome_info info;
  uint64_t at = 0;
  uint32_t first;
  int retrying = 0, aborted = 0, finished = 0;
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  first = t.request_id;
  CHECK(a2a_call_poll_timeout(call, &at) && at == 1500);
  /* A reset after writing is an unknown outcome; with a key the send may go again. */
  CHECK(a2a_call_handle_failure(call, t.request_id, A2A_ERROR_NAME_RESET, true, "reset", 5,
                                1010) == A2A_OK);
  while (a2a_call_poll_event(call, &e) == A2A_OK) {
    if (e.kind == A2A_EVENT_KIND_RETRYING) {
      retrying = e.attempt == 2;
      CHECK(a2a_outcome_get_info(e.outcome, &info) == A2A_OK);
      CHECK(info.has_error_name && info.error_name == A2A_ERROR_NAME_RESET);
    }
  }
  CHECK(retrying);
  CHECK(give_head(call, first, 200, "application/json") == A2A_CALL_STALE);
  CHECK(a2a_call_poll_transmit(call, 1010, &t) == A2A_NONE); /* not before the delay */
  CHECK(a2a_call_poll_timeout(call, &at) && at > 1010 && at < 1500);
  CHECK(a2a_call_handle_timeout(call, at) == A2A_OK);
  CHECK(a2a_call_poll_transmit(call, at, &t) == A2A_OK);
  CHECK(t.request_id == 2);
  CHECK(t.deadline_ms == 1500);
  CHECK(t_bytes_contain(t.body, "\"messageId\":\"m-1\""));
  /* The agent stays silent: the call deadline passes. */
  CHECK(a2a_call_handle_timeout(call, 1499) == A2A_OK);
  CHECK(a2a_call_poll_event(call, &e) == A2A_NONE);
  CHECK(a2a_call_poll_timeout(call, &at) && at == 1500);
  CHECK(a2a_call_handle_timeout(call, at) == A2A_OK);
  while (a2a_call_poll_event(call, &e) == A2A_OK) {
    if (e.kind == A2A_EVENT_KIND_ABORT) aborted = e.request_id == 2;
    if (e.kind == A2A_EVENT_KIND_FINISHED) {
      finished = e.exit_code == 3 && e.correlation.attempts == 2;
      CHECK(a2a_outcome_get_info(e.outcome, &info) == A2A_OK);
      CHECK(info.error_name == A2A_ERROR_NAME_TIMEOUT);
    }
  }
  CHECK(aborted && finished);
  a2a_call_free(call);
  a2a_client_state_free(st);
}

static void cancel_and_misuse(void) {
  a2a_client_state *st = make_state(0, 45000);
  a2a_call *call = start_text(st, true, ""), *other = NULL;
  a2a_call_settings *s = a2a_call_settings_new();
  a2a_transmit t;
  a2a_event e;
  int aborted = 0, finished = 0;
  CHECK(a2a_call_handle_end(call, 1, 1000) == A2A_CALL_STALE); /* nothing handed out */
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  CHECK(a2a_call_handle_body(call, t.request_id, (const uint8_t *)"x", 1, 1001) == A2A_CALL_NO_HEAD);
  CHECK(a2a_call_handle_body(call, t.request_id, NULL, 1, 1001) == A2A_NULL_PARAMETER);
  CHECK(give_head(call, t.request_id, 99, "text/plain") == A2A_INVALID_ARGUMENT);
  CHECK(a2a_call_handle_failure(call, t.request_id, 1, true, NULL, 0, 1001) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_call_cancel(call, 1002) == A2A_OK);
  while (a2a_call_poll_event(call, &e) == A2A_OK) {
    if (e.kind == A2A_EVENT_KIND_ABORT) aborted = 1;
    if (e.kind == A2A_EVENT_KIND_FINISHED) finished = e.exit_code != 0;
  }
  CHECK(aborted && finished);
  CHECK(a2a_call_cancel(call, 1003) == A2A_OK);
  CHECK(a2a_call_poll_event(call, &e) == A2A_NONE);
  a2a_call_free(call);

  /* Method + params JSON, settings of every kind. */
  CHECK(a2a_call_settings_set(s, A2A_CALL_OPTION_BUDGET_MS, 2000) == A2A_OK);
  CHECK(a2a_call_settings_set(s, A2A_CALL_OPTION_DEADLINE_MS, 0) == A2A_OK);
  CHECK(a2a_call_settings_set_text(s, A2A_CALL_TEXT_OPTION_TRACEPARENT, "bad", 3) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_call_settings_set_text(s, A2A_CALL_TEXT_OPTION_TRACEPARENT, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", 55) == A2A_OK);
  CHECK(a2a_call_settings_add_header(s, "X-Route", 7, "blue", 4) == A2A_OK);
  CHECK(a2a_call_settings_add_header(s, "", 0, "x", 1) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_call_new(st, 999, NULL, 0, s, 0, &other) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_call_new(st, A2A_METHOD_GET_TASK, (const uint8_t *)"{x", 2, s, 0, &other) ==
        A2A_REQUEST_PARAMS);
  CHECK(a2a_call_settings_set_text(s, (a2a_call_text_option)7, NULL, 0) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_call_settings_set(s, (a2a_call_option)77, 1) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_call_settings_set(s, A2A_CALL_OPTION_RETURN_IMMEDIATELY, 2) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_call_settings_set(s, A2A_CALL_OPTION_RPC_ID_NUMBER, (uint64_t)(int64_t)-7) == A2A_OK);
  CHECK(a2a_call_settings_set_text(s, A2A_CALL_TEXT_OPTION_RPC_ID, "rq-5", 4) == A2A_OK);
  CHECK(a2a_call_new(st, A2A_METHOD_GET_TASK, (const uint8_t *)"{\"id\":\"t-9\"}", 12, s, 0,
                     &other) == A2A_OK);
  CHECK(a2a_call_poll_transmit(other, 0, &t) == A2A_OK);
  CHECK(t.deadline_ms == 2000);
  CHECK(t_bytes_contain(t.body, "tasks/get"));
  CHECK(t_bytes_contain(t.body, "t-9"));
  CHECK(t_bytes_contain(t.body, "\"id\":\"rq-5\""));
  a2a_call_free(other);
  a2a_call_settings_free(s);

  CHECK(a2a_call_poll_event(NULL, &e) == A2A_NULL_PARAMETER);
  CHECK(a2a_call_new_text(NULL, false, "x", 1, NULL, 0, &other) == A2A_NULL_PARAMETER);
  a2a_call_free(NULL);
  a2a_client_state_free(st);
  a2a_client_state_free(NULL);
}

static void card_fetch(void) {
  const char *url = "http://agent.test/";
  const char *card =
      "{\"name\":\"echo\",\"description\":\"d\",\"version\":\"1\",\"protocolVersion\":\"0.3.0\","
      "\"url\":\"http://agent.test/a2a\",\"preferredTransport\":\"JSONRPC\",\"capabilities\":{},"
      "\"defaultInputModes\":[\"text\"],\"defaultOutputModes\":[\"text\"],\"skills\":[]}";
  a2a_machine_config *cfg = make_config(0, 45000);
  a2a_call *fetch = NULL, *call = NULL;
  a2a_client_state *st = NULL;
  a2a_transmit t;
  a2a_event e;
  int resolved = 0;
  CHECK(a2a_call_new_card_fetch(cfg, url, strlen(url), &fetch) == A2A_OK);
  CHECK(a2a_client_state_from_card(cfg, fetch, 1, &st) == A2A_CALL_WRONG_KIND);
  CHECK(a2a_call_poll_transmit(fetch, 0, &t) == A2A_OK);
  STR_EQ(t.method, "GET");
  STR_EQ(t.url, "http://agent.test/.well-known/agent-card.json");
  CHECK(give_head(fetch, t.request_id, 200, "application/json") == A2A_OK);
  CHECK(a2a_call_handle_body(fetch, t.request_id, (const uint8_t *)card, strlen(card), 1) == A2A_OK);
  CHECK(a2a_call_handle_end(fetch, t.request_id, 2) == A2A_OK);
  while (a2a_call_poll_event(fetch, &e) == A2A_OK) {
    if (e.kind == A2A_EVENT_KIND_FINISHED) {
      resolved = e.outcome == NULL && e.exit_code == 0;
      STR_EQ(e.interface_url, "http://agent.test/a2a");
      CHECK(e.interface_version == A2A_PROTOCOL_VERSION_V0_3);
      CHECK(t_contains(e.card_json, "\"echo\""));
    }
  }
  CHECK(resolved);
  CHECK(a2a_client_state_from_card(cfg, fetch, 1, &st) == A2A_OK);
  a2a_call_free(fetch);
  call = start_text(st, false, "");
  CHECK(a2a_call_poll_transmit(call, 0, &t) == A2A_OK);
  STR_EQ(t.url, "http://agent.test/a2a");
  a2a_call_free(call);
  a2a_client_state_free(st);

  /* A card fetch given up. */
  CHECK(a2a_call_new_card_fetch(cfg, url, strlen(url), &fetch) == A2A_OK);
  CHECK(a2a_call_poll_transmit(fetch, 0, &t) == A2A_OK);
  CHECK(a2a_call_cancel(fetch, 1) == A2A_OK);
  resolved = 0;
  while (a2a_call_poll_event(fetch, &e) == A2A_OK)
    if (e.kind == A2A_EVENT_KIND_FINISHED) resolved = e.outcome != NULL && e.exit_code == 3;
  CHECK(resolved);
  a2a_call_free(fetch);
  a2a_machine_config_free(cfg);
}

/* Resolves the capability-less card of card_fetch into a state made with `cfg`. */
static a2a_client_state *state_from_bare_card(a2a_machine_config *cfg) {
  const char *url = "http://agent.test/";
  const char *card =
      "{\"name\":\"echo\",\"description\":\"d\",\"version\":\"1\",\"protocolVersion\":\"0.3.0\","
      "\"url\":\"http://agent.test/a2a\",\"preferredTransport\":\"JSONRPC\",\"capabilities\":{},"
      "\"defaultInputModes\":[\"text\"],\"defaultOutputModes\":[\"text\"],\"skills\":[]}";
  a2a_call *fetch = NULL;
  a2a_client_state *st = NULL;
  a2a_transmit t;
  a2a_event e;
  CHECK(a2a_call_new_card_fetch(cfg, url, strlen(url), &fetch) == A2A_OK);
  CHECK(a2a_call_poll_transmit(fetch, 0, &t) == A2A_OK);
  CHECK(give_head(fetch, t.request_id, 200, "application/json") == A2A_OK);
  CHECK(a2a_call_handle_body(fetch, t.request_id, (const uint8_t *)card, strlen(card), 1) == A2A_OK);
  CHECK(a2a_call_handle_end(fetch, t.request_id, 2) == A2A_OK);
  while (a2a_call_poll_event(fetch, &e) == A2A_OK) {}
  CHECK(a2a_client_state_from_card(cfg, fetch, 1, &st) == A2A_OK);
  a2a_call_free(fetch);
  return st;
}

/* A card without `capabilities.streaming`: a stream is refused unsent, typed, naming the
   method and the capability; with the check off (one builder setter) it goes out. */
static void capabilities_checked(void) {
  a2a_machine_config *cfg = make_config(0, 45000);
  a2a_client_config_builder *b = a2a_client_config_builder_new();
  a2a_machine_config *lax = NULL;
  a2a_client_state *st = state_from_bare_card(cfg);
  a2a_call *call = start_text(st, true, "");
  a2a_transmit t;
  a2a_event e;
  a2a_outcome_info info;
  int refused = 0;
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_NONE);
  while (a2a_call_poll_event(call, &e) == A2A_OK) {
    if (e.kind == A2A_EVENT_KIND_FINISHED) {
      CHECK(a2a_outcome_get_info(e.outcome, &info) == A2A_OK);
      refused = info.channel == A2A_CHANNEL_TRANSPORT &&
                info.error_name == A2A_ERROR_NAME_CAPABILITY_NOT_DECLARED &&
                info.request_sent == A2A_REQUEST_SENT_NO && info.retry == A2A_RETRY_NEVER &&
                e.exit_code == 3 && t_contains(info.message, "message/stream") &&
                t_contains(info.message, "capabilities.streaming");
    }
  }
  CHECK(refused);
  a2a_call_free(call);
  /* A plain send needs no capability. */
  call = start_text(st, false, "");
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  a2a_call_free(call);
  a2a_client_state_free(st);

  CHECK(a2a_client_config_builder_set(NULL, A2A_CLIENT_OPTION_IGNORE_CAPABILITIES, 1) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_IGNORE_CAPABILITIES, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_build(b, &lax) == A2A_OK);
  a2a_client_config_builder_free(b);
  st = state_from_bare_card(lax);
  call = start_text(st, true, "");
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  STR_EQ(t.url, "http://agent.test/a2a");
  CHECK(t_bytes_contain(t.body, "message/stream"));
  a2a_call_free(call);
  a2a_client_state_free(st);
  a2a_machine_config_free(lax);
  a2a_machine_config_free(cfg);
}

/* Runs GetExtendedAgentCard on `st`, the agent answering the 0.3 card whose interface is
   `iface` and which declares streaming; returns the finished call (the caller frees it). */
static a2a_call *extended_call(a2a_client_state *st, const char *iface) {
  a2a_call_settings *s = a2a_call_settings_new();
  a2a_call *call = NULL;
  a2a_transmit t;
  a2a_event e;
  char id[64], body[1024];
  size_t n;
  int finished = 0;
  CHECK(a2a_call_new(st, A2A_METHOD_GET_EXTENDED_AGENT_CARD, NULL, 0, s, 1000, &call) == A2A_OK);
  a2a_call_settings_free(s);
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  t_rpc_id(t.body, id, sizeof id);
  n = (size_t)snprintf(body, sizeof body,
                       "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"name\":\"echo\",\"description\":"
                       "\"d\",\"version\":\"1\",\"protocolVersion\":\"0.3.0\",\"url\":\"%s\","
                       "\"preferredTransport\":\"JSONRPC\",\"capabilities\":{\"streaming\":true},"
                       "\"supportsAuthenticatedExtendedCard\":true,\"defaultInputModes\":[\"text\"],"
                       "\"defaultOutputModes\":[\"text\"],\"skills\":[]}}",
                       id, iface);
  CHECK(give_head(call, t.request_id, 200, "application/json") == A2A_OK);
  CHECK(a2a_call_handle_body(call, t.request_id, (const uint8_t *)body, n, 1002) == A2A_OK);
  CHECK(a2a_call_handle_end(call, t.request_id, 1003) == A2A_OK);
  while (a2a_call_poll_event(call, &e) == A2A_OK)
    if (e.kind == A2A_EVENT_KIND_FINISHED) finished = e.exit_code == 0;
  CHECK(finished);
  return call;
}

/* The extended card replaces the public one (A2A §8.6.2): its streaming capability and its
   interface are used by the next call; one on another host is refused, the public card
   stays. */
static void extended_card_adopted(void) {
  const char *url = "http://agent.test/";
  const char *card =
      "{\"name\":\"echo\",\"description\":\"d\",\"version\":\"1\",\"protocolVersion\":\"0.3.0\","
      "\"url\":\"http://agent.test/a2a\",\"preferredTransport\":\"JSONRPC\",\"capabilities\":{},"
      "\"supportsAuthenticatedExtendedCard\":true,"
      "\"defaultInputModes\":[\"text\"],\"defaultOutputModes\":[\"text\"],\"skills\":[]}";
  a2a_machine_config *cfg = make_config(0, 45000);
  a2a_call *fetch = NULL, *call = NULL, *ext = NULL;
  a2a_client_state *st = NULL, *bare = make_state(0, 45000);
  a2a_transmit t;
  a2a_event e;
  CHECK(a2a_call_new_card_fetch(cfg, url, strlen(url), &fetch) == A2A_OK);
  CHECK(a2a_call_poll_transmit(fetch, 0, &t) == A2A_OK);
  CHECK(give_head(fetch, t.request_id, 200, "application/json") == A2A_OK);
  CHECK(a2a_call_handle_body(fetch, t.request_id, (const uint8_t *)card, strlen(card), 1) == A2A_OK);
  CHECK(a2a_call_handle_end(fetch, t.request_id, 2) == A2A_OK);
  while (a2a_call_poll_event(fetch, &e) == A2A_OK) {}
  CHECK(a2a_client_state_from_card(cfg, fetch, 1, &st) == A2A_OK);
  CHECK(a2a_client_state_adopt_extended_card(NULL, fetch) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_state_adopt_extended_card(st, NULL) == A2A_NULL_PARAMETER);
  /* A card fetch is no extended-card call. */
  CHECK(a2a_client_state_adopt_extended_card(st, fetch) == A2A_CALL_WRONG_KIND);
  a2a_call_free(fetch);

  /* On another host: refused, the stream still refused unsent. */
  ext = extended_call(st, "http://other.test/a2a");
  CHECK(a2a_client_state_adopt_extended_card(st, ext) == A2A_CARD_HOST_MISMATCH);
  a2a_call_free(ext);
  call = start_text(st, true, "");
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_NONE);
  a2a_call_free(call);

  /* On the card's host: adopted, the stream goes to its interface. */
  ext = extended_call(st, "http://agent.test/a2a/v2");
  CHECK(a2a_client_state_adopt_extended_card(st, ext) == A2A_OK);
  /* A state made for a bare interface has no card to check it against. */
  CHECK(a2a_client_state_adopt_extended_card(bare, ext) == A2A_CALL_WRONG_KIND);
  a2a_call_free(ext);
  call = start_text(st, true, "");
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  STR_EQ(t.url, "http://agent.test/a2a/v2");
  CHECK(t_bytes_contain(t.body, "message/stream"));
  a2a_call_free(call);
  a2a_client_state_free(st);
  a2a_client_state_free(bare);
  a2a_machine_config_free(cfg);
}

/* A header hook on the machine's state: its header goes out on every request; one that sets
   a reserved header refuses the call unsent. */
static void set_token(void *userdata, const char *method, size_t method_len,
                      a2a_header_setter *setter) {
  int *runs = (int *)userdata;
  (*runs)++;
  /* SendMessage, then the stream's SendStreamingMessage. */
  CHECK(method_len >= 11 && memcmp(method, "Send", 4) == 0);
  CHECK(a2a_header_setter_set(setter, "Authorization", 13, "Bearer t", 8) == A2A_OK);
}

static void set_host(void *userdata, const char *method, size_t method_len,
                     a2a_header_setter *setter) {
  (void)userdata;
  (void)method;
  (void)method_len;
  CHECK(a2a_header_setter_set(setter, "Host", 4, "evil", 4) == A2A_REQUEST_RESERVED_HEADER);
}

static void hooks_and_idle(void) {
  a2a_client_state *st = make_state(0, 45000);
  a2a_call_settings *s = a2a_call_settings_new();
  a2a_call *call = NULL;
  a2a_transmit t;
  a2a_event e;
  a2a_outcome_info info;
  uint64_t at = 0;
  size_t i;
  int runs = 0, found = 0, refused = 0;
  CHECK(a2a_client_state_add_header_hook(st, set_token, &runs) == A2A_OK);
  CHECK(a2a_client_state_add_header_hook(st, NULL, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_state_add_header_hook(NULL, set_token, NULL) == A2A_NULL_PARAMETER);
  call = start_text(st, false, "");
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  CHECK(runs == 1);
  for (i = 0; i < t.headers_len; i++)
    if (t.headers[i].name_len == 13 && memcmp(t.headers[i].name, "Authorization", 13) == 0 &&
        t.headers[i].value_len == 8 && memcmp(t.headers[i].value, "Bearer t", 8) == 0)
      found = 1;
  CHECK(found);
  a2a_call_free(call);

  /* A per-call stream idle timeout replaces the state's 60 s. */
  CHECK(a2a_call_settings_set(s, A2A_CALL_OPTION_STREAM_IDLE_TIMEOUT_MS, 250) == A2A_OK);
  CHECK(a2a_call_settings_set(NULL, A2A_CALL_OPTION_STREAM_IDLE_TIMEOUT_MS, 1) == A2A_NULL_PARAMETER);
  CHECK(a2a_call_new_text(st, true, "hi", 2, s, 1000, &call) == A2A_OK);
  CHECK(a2a_call_poll_transmit(call, 1000, &t) == A2A_OK);
  CHECK(give_head(call, t.request_id, 200, "text/event-stream") == A2A_OK);
  while (a2a_call_poll_event(call, &e) == A2A_OK) {}
  CHECK(a2a_call_poll_timeout(call, &at));
  CHECK(at == 1251); /* the head arrived at 1001 */
  a2a_call_free(call);
  a2a_call_settings_free(s);

  CHECK(a2a_client_state_add_header_hook(st, set_host, NULL) == A2A_OK);
  call = start_text(st, false, "");
  CHECK(a2a_call_poll_transmit(call, 2000, &t) == A2A_NONE);
  while (a2a_call_poll_event(call, &e) == A2A_OK) {
    if (e.kind == A2A_EVENT_KIND_FINISHED) {
      CHECK(a2a_outcome_get_info(e.outcome, &info) == A2A_OK);
      refused = info.error_name == A2A_ERROR_NAME_INVALID_REQUEST &&
                info.request_sent == A2A_REQUEST_SENT_NO;
    }
  }
  CHECK(refused);
  a2a_call_free(call);
  a2a_client_state_free(st);
}

void test_machine(void) {
  send_once();
  stream_every_byte();
  retry_then_timeout();
  cancel_and_misuse();
  card_fetch();
  capabilities_checked();
  extended_card_adopted();
  hooks_and_idle();
}
