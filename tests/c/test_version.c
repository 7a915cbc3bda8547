/* Protocol version and binding parsing. */
#include "harness.h"

void test_version(void) {
  uint32_t v = A2A_PROTOCOL_VERSION_V0_3;
  uint32_t b = A2A_BINDING_JSON_RPC;
  uint32_t hv = A2A_PROTOCOL_VERSION_V0_3;
  uint32_t major = 99, minor = 99;

  CHECK(a2a_vocab_parse(A2A_VOCAB_PROTOCOL_VERSION, "1.2", 3, &v) == A2A_OK);
  CHECK(v == A2A_PROTOCOL_VERSION_V1_0);
  CHECK(a2a_vocab_parse(A2A_VOCAB_PROTOCOL_VERSION, " 0.3.0 ", 7, &v) == A2A_OK);
  CHECK(v == A2A_PROTOCOL_VERSION_V0_3);
  CHECK(a2a_vocab_parse(A2A_VOCAB_PROTOCOL_VERSION, "2.0", 3, &v) == A2A_VERSION_UNSUPPORTED);
  CHECK(a2a_vocab_parse(A2A_VOCAB_PROTOCOL_VERSION, "1.x", 3, &v) == A2A_VERSION_MALFORMED);
  CHECK(a2a_vocab_parse(A2A_VOCAB_PROTOCOL_VERSION, NULL, 0, &v) == A2A_VERSION_MALFORMED);
  CHECK(a2a_vocab_parse(A2A_VOCAB_PROTOCOL_VERSION, NULL, 1, &v) == A2A_NULL_PARAMETER);
  CHECK(a2a_vocab_parse(A2A_VOCAB_PROTOCOL_VERSION, "1.\x80", 3, &v) == A2A_INVALID_UTF8);
  CHECK(a2a_vocab_parse(A2A_VOCAB_PROTOCOL_VERSION, "1.0", 3, NULL) == A2A_NULL_PARAMETER);
  CHECK(v == A2A_PROTOCOL_VERSION_V0_3);

  CHECK(a2a_version_number_parse("1.25", 4, &major, &minor) == A2A_OK);
  CHECK(major == 1 && minor == 25);
  CHECK(a2a_version_number_parse("7", 1, &major, &minor) == A2A_VERSION_MALFORMED);
  CHECK(major == 1 && minor == 25);
  CHECK(a2a_version_number_parse("1.0", 3, NULL, &minor) == A2A_NULL_PARAMETER);
  CHECK(a2a_version_number_parse("1.0", 3, &major, NULL) == A2A_NULL_PARAMETER);

  /* Absent (NULL, 0) or empty header: 0.3. */
  hv = A2A_PROTOCOL_VERSION_V1_0;
  CHECK(a2a_vocab_parse(A2A_VOCAB_VERSION_HEADER, NULL, 0, &hv) == A2A_OK);
  CHECK(hv == A2A_PROTOCOL_VERSION_V0_3);
  CHECK(a2a_vocab_parse(A2A_VOCAB_VERSION_HEADER, "1.0", 3, &hv) == A2A_OK);
  CHECK(hv == A2A_PROTOCOL_VERSION_V1_0);
  CHECK(a2a_vocab_parse(A2A_VOCAB_VERSION_HEADER, "", 0, &hv) == A2A_OK);
  CHECK(hv == A2A_PROTOCOL_VERSION_V0_3);
  CHECK(a2a_vocab_parse(A2A_VOCAB_VERSION_HEADER, "1.0", 3, &hv) == A2A_OK);
  CHECK(hv == A2A_PROTOCOL_VERSION_V1_0);
  CHECK(a2a_vocab_parse(A2A_VOCAB_VERSION_HEADER, "9.9", 3, &hv) == A2A_VERSION_UNSUPPORTED);
  CHECK(a2a_vocab_parse(A2A_VOCAB_VERSION_HEADER, "x", 1, &hv) == A2A_VERSION_MALFORMED);
  CHECK(a2a_vocab_parse(A2A_VOCAB_VERSION_HEADER, "1.0", 3, NULL) == A2A_NULL_PARAMETER);

  STR_EQ(a2a_vocab_name(A2A_VOCAB_PROTOCOL_VERSION, A2A_PROTOCOL_VERSION_V0_3), "0.3");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_PROTOCOL_VERSION, A2A_PROTOCOL_VERSION_V1_0), "1.0");
  ABSENT(a2a_vocab_name(A2A_VOCAB_PROTOCOL_VERSION, 0));
  STR_EQ(a2a_vocab_name(A2A_VOCAB_VERSION_HEADER, A2A_PROTOCOL_VERSION_V1_0), "1.0");
  ABSENT(a2a_vocab_name(A2A_VOCAB_VERSION_HEADER, A2A_PROTOCOL_VERSION_V0_3));
  ABSENT(a2a_vocab_name(A2A_VOCAB_VERSION_HEADER, 3));

  CHECK(a2a_vocab_parse(A2A_VOCAB_BINDING, "json-rpc", 8, &b) == A2A_OK);
  CHECK(b == A2A_BINDING_JSON_RPC);
  CHECK(a2a_vocab_parse(A2A_VOCAB_BINDING, "HTTP+JSON", 9, &b) == A2A_OK);
  CHECK(b == A2A_BINDING_HTTP_JSON);
  CHECK(a2a_vocab_parse(A2A_VOCAB_BINDING, "GRPC", 4, &b) == A2A_BINDING_UNKNOWN);
  CHECK(a2a_vocab_parse(A2A_VOCAB_BINDING, NULL, 0, &b) == A2A_BINDING_UNKNOWN);
  CHECK(a2a_vocab_parse(A2A_VOCAB_BINDING, "\xff", 1, &b) == A2A_INVALID_UTF8);
  CHECK(a2a_vocab_parse(A2A_VOCAB_BINDING, "rest", 4, NULL) == A2A_NULL_PARAMETER);
  CHECK(b == A2A_BINDING_HTTP_JSON);
  STR_EQ(a2a_vocab_name(A2A_VOCAB_BINDING, A2A_BINDING_JSON_RPC), "JSONRPC");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_BINDING, A2A_BINDING_HTTP_JSON), "HTTP+JSON");
  ABSENT(a2a_vocab_name(A2A_VOCAB_BINDING, 0));
  CHECK(a2a_vocab_parse(A2A_VOCAB_BINDING, " JSONRPC ", 9, &b) == A2A_OK);
  CHECK(b == A2A_BINDING_JSON_RPC);

  /* The names before the V<major>_<minor> scheme still compile (deprecated aliases). */
  CHECK(A2A_PROTOCOL_VERSION_V03 == A2A_PROTOCOL_VERSION_V0_3);
  CHECK(A2A_PROTOCOL_VERSION_V10 == A2A_PROTOCOL_VERSION_V1_0);
  CHECK(A2A_CARD_SHAPE_V03 == A2A_CARD_SHAPE_V0_3);
  CHECK(A2A_CARD_SHAPE_V10 == A2A_CARD_SHAPE_V1_0);
}
