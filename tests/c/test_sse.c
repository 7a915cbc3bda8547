/* SSE decoder (the packed batch call: its items and its layout; finish, limits, ids,
 * reconnect, use after finish) and encoder (round trip through the decoder, refusals). */
#include <stdlib.h>

#include "harness.h"

static int bytes_is(a2a_bytes v, const char *s) { return t_bytes_eq(v, s); }

/* A decoder with the core's default limits (16 MiB lines and events) and the WHATWG
 * end-of-stream rule. */
static a2a_result new_default(a2a_sse_decoder **d) {
  return a2a_sse_decoder_new_with((size_t)16 << 20, (size_t)16 << 20, A2A_SSE_AT_EOF_DISCARD, d);
}

/* Feeds a chunk with a2a_sse_decoder_feed_packed and hands out its item array (written on
 * success only, as the call's own out-parameter). */
static a2a_result feed_items(a2a_sse_decoder *d, const uint8_t *chunk, size_t len,
                             const a2a_sse_item **items, size_t *n) {
  a2a_sse_packed p;
  a2a_result r = a2a_sse_decoder_feed_packed(d, chunk, len, &p);
  if (r == A2A_OK) {
    *items = p.items;
    *n = p.item_count;
  }
  return r;
}

static void batch_items(void) {
  a2a_sse_decoder *d = NULL;
  const a2a_sse_item *items = NULL;
  size_t n = 99;
  const char *c1 = "id: 7\ndata: hel";
  const char *c2 = "lo\r\n\n: ping\nretry: 1500\nevent: update\ndata: {\"a\":1}\n\n";
  uint64_t retry = 0;

  CHECK(new_default(&d) == A2A_OK && d != NULL);
  CHECK(feed_items(d, (const uint8_t *)c1, strlen(c1), &items, &n) == A2A_OK);
  CHECK(n == 0 && items == NULL);
  CHECK(feed_items(d, (const uint8_t *)c2, strlen(c2), &items, &n) == A2A_OK);
  CHECK(n == 4);
  if (n == 4) {
    CHECK(items[0].kind == A2A_SSE_ITEM_KIND_EVENT);
    CHECK(bytes_is(items[0].event_type, "message"));
    CHECK(bytes_is(items[0].data, "hello"));
    CHECK(bytes_is(items[0].id, "7"));
    CHECK(items[1].kind == A2A_SSE_ITEM_KIND_COMMENT);
    CHECK(bytes_is(items[1].data, " ping"));
    CHECK(items[1].event_type.ptr == NULL && items[1].id.ptr == NULL);
    CHECK(items[2].kind == A2A_SSE_ITEM_KIND_RETRY && items[2].retry_ms == 1500);
    CHECK(items[3].kind == A2A_SSE_ITEM_KIND_EVENT);
    CHECK(bytes_is(items[3].event_type, "update"));
    CHECK(bytes_is(items[3].data, "{\"a\":1}"));
    /* Copied: even a value whole inside the chunk is a view into the decoder. */
    CHECK(!((const char *)items[3].data.ptr >= c2 &&
            (const char *)items[3].data.ptr < c2 + strlen(c2)));
  }
  CHECK(a2a_sse_decoder_retry(d, &retry) && retry == 1500);
  CHECK(bytes_is(a2a_sse_decoder_last_event_id(d), "7"));
  ABSENT(a2a_sse_decoder_last_error(d));
  a2a_sse_decoder_free(d);
}

static void batch_copy_survives_freeing_the_chunk(void) {
  a2a_sse_decoder *d = NULL;
  a2a_sse_packed p;
  const char *text = "data: first\n\ndata: line1\ndata: line2\n\n";
  size_t len = strlen(text);
  uint8_t *chunk = malloc(len);

  CHECK(chunk != NULL);
  if (chunk == NULL) return;
  memcpy(chunk, text, len);
  CHECK(new_default(&d) == A2A_OK);
  CHECK(a2a_sse_decoder_feed_packed(d, chunk, len, &p) == A2A_OK);
  /* The packed call keeps no pointer into the chunk: free and scribble over it. */
  memset(chunk, 'X', len);
  free(chunk);
  CHECK(p.item_count == 2);
  if (p.item_count == 2) {
    CHECK(bytes_is(p.items[0].data, "first"));
    CHECK(bytes_is(p.items[1].data, "line1\nline2"));
  }
  a2a_sse_decoder_free(d);
}

