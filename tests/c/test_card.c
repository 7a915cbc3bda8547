/* Agent cards: parse both shapes, interfaces, select, resolve, validate, location. */
#include "harness.h"

/* A 1.0 card (shape from the A2A 1.0 spec's AgentCard; hand-written). */
static const char CARD_V10[] =
    "{\"name\":\"Echo\",\"description\":\"echoes\",\"version\":\"2.1\","
    "\"capabilities\":{\"streaming\":true},"
    "\"supportedInterfaces\":["
    "{\"url\":\"https://agent.example.com/a2a/v1\",\"protocolBinding\":\"JSONRPC\","
    "\"protocolVersion\":\"1.0\"},"
    "{\"url\":\"https://agent.example.com/grpc\",\"protocolBinding\":\"GRPC\","
    "\"protocolVersion\":\"1.0\"}]}";

/* A 0.3 card: url + preferredTransport + additionalInterfaces (A2A 0.3 AgentCard). */
static const char CARD_V03[] =
    "{\"name\":\"Old\",\"description\":\"\",\"version\":\"1\",\"protocolVersion\":\"0.3.0\","
    "\"url\":\"https://old.example.com/a2a\",\"preferredTransport\":\"JSONRPC\","
    "\"additionalInterfaces\":[{\"url\":\"https://old.example.com/rest\",\"transport\":\"HTTP+JSON\"}],"
    "\"capabilities\":{}}";

static const char CARD_URL[] = "https://agent.example.com/.well-known/agent-card.json";

