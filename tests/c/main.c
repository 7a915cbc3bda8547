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
  test_driver_raw();
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
