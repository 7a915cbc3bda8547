/* The card builder (a server's agent card for 1.0 and 0.3 clients) and the hook texts
 * (stable hint, admission cancel), through the C ABI. */
#include "harness.h"

static a2a_str view(const char *s) {
  a2a_str v;
  v.ptr = s;
  v.len = strlen(s);
  return v;
}

static a2a_str buf_text(const a2a_buffer *b) {
  a2a_str s;
  s.ptr = (const char *)a2a_buffer_bytes(b).ptr;
  s.len = a2a_buffer_bytes(b).len;
  return s;
}

static void card(void) {
  a2a_card_builder *b = NULL;
  a2a_buffer *out = NULL;
  a2a_card *parsed = NULL;
  a2a_card_info info;
  a2a_card_skill skill;
  a2a_str tags[2], modes[2];
  const char *url = "http://127.0.0.1:8080/";
  const char *rest = "http://127.0.0.1:8080/rest";

  CHECK(a2a_buffer_new(&out) == A2A_OK);
  CHECK(a2a_card_builder_new("echo", 4, "Echoes text", 11, "1.0.0", 5, &b) == A2A_OK && b != NULL);
  /* No interface yet: refused, with the reason, nothing appended. */
  CHECK(a2a_card_builder_build(b, out) == A2A_INVALID_ARGUMENT);
  CHECK(t_contains(a2a_buffer_last_error(out), "no interface"));
  CHECK(a2a_buffer_bytes(out).len == 0);
  CHECK(a2a_card_builder_add_interface(b, url, strlen(url), A2A_PROTOCOL_VERSION_V1_0, A2A_BINDING_JSON_RPC) == A2A_OK);
  CHECK(a2a_card_builder_add_interface(b, rest, strlen(rest), A2A_PROTOCOL_VERSION_V1_0, A2A_BINDING_HTTP_JSON) == A2A_OK);
  CHECK(a2a_card_builder_add_interface(b, url, strlen(url), A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC) == A2A_OK);
  CHECK(a2a_card_builder_add_interface(b, url, strlen(url), 99, A2A_BINDING_JSON_RPC) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_card_builder_set_capabilities(b, true, false) == A2A_OK);
  modes[0] = view("text/plain");
  modes[1] = view("application/json");
  CHECK(a2a_card_builder_set_modes(b, modes, 2, modes, 1) == A2A_OK);
  tags[0] = view("echo");
  tags[1] = view("demo");
  memset(&skill, 0, sizeof skill);
  skill.id = view("echo");
  skill.name = view("Echo");
  skill.description = view("Says it back");
  skill.tags = tags;
  skill.tags_len = 2;
  CHECK(a2a_card_builder_add_skill(b, &skill) == A2A_OK);
  skill.id = view(" ");
  CHECK(a2a_card_builder_add_skill(b, &skill) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_card_builder_build(b, out) == A2A_OK);
  CHECK(t_contains(buf_text(out), "\"supportedInterfaces\":[{"));
  CHECK(t_contains(buf_text(out), "\"preferredTransport\":\"JSONRPC\""));
  CHECK(t_contains(buf_text(out), "\"protocolVersion\":\"0.3.0\""));
  CHECK(t_contains(buf_text(out), "\"streaming\":true"));
  CHECK(t_contains(buf_text(out), "\"tags\":[\"echo\",\"demo\"]"));
  /* The library's own card reader takes it. */
  CHECK(a2a_card_new(&parsed) == A2A_OK);
  CHECK(a2a_card_parse(parsed, a2a_buffer_bytes(out).ptr, a2a_buffer_bytes(out).len) == A2A_OK);
  CHECK(a2a_card_get_info(parsed, &info) == A2A_OK && info.interface_count == 3);
  a2a_card_free(parsed);
  CHECK(a2a_card_builder_set_capabilities(NULL, true, true) == A2A_NULL_PARAMETER);
  CHECK(a2a_card_builder_build(NULL, out) == A2A_NULL_PARAMETER);
  a2a_card_builder_free(b);
  a2a_card_builder_free(NULL);
  a2a_buffer_free(out);
}

static void hooks(void) {
  a2a_buffer *out = NULL;
  a2a_header pair;
  bool retryable = true;
  CHECK(a2a_buffer_new(&out) == A2A_OK);
  pair.name = "reason";
  pair.name_len = 6;
  pair.value = "quota";
  pair.value_len = 5;
  CHECK(a2a_server_hint_text(&retryable, &pair, 1, out) == A2A_OK);
  CHECK(t_str_eq(buf_text(out), "[retryable=true; reason=quota]"));
  a2a_buffer_free(out); /* start over: a new buffer */
  out = NULL;
  CHECK(a2a_buffer_new(&out) == A2A_OK);
  CHECK(a2a_server_admission_status("t-1", 3, "c-1", 3, "m-1", 3, "busy", 4, out) == A2A_OK);
  CHECK(t_contains(buf_text(out), "\"state\":\"TASK_STATE_CANCELED\""));
  CHECK(t_contains(buf_text(out), "busy"));
  CHECK(t_contains(buf_text(out), "\"admission\""));
  CHECK(a2a_server_admission_status("t-1", 3, "c-1", 3, "m-1", 3, "busy", 4, NULL) == A2A_NULL_PARAMETER);
  a2a_buffer_free(out);
}

void test_card_builder(void) {
  card();
  hooks();
}
