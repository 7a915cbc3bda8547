/*
 * Minimal test harness for the C ABI tests (plain C99).
 *
 * CHECK(cond) counts a pass or prints the failing line; STR_EQ compares an a2a_str view
 * with a C string; main() in main.c prints "N passed, M failed" as its last line and
 * exits non-zero on any failure.
 */
#ifndef A2A_TEST_HARNESS_H
#define A2A_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

#include "a2a_core.h"

extern unsigned long t_passed;
extern unsigned long t_failed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      t_passed++;                                                              \
    } else {                                                                   \
      t_failed++;                                                              \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);          \
    }                                                                          \
  } while (0)

/* Whether view `v` holds exactly the text `s` (present, same bytes). */
int t_str_eq(a2a_str v, const char *s);
/* Whether view `v` holds exactly the bytes `s` (present, same bytes). */
int t_bytes_eq(a2a_bytes v, const char *s);
/* Whether view `v` contains the text `s` (searching within v.len only). */
int t_contains(a2a_str v, const char *s);
/* Whether the bytes `v` contain the text `s` (searching within v.len only). */
int t_bytes_contain(a2a_bytes v, const char *s);
/* The JSON-RPC id of a request body (the first `"id":` value, as JSON text) copied into
 * `buf` (`cap` bytes, NUL-terminated; empty when absent or too long). */
void t_rpc_id(a2a_bytes body, char *buf, size_t cap);
/* Whether `v` is the absent view (NULL, 0). */
int t_absent(a2a_str v);
/* Every field of outcome `o` (`a2a_outcome_get_info`, checked to succeed; all zero if not):
 * the one way to read an outcome. */
a2a_outcome_info t_info(const a2a_outcome *o);

/* A machine configuration with plain http allowed and a `connect_ms` connect timeout (the
 * caller frees it with a2a_machine_config_free). */
a2a_machine_config *t_config(uint64_t connect_ms);
/* The reference driver's transport made from t_config(connect_ms) (the caller frees it with
 * a2a_transport_free). */
a2a_transport *t_transport(uint64_t connect_ms);
/* A client state for `url` in `version` over `binding` from `cfg` (NULL: t_config(2000)). */
a2a_client_state *t_state(const a2a_machine_config *cfg, const char *url, uint32_t version,
                          uint32_t binding);
/* Runs `call` on `transport` with a2a_call_run until its FINISHED event (at most 500 runs,
 * starting at `now_ms`), handing each event to `on_event` (may be NULL) while its views are
 * valid. Returns the number of events, or -1 when a run did not return A2A_OK (also a
 * CHECK failure). */
int t_run(a2a_call *call, const a2a_transport *transport, uint64_t now_ms,
          void (*on_event)(const a2a_event *ev, void *userdata), void *userdata);

#define STR_EQ(v, s) CHECK(t_str_eq((v), (s)))
#define ABSENT(v) CHECK(t_absent(v))

/* One function per exported module. */
void test_core(void);
void test_vocab(void);
void test_version(void);
void test_outcome(void);
void test_sse(void);
void test_classify(void);
void test_resilience(void);
void test_card(void);
void test_card_builder(void);
void test_request(void);
void test_server(void);
void test_driver(void);
void test_answer(void);
void test_traceparent(void);
void test_concurrency(void);
void test_machine(void);
void test_task_wait(void);
void test_trust(void);
void test_card_cache(void);
void test_call_run(void);

#endif
