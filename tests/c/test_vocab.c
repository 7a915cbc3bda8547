/* Enum names and parsers through the one pair a2a_vocab_name / a2a_vocab_parse: every
   vocabulary, unknown numbers and vocabularies, NULL and invalid UTF-8. */
#include "harness.h"

/* Every name of every vocabulary parses back to its number. */
static void round_trip_every_name(void) {
  uint32_t vocab, value, out;
  unsigned named = 0;
  for (vocab = A2A_VOCAB_CHANNEL; vocab <= A2A_VOCAB_VERSION_HEADER; vocab++) {
    unsigned in_vocab = 0;
    for (value = 0; value < 1000; value++) {
      a2a_str s = a2a_vocab_name(vocab, value);
      if (s.ptr == NULL) continue;
      out = 0xdeadbeefu;
      CHECK(a2a_vocab_parse(vocab, s.ptr, s.len, &out) == A2A_OK);
      CHECK(out == value);
      in_vocab++;
    }
    /* 8 was the give-up reasons' vocabulary (gone with the standalone retry policy). */
    /* The A2A-Version header names 1.0 only (0.3 sends none). */
    CHECK(vocab == 8 ? in_vocab == 0 : vocab == A2A_VOCAB_VERSION_HEADER ? in_vocab == 1 : in_vocab >= 2);
    named += in_vocab;
  }
  /* 6 channels, 9 states, 9 advices, 2 request-sent, 36 error names, 2 versions,
     2 bindings, 10 + 11 method names, 1 header value. */
  CHECK(named == 88);
}

