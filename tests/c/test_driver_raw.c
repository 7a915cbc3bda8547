/* The driver's raw layer against the project's fault server (its base URL in the
 * environment variable A2A_TEST_FAULT_URL, set by scripts/ci/30-c.sh): raw exchanges and
 * streams, redirects returned, an exchange and a stream read blocked in one thread and
 * aborted from another (bounded waits), the idle deadline, NULL checks, and a successful
 * a2a_client_send_text. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

/* Whether an opened stream is an event stream (what a2a_raw_stream_is_event_stream answered
 * before it was removed): a 2xx head whose first Content-Type passes a2a_is_event_stream. */
static int is_event_stream(const a2a_raw_stream *s) {
  const a2a_raw_response *head = a2a_raw_stream_head(s);
  uint16_t status = a2a_raw_response_status(head);
  size_t i, n = a2a_raw_response_header_count(head);
  if (status < 200 || status > 299) return 0;
  for (i = 0; i < n; i++) {
    a2a_str name, value;
    if (a2a_raw_response_header(head, i, &name, &value) != A2A_OK) return 0;
    if (name.len == 12 && memcmp(name.ptr, "content-type", 12) == 0)
      return a2a_is_event_stream(value.ptr, value.len);
  }
  return 0;
}

/* What the aborting thread does, and when it did it. */
struct aborter {
  const a2a_abort *abort;
  const a2a_raw_stream *stream;
  double at;
};

static void *abort_later(void *arg) {
  struct aborter *a = (struct aborter *)arg;
  sleep_ms(300);
  a->at = now_s();
  if (a->abort != NULL) a2a_abort_trigger(a->abort);
  if (a->stream != NULL) a2a_raw_stream_abort(a->stream);
  return NULL;
}

static char url_buf[512];

static const char *url(const char *base, const char *path) {
  snprintf(url_buf, sizeof url_buf, "%s%s", base, path);
  return url_buf;
}

