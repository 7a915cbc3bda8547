/* The reference driver's transport (a2a_transport_new, a2a_call_run) without a server: a
 * refused loopback connection (port 1) is a transport outcome with request_sent = no for a
 * send, a get, a cancel and a stream; header hooks run once per request; the machine's
 * breaker opens after refused connects; a card fetch that cannot connect says why; a CA
 * file that cannot be read fails the call before anything is sent; the transport's text
 * options refuse what they cannot take. */
#include "harness.h"

static const char *const url = "http://127.0.0.1:1/a2a";

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
  /* The method's 1.0 name, whatever version the agent speaks (here 0.3). */
  st->method_ok = t_str_eq(m, "SendMessage") || t_str_eq(m, "GetTask") ||
                  t_str_eq(m, "CancelTask") || t_str_eq(m, "SendStreamingMessage") ||
                  t_str_eq(m, "SubscribeToTask");
  st->set_ok = a2a_header_setter_set(setter, "Authorization", 13, "Bearer t0k", 10) == A2A_OK;
  st->refused = a2a_header_setter_set(setter, "X-Evil", 6, "a\r\nb", 4) == A2A_INVALID_ARGUMENT &&
                a2a_header_setter_set(setter, "Bad Name", 8, "v", 1) == A2A_INVALID_ARGUMENT &&
                a2a_header_setter_set(setter, NULL, 3, "v", 1) == A2A_NULL_PARAMETER;
}

/* What the FINISHED event of a call said (the outcome's views die with the call: only
 * scalars and lengths are read after). */
struct end {
  int finished;
  a2a_outcome_info info;
};

static void on_event(const a2a_event *ev, void *userdata) {
  struct end *e = (struct end *)userdata;
  if (ev->kind != A2A_EVENT_KIND_FINISHED) return;
  e->finished = 1;
  e->info = t_info(ev->outcome);
}

/* Runs a call of `method` with `params` (JSON) on `st` over `t` and returns its end. */
static struct end call(a2a_client_state *st, const a2a_transport *t, uint32_t method,
                       const char *params) {
  struct end e;
  a2a_call *c = NULL;
  memset(&e, 0, sizeof e);
  CHECK(a2a_call_new(st, method, (const uint8_t *)params, params ? strlen(params) : 0, NULL, 1000,
                     &c) == A2A_OK);
  CHECK(t_run(c, t, 1000, on_event, &e) >= 1);
  a2a_call_free(c);
  return e;
}

static void check_refused(const struct end *e) {
  CHECK(e->finished);
  CHECK(e->info.channel == A2A_CHANNEL_TRANSPORT);
  CHECK(e->info.has_error_name && e->info.error_name == A2A_ERROR_NAME_CONNECT_FAILED);
  CHECK(e->info.has_request_sent && e->info.request_sent == A2A_REQUEST_SENT_NO);
  CHECK(e->info.retry == A2A_RETRY_BACKOFF);
}

static const char send_params[] =
    "{\"message\":{\"messageId\":\"m-1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]}}";

/* Every kind of call to a refused port: an outcome each, hooks once per request. */
static void refused_calls(const a2a_transport *t) {
  struct hook_state hs = {0, 0, 0, 0};
  a2a_client_state *st = t_state(NULL, url, A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC);
  struct end e;
  CHECK(a2a_client_state_add_header_hook(st, hook, &hs) == A2A_OK);

  e = call(st, t, A2A_METHOD_SEND_MESSAGE, send_params);
  check_refused(&e);
  CHECK(hs.calls == 1 && hs.set_ok && hs.refused && hs.method_ok);
  e = call(st, t, A2A_METHOD_GET_TASK, "{\"id\":\"t-1\"}");
  check_refused(&e);
  e = call(st, t, A2A_METHOD_CANCEL_TASK, "{\"id\":\"t-1\"}");
  CHECK(e.info.channel == A2A_CHANNEL_TRANSPORT);
  CHECK(hs.calls == 3 && hs.method_ok); /* send, get, cancel */

  /* A stream that cannot open ends at once with the same outcome. */
  e = call(st, t, A2A_METHOD_SEND_STREAMING_MESSAGE, send_params);
  check_refused(&e);
  e = call(st, t, A2A_METHOD_SUBSCRIBE_TO_TASK, "{\"id\":\"t-1\"}");
  CHECK(e.info.channel == A2A_CHANNEL_TRANSPORT);
  CHECK(hs.calls == 5 && hs.method_ok);
  a2a_client_state_free(st);
}

/* The machine's breaker on the native transport: two refused connects open it; the third
 * call is not sent. */
