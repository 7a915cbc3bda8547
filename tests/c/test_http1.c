/* a2a_buffer, HTTP/1.1 request serialization and the incremental response reader. */
#include "harness.h"

static a2a_header hdr(const char *n, const char *v) {
  a2a_header h;
  h.name = n;
  h.name_len = strlen(n);
  h.value = v;
  h.value_len = strlen(v);
  return h;
}

static void buffer_and_request(void) {
  a2a_buffer *b = NULL;
  a2a_header hs[2];
  size_t n = 0;
  const char *want = "POST /a2a/v1 HTTP/1.1\r\nHost: agent.example:8080\r\nContent-Type: "
                     "application/json\r\nA2A-Version: 1.0\r\nContent-Length: 2\r\n\r\n{}";
  a2a_bytes all;

  CHECK(a2a_buffer_new(&b) == A2A_OK && b != NULL);
  CHECK(a2a_buffer_new(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_buffer_bytes(b).ptr != NULL && a2a_buffer_bytes(b).len == 0);
  ABSENT(a2a_buffer_last_error(b));
  hs[0] = hdr("Content-Type", "application/json");
  hs[1] = hdr("A2A-Version", " 1.0\t");
  CHECK(a2a_http1_write_request(b, "POST", 4, "/a2a/v1", 7, "agent.example:8080", 18, hs, 2,
                                (const uint8_t *)"{}", 2, &n) == A2A_OK);
  all = a2a_buffer_bytes(b);
  CHECK(n == strlen(want) && t_bytes_eq(all, want));
  a2a_buffer_free(b); /* start over: a new buffer */
  b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK && a2a_buffer_bytes(b).len == 0);

  /* GET without body: no Content-Length; head only for a body sent separately. */
  CHECK(a2a_http1_write_request(b, "GET", 3, "/tasks/t-1", 10, "h", 1, NULL, 0, NULL, 0, &n) ==
        A2A_OK);
  CHECK(t_bytes_eq(a2a_buffer_bytes(b), "GET /tasks/t-1 HTTP/1.1\r\nHost: h\r\n\r\n"));
  a2a_buffer_free(b); /* start over: a new buffer */
  b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  CHECK(a2a_http1_write_request_head(b, "POST", 4, "/", 1, "h", 1, NULL, 0, 1234, &n) == A2A_OK);
  CHECK(t_bytes_eq(a2a_buffer_bytes(b), "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1234\r\n\r\n"));
  a2a_buffer_free(b); /* start over: a new buffer */
  b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);

  /* Injection and reserved headers are refused, nothing appended, message names it. */
  hs[0] = hdr("X-Evil", "a\r\nHost: evil");
  CHECK(a2a_http1_write_request(b, "GET", 3, "/", 1, "h", 1, hs, 1, NULL, 0, &n) ==
        A2A_HTTP1_HEADER_VALUE);
  CHECK(a2a_buffer_bytes(b).len == 0);
  CHECK(t_contains(a2a_buffer_last_error(b), "#0"));
  hs[0] = hdr("Content-Length", "5");
  CHECK(a2a_http1_write_request(b, "GET", 3, "/", 1, "h", 1, hs, 1, NULL, 0, &n) ==
        A2A_HTTP1_RESERVED_HEADER);
  hs[0] = hdr("Bad Name", "x");
  CHECK(a2a_http1_write_request_head(b, "GET", 3, "/", 1, "h", 1, hs, 1, 0, &n) ==
        A2A_HTTP1_HEADER_NAME);
  CHECK(a2a_http1_write_request(b, "G T", 3, "/", 1, "h", 1, NULL, 0, NULL, 0, &n) == A2A_HTTP1_METHOD);
  CHECK(a2a_http1_write_request(b, "GET", 3, "x y", 3, "h", 1, NULL, 0, NULL, 0, &n) ==
        A2A_HTTP1_TARGET);
  CHECK(a2a_http1_write_request(b, "GET", 3, "/", 1, "a@b", 3, NULL, 0, NULL, 0, &n) == A2A_HTTP1_HOST);
  CHECK(a2a_http1_write_request(b, "GET", 3, "/", 1, "\xff", 1, NULL, 0, NULL, 0, &n) ==
        A2A_INVALID_UTF8);
  CHECK(a2a_http1_write_request(b, "GET", 3, "/", 1, "h", 1, NULL, 1, NULL, 0, &n) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_http1_write_request(b, "GET", 3, "/", 1, "h", 1, NULL, 0, NULL, 0, NULL) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_http1_write_request(NULL, "GET", 3, "/", 1, "h", 1, NULL, 0, NULL, 0, &n) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_http1_write_request_head(NULL, "GET", 3, "/", 1, "h", 1, NULL, 0, 0, &n) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_buffer_bytes(b).len == 0);
  /* A successful call clears the message. */
  CHECK(a2a_http1_join_target(b, "/a2a/v1/", 8, "message:send", 12) == A2A_OK);
  CHECK(t_bytes_eq(a2a_buffer_bytes(b), "/a2a/v1/message:send"));
  ABSENT(a2a_buffer_last_error(b));
  a2a_buffer_free(b); /* start over: a new buffer */
  b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  CHECK(a2a_http1_join_target(b, "/a2a", 4, "?q=1", 4) == A2A_OK);
  CHECK(t_bytes_eq(a2a_buffer_bytes(b), "/a2a?q=1"));
  CHECK(a2a_http1_join_target(b, "\xff", 1, NULL, 0) == A2A_INVALID_UTF8);
  CHECK(a2a_http1_join_target(NULL, NULL, 0, NULL, 0) == A2A_NULL_PARAMETER);
  a2a_buffer_free(b);
  a2a_buffer_free(NULL);
  CHECK(a2a_buffer_bytes(NULL).ptr == NULL);
  ABSENT(a2a_buffer_last_error(NULL));
}

