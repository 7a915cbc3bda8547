/* The reference driver, without a server: a refused loopback connection (port 1) is a
 * transport outcome with request_sent = no, header hooks run once per request, streams end
 * with the same outcome, and card resolution failures come back as outcomes. */
#include "harness.h"

struct hook_state {
  int calls;
  int set_ok;
  int refused;
  int method_ok;
};

static void hook(void *userdata, const char *method, size_t method_len, a2a_header_setter *setter) {
  struct hook_state *st = (struct hook_state *)userdata;
  a2a_str m;
  m.ptr = method;
  m.len = method_len;
  st->calls++;
  st->method_ok = t_str_eq(m, "SendMessage") || t_str_eq(m, "message/send") ||
                  t_str_eq(m, "GetTask") || t_str_eq(m, "tasks/get") ||
                  t_str_eq(m, "SendStreamingMessage") || t_str_eq(m, "message/stream");
  st->set_ok = a2a_header_setter_set(setter, "Authorization", 13, "Bearer t0k", 10) == A2A_OK;
  st->refused = a2a_header_setter_set(setter, "X-Evil", 6, "a\r\nb", 4) == A2A_INVALID_ARGUMENT &&
                a2a_header_setter_set(setter, "Bad Name", 8, "v", 1) == A2A_INVALID_ARGUMENT &&
                a2a_header_setter_set(setter, NULL, 3, "v", 1) == A2A_NULL_PARAMETER;
}

static void check_refused(const a2a_outcome *o) {
  CHECK(t_info(o).channel == A2A_CHANNEL_TRANSPORT);
  CHECK(t_info(o).has_error_name && t_info(o).error_name == A2A_ERROR_NAME_CONNECT_FAILED);
  CHECK(t_info(o).has_request_sent && t_info(o).request_sent == A2A_REQUEST_SENT_NO);
  CHECK(t_info(o).retry == A2A_RETRY_BACKOFF);
}

/* Issue 21: the one reserved-header rule reaches C hooks. The setter refuses framing,
 * connection and protocol headers with A2A_REQUEST_RESERVED_HEADER and the call is refused
 * unsent: InvalidRequest with request_sent = no, not the ConnectFailed that the connect to
 * port 1 gives once a request goes out. Extensions and credentials stay settable. */
struct reserved_state {
  const char *name;
  a2a_result rc;
  int calls;
};

static void reserved_hook(void *userdata, const char *method, size_t method_len,
                          a2a_header_setter *setter) {
  struct reserved_state *st = (struct reserved_state *)userdata;
  (void)method;
  (void)method_len;
  st->calls++;
  st->rc = a2a_header_setter_set(setter, st->name, strlen(st->name), "0", 1);
}