static void parse_and_read(void) {
  a2a_card *c = NULL;
  a2a_card_info info;
  a2a_card_interface i;

  CHECK(a2a_card_new(&c) == A2A_OK && c != NULL);
  CHECK(a2a_card_new(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_get_info(c, &info) == A2A_NONE);
  CHECK(a2a_card_get_interface(c, 0, &i) == A2A_NONE);
  CHECK(a2a_card_parse(c, (const uint8_t *)CARD_V10, strlen(CARD_V10)) == A2A_OK);
  ABSENT(a2a_card_last_error(c));
  CHECK(a2a_card_get_info(c, &info) == A2A_OK);
  STR_EQ(info.name, "Echo");
  STR_EQ(info.description, "echoes");
  STR_EQ(info.version, "2.1");
  CHECK(info.streaming && !info.push_notifications && !info.extended_card);
  CHECK(info.shape == A2A_CARD_SHAPE_V1_0 && info.interface_count == 2);
  CHECK(a2a_card_get_interface(c, 0, &i) == A2A_OK);
  STR_EQ(i.url, "https://agent.example.com/a2a/v1");
  STR_EQ(i.binding, "JSONRPC");
  STR_EQ(i.protocol_version, "1.0");
  ABSENT(i.tenant);
  CHECK(i.origin_list == A2A_INTERFACE_LIST_SUPPORTED_INTERFACES && i.origin_index == 0);
  CHECK(i.known_binding == A2A_BINDING_JSON_RPC && i.wire_version == A2A_PROTOCOL_VERSION_V1_0);
  CHECK(a2a_card_get_interface(c, 1, &i) == A2A_OK);
  STR_EQ(i.binding, "GRPC");
  CHECK(i.known_binding == 0); /* not a binding this core speaks */
  CHECK(a2a_card_get_interface(c, 2, &i) == A2A_INVALID_ARGUMENT);

  CHECK(a2a_card_parse(c, (const uint8_t *)CARD_V03, strlen(CARD_V03)) == A2A_OK);
  CHECK(a2a_card_get_info(c, &info) == A2A_OK && info.shape == A2A_CARD_SHAPE_V0_3);
  CHECK(info.interface_count == 2);
  CHECK(a2a_card_get_interface(c, 0, &i) == A2A_OK && i.origin_list == A2A_INTERFACE_LIST_PREFERRED_URL);
  CHECK(i.wire_version == A2A_PROTOCOL_VERSION_V0_3);
  CHECK(a2a_card_get_interface(c, 1, &i) == A2A_OK &&
        i.origin_list == A2A_INTERFACE_LIST_ADDITIONAL_INTERFACES && i.origin_index == 0);
  CHECK(i.known_binding == A2A_BINDING_HTTP_JSON);

  /* Errors replace the card and explain themselves. */
  CHECK(a2a_card_parse(c, (const uint8_t *)"{\"name\":", 8) == A2A_CARD_JSON);
  CHECK(t_contains(a2a_card_last_error(c), "not valid JSON"));
  CHECK(a2a_card_get_info(c, &info) == A2A_NONE);
  CHECK(a2a_card_parse(c, (const uint8_t *)"[]", 2) == A2A_CARD_NOT_AN_OBJECT);
  CHECK(a2a_card_parse(c, (const uint8_t *)"{\"url\":5}", 9) == A2A_CARD_INVALID_FIELD);
  CHECK(a2a_card_parse(c, (const uint8_t *)"{\"supportedInterfaces\":[5]}", 27) == A2A_CARD_INVALID_INTERFACE);
  CHECK(a2a_card_parse(c, NULL, 0) == A2A_CARD_JSON); /* empty body */
  CHECK(a2a_card_parse(c, (const uint8_t *)"\xff\xfe", 2) == A2A_CARD_JSON);
  CHECK(a2a_card_parse(c, NULL, 4) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_parse(NULL, NULL, 0) == A2A_NULL_PARAMETER);
  a2a_card_free(c);
}

static void select_and_resolve(void) {
  a2a_card *c = NULL;
  a2a_card_choice ch;
  a2a_card_resolved r;
  a2a_card_preferences prefs;
  a2a_card_policy pol;
  a2a_str origins[1];
  uint32_t versions[1] = {A2A_PROTOCOL_VERSION_V0_3};
  uint32_t bad[1] = {42};
  bool same = false;
  const char *drift_card =
      "{\"name\":\"D\",\"supportedInterfaces\":[{\"url\":\"http://127.0.0.1:9/a2a\","
      "\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"1.0\"}]}";

  CHECK(a2a_card_new(&c) == A2A_OK);
  CHECK(a2a_card_select(c, NULL, &ch) == A2A_NONE);
  CHECK(a2a_card_resolve(c, CARD_URL, strlen(CARD_URL), NULL, NULL, &r) == A2A_NONE);
  ABSENT(a2a_card_choice_explain(c));
  CHECK(a2a_card_parse(c, (const uint8_t *)CARD_V10, strlen(CARD_V10)) == A2A_OK);
  CHECK(a2a_card_select(c, NULL, &ch) == A2A_OK);
  STR_EQ(ch.url, "https://agent.example.com/a2a/v1");
  CHECK(ch.version == A2A_PROTOCOL_VERSION_V1_0 && ch.binding == A2A_BINDING_JSON_RPC);
  STR_EQ(ch.declared_version, "1.0");
  CHECK(ch.index == 0 && ch.order == A2A_SELECTION_ORDER_CLIENT_FIRST && ch.skipped_count == 1);
  CHECK(t_contains(a2a_card_choice_explain(c), "skipped #1"));

  /* Asking for 0.3 only: nothing usable; the message lists what is offered. */
  memset(&prefs, 0, sizeof prefs);
  prefs.versions = versions;
  prefs.versions_len = 1;
  CHECK(a2a_card_select(c, &prefs, &ch) == A2A_CARD_NO_USABLE_INTERFACE);
  CHECK(t_contains(a2a_card_last_error(c), "no usable interface"));
  ABSENT(a2a_card_choice_explain(c));
  prefs.versions = bad;
  CHECK(a2a_card_select(c, &prefs, &ch) == A2A_INVALID_ARGUMENT);
  prefs.versions = NULL;
  CHECK(a2a_card_select(c, &prefs, &ch) == A2A_NULL_PARAMETER); /* (NULL, 1) */
  prefs.versions_len = 0;
  prefs.order = 9;
  CHECK(a2a_card_select(c, &prefs, &ch) == A2A_INVALID_ARGUMENT);
  prefs.order = A2A_SELECTION_ORDER_CARD_FIRST;
  CHECK(a2a_card_select(c, &prefs, &ch) == A2A_OK && ch.order == A2A_SELECTION_ORDER_CARD_FIRST);

  CHECK(a2a_card_resolve(c, CARD_URL, strlen(CARD_URL), NULL, NULL, &r) == A2A_OK);
  CHECK(r.same_origin && r.port == 443 && r.host_class == A2A_ADDRESS_CLASS_PUBLIC);
  STR_EQ(r.scheme, "https");
  STR_EQ(r.host, "agent.example.com");
  STR_EQ(r.path, "/a2a/v1");
  STR_EQ(r.choice.url, "https://agent.example.com/a2a/v1");
  /* From another host: mismatch, unless the allow-list admits that origin. */
  CHECK(a2a_card_resolve(c, "https://cards.example.net/x.json", 32, NULL, NULL, &r) ==
        A2A_CARD_HOST_MISMATCH);
  origins[0].ptr = "https://agent.example.com";
  origins[0].len = strlen(origins[0].ptr);
  memset(&pol, 0, sizeof pol);
  pol.allowed_origins = origins;
  pol.allowed_origins_len = 1;
  CHECK(a2a_card_resolve(c, "https://cards.example.net/x.json", 32, NULL, &pol, &r) == A2A_OK);
  CHECK(!r.same_origin);
  origins[0].ptr = "\xff";
  origins[0].len = 1;
  CHECK(a2a_card_resolve(c, "https://cards.example.net/x.json", 32, NULL, &pol, &r) == A2A_INVALID_UTF8);
  pol.allowed_origins = NULL;
  CHECK(a2a_card_resolve(c, "https://cards.example.net/x.json", 32, NULL, &pol, &r) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_card_resolve(c, "not a url", 9, NULL, NULL, &r) == A2A_CARD_INVALID_URL);
  CHECK(a2a_card_resolve(c, "\xff", 1, NULL, NULL, &r) == A2A_INVALID_UTF8);
  CHECK(a2a_card_resolve(c, CARD_URL, strlen(CARD_URL), NULL, NULL, NULL) == A2A_NULL_PARAMETER);

  /* A public card pointing at a loopback address: drift (credentials would leave). */
  CHECK(a2a_card_parse(c, (const uint8_t *)drift_card, strlen(drift_card)) == A2A_OK);
  memset(&pol, 0, sizeof pol);
  pol.allow_http = true;
  CHECK(a2a_card_resolve(c, CARD_URL, strlen(CARD_URL), NULL, &pol, &r) == A2A_CARD_URL_DRIFT);
  CHECK(t_contains(a2a_card_last_error(c), "drift"));
  CHECK(a2a_card_resolve(c, CARD_URL, strlen(CARD_URL), NULL, NULL, &r) == A2A_CARD_PLAIN_HTTP);
  /* Same origin on loopback with http allowed: fine (local development). */
  CHECK(a2a_card_resolve(c, "http://127.0.0.1:9/.well-known/agent-card.json", 46, NULL, &pol, &r) ==
        A2A_OK);
  CHECK(r.host_class == A2A_ADDRESS_CLASS_LOOPBACK && r.port == 9);

  /* Standalone validation. */
  CHECK(a2a_card_validate_interface_url(c, "https://agent.example.com/a", 27, CARD_URL,
                                        strlen(CARD_URL), NULL, &same) == A2A_OK && same);
  CHECK(a2a_card_validate_interface_url(c, "https://u@agent.example.com/a", 29, CARD_URL,
                                        strlen(CARD_URL), NULL, &same) == A2A_CARD_USERINFO_IN_URL);
  CHECK(a2a_card_validate_interface_url(c, "ftp://agent.example.com/a", 25, CARD_URL,
                                        strlen(CARD_URL), NULL, &same) == A2A_CARD_UNSUPPORTED_SCHEME);
  CHECK(a2a_card_validate_interface_url(c, "https://a", 9, CARD_URL, strlen(CARD_URL), NULL, NULL) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_card_validate_interface_url(NULL, "https://a", 9, CARD_URL, strlen(CARD_URL), NULL,
                                        &same) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_select(NULL, NULL, &ch) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_select(c, NULL, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_resolve(NULL, CARD_URL, 1, NULL, NULL, &r) == A2A_NULL_PARAMETER);
  a2a_card_free(c);
}

static void location(void) {
  a2a_card *c = NULL;
  a2a_str primary = {NULL, 0}, fallback = {NULL, 0};
  CHECK(a2a_card_new(&c) == A2A_OK);
  CHECK(a2a_card_location(c, "https://h.example/a2a", 21, &primary, &fallback) == A2A_OK);
  STR_EQ(primary, "https://h.example/a2a/.well-known/agent-card.json");
  STR_EQ(fallback, "https://h.example/a2a/.well-known/agent.json");
  CHECK(a2a_card_location(c, "https://h.example/card.json", 27, &primary, &fallback) == A2A_OK);
  STR_EQ(primary, "https://h.example/card.json");
  ABSENT(fallback);
  CHECK(a2a_card_location(c, "https://me@h.example/", 21, &primary, &fallback) ==
        A2A_CARD_USERINFO_IN_URL);
  CHECK(a2a_card_location(c, "gopher://h.example/", 19, &primary, &fallback) ==
        A2A_CARD_UNSUPPORTED_SCHEME);
  CHECK(a2a_card_location(c, "", 0, &primary, &fallback) == A2A_CARD_INVALID_URL);
  CHECK(a2a_card_location(c, "\xff", 1, &primary, &fallback) == A2A_INVALID_UTF8);
  CHECK(a2a_card_location(c, "https://h", 9, NULL, &fallback) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_location(NULL, "https://h", 9, &primary, &fallback) == A2A_NULL_PARAMETER);
  a2a_card_free(c);
  a2a_card_free(NULL);
  ABSENT(a2a_card_last_error(NULL));
  ABSENT(a2a_card_choice_explain(NULL));
  {
    a2a_card_info info;
    a2a_card_interface i;
    CHECK(a2a_card_get_info(NULL, &info) == A2A_NULL_PARAMETER);
    CHECK(a2a_card_get_interface(NULL, 0, &i) == A2A_NULL_PARAMETER);
  }
}

/* A 0.3 card with OpenAPI-style schemes and requirements (docs/wire.md §3: security is an
 * OR of ANDs); hand-written. Scheme names of one requirement come back in name order. */
static const char CARD_SECURED[] =
    "{\"url\":\"https://agent.example.com/a2a\",\"securitySchemes\":{"
    "\"key\":{\"type\":\"apiKey\",\"in\":\"header\",\"name\":\"X-API-Key\"},"
    "\"oauth\":{\"type\":\"oauth2\",\"flows\":{\"clientCredentials\":{\"tokenUrl\":\"https://a/t\","
    "\"scopes\":{}}}},"
    "\"jwt\":{\"type\":\"http\",\"scheme\":\"bearer\",\"bearerFormat\":\"JWT\"},"
    "\"basic\":{\"type\":\"http\",\"scheme\":\"Basic\"},"
    "\"cookie\":{\"type\":\"apiKey\",\"in\":\"cookie\",\"name\":\"sid\"},"
    "\"dig\":{\"type\":\"http\",\"scheme\":\"Digest\"},"
    "\"mtls\":{\"type\":\"mutualTLS\"}},"
    "\"security\":[{\"key\":[]},{\"oauth\":[\"read\",\"write\"]},{\"basic\":[],\"mtls\":[]},"
    "{\"cookie\":[],\"dig\":[],\"jwt\":[],\"nope\":[]},{}]}";

static const char CARD_UNSTATED[] =
    "{\"url\":\"https://h/\",\"securitySchemes\":{\"b\":{\"type\":\"http\",\"scheme\":\"Bearer\"}}}";

static void credentials(void) {
  a2a_card *c = NULL;
  a2a_card_credential_plan plan = {7, true};
  a2a_card_credential need;
  a2a_str scope = {NULL, 0};
  size_t n = 99;

  CHECK(a2a_card_new(&c) == A2A_OK);
  CHECK(a2a_card_credentials(c, &plan) == A2A_NONE && plan.alternative_count == 7);
  CHECK(a2a_card_credential_alternative(c, 0, &n) == A2A_NONE && n == 99);
  CHECK(a2a_card_credential_need(c, 0, 0, &need) == A2A_NONE);
  CHECK(a2a_card_credential_scope(c, 0, 0, 0, &scope) == A2A_NONE);
  CHECK(a2a_card_parse(c, (const uint8_t *)CARD_SECURED, strlen(CARD_SECURED)) == A2A_OK);
  CHECK(a2a_card_credentials(c, &plan) == A2A_OK);
  CHECK(plan.alternative_count == 5 && plan.stated);

  CHECK(a2a_card_credential_alternative(c, 0, &n) == A2A_OK && n == 1);
  CHECK(a2a_card_credential_need(c, 0, 0, &need) == A2A_OK);
  STR_EQ(need.scheme, "key");
  CHECK(need.kind == A2A_CARD_CREDENTIAL_KIND_API_KEY);
  CHECK(need.api_key_location == A2A_CARD_API_KEY_LOCATION_HEADER);
  STR_EQ(need.api_key_name, "X-API-Key");
  STR_EQ(need.header_name, "X-API-Key");
  CHECK(need.bearer_source == 0 && need.scope_count == 0);
  ABSENT(need.bearer_format);
  ABSENT(need.http_scheme);

  CHECK(a2a_card_credential_alternative(c, 1, &n) == A2A_OK && n == 1);
  CHECK(a2a_card_credential_need(c, 1, 0, &need) == A2A_OK);
  CHECK(need.kind == A2A_CARD_CREDENTIAL_KIND_BEARER_TOKEN);
  CHECK(need.bearer_source == A2A_CARD_BEARER_SOURCE_OAUTH2);
  STR_EQ(need.header_name, "Authorization");
  CHECK(need.scope_count == 2);
  CHECK(a2a_card_credential_scope(c, 1, 0, 0, &scope) == A2A_OK);
  STR_EQ(scope, "read");
  CHECK(a2a_card_credential_scope(c, 1, 0, 1, &scope) == A2A_OK);
  STR_EQ(scope, "write");
  CHECK(a2a_card_credential_scope(c, 1, 0, 2, &scope) == A2A_INVALID_ARGUMENT);
  STR_EQ(scope, "write"); /* untouched */
  CHECK(a2a_card_credential_scope(c, 1, 0, 0, NULL) == A2A_NULL_PARAMETER);

  CHECK(a2a_card_credential_alternative(c, 2, &n) == A2A_OK && n == 2);
  CHECK(a2a_card_credential_need(c, 2, 0, &need) == A2A_OK);
  CHECK(need.kind == A2A_CARD_CREDENTIAL_KIND_BASIC);
  STR_EQ(need.header_name, "Authorization");
  CHECK(a2a_card_credential_need(c, 2, 1, &need) == A2A_OK);
  CHECK(need.kind == A2A_CARD_CREDENTIAL_KIND_CLIENT_CERTIFICATE);
  ABSENT(need.header_name);

  CHECK(a2a_card_credential_alternative(c, 3, &n) == A2A_OK && n == 4);
  CHECK(a2a_card_credential_need(c, 3, 0, &need) == A2A_OK);
  CHECK(need.kind == A2A_CARD_CREDENTIAL_KIND_API_KEY);
  CHECK(need.api_key_location == A2A_CARD_API_KEY_LOCATION_COOKIE);
  ABSENT(need.header_name);
  CHECK(a2a_card_credential_need(c, 3, 1, &need) == A2A_OK);
  CHECK(need.kind == A2A_CARD_CREDENTIAL_KIND_OTHER_HTTP);
  STR_EQ(need.http_scheme, "Digest");
  CHECK(a2a_card_credential_need(c, 3, 2, &need) == A2A_OK);
  CHECK(need.kind == A2A_CARD_CREDENTIAL_KIND_BEARER_TOKEN);
  CHECK(need.bearer_source == A2A_CARD_BEARER_SOURCE_HTTP);
  STR_EQ(need.bearer_format, "JWT");
  CHECK(a2a_card_credential_need(c, 3, 3, &need) == A2A_OK);
  CHECK(need.kind == A2A_CARD_CREDENTIAL_KIND_UNKNOWN);
  STR_EQ(need.scheme, "nope");
  CHECK(a2a_card_credential_need(c, 3, 4, &need) == A2A_INVALID_ARGUMENT);
  STR_EQ(need.scheme, "nope"); /* untouched */

  /* An empty requirement: anonymous access is one option. */
  CHECK(a2a_card_credential_alternative(c, 4, &n) == A2A_OK && n == 0);
  CHECK(a2a_card_credential_alternative(c, 5, &n) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_card_credential_need(c, 5, 0, &need) == A2A_INVALID_ARGUMENT);

  /* Schemes without requirements: each scheme is one alternative, stated false. */
  CHECK(a2a_card_parse(c, (const uint8_t *)CARD_V10, strlen(CARD_V10)) == A2A_OK);
  CHECK(a2a_card_credentials(c, &plan) == A2A_OK && plan.alternative_count == 0);
  CHECK(a2a_card_parse(c, (const uint8_t *)CARD_UNSTATED, strlen(CARD_UNSTATED)) == A2A_OK);
  CHECK(a2a_card_credentials(c, &plan) == A2A_OK && plan.alternative_count == 1 && !plan.stated);

  CHECK(a2a_card_credentials(NULL, &plan) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_credentials(c, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_credential_alternative(NULL, 0, &n) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_credential_alternative(c, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_credential_need(NULL, 0, 0, &need) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_credential_need(c, 0, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_credential_scope(NULL, 0, 0, 0, &scope) == A2A_NULL_PARAMETER);
  a2a_card_free(c);
}

void test_card(void) {
  credentials();
  parse_and_read();
  select_and_resolve();
  location();
}