/* Feeds `wire` one byte more at a time (the worst split), collecting the body. */
/* A reader with the default limits. */
static a2a_result response_new(const char *method, size_t method_len, a2a_http1_response **r) {
  a2a_http1_limits lim;
  CHECK(a2a_http1_limits_default(&lim) == A2A_OK);
  return a2a_http1_response_new_with(method, method_len, &lim, r);
}

static a2a_result read_all(a2a_http1_response *r, const char *wire, char *body, size_t *body_len) {
  size_t len = strlen(wire), start = 0, have = 0, guard = 0;
  a2a_http1_step step;
  a2a_result res;
  *body_len = 0;
  while (guard++ < 10000) {
    if (have < len && (guard % 2 == 0)) have++; /* "read" one more byte */
    res = a2a_http1_response_feed(r, (const uint8_t *)wire + start, have - start, &step);
    if (res != A2A_OK) return res;
    if (step.event == A2A_HTTP1_EVENT_BODY) {
      memcpy(body + *body_len, step.body.ptr, step.body.len);
      *body_len += step.body.len;
    }
    start += step.consumed;
    if (step.event == A2A_HTTP1_EVENT_END) return A2A_OK;
    if (step.event == A2A_HTTP1_EVENT_NEED_MORE && have == len) return a2a_http1_response_finish(r);
  }
  return A2A_INVALID_ARGUMENT;
}

