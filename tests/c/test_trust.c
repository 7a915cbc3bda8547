/* Trust (feature `trust`): canonical form; a card signed, verified, tampered and refused;
   the jku to fetch; push notifications accepted, replayed and expired; webhook refusals; and
   the OAuth 2.0 client-credentials flow against a canned token response. The keys and the
   push token are those of bindings/fixtures/trust (test keys protecting nothing). */
#include <stdlib.h>

#include "harness.h"

#if defined(A2A_FEATURE_TRUST)

static const char SIGNING_KEY[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgli8GGJ+FCdWSIWUo\n"
    "wpZ1+SYmJrXYeQf+OxRsQhXwAXOhRANCAARuE5YdJLoa/49o4Dgs4Z9lGf33GH5b\n"
    "QhJzz3Ox1pYoinnyLfOMF6xHR5HGAiVap5H+PztYBaKuBS63vUvcpiqX\n"
    "-----END PRIVATE KEY-----\n";

static const char PUBLIC_KEY[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEbhOWHSS6Gv+PaOA4LOGfZRn99xh+\n"
    "W0ISc89zsdaWKIp58i3zjBesR0eRxgIlWqeR/j87WAWirgUut71L3KYqlw==\n"
    "-----END PUBLIC KEY-----\n";

/* The same key as a JWK Set, kid push-1 (bindings/fixtures/trust/push.jwks.json). */
static const char PUSH_JWKS[] =
    "{\"keys\":[{\"alg\":\"ES256\",\"crv\":\"P-256\",\"kid\":\"push-1\",\"kty\":\"EC\","
    "\"use\":\"sig\",\"x\":\"bhOWHSS6Gv-PaOA4LOGfZRn99xh-W0ISc89zsdaWKIo\","
    "\"y\":\"efIt84wXrEdHkcYCJVqnkf4_O1gFoq4FLre9S9ymKpc\"}]}";

/* A JWT signed with it: aud the hook, iss the agent, iat NOW-5, exp NOW+300, jti n-1,
   taskId task-1 (the fixtures' first push token). */
static const char PUSH_BEARER[] =
    "Bearer eyJhbGciOiJFUzI1NiIsImtpZCI6InB1c2gtMSIsInR5cCI6IkpXVCJ9."
    "eyJhdWQiOiJodHRwczovL2NsaWVudC5leGFtcGxlL2hvb2tzL2EyYSIsImV4cCI6MTgwMDAwMDMwMCwiaWF0Ij"
    "oxNzk5OTk5OTk1LCJpc3MiOiJodHRwczovL2FnZW50LmV4YW1wbGUiLCJqdGkiOiJuLTEiLCJ0YXNrSWQiOiJ0"
    "YXNrLTEifQ.1vrPFcaM-VQfEMDf892uW3UBvTMl4g82P-58jj3RHDqcW02az2kQKc8rxQWycTsVc2Clg1UgOaJ"
    "szPb4GGeXWQ";

static const int64_t NOW = 1800000000;

static const char CARD[] =
    "{\"name\":\"Echo\",\"description\":\"Says it back\",\"version\":\"1.0.0\","
    "\"supportedInterfaces\":[{\"url\":\"https://agent.example/a2a\","
    "\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"1.0\"}],"
    "\"capabilities\":{\"streaming\":true},\"skills\":[]}";

static a2a_buffer *buffer(void) {
  a2a_buffer *b = NULL;
  CHECK(a2a_buffer_new(&b) == A2A_OK);
  return b;
}

/* The buffer's bytes as a view (valid until the next call writing it). */
static a2a_str text(const a2a_buffer *b) {
  a2a_bytes v = a2a_buffer_bytes(b);
  a2a_str s;
  s.ptr = (const char *)v.ptr;
  s.len = v.len;
  return s;
}

/* A NUL-terminated copy of the buffer (the caller frees it). */
static char *copy(const a2a_buffer *b) {
  a2a_bytes v = a2a_buffer_bytes(b);
  char *s = malloc(v.len + 1);
  if (s == NULL) abort();
  memcpy(s, v.ptr, v.len);
  s[v.len] = '\0';
  return s;
}

static void canonical(void) {
  const char *doc = "{\"b\":1.0,\"a\":[true,null]}";
  const char *card = "{\"name\":\"A\",\"capabilities\":{\"extensions\":[]},"
                     "\"signatures\":[]}";
  a2a_buffer *b = buffer();
  CHECK(a2a_trust_canonical((const uint8_t *)doc, strlen(doc), false, b) == A2A_OK);
  STR_EQ(text(b), "{\"a\":[true,null],\"b\":1}");
  CHECK(a2a_trust_canonical((const uint8_t *)card, strlen(card), true, b) == A2A_OK);
  STR_EQ(text(b), "{\"capabilities\":{},\"name\":\"A\"}");
  CHECK(a2a_trust_canonical((const uint8_t *)"{", 1, false, b) == A2A_TRUST_JSON);
  CHECK(t_contains(text(b), "\"reason\":"));
  CHECK(a2a_trust_canonical(NULL, 1, false, b) == A2A_NULL_PARAMETER);
  CHECK(a2a_trust_canonical((const uint8_t *)doc, strlen(doc), false, NULL) == A2A_NULL_PARAMETER);
  a2a_buffer_free(b);
}

static void sign_verify_tamper_refuse(void) {
  const char *kid = "k1";
  const char *jku = "https://agent.example/jwks.json";
  const char *card_url = "https://agent.example/.well-known/agent-card.json";
  a2a_buffer *signed_card = buffer();
  a2a_buffer *report = buffer();
  char *card, *at;
  CHECK(a2a_card_sign((const uint8_t *)CARD, strlen(CARD), (const uint8_t *)SIGNING_KEY,
                      strlen(SIGNING_KEY), kid, strlen(kid), jku, strlen(jku),
                      signed_card) == A2A_OK);
  CHECK(t_contains(text(signed_card), "\"signatures\":[{\"protected\":"));
  card = copy(signed_card);

  /* Verifies with the public key (PEM) and with a JWKS of it under its kid. */
  CHECK(a2a_card_signature_verify((const uint8_t *)card, strlen(card),
                                  (const uint8_t *)PUBLIC_KEY, strlen(PUBLIC_KEY),
                                  report) == A2A_OK);
  CHECK(t_contains(text(report), "\"verified\":true"));
  CHECK(t_contains(text(report), "\"alg\":\"ES256\""));
  CHECK(t_contains(text(report), "\"jku\":\"https://agent.example/jwks.json\""));

  /* The jku is on the card's host: that is where the keys come from. */
  CHECK(a2a_card_signature_key_url((const uint8_t *)card, strlen(card), card_url,
                                   strlen(card_url), NULL, 0, report) == A2A_OK);
  STR_EQ(text(report), "https://agent.example/jwks.json");
  CHECK(a2a_card_signature_key_url((const uint8_t *)card, strlen(card),
                                   "https://mirror.example/c", 24, NULL, 0,
                                   report) == A2A_CARD_SIGNATURE);
  CHECK(t_contains(text(report), "\"reason\":\"jku_refused\""));
  CHECK(a2a_card_signature_key_url((const uint8_t *)CARD, strlen(CARD), card_url,
                                   strlen(card_url), "", 0, report) == A2A_NONE);

  /* Tampered: refused, with each signature's reason. */
  at = strstr(card, "Says it back");
  CHECK(at != NULL);
  if (at != NULL) at[0] = 'P';
  CHECK(a2a_card_signature_verify((const uint8_t *)card, strlen(card),
                                  (const uint8_t *)PUBLIC_KEY, strlen(PUBLIC_KEY),
                                  report) == A2A_CARD_SIGNATURE);
  CHECK(t_contains(text(report), "\"verified\":false"));
  CHECK(t_contains(text(report), "\"reason\":\"no_valid_signature\""));
  CHECK(t_contains(text(report), "\"rejected\":\"bad_signature\""));

  /* Unsigned, keys that are not keys, a card that is not JSON. */
  CHECK(a2a_card_signature_verify((const uint8_t *)CARD, strlen(CARD),
                                  (const uint8_t *)PUBLIC_KEY, strlen(PUBLIC_KEY),
                                  report) == A2A_CARD_SIGNATURE);
  CHECK(t_contains(text(report), "\"reason\":\"unsigned\""));
  CHECK(a2a_card_signature_verify((const uint8_t *)CARD, strlen(CARD), (const uint8_t *)"x", 1,
                                  report) == A2A_TRUST_KEY);
  CHECK(a2a_card_signature_verify((const uint8_t *)"{", 1, (const uint8_t *)PUBLIC_KEY,
                                  strlen(PUBLIC_KEY), report) == A2A_TRUST_JSON);
  /* Signing refusals: a public key cannot sign; an empty kid. */
  CHECK(a2a_card_sign((const uint8_t *)CARD, strlen(CARD), (const uint8_t *)PUBLIC_KEY,
                      strlen(PUBLIC_KEY), kid, 2, NULL, 0, signed_card) == A2A_TRUST_KEY);
  CHECK(a2a_card_sign((const uint8_t *)CARD, strlen(CARD), (const uint8_t *)SIGNING_KEY,
                      strlen(SIGNING_KEY), "", 0, NULL, 0, signed_card) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_card_sign((const uint8_t *)CARD, strlen(CARD), (const uint8_t *)SIGNING_KEY,
                      strlen(SIGNING_KEY), kid, 2, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  free(card);
  a2a_buffer_free(signed_card);
  a2a_buffer_free(report);
}

static a2a_result check(a2a_push_verifier *v, const char *name, const char *value,
                        int64_t now, a2a_buffer *verdict) {
  const char *body = "{\"statusUpdate\":{\"contextId\":\"ctx-1\",\"status\":"
                     "{\"state\":\"TASK_STATE_WORKING\"},\"taskId\":\"task-1\"}}";
  a2a_header h;
  h.name = name;
  h.name_len = strlen(name);
  h.value = value;
  h.value_len = strlen(value);
  return a2a_push_verifier_check(v, &h, 1, (const uint8_t *)body, strlen(body), now, verdict);
}

static void push(void) {
  const char *policy = "{\"audience\":\"https://client.example/hooks/a2a\","
                       "\"issuer\":\"https://agent.example\",\"taskId\":\"task-1\"}";
  const char *token_policy = "{\"token\":\"s3cret\"}";
  a2a_push_verifier *v = NULL;
  a2a_buffer *verdict = buffer();
  CHECK(a2a_push_verifier_new((const uint8_t *)policy, strlen(policy),
                              (const uint8_t *)PUSH_JWKS, strlen(PUSH_JWKS), 16, &v) == A2A_OK);
  /* Accepted once, then a replay. */
  CHECK(check(v, "Authorization", PUSH_BEARER, NOW, verdict) == A2A_OK);
  CHECK(t_contains(text(verdict), "\"accepted\":true"));
  CHECK(t_contains(text(verdict), "\"replayId\":\"jti:n-1\""));
  CHECK(check(v, "Authorization", PUSH_BEARER, NOW + 1, verdict) == A2A_PUSH_REJECTED);
  CHECK(t_contains(text(verdict), "\"reason\":\"replayed\""));
  CHECK(t_contains(text(verdict), "\"accepted\":false"));
  a2a_push_verifier_free(v);
  /* A fresh verifier, the clock past the token's exp: expired. */
  v = NULL;
  CHECK(a2a_push_verifier_new((const uint8_t *)policy, strlen(policy),
                              (const uint8_t *)PUSH_JWKS, strlen(PUSH_JWKS), 0, &v) == A2A_OK);
  CHECK(check(v, "Authorization", PUSH_BEARER, NOW + 400, verdict) == A2A_PUSH_REJECTED);
  CHECK(t_contains(text(verdict), "\"reason\":\"expired\""));
  CHECK(check(v, "X-Other", "x", NOW, verdict) == A2A_PUSH_REJECTED);
  CHECK(t_contains(text(verdict), "\"reason\":\"jwt_missing\""));
  CHECK(a2a_push_verifier_check(NULL, NULL, 0, NULL, 0, NOW, verdict) == A2A_NULL_PARAMETER);
  CHECK(a2a_push_verifier_check(v, NULL, 1, NULL, 0, NOW, verdict) == A2A_NULL_PARAMETER);
  a2a_push_verifier_free(v);
  /* Token only. */
  v = NULL;
  CHECK(a2a_push_verifier_new((const uint8_t *)token_policy, strlen(token_policy), NULL, 0, 0,
                              &v) == A2A_OK);
  CHECK(check(v, "X-A2A-Notification-Token", "s3cret", NOW, verdict) == A2A_OK);
  CHECK(check(v, "X-A2A-Notification-Token", "guess", NOW, verdict) == A2A_PUSH_REJECTED);
  CHECK(t_contains(text(verdict), "\"reason\":\"token_mismatch\""));
  a2a_push_verifier_free(v);
  /* Construction refusals. */
  v = NULL;
  CHECK(a2a_push_verifier_new((const uint8_t *)"{\"tokn\":1}", 10, NULL, 0, 0, &v) ==
        A2A_TRUST_JSON);
  CHECK(a2a_push_verifier_new(NULL, 0, (const uint8_t *)"{}", 2, 0, &v) == A2A_TRUST_KEY);
  CHECK(v == NULL);
  CHECK(a2a_push_verifier_new(NULL, 0, NULL, 0, 0, NULL) == A2A_NULL_PARAMETER);
  a2a_push_verifier_free(NULL);
  a2a_buffer_free(verdict);
}

static a2a_result webhook(const char *url, bool allow_http, const char *resolved,
                          a2a_buffer *reason) {
  return a2a_webhook_url_check(url, strlen(url), allow_http, resolved,
                               resolved ? strlen(resolved) : 0, reason);
}

static void webhooks(void) {
  a2a_buffer *reason = buffer();
  CHECK(webhook("https://client.example/hook", false, NULL, reason) == A2A_OK);
  CHECK(a2a_buffer_bytes(reason).len == 0);
  CHECK(webhook("http://client.example/hook", false, NULL, reason) == A2A_WEBHOOK_REFUSED);
  CHECK(t_contains(text(reason), "\"reason\":\"scheme\""));
  CHECK(webhook("http://client.example/hook", true, NULL, reason) == A2A_OK);
  CHECK(webhook("https://u@client.example/hook", false, NULL, reason) == A2A_WEBHOOK_REFUSED);
  CHECK(t_contains(text(reason), "\"reason\":\"userinfo\""));
  CHECK(webhook("https://169.254.169.254/latest", false, NULL, reason) == A2A_WEBHOOK_REFUSED);
  CHECK(t_contains(text(reason), "\"reason\":\"internal\""));
  CHECK(webhook("https://client.example/hook", false, "93.184.216.34, 192.168.1.9", reason) ==
        A2A_WEBHOOK_REFUSED);
  CHECK(t_contains(text(reason), "192.168.1.9"));
  CHECK(webhook("https://client.example/hook", false, "not-an-ip", reason) ==
        A2A_INVALID_ARGUMENT);
  CHECK(a2a_webhook_url_check(NULL, 1, false, NULL, 0, reason) == A2A_NULL_PARAMETER);
  a2a_buffer_free(reason);
}

static a2a_str view(const char *s) {
  a2a_str v;
  v.ptr = s;
  v.len = strlen(s);
  return v;
}

static void oauth2(void) {
  const char *card_json =
      "{\"name\":\"A\",\"url\":\"https://agent.example/a2a\",\"securitySchemes\":{\"o\":"
      "{\"type\":\"oauth2\",\"flows\":{\"clientCredentials\":"
      "{\"tokenUrl\":\"https://auth.example/token\",\"scopes\":{}}}}}}";
  const char *ok = "{\"access_token\":\"tok-1\",\"token_type\":\"Bearer\",\"expires_in\":3600}";
  const char *refused = "{\"error\":\"invalid_client\"}";
  const uint64_t t0 = 1800000000000u;
  a2a_card *card = NULL;
  a2a_oauth2 *o = NULL;
  a2a_oauth2_config cfg;
  a2a_buffer *token = buffer(), *url = buffer(), *form = buffer(), *auth = buffer(),
             *err = buffer();
  CHECK(a2a_card_new(&card) == A2A_OK);
  CHECK(a2a_card_parse(card, (const uint8_t *)card_json, strlen(card_json)) == A2A_OK);
  memset(&cfg, 0, sizeof cfg);
  cfg.card = card; /* token_url empty: the card's clientCredentials flow */
  cfg.client_id = view("agent");
  cfg.client_secret = view("s3cr3t");
  cfg.scope = view("a2a");
  cfg.basic_auth = true;
  CHECK(a2a_oauth2_new(&cfg, &o) == A2A_OK);
  a2a_card_free(card);

  /* First call: fetch. A second caller meanwhile waits. */
  CHECK(a2a_oauth2_token(o, t0, token) == A2A_NEED_MORE);
  CHECK(a2a_oauth2_token(o, t0, token) == A2A_IN_USE);
  CHECK(a2a_oauth2_request(o, url, form, auth) == A2A_OK);
  STR_EQ(text(url), "https://auth.example/token");
  STR_EQ(text(form), "grant_type=client_credentials&scope=a2a");
  STR_EQ(text(auth), "Basic YWdlbnQ6czNjcjN0");
  /* The endpoint refuses: typed error, then fetch again and succeed. */
  CHECK(a2a_oauth2_handle_response(o, 401, (const uint8_t *)refused, strlen(refused), t0, err) ==
        A2A_OAUTH2_REFUSED);
  CHECK(t_contains(text(err), "\"error\":\"invalid_client\""));
  CHECK(!t_contains(text(err), "s3cr3t"));
  CHECK(a2a_oauth2_token(o, t0, token) == A2A_NEED_MORE);
  CHECK(a2a_oauth2_handle_response(o, 200, (const uint8_t *)ok, strlen(ok), t0, err) == A2A_OK);
  CHECK(a2a_oauth2_token(o, t0 + 1000, token) == A2A_OK);
  STR_EQ(text(token), "tok-1");
  /* Past expiry minus the 30 s margin: refresh. */
  CHECK(a2a_oauth2_token(o, t0 + 3590000, token) == A2A_NEED_MORE);
  CHECK(a2a_oauth2_handle_response(o, 0, NULL, 0, t0 + 3590000, err) == A2A_OAUTH2_REFUSED);
  CHECK(t_contains(text(err), "\"reason\":\"transport\""));
  /* The agent said 401: forget the token. */
  a2a_oauth2_invalidate(o);
  CHECK(a2a_oauth2_token(o, t0 + 1000, token) == A2A_NEED_MORE);
  CHECK(a2a_oauth2_handle_response(o, 200, (const uint8_t *)ok, strlen(ok), t0 + 1000, err) ==
        A2A_OK);
  /* No fetch outstanding: an answer is refused. */
  CHECK(a2a_oauth2_handle_response(o, 200, (const uint8_t *)ok, strlen(ok), t0, err) ==
        A2A_INVALID_ARGUMENT);
  a2a_oauth2_free(o);

  /* Plain http only to loopback, only when allowed. */
  memset(&cfg, 0, sizeof cfg);
  cfg.token_url = view("http://127.0.0.1:9/token");
  cfg.client_id = view("agent");
  o = NULL;
  CHECK(a2a_oauth2_new(&cfg, &o) == A2A_INVALID_ARGUMENT);
  cfg.allow_http_loopback = true;
  CHECK(a2a_oauth2_new(&cfg, &o) == A2A_OK);
  a2a_oauth2_free(o);
  o = NULL;
  cfg.token_url = view("http://auth.example/token");
  CHECK(a2a_oauth2_new(&cfg, &o) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_oauth2_new(NULL, &o) == A2A_NULL_PARAMETER);
  CHECK(o == NULL);
  a2a_oauth2_invalidate(NULL);
  a2a_oauth2_free(NULL);
  a2a_buffer_free(token);
  a2a_buffer_free(url);
  a2a_buffer_free(form);
  a2a_buffer_free(auth);
  a2a_buffer_free(err);
}

void test_trust(void) {
  canonical();
  sign_verify_tamper_refuse();
  push();
  webhooks();
  oauth2();
}

#else
void test_trust(void) {}
#endif