static const char send_body[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"message/send\",\"params\":{\"message\":"
    "{\"kind\":\"message\",\"messageId\":\"m-1\",\"role\":\"user\",\"parts\":[{\"kind\":\"text\","
    "\"text\":\"hello\"}]}}}";
static const char stream_body[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"2\",\"method\":\"message/stream\",\"params\":{\"message\":"
    "{\"kind\":\"message\",\"messageId\":\"m-2\",\"role\":\"user\",\"parts\":[{\"kind\":\"text\","
    "\"text\":\"hello\"}]}}}";

static a2a_header json_headers[2];

static void set_headers(void) {
  json_headers[0].name = "Content-Type";
  json_headers[0].name_len = 12;
  json_headers[0].value = "application/json";
  json_headers[0].value_len = 16;
  json_headers[1].name = "Accept";
  json_headers[1].name_len = 6;
  json_headers[1].value = "text/event-stream";
  json_headers[1].value_len = 17;
}

static void check_transport(const a2a_outcome *o, a2a_error_name want, a2a_request_sent sent) {
  CHECK(o != NULL);
  CHECK(t_info(o).channel == A2A_CHANNEL_TRANSPORT);
  CHECK(t_info(o).has_error_name && t_info(o).error_name == want);
  CHECK(t_info(o).has_request_sent && t_info(o).request_sent == sent);
}

/* Whether the (NUL-free) bytes of `v` contain `s`. */
static int bytes_contain(const char *buf, size_t len, const char *s) {
  size_t i, n = strlen(s);
  for (i = 0; i + n <= len; i++)
    if (memcmp(buf + i, s, n) == 0) return 1;
  return 0;
}

static void test_exchanges(a2a_client *c, const char *base) {
  a2a_raw_response *r = NULL;
  a2a_outcome *err = NULL;
  a2a_abort *ab = NULL;
  a2a_str name, value;
  a2a_bytes body;
  size_t i;
  int found_ct = 0, found_loc = 0;
  struct aborter a;
  pthread_t th;
  double t0, returned;

  /* A successful exchange: status, headers, body in handle-owned memory. */
  url(base, "/ok/a2a");
  CHECK(a2a_client_exchange(c, "POST", 4, url_buf, strlen(url_buf), json_headers, 1,
                            (const uint8_t *)send_body, strlen(send_body), 5000, NULL, &r,
                            &err) == A2A_OK);
  CHECK(r != NULL && err == NULL);
  CHECK(a2a_raw_response_status(r) == 200);
  CHECK(a2a_raw_response_header_count(r) > 0);
  for (i = 0; i < a2a_raw_response_header_count(r); i++) {
    CHECK(a2a_raw_response_header(r, i, &name, &value) == A2A_OK);
    if (t_str_eq(name, "content-type")) found_ct = t_contains(value, "application/json");
  }
  CHECK(found_ct);
  CHECK(a2a_raw_response_header(r, i, &name, &value) == A2A_NONE);
  CHECK(a2a_raw_response_header(r, 0, NULL, &value) == A2A_NULL_PARAMETER);
  body = a2a_raw_response_body(r);
  CHECK(body.ptr != NULL && bytes_contain((const char *)body.ptr, body.len, "\"completed\""));
  a2a_raw_response_free(r);
  r = NULL;

  /* A redirect is a response, never followed. */
  url(base, "/redirect/a2a");
  CHECK(a2a_client_exchange(c, "POST", 4, url_buf, strlen(url_buf), json_headers, 1,
                            (const uint8_t *)send_body, strlen(send_body), 0, NULL, &r,
                            NULL) == A2A_OK);
  CHECK(a2a_raw_response_status(r) == 302);
  for (i = 0; i < a2a_raw_response_header_count(r); i++) {
    CHECK(a2a_raw_response_header(r, i, &name, &value) == A2A_OK);
    if (t_str_eq(name, "location")) found_loc = t_contains(value, "/redirect-target/a2a");
  }
  CHECK(found_loc);
  a2a_raw_response_free(r);
  r = NULL;

  /* An exchange blocked on a hung server, aborted from another thread. */
  CHECK(a2a_abort_new(&ab) == A2A_OK && ab != NULL);
  CHECK(!a2a_abort_is_triggered(ab));
  a.abort = ab;
  a.stream = NULL;
  a.at = 0;
  url(base, "/hang/a2a");
  t0 = now_s();
  CHECK(pthread_create(&th, NULL, abort_later, &a) == 0);
  CHECK(a2a_client_exchange(c, "POST", 4, url_buf, strlen(url_buf), json_headers, 1,
                            (const uint8_t *)send_body, strlen(send_body), 10000, ab, &r,
                            &err) == A2A_CLIENT_TRANSPORT);
  returned = now_s();
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(r == NULL);
  check_transport(err, A2A_ERROR_NAME_RESET, A2A_REQUEST_SENT_UNKNOWN);
  CHECK(t_contains(t_info(err).message, "aborted"));
  CHECK(a2a_abort_is_triggered(ab));
  CHECK(returned - t0 < 3.0);
  CHECK(returned - a.at < 1.0);
  printf("raw exchange returned %.1f ms after the abort\n", (returned - a.at) * 1000.0);
  a2a_outcome_free(err);
  err = NULL;
  a2a_abort_free(ab);

  /* A switch triggered before its call stops it before anything is sent. */
  ab = NULL;
  CHECK(a2a_abort_new(&ab) == A2A_OK);
  a2a_abort_trigger(ab);
  CHECK(a2a_client_exchange(c, "POST", 4, url_buf, strlen(url_buf), NULL, 0, NULL, 0, 0, ab, &r,
                            &err) == A2A_CLIENT_TRANSPORT);
  check_transport(err, A2A_ERROR_NAME_RESET, A2A_REQUEST_SENT_NO);
  a2a_outcome_free(err);
  err = NULL;
  a2a_abort_free(ab);

  /* Argument checks. */
  CHECK(a2a_client_exchange(NULL, "GET", 3, url_buf, strlen(url_buf), NULL, 0, NULL, 0, 0, NULL,
                            &r, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_exchange(c, "", 0, url_buf, strlen(url_buf), NULL, 0, NULL, 0, 0, NULL, &r,
                            NULL) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_client_exchange(c, "GET", 3, url_buf, strlen(url_buf), NULL, 1, NULL, 0, 0, NULL, &r,
                            NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_exchange(c, "GET", 3, "\xff", 1, NULL, 0, NULL, 0, 0, NULL, &r, NULL) ==
        A2A_INVALID_UTF8);
  CHECK(a2a_client_exchange(c, "GET", 3, url_buf, strlen(url_buf), NULL, 0, NULL, 0, 0, NULL,
                            NULL, NULL) == A2A_NULL_PARAMETER);
  CHECK(r == NULL);
  CHECK(a2a_abort_new(NULL) == A2A_NULL_PARAMETER);
  a2a_abort_trigger(NULL);
  CHECK(!a2a_abort_is_triggered(NULL));
  a2a_abort_free(NULL);
  CHECK(a2a_raw_response_status(NULL) == 0);
  CHECK(a2a_raw_response_header_count(NULL) == 0);
  CHECK(a2a_raw_response_body(NULL).ptr == NULL);
  a2a_raw_response_free(NULL);
}

static void test_streams(a2a_client *c, const char *base) {
  a2a_raw_stream *s = NULL;
  const a2a_raw_response *head;
  a2a_outcome *err = NULL;
  a2a_bytes chunk;
  a2a_result rc;
  char got[8192];
  size_t got_len = 0;
  int reads = 0;
  struct aborter a;
  pthread_t th;
  double returned, t0;

  /* A whole event stream, read to its end. */
  url(base, "/ok/a2a");
  CHECK(a2a_client_open_stream(c, "POST", 4, url_buf, strlen(url_buf), json_headers, 2,
                               (const uint8_t *)stream_body, strlen(stream_body), 5000, NULL, &s,
                               &err) == A2A_OK);
  CHECK(s != NULL && is_event_stream(s));
  head = a2a_raw_stream_head(s);
  CHECK(a2a_raw_response_status(head) == 200);
  CHECK(a2a_raw_response_body(head).len == 0);
  while ((rc = a2a_raw_stream_read(s, 5000, &chunk, &err)) == A2A_OK && reads < 100) {
    CHECK(chunk.len > 0);
    if (got_len + chunk.len < sizeof got) {
      memcpy(got + got_len, chunk.ptr, chunk.len);
      got_len += chunk.len;
    }
    reads++;
  }
  CHECK(rc == A2A_NONE && err == NULL);
  CHECK(bytes_contain(got, got_len, "\"working\"") && bytes_contain(got, got_len, "\"final\":true"));
  CHECK(a2a_raw_stream_read(s, 5000, &chunk, &err) == A2A_NONE);
  a2a_raw_stream_free(s);
  s = NULL;

  /* Not an event stream: the whole response is in the head. */
  url(base, "/ok/.well-known/agent-card.json");
  CHECK(a2a_client_open_stream(c, "GET", 3, url_buf, strlen(url_buf), NULL, 0, NULL, 0, 0, NULL,
                               &s, NULL) == A2A_OK);
  CHECK(!is_event_stream(s));
  head = a2a_raw_stream_head(s);
  CHECK(a2a_raw_response_status(head) == 200);
  chunk = a2a_raw_response_body(head);
  CHECK(bytes_contain((const char *)chunk.ptr, chunk.len, "\"name\""));
  CHECK(a2a_raw_stream_read(s, 0, &chunk, NULL) == A2A_NONE);
  a2a_raw_stream_free(s);
  s = NULL;

  /* A stalled stream: the idle deadline of one read cuts it. */
  url(base, "/stall/a2a");
  CHECK(a2a_client_open_stream(c, "POST", 4, url_buf, strlen(url_buf), json_headers, 2,
                               (const uint8_t *)stream_body, strlen(stream_body), 5000, NULL, &s,
                               NULL) == A2A_OK);
  got_len = 0;
  while (!bytes_contain(got, got_len, "\"working\"") &&
         a2a_raw_stream_read(s, 5000, &chunk, NULL) == A2A_OK && got_len + chunk.len < sizeof got) {
    memcpy(got + got_len, chunk.ptr, chunk.len);
    got_len += chunk.len;
  }
  CHECK(bytes_contain(got, got_len, "\"working\""));
  t0 = now_s();
  CHECK(a2a_raw_stream_read(s, 300, &chunk, &err) == A2A_CLIENT_TRANSPORT);
  CHECK(now_s() - t0 >= 0.25 && now_s() - t0 < 3.0);
  check_transport(err, A2A_ERROR_NAME_TIMEOUT, A2A_REQUEST_SENT_UNKNOWN);
  a2a_outcome_free(err);
  err = NULL;
  CHECK(a2a_raw_stream_read(s, 300, &chunk, &err) == A2A_NONE);
  a2a_raw_stream_free(s);
  s = NULL;

  /* A read blocked on a stalled stream, aborted from another thread. */
  CHECK(a2a_client_open_stream(c, "POST", 4, url_buf, strlen(url_buf), json_headers, 2,
                               (const uint8_t *)stream_body, strlen(stream_body), 5000, NULL, &s,
                               NULL) == A2A_OK);
  got_len = 0;
  while (!bytes_contain(got, got_len, "\"working\"") &&
         a2a_raw_stream_read(s, 5000, &chunk, NULL) == A2A_OK && got_len + chunk.len < sizeof got) {
    memcpy(got + got_len, chunk.ptr, chunk.len);
    got_len += chunk.len;
  }
  a.abort = NULL;
  a.stream = s;
  a.at = 0;
  CHECK(pthread_create(&th, NULL, abort_later, &a) == 0);
  CHECK(a2a_raw_stream_read(s, 20000, &chunk, &err) == A2A_CLIENT_TRANSPORT);
  returned = now_s();
  CHECK(pthread_join(th, NULL) == 0);
  check_transport(err, A2A_ERROR_NAME_RESET, A2A_REQUEST_SENT_UNKNOWN);
  CHECK(t_contains(t_info(err).message, "aborted"));
  CHECK(returned - a.at < 1.0);
  printf("raw stream read returned %.1f ms after the abort\n", (returned - a.at) * 1000.0);
  a2a_outcome_free(err);
  err = NULL;
  CHECK(a2a_raw_stream_read(s, 20000, &chunk, &err) == A2A_NONE);
  a2a_raw_stream_abort(s);
  a2a_raw_stream_free(s);

  CHECK(a2a_client_open_stream(c, "POST", 4, url_buf, strlen(url_buf), NULL, 0, NULL, 0, 0, NULL,
                               NULL, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_raw_stream_read(NULL, 0, &chunk, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_raw_stream_head(NULL) == NULL);
  a2a_raw_stream_abort(NULL);
  a2a_raw_stream_free(NULL);
}

/* The typed driver against a well-behaved agent: a completed task echoing the text. */
static void test_send_ok(const char *base) {
  a2a_client_config cfg;
  a2a_client *c = NULL;
  a2a_outcome *o = NULL;

  CHECK(a2a_client_config_default(&cfg) == A2A_OK);
  cfg.allow_http = true;
  url(base, "/ok/a2a");
  CHECK(a2a_client_new_with_target(url_buf, strlen(url_buf), A2A_PROTOCOL_VERSION_V0_3,
                                   A2A_BINDING_JSON_RPC, &cfg, &c) == A2A_OK);
  CHECK(a2a_client_send_text(c, "hello there", 11, NULL, &o) == A2A_OK && o != NULL);
  CHECK(t_info(o).channel == A2A_CHANNEL_TASK);
  CHECK(t_info(o).is_success);
  CHECK(t_info(o).has_state && t_info(o).state == A2A_TASK_STATE_COMPLETED);

  CHECK(t_info(o).task_id.len > 0);
  a2a_outcome_free(o);
  a2a_client_free(c);
}

void test_driver_raw(void) {
  const char *base = getenv("A2A_TEST_FAULT_URL");
  a2a_client_config cfg;
  a2a_client *c = NULL;

  /* No skipping: the runner (scripts/ci/30-c.sh) starts the fault server. */
  CHECK(base != NULL && base[0] != '\0');
  if (base == NULL || base[0] == '\0') {
    fprintf(stderr, "A2A_TEST_FAULT_URL is not set: run the C tests via scripts/ci/30-c.sh\n");
    return;
  }
  set_headers();
  CHECK(a2a_client_new_raw(NULL, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_config_default(&cfg) == A2A_OK);
  cfg.allow_http = true;
  cfg.connect_timeout_ms = 2000;
  CHECK(a2a_client_new_raw(&cfg, &c) == A2A_OK && c != NULL);
  test_exchanges(c, base);
  test_streams(c, base);
  a2a_client_free(c);
  test_send_ok(base);
}
