/* Runs every C ABI test; the last line of output is "N passed, M failed". */
#include <stdlib.h>

#include "harness.h"

unsigned long t_passed = 0;
unsigned long t_failed = 0;

int t_str_eq(a2a_str v, const char *s) {
  size_t n = strlen(s);
  return v.ptr != NULL && v.len == n && memcmp(v.ptr, s, n) == 0;
}

int t_bytes_eq(a2a_bytes v, const char *s) {
  size_t n = strlen(s);
  return v.ptr != NULL && v.len == n && memcmp(v.ptr, s, n) == 0;
}

int t_contains(a2a_str v, const char *s) {
  size_t i, n = strlen(s);
  if (v.ptr == NULL) return 0;
  for (i = 0; i + n <= v.len; i++)
    if (memcmp(v.ptr + i, s, n) == 0) return 1;
  return 0;
}

int t_bytes_contain(a2a_bytes v, const char *s) {
  size_t i, n = strlen(s);
  if (v.ptr == NULL) return 0;
  for (i = 0; i + n <= v.len; i++)
    if (memcmp(v.ptr + i, s, n) == 0) return 1;
  return 0;
}

void t_rpc_id(a2a_bytes body, char *buf, size_t cap) {
  size_t i, j;
  buf[0] = '\0';
  for (i = 0; i + 5 <= body.len; i++) {
    if (memcmp(body.ptr + i, "\"id\":", 5) == 0) {
      for (j = i + 5; j < body.len && body.ptr[j] != ',' && body.ptr[j] != '}'; j++) {}
      if (j - (i + 5) < cap) {
        memcpy(buf, body.ptr + i + 5, j - (i + 5));
        buf[j - (i + 5)] = '\0';
      }
      return;
    }
  }
}

int t_absent(a2a_str v) { return v.ptr == NULL && v.len == 0; }

a2a_outcome_info t_info(const a2a_outcome *o) {
  a2a_outcome_info info;
  memset(&info, 0, sizeof info);
  CHECK(a2a_outcome_get_info(o, &info) == A2A_OK);
  return info;
}

int main(void) {
  test_core();
  test_vocab();
  test_version();
  test_outcome();
  test_sse();
  test_classify();
  test_resilience();
  test_card();
  test_card_builder();
  test_request();
  test_server();
  test_driver();
  test_answer();
  test_traceparent();
  test_concurrency();
  test_machine();
  test_task_wait();
  test_trust();
  test_card_cache();
  test_call_run();
  printf("%lu passed, %lu failed\n", t_passed, t_failed);
  return t_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

a2a_machine_config *t_config(uint64_t connect_ms) {
  a2a_client_config_builder *b = a2a_client_config_builder_new();
  a2a_machine_config *cfg = NULL;
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_CONNECT_TIMEOUT_MS, connect_ms) == A2A_OK);
  CHECK(a2a_client_config_builder_build(b, &cfg) == A2A_OK);
  a2a_client_config_builder_free(b);
  return cfg;
}

a2a_transport *t_transport(uint64_t connect_ms) {
  a2a_machine_config *cfg = t_config(connect_ms);
  a2a_transport *t = NULL;
  CHECK(a2a_transport_new(cfg, &t) == A2A_OK && t != NULL);
  a2a_machine_config_free(cfg);
  return t;
}

a2a_client_state *t_state(const a2a_machine_config *cfg, const char *url, uint32_t version,
                          uint32_t binding) {
  a2a_machine_config *own = cfg == NULL ? t_config(2000) : NULL;
  a2a_client_state *st = NULL;
  CHECK(a2a_client_state_new(cfg != NULL ? cfg : own, url, strlen(url), version, binding, 7,
                             &st) == A2A_OK);
  a2a_machine_config_free(own);
  return st;
}

int t_run(a2a_call *call, const a2a_transport *transport, uint64_t now_ms,
          void (*on_event)(const a2a_event *ev, void *userdata), void *userdata) {
  int runs, events = 0, finished = 0;
  uint64_t now = now_ms;
  for (runs = 0; runs < 500 && !finished; runs++) {
    a2a_event ev;
    uint64_t reached = now;
    a2a_result r = a2a_call_run(call, transport, NULL, now, &reached);
    CHECK(r == A2A_OK);
    if (r != A2A_OK) return -1;
    now = reached;
    while (a2a_call_poll_event(call, &ev) == A2A_OK) {
      events++;
      if (on_event != NULL) on_event(&ev, userdata);
      if (ev.kind == A2A_EVENT_KIND_FINISHED) finished = 1;
    }
  }
  CHECK(finished);
  return events;
}