static void test_driver_reserved_headers(const a2a_client_config *cfg, const char *url) {
  static const char *const reserved[] = {"Content-Length", "Host", "A2A-Version",
                                         "Transfer-Encoding", "connection", "Content-Type"};
  size_t i;
  for (i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
    struct reserved_state st;
    a2a_client *c = NULL;
    a2a_client_stream *s = NULL;
    a2a_client_stream_event ev;
    a2a_outcome *o = NULL;
    st.name = reserved[i];
    st.rc = A2A_OK;
    st.calls = 0;
    CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V1_0,
                                     A2A_BINDING_JSON_RPC, cfg, &c) == A2A_OK);
    CHECK(a2a_client_add_header_hook(c, reserved_hook, &st) == A2A_OK);
    CHECK(a2a_client_send_text(c, "hi", 2, NULL, &o) == A2A_OK && o != NULL);
    CHECK(st.calls == 1 && st.rc == A2A_REQUEST_RESERVED_HEADER);
    CHECK(t_info(o).channel == A2A_CHANNEL_TRANSPORT);
    CHECK(t_info(o).has_error_name && t_info(o).error_name == A2A_ERROR_NAME_INVALID_REQUEST);
    CHECK(t_info(o).has_request_sent && t_info(o).request_sent == A2A_REQUEST_SENT_NO);
    CHECK(t_info(o).retry == A2A_RETRY_NEVER);
    CHECK(t_contains(t_info(o).message, reserved[i]));
    a2a_outcome_free(o);
    /* A stream is refused the same way before it opens. */
    CHECK(a2a_client_stream_text(c, "go", 2, NULL, &s) == A2A_OK);
    CHECK(a2a_client_stream_next(s, &ev) == A2A_OK && ev.kind == A2A_CLIENT_STREAM_EVENT_KIND_END);
    CHECK(!ev.has_end_kind);
    CHECK(t_info(ev.outcome).has_error_name && t_info(ev.outcome).error_name == A2A_ERROR_NAME_INVALID_REQUEST);
    a2a_client_stream_free(s);
    a2a_client_free(c);
  }
  {
    struct reserved_state st;
    a2a_client *c = NULL;
    a2a_outcome *o = NULL;
    st.name = "A2A-Extensions";
    st.rc = A2A_INVALID_ARGUMENT;
    st.calls = 0;
    CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V1_0,
                                     A2A_BINDING_JSON_RPC, cfg, &c) == A2A_OK);
    CHECK(a2a_client_add_header_hook(c, reserved_hook, &st) == A2A_OK);
    CHECK(a2a_client_send_text(c, "hi", 2, NULL, &o) == A2A_OK && o != NULL);
    CHECK(st.calls == 1 && st.rc == A2A_OK);
    CHECK(t_info(o).has_error_name && t_info(o).error_name == A2A_ERROR_NAME_CONNECT_FAILED);
    a2a_outcome_free(o);
    a2a_client_free(c);
  }
}