void test_vocab(void) {
  uint32_t st = A2A_TASK_STATE_WORKING;
  uint32_t en = A2A_ERROR_NAME_OTHER;
  uint32_t out;
  unsigned n;

  STR_EQ(a2a_vocab_name(A2A_VOCAB_CHANNEL, A2A_CHANNEL_TRANSPORT), "transport");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_CHANNEL, A2A_CHANNEL_MALFORMED), "malformed");
  ABSENT(a2a_vocab_name(A2A_VOCAB_CHANNEL, A2A_CHANNEL_INVALID));
  ABSENT(a2a_vocab_name(A2A_VOCAB_CHANNEL, 77));
  for (n = 1; n <= 6; n++) CHECK(a2a_vocab_name(A2A_VOCAB_CHANNEL, n).len > 0);
  CHECK(a2a_vocab_parse(A2A_VOCAB_CHANNEL, "task", 4, &out) == A2A_OK);
  CHECK(out == A2A_CHANNEL_TASK);
  CHECK(a2a_vocab_parse(A2A_VOCAB_CHANNEL, "Task", 4, &out) == A2A_INVALID_ARGUMENT);

  STR_EQ(a2a_vocab_name(A2A_VOCAB_TASK_STATE, A2A_TASK_STATE_INPUT_REQUIRED), "input-required");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_TASK_STATE, A2A_TASK_STATE_UNKNOWN), "unknown");
  ABSENT(a2a_vocab_name(A2A_VOCAB_TASK_STATE, 9));
  CHECK(a2a_task_state_classify(A2A_TASK_STATE_COMPLETED) == A2A_TASK_STATE_CLASS_TERMINAL);
  CHECK(a2a_task_state_classify(A2A_TASK_STATE_REJECTED) == A2A_TASK_STATE_CLASS_TERMINAL);
  CHECK(a2a_task_state_classify(A2A_TASK_STATE_FAILED) == A2A_TASK_STATE_CLASS_TERMINAL);
  CHECK(a2a_task_state_classify(A2A_TASK_STATE_WORKING) == A2A_TASK_STATE_CLASS_ACTIVE);
  CHECK(a2a_task_state_classify(A2A_TASK_STATE_UNKNOWN) == A2A_TASK_STATE_CLASS_ACTIVE);
  CHECK(a2a_task_state_classify(A2A_TASK_STATE_AUTH_REQUIRED) == A2A_TASK_STATE_CLASS_INTERRUPTED);
  CHECK(a2a_task_state_classify(A2A_TASK_STATE_INPUT_REQUIRED) == A2A_TASK_STATE_CLASS_INTERRUPTED);
  CHECK(a2a_task_state_classify(1000) == A2A_TASK_STATE_CLASS_NOT_A_STATE);

  CHECK(a2a_vocab_parse(A2A_VOCAB_TASK_STATE, "TASK_STATE_CANCELLED", 20, &st) == A2A_OK);
  CHECK(st == A2A_TASK_STATE_CANCELED);
  CHECK(a2a_vocab_parse(A2A_VOCAB_TASK_STATE, "input-required", 14, &st) == A2A_OK);
  CHECK(st == A2A_TASK_STATE_INPUT_REQUIRED);
  CHECK(a2a_vocab_parse(A2A_VOCAB_TASK_STATE, "4", 1, &st) == A2A_OK);
  CHECK(st == A2A_TASK_STATE_FAILED);
  /* (NULL, 0) is the empty string: an unknown spelling, not an error. */
  CHECK(a2a_vocab_parse(A2A_VOCAB_TASK_STATE, NULL, 0, &st) == A2A_OK);
  CHECK(st == A2A_TASK_STATE_UNKNOWN);
  st = A2A_TASK_STATE_WORKING;
  CHECK(a2a_vocab_parse(A2A_VOCAB_TASK_STATE, NULL, 3, &st) == A2A_NULL_PARAMETER);
  CHECK(a2a_vocab_parse(A2A_VOCAB_TASK_STATE, "\xff\xfe", 2, &st) == A2A_INVALID_UTF8);
  CHECK(st == A2A_TASK_STATE_WORKING); /* untouched on failure */
  CHECK(a2a_vocab_parse(A2A_VOCAB_TASK_STATE, "working", 7, NULL) == A2A_NULL_PARAMETER);

  STR_EQ(a2a_vocab_name(A2A_VOCAB_RETRY, A2A_RETRY_UNKNOWN_OUTCOME), "unknown_outcome");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_RETRY, A2A_RETRY_NONE), "none");
  ABSENT(a2a_vocab_name(A2A_VOCAB_RETRY, A2A_RETRY_INVALID));
  ABSENT(a2a_vocab_name(A2A_VOCAB_RETRY, 10));
  CHECK(a2a_vocab_parse(A2A_VOCAB_RETRY, "backoff", 7, &out) == A2A_OK);
  CHECK(out == A2A_RETRY_BACKOFF);

  STR_EQ(a2a_vocab_name(A2A_VOCAB_REQUEST_SENT, A2A_REQUEST_SENT_NO), "no");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_REQUEST_SENT, A2A_REQUEST_SENT_UNKNOWN), "unknown");
  ABSENT(a2a_vocab_name(A2A_VOCAB_REQUEST_SENT, 0));

  STR_EQ(a2a_vocab_name(A2A_VOCAB_ERROR_NAME, A2A_ERROR_NAME_TASK_NOT_FOUND), "TaskNotFound");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_ERROR_NAME, A2A_ERROR_NAME_BAD_GATEWAY), "BadGateway");
  STR_EQ(a2a_vocab_name(A2A_VOCAB_ERROR_NAME, A2A_ERROR_NAME_TLS), "Tls");
  ABSENT(a2a_vocab_name(A2A_VOCAB_ERROR_NAME, 0));
  ABSENT(a2a_vocab_name(A2A_VOCAB_ERROR_NAME, 100));
  CHECK(a2a_vocab_parse(A2A_VOCAB_ERROR_NAME, "GatewayTimeout", 14, &en) == A2A_OK);
  CHECK(en == A2A_ERROR_NAME_GATEWAY_TIMEOUT);
  CHECK(a2a_vocab_parse(A2A_VOCAB_ERROR_NAME, "gatewaytimeout", 14, &en) == A2A_INVALID_ARGUMENT);
  CHECK(en == A2A_ERROR_NAME_GATEWAY_TIMEOUT);
  CHECK(a2a_vocab_parse(A2A_VOCAB_ERROR_NAME, NULL, 0, &en) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_vocab_parse(A2A_VOCAB_ERROR_NAME, "\xc3", 1, &en) == A2A_INVALID_UTF8);
  CHECK(a2a_vocab_parse(A2A_VOCAB_ERROR_NAME, "Dns", 3, NULL) == A2A_NULL_PARAMETER);

  /* An unknown vocabulary: no name, and refused before anything else is looked at. */
  ABSENT(a2a_vocab_name(0, 1));
  ABSENT(a2a_vocab_name(12, 1));
  ABSENT(a2a_vocab_name(0xffffffffu, 0));
  out = 7;
  CHECK(a2a_vocab_parse(0, "task", 4, &out) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_vocab_parse(12, NULL, 0, NULL) == A2A_INVALID_ARGUMENT);
  CHECK(out == 7);

  round_trip_every_name();
}
