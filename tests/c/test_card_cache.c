/* The machine config's card cache and minimum protocol, driven by an in-memory agent that
   counts card requests: a fresh card makes no request, a stale one is fetched with
   If-None-Match and a 304 reuses it, no-store is never kept; a card offering only 0.3 is
   refused under a 1.0 minimum before anything reaches the agent. */
#include "harness.h"

struct agent {
  const char *card;
  const char *cache_control;
  int requests;
  int conditional; /* requests that carried If-None-Match: "v1" */
};

static int header_is(const a2a_header *h, const char *name, const char *value) {
  size_t i, n = strlen(name);
  if (h->name_len != n || h->value_len != strlen(value)) return 0;
  for (i = 0; i < n; i++) {
    char a = h->name[i], b = name[i];
    if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
    if (a != b) return 0;
  }
  return memcmp(h->value, value, h->value_len) == 0;
}

/* Resolves the agent's card at `now`; 1 when it resolved to its interface, 0 when refused
   (then *error_name is the outcome's error name). */
static int resolve(a2a_machine_config *cfg, struct agent *ag, uint64_t now, uint32_t *error_name) {
  const char *url = "http://agent.test/";
  a2a_call *fetch = NULL;
  a2a_transmit t;
  a2a_event e;
  a2a_header answer[3];
  int resolved = -1;
  size_t i;
  CHECK(a2a_call_new_card_fetch(cfg, url, strlen(url), &fetch) == A2A_OK);
  while (a2a_call_poll_transmit(fetch, now, &t) == A2A_OK) {
    int match = 0;
    uint16_t status;
    for (i = 0; i < t.headers_len; i++)
      if (header_is(&t.headers[i], "If-None-Match", "\"v1\"")) match = 1;
    ag->requests++;
    ag->conditional += match;
    status = match ? 304 : 200;
    answer[0].name = "Content-Type";
    answer[0].value = "application/json";
    answer[1].name = "ETag";
    answer[1].value = "\"v1\"";
    answer[2].name = "Cache-Control";
    answer[2].value = ag->cache_control;
    for (i = 0; i < 3; i++) {
      answer[i].name_len = strlen(answer[i].name);
      answer[i].value_len = strlen(answer[i].value);
    }
    CHECK(a2a_call_handle_head(fetch, t.request_id, status, answer, 3, now) == A2A_OK);
    if (status == 200)
      CHECK(a2a_call_handle_body(fetch, t.request_id, (const uint8_t *)ag->card, strlen(ag->card),
                                 now) == A2A_OK);
    CHECK(a2a_call_handle_end(fetch, t.request_id, now) == A2A_OK);
  }
  while (a2a_call_poll_event(fetch, &e) == A2A_OK) {
    if (e.kind != A2A_EVENT_KIND_FINISHED) continue;
    if (e.outcome == NULL) {
      resolved = t_str_eq(e.interface_url, "http://agent.test/a2a");
    } else {
      a2a_outcome_info info = t_info(e.outcome);
      resolved = 0;
      *error_name = info.has_error_name ? info.error_name : 0;
      CHECK(t_contains(info.message, "none older than 1.0"));
    }
  }
  CHECK(resolved >= 0);
  a2a_call_free(fetch);
  return resolved;
}

static a2a_machine_config *config(uint32_t cache, uint32_t min_protocol) {
  a2a_client_config_builder *b = a2a_client_config_builder_new();
  a2a_machine_config *cfg = NULL;
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_set_card_cache(b, cache, NULL) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_MIN_PROTOCOL, min_protocol) == A2A_OK);
  CHECK(a2a_client_config_builder_build(b, &cfg) == A2A_OK);
  a2a_client_config_builder_free(b);
  return cfg;
}

#define CARD(version)                                                                       \
  "{\"name\":\"echo\",\"description\":\"d\",\"version\":\"1\",\"supportedInterfaces\":[{"    \
  "\"url\":\"http://agent.test/a2a\",\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"" \
  version "\"}],\"capabilities\":{},\"defaultInputModes\":[\"text\"],"                       \
  "\"defaultOutputModes\":[\"text\"],\"skills\":[]}"

void test_card_cache(void) {
  struct agent ag = {CARD("1.0"), "max-age=60", 0, 0};
  a2a_machine_config *cfg = config(16, 0), *shared = NULL;
  uint32_t name = 0;
  a2a_client_config_builder *b;

  CHECK(resolve(cfg, &ag, 1000, &name) == 1);
  CHECK(ag.requests == 1 && ag.conditional == 0);
  CHECK(resolve(cfg, &ag, 30000, &name) == 1);
  CHECK(ag.requests == 1); /* fresh: no request */
  CHECK(resolve(cfg, &ag, 61000, &name) == 1);
  CHECK(ag.requests == 2 && ag.conditional == 1); /* stale: revalidated, 304 reused */
  CHECK(resolve(cfg, &ag, 62000, &name) == 1);
  CHECK(ag.requests == 2); /* the 304 made it fresh again */

  /* Another builder's config shares the cache: the card is still fresh there. */
  b = a2a_client_config_builder_new();
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_set_card_cache(b, 1, cfg) == A2A_OK);
  CHECK(a2a_client_config_builder_build(b, &shared) == A2A_OK);
  a2a_client_config_builder_free(b);
  CHECK(resolve(shared, &ag, 63000, &name) == 1);
  CHECK(ag.requests == 2);
  a2a_machine_config_free(shared);
  a2a_machine_config_free(cfg);

  /* no-store: fetched every time, never conditionally. */
  cfg = config(16, 0);
  ag.cache_control = "no-store";
  ag.requests = ag.conditional = 0;
  CHECK(resolve(cfg, &ag, 0, &name) == 1 && resolve(cfg, &ag, 1, &name) == 1);
  CHECK(ag.requests == 2 && ag.conditional == 0);
  a2a_machine_config_free(cfg);

  /* Off (0): every resolution fetches. */
  cfg = config(0, 0);
  ag.cache_control = "max-age=600";
  ag.requests = 0;
  CHECK(resolve(cfg, &ag, 0, &name) == 1 && resolve(cfg, &ag, 1, &name) == 1);
  CHECK(ag.requests == 2 && ag.conditional == 0);
  a2a_machine_config_free(cfg);

  /* A 0.3-only card under a 1.0 minimum: refused as CardResolution, only the card asked. */
  cfg = config(0, A2A_PROTOCOL_VERSION_V1_0);
  ag.card = CARD("0.3");
  ag.requests = 0;
  CHECK(resolve(cfg, &ag, 0, &name) == 0);
  CHECK(name == A2A_ERROR_NAME_CARD_RESOLUTION);
  CHECK(ag.requests == 1);
  a2a_machine_config_free(cfg);
  cfg = config(0, A2A_PROTOCOL_VERSION_V0_3);
  CHECK(resolve(cfg, &ag, 0, &name) == 1);
  a2a_machine_config_free(cfg);

  b = a2a_client_config_builder_new();
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_MIN_PROTOCOL, 9) == A2A_INVALID_ARGUMENT);
  cfg = config(0, 0);
  CHECK(a2a_client_config_builder_set_card_cache(b, 1, cfg) == A2A_INVALID_ARGUMENT);
  a2a_machine_config_free(cfg);
  CHECK(a2a_client_config_builder_set(NULL, A2A_CLIENT_OPTION_MIN_PROTOCOL, 0) == A2A_NULL_PARAMETER);
  CHECK(a2a_client_config_builder_set_card_cache(NULL, 1, NULL) == A2A_NULL_PARAMETER);
  a2a_client_config_builder_free(b);
}