void test_driver(void) {
  a2a_client_config cfg;
  a2a_client_call_options opts;
  a2a_client *c = NULL;
  a2a_client_stream *s = NULL;
  a2a_client_stream_event ev;
  a2a_outcome *o = NULL, *err = NULL;
  struct hook_state st = {0, 0, 0, 0};
  const char *url = "http://127.0.0.1:1/a2a";
  int events = 0;

  CHECK(a2a_client_config_default(&cfg) == A2A_OK);
  CHECK(cfg.connect_timeout_ms == 3000 && !cfg.allow_http && cfg.protocol == 0);
  /* Appended fields: the card's order, no breaker (its defaults filled in). */
  CHECK(!cfg.prefer_client_order && !cfg.breaker_enabled && cfg.breaker.failure_threshold == 5);
  CHECK(a2a_client_config_default(NULL) == A2A_NULL_PARAMETER);
  cfg.allow_http = true;
  /* Appended min_protocol: none by default; a known interface older than it is refused,
     as is a protocol older than it. */
  CHECK(cfg.min_protocol == 0);
  cfg.min_protocol = A2A_PROTOCOL_VERSION_V1_0;
  CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC,
                                   &cfg, &c) == A2A_INVALID_ARGUMENT && c == NULL);
  cfg.protocol = A2A_PROTOCOL_VERSION_V0_3;
  CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V1_0, A2A_BINDING_JSON_RPC,
                                   &cfg, &c) == A2A_INVALID_ARGUMENT && c == NULL);
  cfg.protocol = 0;
  cfg.min_protocol = 0;
  CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC,
                                   &cfg, &c) == A2A_OK && c != NULL);
  CHECK(a2a_client_add_header_hook(c, hook, &st) == A2A_OK);
  CHECK(a2a_client_add_header_hook(c, NULL, &st) == A2A_NULL_PARAMETER);

  CHECK(a2a_client_send_text(c, "hi", 2, NULL, &o) == A2A_OK && o != NULL);
  check_refused(o);
  CHECK(st.calls == 1 && st.set_ok && st.refused && st.method_ok);
  a2a_outcome_free(o);

  memset(&opts, 0, sizeof opts);
  opts.timeout_ms = 5000;
  opts.message_id.ptr = "m-1";
  opts.message_id.len = 3;
  o = NULL;
  CHECK(a2a_client_get_task(c, "t-1", 3, &opts, &o) == A2A_OK);
  check_refused(o);
  a2a_outcome_free(o);
  /* The appended return_immediately: accepted on a send (false in a zeroed struct). */
  CHECK(!opts.return_immediately);
  opts.return_immediately = true;
  o = NULL;
  CHECK(a2a_client_send_text(c, "hi", 2, &opts, &o) == A2A_OK);
  check_refused(o);
  a2a_outcome_free(o);
  opts.return_immediately = false;
  o = NULL;
  CHECK(a2a_client_cancel_task(c, "t-1", 3, &opts, &o) == A2A_OK);
  CHECK(t_info(o).channel == A2A_CHANNEL_TRANSPORT);
  a2a_outcome_free(o);
  CHECK(st.calls == 4); /* send, get, the return-immediately send, cancel */

  /* A stream that cannot open ends at once with the same outcome; no stream end kind. */
  CHECK(a2a_client_stream_text(c, "go", 2, &opts, &s) == A2A_OK && s != NULL);
  /* Hooks cannot be added while a stream holds the client. */
  CHECK(a2a_client_add_header_hook(c, hook, &st) == A2A_INVALID_ARGUMENT);
  while (a2a_client_stream_next(s, &ev) == A2A_OK && events < 10) {
    events++;
    if (ev.kind == A2A_CLIENT_STREAM_EVENT_KIND_END) {
      CHECK(!ev.has_end_kind);
      check_refused(ev.outcome);
    }
  }
  CHECK(events == 1);
  CHECK(a2a_client_stream_next(s, &ev) == A2A_NONE); /* use after end */
  CHECK(a2a_client_stream_next(s, NULL) == A2A_NULL_PARAMETER);
  a2a_client_stream_free(s);
  s = NULL;
  CHECK(a2a_client_resubscribe(c, "t-1", 3, NULL, &s) == A2A_OK);
  CHECK(a2a_client_stream_next(s, &ev) == A2A_OK && ev.kind == A2A_CLIENT_STREAM_EVENT_KIND_END);
  a2a_client_stream_free(s);

  /* Argument errors. */
  CHECK(a2a_client_send_text(c, "\xff", 1, NULL, &o) == A2A_INVALID_UTF8);
  CHECK(a2a_client_send_text(c, "hi", 2, NULL, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_send_text(NULL, "hi", 2, NULL, &o) == A2A_NULL_PARAMETER);
  opts.headers = NULL;
  opts.headers_len = 2;
  CHECK(a2a_client_get_task(c, "t", 1, &opts, &o) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_stream_text(c, "go", 2, &opts, &s) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_resubscribe(NULL, "t", 1, NULL, &s) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_cancel_task(c, NULL, 1, NULL, &o) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_stream_next(NULL, &ev) == A2A_NULL_PARAMETER);
  a2a_client_free(c);
  a2a_client_free(NULL);
  a2a_client_stream_free(NULL);

  c = NULL;
  CHECK(a2a_client_new_with_target(url, strlen(url), 7, A2A_BINDING_JSON_RPC, &cfg, &c) ==
        A2A_INVALID_ARGUMENT);
  cfg.protocol = 9;
  CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC,
                                   &cfg, &c) == A2A_INVALID_ARGUMENT);
  CHECK(c == NULL);

  /* Issue 12: the client's breaker. Two refused connects open it; the third call is not
   * sent. An invalid breaker configuration is refused when the client is made. */
  CHECK(a2a_client_config_default(&cfg) == A2A_OK);
  cfg.allow_http = true;
  cfg.breaker_enabled = true;
  cfg.breaker.failure_threshold = 2;
  cfg.breaker.cool_down_ms = 60000;
  c = NULL;
  CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V03, A2A_BINDING_JSON_RPC,
                                   &cfg, &c) == A2A_OK);
  {
    int i;
    for (i = 0; i < 2; i++) {
      o = NULL;
      CHECK(a2a_client_send_text(c, "x", 1, NULL, &o) == A2A_OK);
      CHECK(t_info(o).has_error_name && t_info(o).error_name == A2A_ERROR_NAME_CONNECT_FAILED);
      a2a_outcome_free(o);
    }
    o = NULL;
    CHECK(a2a_client_send_text(c, "x", 1, NULL, &o) == A2A_OK);
    CHECK(t_info(o).has_error_name && t_info(o).error_name == A2A_ERROR_NAME_CIRCUIT_OPEN);
    CHECK(t_info(o).has_request_sent && t_info(o).request_sent == A2A_REQUEST_SENT_NO);
    a2a_outcome_free(o);
  }
  a2a_client_free(c);
  cfg.breaker.failure_threshold = 0;
  cfg.breaker.failure_rate_percent = 0;
  c = NULL;
  CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V03, A2A_BINDING_JSON_RPC,
                                   &cfg, &c) == A2A_INVALID_ARGUMENT && c == NULL);

  /* Card resolution fails (refused) and says why as an outcome. */
  CHECK(a2a_client_config_default(&cfg) == A2A_OK);
  cfg.allow_http = true;
  CHECK(a2a_client_new("http://127.0.0.1:1/", 19, &cfg, &c, &err) == A2A_CLIENT_CARD_RESOLUTION);
  CHECK(c == NULL && err != NULL);
  {
    CHECK(t_info(err).has_error_name && t_info(err).error_name == A2A_ERROR_NAME_CARD_RESOLUTION);
    CHECK(t_info(err).message.len > 0);
  }
  a2a_outcome_free(err);
  CHECK(a2a_client_new("http://127.0.0.1:1/", 19, &cfg, &c, NULL) == A2A_CLIENT_CARD_RESOLUTION);
  cfg.defer_card_resolution = true; /* no I/O now */
  CHECK(a2a_client_new("http://127.0.0.1:1/", 19, &cfg, &c, NULL) == A2A_OK && c != NULL);
  a2a_client_free(c);
  CHECK(a2a_client_new("\xff", 1, &cfg, &c, NULL) == A2A_INVALID_UTF8);
  CHECK(a2a_client_new("x", 1, &cfg, NULL, NULL) == A2A_NULL_PARAMETER);

  /* Network settings (appended fields): zero defaults; a CA file that cannot be read is an
     outcome on every call, nothing sent; a resolve list needs its array. */
  CHECK(a2a_client_config_default(&cfg) == A2A_OK);
  CHECK(cfg.max_time_ms == 0 && !cfg.proxy_disabled && cfg.ca_file.len == 0 &&
        cfg.client_cert_file.len == 0 && cfg.proxy.len == 0 && cfg.resolve_len == 0);
  cfg.allow_http = true;
  cfg.proxy_disabled = true;
  cfg.max_time_ms = 5000;
  cfg.ca_file.ptr = "/nonexistent/ca.pem";
  cfg.ca_file.len = strlen(cfg.ca_file.ptr);
  {
    a2a_str entries[1];
    entries[0].ptr = "agent.test:443:127.0.0.1";
    entries[0].len = strlen(entries[0].ptr);
    cfg.resolve = entries;
    cfg.resolve_len = 1;
    c = NULL;
    CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V03,
                                     A2A_BINDING_JSON_RPC, &cfg, &c) == A2A_OK);
    o = NULL;
    CHECK(a2a_client_send_text(c, "hi", 2, NULL, &o) == A2A_OK && o != NULL);
    CHECK(t_info(o).has_error_name && t_info(o).error_name == A2A_ERROR_NAME_INVALID_REQUEST);
    CHECK(t_info(o).message.len > 0);
    a2a_outcome_free(o);
    a2a_client_free(c);
    cfg.resolve = NULL;
    CHECK(a2a_client_new_with_target(url, strlen(url), A2A_PROTOCOL_VERSION_V03,
                                     A2A_BINDING_JSON_RPC, &cfg, &c) == A2A_NULL_PARAMETER);
  }

  CHECK(a2a_client_config_default(&cfg) == A2A_OK);
  cfg.allow_http = true;
  test_driver_reserved_headers(&cfg, url);
}
