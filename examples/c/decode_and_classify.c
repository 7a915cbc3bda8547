/*
 * decode_and_classify: a2a_core used from C.
 *
 * 1. Decodes a captured A2A 0.3 `message/stream` response body (SSE), fed in small chunks
 *    as a socket would deliver it, with the batch call (a2a_sse_decoder_feed_packed: one
 *    call per chunk, every item of it), and classifies every event's data like a whole
 *    response. (A client that performs its own HTTP lets the client machine do all of this,
 *    resubscribes included: examples/c/curl_client.c.)
 * 2. Classifies a captured non-streaming response (a FAILED task carrying an ADK error_id)
 *    and prints its outcome.
 *
 * Build (from the repository root, after `cargo build -p a2a-core-ffi`):
 *   cc -std=c99 -Wall -Wextra -pedantic -Iinclude examples/c/decode_and_classify.c \
 *      -Ltarget/debug -Wl,-rpath,$PWD/target/debug -la2a_core -o decode_and_classify
 * See ffi/README.md for static linking and pkg-config.
 */
#include <stdio.h>
#include <string.h>

#include "a2a_core.h"

/* A captured stream: keep-alive comment, a working status update, a completed final one.
 * (Hand-written in the A2A 0.3 JSON-RPC shape.) */
static const char STREAM[] =
    ": keep-alive\n\n"
    "id: 1\n"
    "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"status-update\","
    "\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"working\"},\"final\":false}}\n\n"
    "id: 2\n"
    "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"status-update\","
    "\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\"},\"final\":true}}\n\n";

/* A captured non-streaming response: a FAILED task whose text carries the ADK error_id. */
static const char FAILED[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":{\"kind\":\"task\",\"id\":\"t-2\","
    "\"contextId\":\"c-2\",\"status\":{\"state\":\"failed\",\"message\":{\"kind\":\"message\","
    "\"role\":\"agent\",\"messageId\":\"m-1\",\"parts\":[{\"kind\":\"text\","
    "\"text\":\"Agent execution failed. (error_id: 3f9c0a7b12de)\"}]}}}}";

static void print_view(const char *label, a2a_str v) {
  if (v.ptr != NULL) printf("  %s: %.*s\n", label, (int)v.len, v.ptr);
}

static int fail(const char *what, a2a_result r) {
  a2a_str d = a2a_result_describe(r);
  fprintf(stderr, "%s failed: %u %.*s\n", what, (unsigned)r, (int)d.len, d.ptr);
  return 1;
}

static void print_outcome(const a2a_outcome *o) {
  /* One call reads every field of the outcome; its views live as long as the outcome. */
  a2a_outcome_info info;
  a2a_str ch;
  if (a2a_outcome_get_info(o, &info) != A2A_OK) return;
  ch = a2a_vocab_name(A2A_VOCAB_CHANNEL, info.channel);
  printf("  channel: %.*s\n", (int)ch.len, ch.ptr);
  if (info.has_state) {
    a2a_str s = a2a_vocab_name(A2A_VOCAB_TASK_STATE, info.state);
    printf("  state: %.*s\n", (int)s.len, s.ptr);
  }
  print_view("task_id", info.task_id);
  print_view("text", info.text);
  print_view("error_id", info.error_id);
  print_view("retry", a2a_vocab_name(A2A_VOCAB_RETRY, info.retry));
}

/* Classifies one event's data (a JSON-RPC response of a stream) and prints its state;
 * returns the task state, or A2A_TASK_STATE_UNKNOWN. */
static a2a_task_state print_event(const a2a_sse_item *ev, a2a_asked asked) {
  a2a_response resp;
  a2a_outcome *o = NULL;
  a2a_outcome_info info;
  a2a_task_state state = A2A_TASK_STATE_UNKNOWN;
  memset(&resp, 0, sizeof resp);
  resp.status = 200;
  resp.content_type = "application/json";
  resp.content_type_len = strlen(resp.content_type);
  resp.body = ev->data.ptr;
  resp.body_len = ev->data.len;
  resp.asked = asked;
  printf("  event id=%.*s", (int)ev->id.len, (const char *)ev->id.ptr);
  if (a2a_classify(&resp, &o) == A2A_OK && a2a_outcome_get_info(o, &info) == A2A_OK &&
      info.has_state) {
    a2a_str s = a2a_vocab_name(A2A_VOCAB_TASK_STATE, info.state);
    state = info.state;
    printf(" state=%.*s", (int)s.len, s.ptr);
  }
  printf("%s\n", a2a_task_state_classify(state) == A2A_TASK_STATE_CLASS_TERMINAL ? " (ends the stream)" : "");
  a2a_outcome_free(o);
  return state;
}

int main(void) {
  a2a_sse_decoder *dec = NULL;
  a2a_outcome *outcome = NULL;
  a2a_task_state last = A2A_TASK_STATE_UNKNOWN;
  a2a_asked asked;
  a2a_response resp;
  a2a_result r;
  size_t off, i, len = strlen(STREAM);

  memset(&asked, 0, sizeof asked);
  asked.version = A2A_PROTOCOL_VERSION_V0_3;
  asked.binding = A2A_BINDING_JSON_RPC;
  asked.method = "message/stream";
  asked.method_len = strlen(asked.method);
  asked.request_id = "1";
  asked.request_id_len = 1;

  /* The core's default limits (16 MiB lines and events) and the WHATWG end-of-stream rule. */
  r = a2a_sse_decoder_new_with((size_t)16 << 20, (size_t)16 << 20, A2A_SSE_AT_EOF_DISCARD, &dec);
  if (r != A2A_OK) return fail("a2a_sse_decoder_new_with", r);

  printf("stream:\n");
  for (off = 0; off < len; off += 37) { /* 37-byte chunks, split anywhere */
    a2a_sse_packed batch;
    const a2a_sse_item *items;
    size_t chunk = len - off < 37 ? len - off : 37;
    /* The decoder copies what it keeps: the items point into the decoder, valid until the
     * next call on it. */
    r = a2a_sse_decoder_feed_packed(dec, (const uint8_t *)STREAM + off, chunk, &batch);
    if (r != A2A_OK) return fail("a2a_sse_decoder_feed_packed", r);
    items = batch.items;
    for (i = 0; i < batch.item_count; i++) {
      if (items[i].kind == A2A_SSE_ITEM_KIND_COMMENT)
        printf("  comment (liveness)\n");
      else if (items[i].kind == A2A_SSE_ITEM_KIND_EVENT)
        last = print_event(&items[i], asked);
    }
  }
  {
    a2a_sse_finish fin;
    if ((r = a2a_sse_decoder_finish(dec, &fin)) != A2A_OK) return fail("a2a_sse_decoder_finish", r);
    if (fin.discarded) printf("  (an unterminated block was discarded)\n");
  }
  printf("stream end: %s\n", last == A2A_TASK_STATE_COMPLETED ? "completed" : "other");

  memset(&resp, 0, sizeof resp);
  resp.status = 200;
  resp.content_type = "application/json";
  resp.content_type_len = strlen(resp.content_type);
  resp.body = (const uint8_t *)FAILED;
  resp.body_len = strlen(FAILED);
  resp.asked = asked;
  resp.asked.method = "message/send";
  resp.asked.method_len = strlen(resp.asked.method);
  resp.asked.request_id = "2";
  if ((r = a2a_classify(&resp, &outcome)) != A2A_OK) return fail("a2a_classify", r);
  printf("response:\n");
  print_outcome(outcome);

  a2a_outcome_free(outcome);
  a2a_sse_decoder_free(dec);
  return 0;
}