static void response_reader(void) {
  a2a_http1_response *r = NULL;
  a2a_http1_head head;
  a2a_http1_limits lim;
  a2a_str name = {NULL, 0};
  a2a_bytes value = {NULL, 0};
  char body[256];
  size_t body_len = 0;
  const char *chunked =
      "HTTP/1.1 100 Continue\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n";
  const char *until_close = "HTTP/1.0 404 Not Found\r\n\r\nno such agent";

  CHECK(response_new("POST", 4, &r) == A2A_OK && r != NULL);
  CHECK(a2a_http1_response_head(r, &head) == A2A_NONE);
  CHECK(a2a_http1_response_header(r, 0, &name, &value) == A2A_NONE);
  CHECK(a2a_http1_response_header_get(r, "content-type", 12, &value) == A2A_NONE);
  CHECK(read_all(r, chunked, body, &body_len) == A2A_OK);
  CHECK(body_len == 11 && memcmp(body, "hello world", 11) == 0);
  CHECK(a2a_http1_response_head(r, &head) == A2A_OK);
  CHECK(head.status == 200 && head.minor_version == 1 && head.framing == A2A_HTTP1_FRAMING_CHUNKED);
  STR_EQ(head.reason, "OK");
  CHECK(head.header_count == 2 && head.keep_alive);
  CHECK(a2a_http1_response_header(r, 0, &name, &value) == A2A_OK);
  STR_EQ(name, "Content-Type");
  CHECK(t_bytes_eq(value, "text/event-stream"));
  CHECK(a2a_http1_response_header(r, 2, &name, &value) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_http1_response_header_get(r, "TRANSFER-ENCODING", 17, &value) == A2A_OK);
  CHECK(t_bytes_eq(value, "chunked"));
  CHECK(a2a_http1_response_header_get(r, "x-missing", 9, &value) == A2A_NONE);
  CHECK(a2a_http1_response_header_get(r, "\xff", 1, &value) == A2A_INVALID_UTF8);
  CHECK(a2a_http1_response_trailer_count(r) == 1);
  CHECK(a2a_http1_response_trailer(r, 0, &name, &value) == A2A_OK);
  STR_EQ(name, "X-Trailer");
  CHECK(a2a_http1_response_trailer(r, 1, &name, &value) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_http1_response_body_received(r) == 11);
  CHECK(a2a_http1_response_informational_skipped(r) == 1);
  CHECK(a2a_http1_response_is_done(r));
  CHECK(a2a_http1_response_reusable(r));
  ABSENT(a2a_http1_response_last_error(r));

  /* Next response on the same connection: close-delimited 1.0 body ends at finish. */
  CHECK(a2a_http1_response_reset(r, "GET", 3) == A2A_OK);
  CHECK(read_all(r, until_close, body, &body_len) == A2A_OK);
  CHECK(body_len == 13 && memcmp(body, "no such agent", 13) == 0);
  CHECK(a2a_http1_response_head(r, &head) == A2A_OK && head.status == 404);
  CHECK(head.framing == A2A_HTTP1_FRAMING_UNTIL_CLOSE && !head.keep_alive);
  CHECK(!a2a_http1_response_reusable(r));
  a2a_http1_response_free(r);

  /* Errors: truncated body, smuggling signs, limits; the reader is then spent. */
  r = NULL;
  CHECK(response_new("POST", 4, &r) == A2A_OK);
  CHECK(read_all(r, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", body, &body_len) ==
        A2A_HTTP1_TRUNCATED_BODY);
  CHECK(t_contains(a2a_http1_response_last_error(r), "3 body bytes"));
  CHECK(a2a_http1_response_finish(r) == A2A_HTTP1_TRUNCATED_BODY);
  a2a_http1_response_free(r);
  r = NULL;
  CHECK(response_new("POST", 4, &r) == A2A_OK);
  CHECK(read_all(r, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", body,
                 &body_len) == A2A_HTTP1_CONFLICTING_CONTENT_LENGTH);
  a2a_http1_response_free(r);
  r = NULL;
  CHECK(response_new("POST", 4, &r) == A2A_OK);
  CHECK(a2a_http1_response_finish(r) == A2A_HTTP1_CLOSED_BEFORE_RESPONSE);
  a2a_http1_response_free(r);
  r = NULL;
  CHECK(response_new("POST", 4, &r) == A2A_OK);
  CHECK(read_all(r, "HTTP/1.1 200 OK\r\nContent-Le", body, &body_len) == A2A_HTTP1_TRUNCATED_HEAD);
  a2a_http1_response_free(r);
  r = NULL;
  CHECK(response_new("POST", 4, &r) == A2A_OK);
  CHECK(read_all(r, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", body, &body_len) ==
        A2A_HTTP1_INVALID_CHUNK_SIZE);
  a2a_http1_response_free(r);
  r = NULL;
  CHECK(response_new("POST", 4, &r) == A2A_OK);
  CHECK(read_all(r, "HTTP/2 200 OK\r\n\r\n", body, &body_len) == A2A_HTTP1_MALFORMED);
  a2a_http1_response_free(r);

  r = NULL;
  CHECK(a2a_http1_limits_default(&lim) == A2A_OK && lim.max_head_bytes > 0);
  CHECK(a2a_http1_limits_default(NULL) == A2A_NULL_PARAMETER);
  lim.max_head_bytes = 20;
  CHECK(a2a_http1_response_new_with("GET", 3, &lim, &r) == A2A_OK);
  CHECK(read_all(r, "HTTP/1.1 200 OK\r\nX-Long-Header: aaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n", body,
                 &body_len) == A2A_HTTP1_HEAD_TOO_LARGE);
  a2a_http1_response_free(r);
  r = NULL;
  lim.max_head_bytes = 0;
  CHECK(a2a_http1_response_new_with("GET", 3, &lim, &r) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_http1_response_new_with("GET", 3, NULL, &r) == A2A_NULL_PARAMETER);
  CHECK(a2a_http1_response_new_with("\xff", 1, &lim, &r) == A2A_INVALID_UTF8 || r == NULL);
  CHECK(response_new("\xff", 1, &r) == A2A_INVALID_UTF8);
  CHECK(response_new("GET", 3, NULL) == A2A_NULL_PARAMETER);
  CHECK(r == NULL);

  /* NULL handles. */
  {
    a2a_http1_step step;
    CHECK(a2a_http1_response_feed(NULL, NULL, 0, &step) == A2A_NULL_PARAMETER);
    CHECK(a2a_http1_response_finish(NULL) == A2A_NULL_PARAMETER);
    CHECK(a2a_http1_response_reset(NULL, "GET", 3) == A2A_NULL_PARAMETER);
    CHECK(a2a_http1_response_head(NULL, &head) == A2A_NULL_PARAMETER);
    CHECK(a2a_http1_response_header(NULL, 0, &name, &value) == A2A_NULL_PARAMETER);
    CHECK(a2a_http1_response_header_get(NULL, "a", 1, &value) == A2A_NULL_PARAMETER);
    CHECK(a2a_http1_response_trailer(NULL, 0, &name, &value) == A2A_NULL_PARAMETER);
    CHECK(a2a_http1_response_trailer_count(NULL) == 0);
    CHECK(a2a_http1_response_body_received(NULL) == 0);
    CHECK(a2a_http1_response_informational_skipped(NULL) == 0);
    CHECK(!a2a_http1_response_is_done(NULL));
    CHECK(!a2a_http1_response_reusable(NULL));
    ABSENT(a2a_http1_response_last_error(NULL));
    a2a_http1_response_free(NULL);
    r = NULL;
    CHECK(response_new("GET", 3, &r) == A2A_OK);
    CHECK(a2a_http1_response_feed(r, NULL, 3, &step) == A2A_NULL_PARAMETER);
    CHECK(a2a_http1_response_feed(r, NULL, 0, NULL) == A2A_NULL_PARAMETER);
    CHECK(a2a_http1_response_feed(r, NULL, 0, &step) == A2A_OK &&
          step.event == A2A_HTTP1_EVENT_NEED_MORE && step.consumed == 0);
    a2a_http1_response_free(r);
  }
}

void test_http1(void) {
  buffer_and_request();
  response_reader();
}