/* Event i's value k (0 type, 1 data, 2 id) of a packed batch, by the guaranteed layout:
 * value j is [offsets[j], offsets[j + 1] - 1), ended by a CR. */
static int packed_value_is(const a2a_sse_packed *p, size_t i, size_t k, const char *s) {
  uint64_t lo = p->offsets[3 * i + k], hi = p->offsets[3 * i + k + 1];
  size_t n = strlen(s);
  return hi > lo && hi - 1 - lo == n && hi <= p->bytes.len && p->bytes.ptr[hi - 1] == '\r' &&
         memcmp(p->bytes.ptr + lo, s, n) == 0;
}

static void batch_packed(void) {
  a2a_sse_decoder *d = NULL;
  a2a_sse_packed p;
  const char *c1 = "id: 7\ndata: hel";
  const char *c2 = "lo\r\n\n: ping\nretry: 1500\nevent: update\ndata: {\"a\":1}\ndata: x\n\n";
  const char *want = "message\rhello\r7\rupdate\r{\"a\":1}\nx\r7\r";
  size_t len = strlen(c2), i, crs = 0;
  uint8_t *chunk = malloc(len);
  uint64_t retry = 0;

  CHECK(chunk != NULL);
  if (chunk == NULL) return;
  memcpy(chunk, c2, len);
  CHECK(new_default(&d) == A2A_OK);
  CHECK(a2a_sse_decoder_feed_packed(d, (const uint8_t *)c1, strlen(c1), &p) == A2A_OK);
  CHECK(p.event_count == 0 && p.item_count == 0 && p.items == NULL);
  CHECK(p.offsets != NULL && p.offsets[0] == 0 && p.bytes.ptr != NULL && p.bytes.len == 0);
  CHECK(a2a_sse_decoder_feed_packed(d, chunk, len, &p) == A2A_OK);
  /* Copied: free and scribble over the chunk before reading anything. */
  memset(chunk, 'X', len);
  free(chunk);
  CHECK(p.event_count == 2 && p.item_count == 4 && p.comment_count == 1 &&
        p.limit_error_count == 0);
  if (p.event_count == 2) {
    /* The layout: type, data, id of each event, each ended by CR, nothing else. */
    CHECK(p.bytes.len == strlen(want) && memcmp(p.bytes.ptr, want, p.bytes.len) == 0);
    CHECK(p.offsets[0] == 0 && p.offsets[6] == p.bytes.len);
    for (i = 0; i < p.bytes.len; i++) crs += p.bytes.ptr[i] == '\r';
    CHECK(crs == 6);
    CHECK(packed_value_is(&p, 0, 0, "message"));
    CHECK(packed_value_is(&p, 0, 1, "hello"));
    CHECK(packed_value_is(&p, 0, 2, "7"));
    CHECK(packed_value_is(&p, 1, 0, "update"));
    CHECK(packed_value_is(&p, 1, 1, "{\"a\":1}\nx"));
    CHECK(packed_value_is(&p, 1, 2, "7"));
    /* The items, in stream order; event views point into the packed bytes. */
    CHECK(p.items[0].kind == A2A_SSE_ITEM_KIND_EVENT && p.items[0].data.ptr == p.bytes.ptr + 8);
    CHECK(p.items[0].data.len == 5);
    CHECK(p.items[1].kind == A2A_SSE_ITEM_KIND_COMMENT && bytes_is(p.items[1].data, " ping"));
    CHECK(p.items[2].kind == A2A_SSE_ITEM_KIND_RETRY && p.items[2].retry_ms == 1500);
    CHECK(p.items[3].kind == A2A_SSE_ITEM_KIND_EVENT);
  }
  CHECK(a2a_sse_decoder_retry(d, &retry) && retry == 1500);

  /* An empty id and invalid UTF-8 stay exact bytes; the CR still ends each value. */
  CHECK(a2a_sse_decoder_set_last_event_id(d, NULL, 0) == A2A_OK);
  CHECK(a2a_sse_decoder_feed_packed(d, (const uint8_t *)"data: \xff\xfe\n\n", 10, &p) == A2A_OK);
  CHECK(p.event_count == 1 && packed_value_is(&p, 0, 1, "\xff\xfe"));
  CHECK(packed_value_is(&p, 0, 2, "") && p.bytes.len == 12);
  a2a_sse_decoder_free(d);

  /* Limits are items, counted. */
  d = NULL;
  CHECK(a2a_sse_decoder_new_with(8, 1024, A2A_SSE_AT_EOF_DISCARD, &d) == A2A_OK);
  CHECK(a2a_sse_decoder_feed_packed(d, (const uint8_t *)"data: far too long\n\ndata: ok\n\n", 30,
                                    &p) == A2A_OK);
  CHECK(p.limit_error_count == 1 && p.event_count == 1 && p.item_count == 2);
  CHECK(p.items[0].kind == A2A_SSE_ITEM_KIND_LIMIT_ERROR);
  CHECK(packed_value_is(&p, 0, 1, "ok"));
  CHECK(a2a_sse_decoder_last_error(d).len > 0);
  /* Refusals. */
  CHECK(a2a_sse_decoder_feed_packed(d, NULL, 1, &p) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_decoder_feed_packed(d, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_decoder_feed_packed(NULL, NULL, 0, &p) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_decoder_feed_packed(d, NULL, 0, &p) == A2A_OK && p.event_count == 0);
  a2a_sse_decoder_free(d);
}

/* Byte-by-byte through the packed call gives the events of the whole stream. */
static void packed_byte_by_byte(void) {
  const char *s = "\xef\xbb\xbf" "event: e\r\ndata: a\r\ndata: b\r\n\r\nid: 3\rdata: c\r\r";
  size_t len = strlen(s), i, events = 0;
  a2a_sse_decoder *d = NULL;
  a2a_sse_packed p;
  CHECK(new_default(&d) == A2A_OK);
  for (i = 0; i < len; i++) {
    CHECK(a2a_sse_decoder_feed_packed(d, (const uint8_t *)s + i, 1, &p) == A2A_OK);
    if (p.event_count == 1) {
      events++;
      if (events == 1) {
        CHECK(packed_value_is(&p, 0, 0, "e") && packed_value_is(&p, 0, 1, "a\nb"));
      } else {
        CHECK(packed_value_is(&p, 0, 1, "c") && packed_value_is(&p, 0, 2, "3"));
      }
    }
  }
  CHECK(events == 2);
  a2a_sse_decoder_free(d);
}

static void byte_by_byte_equals_whole(void) {
  const char *s = "\xef\xbb\xbf" "event: e\r\ndata: a\r\ndata: b\r\n\r\nid: 3\rdata: c\r\r";
  size_t len = strlen(s), i, events = 0;
  a2a_sse_decoder *d = NULL;
  const a2a_sse_item *items = NULL;
  size_t n = 0;
  CHECK(new_default(&d) == A2A_OK);
  for (i = 0; i < len; i++) {
    CHECK(feed_items(d, (const uint8_t *)s + i, 1, &items, &n) == A2A_OK);
    if (n == 1 && items[0].kind == A2A_SSE_ITEM_KIND_EVENT) {
      events++;
      if (events == 1) {
        CHECK(bytes_is(items[0].event_type, "e"));
        CHECK(bytes_is(items[0].data, "a\nb"));
      } else {
        CHECK(bytes_is(items[0].data, "c"));
        CHECK(bytes_is(items[0].id, "3"));
      }
    }
  }
  CHECK(events == 2);
  a2a_sse_decoder_free(d);
}

static void invalid_utf8_is_bytes(void) {
  a2a_sse_decoder *d = NULL;
  const a2a_sse_item *items = NULL;
  size_t n = 0;
  const char *s = "data: \xff\xfe\xc3\n\n";
  CHECK(new_default(&d) == A2A_OK);
  CHECK(feed_items(d, (const uint8_t *)s, strlen(s), &items, &n) == A2A_OK);
  CHECK(n == 1 && items[0].data.len == 3 && memcmp(items[0].data.ptr, "\xff\xfe\xc3", 3) == 0);
  a2a_sse_decoder_free(d);
}

static void limits(void) {
  a2a_sse_decoder *d = NULL;
  const a2a_sse_item *items = NULL;
  size_t n = 0;
  const char *s = "data: far too long\n\ndata: ok\n\n";
  const char *big = "data: 123\ndata: 456\n\n";
  a2a_str msg;

  CHECK(a2a_sse_decoder_new_with(8, 1024, A2A_SSE_AT_EOF_DISCARD, &d) == A2A_OK);
  CHECK(feed_items(d, (const uint8_t *)s, strlen(s), &items, &n) == A2A_OK);
  CHECK(n == 2);
  if (n == 2) {
    CHECK(items[0].kind == A2A_SSE_ITEM_KIND_LIMIT_ERROR);
    CHECK(items[0].error == A2A_SSE_LINE_TOO_LONG && items[0].limit == 8);
    CHECK(items[1].kind == A2A_SSE_ITEM_KIND_EVENT && bytes_is(items[1].data, "ok"));
  }
  msg = a2a_sse_decoder_last_error(d);
  CHECK(msg.ptr != NULL && msg.len > 0);
  /* The next mutating call clears it. */
  CHECK(feed_items(d, NULL, 0, &items, &n) == A2A_OK && n == 0);
  ABSENT(a2a_sse_decoder_last_error(d));
  a2a_sse_decoder_free(d);

  d = NULL;
  CHECK(a2a_sse_decoder_new_with(1024, 4, A2A_SSE_AT_EOF_DISCARD, &d) == A2A_OK);
  CHECK(feed_items(d, (const uint8_t *)big, strlen(big), &items, &n) == A2A_OK);
  CHECK(n >= 1 && items[0].kind == A2A_SSE_ITEM_KIND_LIMIT_ERROR &&
        items[0].error == A2A_SSE_EVENT_TOO_LARGE && items[0].limit == 4);
  a2a_sse_decoder_free(d);

  d = NULL;
  CHECK(a2a_sse_decoder_new_with(0, 10, A2A_SSE_AT_EOF_DISCARD, &d) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_sse_decoder_new_with(10, 0, A2A_SSE_AT_EOF_DISCARD, &d) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_sse_decoder_new_with(10, 10, 0, &d) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_sse_decoder_new_with(10, 10, 3, &d) == A2A_INVALID_ARGUMENT);
  CHECK(a2a_sse_decoder_new_with(10, 10, A2A_SSE_AT_EOF_DISPATCH, NULL) == A2A_NULL_PARAMETER);
  CHECK(d == NULL);
}

static void finish_and_use_after_finish(void) {
  a2a_sse_decoder *d = NULL;
  const a2a_sse_item *items = NULL;
  size_t n = 0;
  a2a_sse_finish f;
  const char *partial = "id: 9\ndata: partial";
  const char *again = "data: again\n\n";

  CHECK(new_default(&d) == A2A_OK);
  CHECK(feed_items(d, (const uint8_t *)partial, strlen(partial), &items, &n) == A2A_OK);
  CHECK(n == 0);
  CHECK(a2a_sse_decoder_finish(d, &f) == A2A_OK);
  CHECK(!f.has_event && f.discarded && f.discarded_event && f.discarded_id);
  CHECK(f.discarded_partial_line == strlen("data: partial"));
  CHECK(f.error == A2A_OK);
  /* The id of the dropped block was not committed. */
  CHECK(a2a_sse_decoder_last_event_id(d).len == 0);
  /* Finishing again reports a clean end; feeding after finish starts a new stream. */
  CHECK(a2a_sse_decoder_finish(d, &f) == A2A_OK && !f.discarded);
  CHECK(feed_items(d, (const uint8_t *)again, strlen(again), &items, &n) == A2A_OK);
  CHECK(n == 1 && bytes_is(items[0].data, "again"));
  CHECK(a2a_sse_decoder_finish(d, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_decoder_finish(NULL, &f) == A2A_NULL_PARAMETER);
  a2a_sse_decoder_free(d);

  d = NULL;
  CHECK(a2a_sse_decoder_new_with(64, 64, A2A_SSE_AT_EOF_DISPATCH, &d) == A2A_OK);
  CHECK(feed_items(d, (const uint8_t *)"event: x\ndata: tail", 19, &items, &n) == A2A_OK);
  CHECK(a2a_sse_decoder_finish(d, &f) == A2A_OK);
  CHECK(f.has_event && f.event.kind == A2A_SSE_ITEM_KIND_EVENT);
  CHECK(bytes_is(f.event.data, "tail") && bytes_is(f.event.event_type, "x"));
  a2a_sse_decoder_free(d);
}

static void ids_and_reconnect(void) {
  a2a_sse_decoder *d = NULL;
  const a2a_sse_item *items = NULL;
  size_t n = 0;
  uint64_t retry = 77;

  CHECK(new_default(&d) == A2A_OK);
  CHECK(!a2a_sse_decoder_retry(d, &retry) && retry == 77);
  CHECK(!a2a_sse_decoder_retry(d, NULL));
  CHECK(a2a_sse_decoder_set_last_event_id(d, (const uint8_t *)"a\0b", 3) == A2A_SSE_ID_NUL);
  CHECK(a2a_sse_decoder_last_error(d).len > 0);
  CHECK(a2a_sse_decoder_set_last_event_id(d, (const uint8_t *)"42", 2) == A2A_OK);
  CHECK(bytes_is(a2a_sse_decoder_last_event_id(d), "42"));
  CHECK(a2a_sse_decoder_set_last_event_id(d, NULL, 2) == A2A_NULL_PARAMETER);
  CHECK(feed_items(d, (const uint8_t *)"data: x", 7, &items, &n) == A2A_OK);
  CHECK(a2a_sse_decoder_reset_for_reconnect(d) == A2A_OK);
  CHECK(bytes_is(a2a_sse_decoder_last_event_id(d), "42"));
  CHECK(feed_items(d, (const uint8_t *)"\n\ndata: y\n\n", 11, &items, &n) == A2A_OK);
  CHECK(n == 1 && bytes_is(items[0].data, "y") && bytes_is(items[0].id, "42"));
  CHECK(a2a_sse_decoder_set_last_event_id(d, NULL, 0) == A2A_OK);
  CHECK(a2a_sse_decoder_last_event_id(d).len == 0);
  a2a_sse_decoder_free(d);

  CHECK(a2a_sse_decoder_reset_for_reconnect(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_decoder_set_last_event_id(NULL, NULL, 0) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_decoder_last_event_id(NULL).ptr == NULL);
  ABSENT(a2a_sse_decoder_last_error(NULL));
  CHECK(!a2a_sse_decoder_retry(NULL, &retry));
}

static void null_arguments(void) {
  a2a_sse_decoder *d = NULL;
  a2a_sse_packed p;
  CHECK(new_default(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_decoder_feed_packed(NULL, NULL, 0, &p) == A2A_NULL_PARAMETER);
  CHECK(new_default(&d) == A2A_OK);
  CHECK(a2a_sse_decoder_feed_packed(d, NULL, 1, &p) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_decoder_feed_packed(d, NULL, 0, NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_decoder_feed_packed(d, NULL, 0, &p) == A2A_OK && p.item_count == 0 &&
        p.items == NULL);
  a2a_sse_decoder_free(d);
  a2a_sse_decoder_free(NULL);
}

static void encoder(void) {
  a2a_sse_encoder *e = NULL;
  a2a_sse_decoder *d = NULL;
  const a2a_sse_item *items = NULL;
  size_t n = 0;
  a2a_bytes out;
  const char *data = "line1\r\nline2";

  CHECK(a2a_sse_encoder_new(&e) == A2A_OK && e != NULL);
  CHECK(a2a_sse_encoder_new(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_encoder_output(e).ptr != NULL && a2a_sse_encoder_output(e).len == 0);
  CHECK(a2a_sse_encoder_event(e, (const uint8_t *)data, strlen(data), (const uint8_t *)"t", 1,
                              true, (const uint8_t *)"5", 1, true, 300) == A2A_OK);
  CHECK(a2a_sse_encoder_comment(e, (const uint8_t *)"hi", 2) == A2A_OK);
  CHECK(a2a_sse_encoder_comment(e, NULL, 0) == A2A_OK);
  CHECK(a2a_sse_encoder_keep_alive(e) == A2A_OK);
  /* An empty data event with no type, id or retry. */
  CHECK(a2a_sse_encoder_event(e, NULL, 0, NULL, 0, false, NULL, 0, false, 0) == A2A_OK);
  /* Refusals append nothing. */
  out = a2a_sse_encoder_output(e);
  n = out.len;
  CHECK(a2a_sse_encoder_event(e, NULL, 0, NULL, 0, true, (const uint8_t *)"a\nb", 3, false, 0) ==
        A2A_SSE_ID_LINE_BREAK);
  CHECK(a2a_sse_encoder_last_error(e).len > 0);
  CHECK(a2a_sse_encoder_event(e, NULL, 0, (const uint8_t *)"x\r", 2, false, NULL, 0, false, 0) ==
        A2A_SSE_EVENT_TYPE_LINE_BREAK);
  CHECK(a2a_sse_encoder_event(e, NULL, 0, NULL, 0, true, (const uint8_t *)"a\0b", 3, false, 0) ==
        A2A_SSE_ID_NUL);
  CHECK(a2a_sse_encoder_event(e, NULL, 1, NULL, 0, false, NULL, 0, false, 0) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_sse_encoder_output(e).len == n);
  CHECK(a2a_sse_encoder_keep_alive(e) == A2A_OK);
  ABSENT(a2a_sse_encoder_last_error(e));

  /* Round trip through the decoder. */
  out = a2a_sse_encoder_output(e);
  CHECK(new_default(&d) == A2A_OK);
  CHECK(feed_items(d, out.ptr, out.len, &items, &n) == A2A_OK);
  CHECK(n == 7);
  if (n == 7) {
    CHECK(items[0].kind == A2A_SSE_ITEM_KIND_RETRY && items[0].retry_ms == 300);
    CHECK(items[1].kind == A2A_SSE_ITEM_KIND_EVENT);
    CHECK(bytes_is(items[1].data, "line1\nline2") && bytes_is(items[1].event_type, "t") &&
          bytes_is(items[1].id, "5"));
    CHECK(items[2].kind == A2A_SSE_ITEM_KIND_COMMENT && bytes_is(items[2].data, " hi"));
    CHECK(items[3].kind == A2A_SSE_ITEM_KIND_COMMENT && items[3].data.len == 0);
    CHECK(items[4].kind == A2A_SSE_ITEM_KIND_COMMENT && bytes_is(items[4].data, " keep-alive"));
    CHECK(items[5].kind == A2A_SSE_ITEM_KIND_EVENT && items[5].data.len == 0 &&
          bytes_is(items[5].event_type, "message"));
  }
  a2a_sse_decoder_free(d);

  CHECK(a2a_sse_encoder_clear(e) == A2A_OK);
  CHECK(a2a_sse_encoder_output(e).len == 0);
  a2a_sse_encoder_free(e);
  a2a_sse_encoder_free(NULL);
  CHECK(a2a_sse_encoder_event(NULL, NULL, 0, NULL, 0, false, NULL, 0, false, 0) ==
        A2A_NULL_PARAMETER);
  CHECK(a2a_sse_encoder_comment(NULL, NULL, 0) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_encoder_keep_alive(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_encoder_clear(NULL) == A2A_NULL_PARAMETER);
  CHECK(a2a_sse_encoder_output(NULL).ptr == NULL);
  ABSENT(a2a_sse_encoder_last_error(NULL));
}

void test_sse(void) {
  batch_items();
  batch_copy_survives_freeing_the_chunk();
  byte_by_byte_equals_whole();
  batch_packed();
  packed_byte_by_byte();
  invalid_utf8_is_bytes();
  limits();
  finish_and_use_after_finish();
  ids_and_reconnect();
  null_arguments();
  encoder();
}
