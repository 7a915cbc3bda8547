/* W3C traceparent: parse (W3C spec example), format, new trace or child, refusals. */
#include "harness.h"

void test_traceparent(void) {
  const char *v = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  a2a_traceparent t, child, fresh;
  char out[A2A_TRACEPARENT_LEN];
  uint8_t rnd[24];
  const uint8_t span[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const uint8_t zero[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i;

  CHECK(A2A_TRACEPARENT_LEN == 55);
  CHECK(a2a_traceparent_parse(v, strlen(v), &t) == A2A_OK);
  CHECK(t.trace_id[0] == 0x4b && t.trace_id[15] == 0x36 && t.parent_id[7] == 0xb7 && t.flags == 1);
  CHECK(a2a_traceparent_format(&t, (uint8_t *)out) == A2A_OK);
  CHECK(memcmp(out, v, 55) == 0);
  CHECK(a2a_traceparent_parse(" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00\t", 57, &t) == A2A_OK);
  CHECK(t.flags == 0);

  CHECK(a2a_traceparent_new(&t, span, 8, false, &child) == A2A_OK);
  CHECK(memcmp(child.trace_id, t.trace_id, 16) == 0 && memcmp(child.parent_id, span, 8) == 0);
  CHECK(a2a_traceparent_new(&t, zero, 8, false, &child) == A2A_NONE);
  CHECK(a2a_traceparent_new(&t, span, 24, false, &child) == A2A_INVALID_ARGUMENT);
  for (i = 0; i < 24; i++) rnd[i] = (uint8_t)(i + 1);
  CHECK(a2a_traceparent_new(NULL, rnd, 24, true, &fresh) == A2A_OK);
  CHECK(a2a_traceparent_new(NULL, rnd, 8, true, &fresh) == A2A_INVALID_ARGUMENT);
  CHECK(fresh.trace_id[0] == 1 && fresh.parent_id[0] == 17 && fresh.flags == 1);
  memset(rnd, 0, sizeof rnd);
  CHECK(a2a_traceparent_new(NULL, rnd, 24, false, &fresh) == A2A_NONE);

  CHECK(a2a_traceparent_parse("00-abc", 6, &t) == A2A_TRACEPARENT_LENGTH);
  CHECK(a2a_traceparent_parse("00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", 55, &t) ==
        A2A_TRACEPARENT_SEPARATOR);
  CHECK(a2a_traceparent_parse("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", 55, &t) ==
        A2A_TRACEPARENT_HEX);
  CHECK(a2a_traceparent_parse("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", 55, &t) ==
        A2A_TRACEPARENT_VERSION);
  CHECK(a2a_traceparent_parse("00-00000000000000000000000000000000-00f067aa0ba902b7-01", 55, &t) ==
        A2A_TRACEPARENT_ZERO_TRACE_ID);
  CHECK(a2a_traceparent_parse("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", 55, &t) ==
        A2A_TRACEPARENT_ZERO_PARENT_ID);
  CHECK(a2a_traceparent_parse("\xff", 1, &t) == A2A_INVALID_UTF8);
  CHECK(a2a_traceparent_parse(NULL, 0, &t) == A2A_TRACEPARENT_LENGTH);
  CHECK(a2a_traceparent_parse(v, 55, NULL) == A2A_NULL_PARAMETER);
  memset(&t, 0, sizeof t);
  CHECK(a2a_traceparent_format(&t, (uint8_t *)out) == A2A_TRACEPARENT_ZERO_TRACE_ID);
  t.trace_id[0] = 1;
  CHECK(a2a_traceparent_format(&t, (uint8_t *)out) == A2A_TRACEPARENT_ZERO_PARENT_ID);
  CHECK(a2a_traceparent_new(&t, span, 8, false, &child) == A2A_OK);
  CHECK(a2a_traceparent_format(&child, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_traceparent_format(NULL, (uint8_t *)out) == A2A_NULL_PARAMETER);
  CHECK(a2a_traceparent_new(&t, NULL, 8, false, &child) == A2A_NULL_PARAMETER);
  CHECK(a2a_traceparent_new(NULL, NULL, 24, true, &fresh) == A2A_NULL_PARAMETER);
  CHECK(a2a_traceparent_new(NULL, rnd, 24, true, NULL) == A2A_NULL_PARAMETER);
  memset(&t, 0, sizeof t);
  CHECK(a2a_traceparent_new(&t, span, 8, false, &child) == A2A_TRACEPARENT_ZERO_TRACE_ID);
}