static void breaker_opens(const a2a_transport *t) {
  a2a_client_config_builder *b = a2a_client_config_builder_new();
  a2a_machine_config *cfg = NULL;
  a2a_breaker_config br;
  a2a_client_state *st;
  struct end e;
  int i;
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  CHECK(a2a_breaker_config_default(&br) == A2A_OK);
  br.failure_threshold = 2;
  br.cool_down_ms = 60000;
  CHECK(a2a_client_config_builder_set_breaker(b, &br) == A2A_OK);
  CHECK(a2a_client_config_builder_build(b, &cfg) == A2A_OK);
  a2a_client_config_builder_free(b);
  st = t_state(cfg, url, A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC);
  for (i = 0; i < 2; i++) {
    e = call(st, t, A2A_METHOD_SEND_MESSAGE, send_params);
    CHECK(e.info.has_error_name && e.info.error_name == A2A_ERROR_NAME_CONNECT_FAILED);
  }
  e = call(st, t, A2A_METHOD_SEND_MESSAGE, send_params);
  CHECK(e.info.has_error_name && e.info.error_name == A2A_ERROR_NAME_CIRCUIT_OPEN);
  CHECK(e.info.has_request_sent && e.info.request_sent == A2A_REQUEST_SENT_NO);
  a2a_client_state_free(st);
  a2a_machine_config_free(cfg);
}

/* A card fetch that cannot connect finishes with a CardResolution outcome saying why. */
static void card_fetch_refused(const a2a_transport *t) {
  a2a_machine_config *cfg = t_config(2000);
  a2a_call *fetch = NULL;
  struct end e;
  memset(&e, 0, sizeof e);
  CHECK(a2a_call_new_card_fetch(cfg, "http://127.0.0.1:1/", 19, &fetch) == A2A_OK);
  CHECK(t_run(fetch, t, 0, on_event, &e) >= 1);
  CHECK(e.finished);
  CHECK(e.info.has_error_name && e.info.error_name == A2A_ERROR_NAME_CARD_RESOLUTION);
  CHECK(e.info.message.len > 0);
  a2a_call_free(fetch);
  a2a_machine_config_free(cfg);
}

/* A CA file that cannot be read: every call fails before anything is sent, saying why. The
 * transport's other text options and their refusals. */
static void transport_options(void) {
  a2a_client_config_builder *b = a2a_client_config_builder_new();
  a2a_machine_config *cfg = NULL;
  a2a_transport *t = NULL;
  a2a_client_state *st;
  struct end e;
  const char *ca = "/nonexistent/ca.pem";
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_PROXY_DISABLED, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_PROXY_DISABLED, 2) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_POOL_IDLE_TIMEOUT_MS, 0) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_POOL_IDLE_TIMEOUT_MS, 5000) == A2A_OK);
  CHECK(a2a_client_config_builder_set_text(b, A2A_CLIENT_TEXT_OPTION_CA_FILE, ca, strlen(ca)) == A2A_OK);
  CHECK(a2a_client_config_builder_set_text(b, A2A_CLIENT_TEXT_OPTION_RESOLVE, "agent.test:443:127.0.0.1",
                                           24) == A2A_OK);
  CHECK(a2a_client_config_builder_set_text(b, 99, "x", 1) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_client_config_builder_set_text(b, A2A_CLIENT_TEXT_OPTION_PROXY, "\xff", 1) == A2A_INVALID_UTF8);
  CHECK(a2a_client_config_builder_set_text(b, A2A_CLIENT_TEXT_OPTION_PROXY, NULL, 2) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_config_builder_set_text(NULL, A2A_CLIENT_TEXT_OPTION_PROXY, "p", 1) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_config_builder_build(b, &cfg) == A2A_OK);
  a2a_client_config_builder_free(b);
  CHECK(a2a_transport_new(cfg, &t) == A2A_OK && t != NULL);
  CHECK(a2a_transport_new(NULL, &t) == A2A_NULL_PARAMETER);
  CHECK(a2a_transport_new(cfg, NULL) == A2A_NULL_PARAMETER);
  st = t_state(cfg, url, A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC);
  e = call(st, t, A2A_METHOD_SEND_MESSAGE, send_params);
  CHECK(e.info.channel == A2A_CHANNEL_TRANSPORT);
  CHECK(e.info.has_error_name && e.info.error_name == A2A_ERROR_NAME_INVALID_REQUEST);
  CHECK(e.info.has_request_sent && e.info.request_sent == A2A_REQUEST_SENT_NO);
  CHECK(e.info.message.len > 0);
  a2a_client_state_free(st);
  a2a_transport_free(t);
  a2a_transport_free(NULL);
  a2a_machine_config_free(cfg);
}

void test_driver(void) {
  a2a_transport *t = t_transport(2000);
  refused_calls(t);
  breaker_opens(t);
  card_fetch_refused(t);
  a2a_transport_free(t);
  transport_options();
}
