/* Concurrent misuse is refused, and _free waits for the calls inside (ffi/src/handle.rs),
 * with pthreads (run under ASan+UBSan and valgrind by scripts/ci/30-c.sh, which see a free
 * under a call as a use-after-free):
 *   - two threads feeding one SSE decoder: every feed that is let in decodes exactly its
 *     chunk's events, the others are refused with A2A_IN_USE;
 *   - a decoder freed while another thread is inside a feed: the feed completes;
 *   - a client freed while four threads are inside calls held by the fault server's `hang`
 *     scenario (base URL in A2A_TEST_FAULT_URL): the free waits, the calls end with their
 *     own timeout outcome, and calls entering during the wait are refused with A2A_CLOSED.
 * Every wait is bounded. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

/* `n` copies of one small event, each whole (so every successful feed of the chunk
 * completes exactly `n` events whatever came before). Caller frees. */
static uint8_t *events_chunk(size_t n, size_t *len) {
  static const char ev[] = "event: message\ndata: {\"kind\":\"status-update\",\"final\":false}\n\n";
  size_t el = sizeof ev - 1, i;
  uint8_t *buf = (uint8_t *)malloc(n * el);
  if (buf == NULL) return NULL;
  for (i = 0; i < n; i++) memcpy(buf + i * el, ev, el);
  *len = n * el;
  return buf;
}

/* What each feeding thread did. `stop` (under `mu`) ends the small feeder's loop. */
struct feeder {
  a2a_sse_decoder *d;
  const uint8_t *chunk;
  size_t len, events;
  unsigned long rounds, ok, in_use, wrong;
  pthread_mutex_t *mu;
  int *stop;
};

/* Feeds its chunk `rounds` times (refused feeds are retried; bounded by the try count). */
static void *feed_rounds(void *arg) {
  struct feeder *f = (struct feeder *)arg;
  unsigned long tries = 0;
  while (f->ok < f->rounds && tries++ < 50000000UL) {
    a2a_sse_packed p;
    a2a_result r = a2a_sse_decoder_feed_packed(f->d, f->chunk, f->len, &p);
    if (r == A2A_OK) {
      f->ok++;
      if (p.event_count != f->events) f->wrong++;
    } else if (r == A2A_IN_USE) {
      f->in_use++;
    } else {
      f->wrong++;
    }
  }
  pthread_mutex_lock(f->mu);
  *f->stop = 1;
  pthread_mutex_unlock(f->mu);
  return NULL;
}

/* Feeds its small chunk until the other thread is done (bounded by a deadline). */
static void *feed_until_stopped(void *arg) {
  struct feeder *f = (struct feeder *)arg;
  double deadline = now_s() + 60.0;
  for (;;) {
    a2a_sse_packed p;
    a2a_result r;
    int stop;
    pthread_mutex_lock(f->mu);
    stop = *f->stop;
    pthread_mutex_unlock(f->mu);
    if (stop || now_s() > deadline) break;
    r = a2a_sse_decoder_feed_packed(f->d, f->chunk, f->len, &p);
    if (r == A2A_OK) {
      f->ok++;
      if (p.event_count != f->events) f->wrong++;
    } else if (r == A2A_IN_USE) {
      f->in_use++;
    } else {
      f->wrong++;
    }
  }
  return NULL;
}

static void test_decoder_shared_by_two_threads(void) {
  size_t big_len = 0, small_len = 0;
  uint8_t *big = events_chunk(2000, &big_len), *small = events_chunk(1, &small_len);
  a2a_sse_decoder *d = NULL;
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  int stop = 0;
  struct feeder a, b;
  pthread_t ta, tb;
  a2a_sse_packed p;
  a2a_sse_finish fin;

  CHECK(big != NULL && small != NULL);
  if (big == NULL || small == NULL) return;
  CHECK(a2a_sse_decoder_new_with(1 << 20, 1 << 20, A2A_SSE_AT_EOF_DISCARD, &d) == A2A_OK);
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.d = b.d = d;
  a.mu = b.mu = &mu;
  a.stop = b.stop = &stop;
  a.chunk = big, a.len = big_len, a.events = 2000, a.rounds = 100;
  b.chunk = small, b.len = small_len, b.events = 1;
  CHECK(pthread_create(&tb, NULL, feed_until_stopped, &b) == 0);
  CHECK(pthread_create(&ta, NULL, feed_rounds, &a) == 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  printf("decoder shared by two threads: %lu + %lu feeds let in, %lu + %lu refused (A2A_IN_USE)\n",
         a.ok, b.ok, a.in_use, b.in_use);
  CHECK(a.ok == 100);
  /* Every feed let in decoded exactly its own chunk's events; the rest were refused. */
  CHECK(a.wrong == 0 && b.wrong == 0);
  CHECK(a.in_use + b.in_use > 0);
  /* The decoder is intact: one more event, then a clean end. */
  CHECK(a2a_sse_decoder_feed_packed(d, small, small_len, &p) == A2A_OK && p.event_count == 1);
  CHECK(a2a_sse_decoder_finish(d, &fin) == A2A_OK && !fin.discarded && !fin.has_event);
  a2a_sse_decoder_free(d);
  free(big);
  free(small);
}

/* One (accepted) feed of a big chunk, then `done` (the thread never touches the decoder again). */
struct one_feed {
  a2a_sse_decoder *d;
  const uint8_t *chunk;
  size_t len, events;
  a2a_result rc;
  pthread_mutex_t mu;
  int done;
};

static void *feed_once(void *arg) {
  struct one_feed *f = (struct one_feed *)arg;
  a2a_sse_packed p;
  unsigned long tries = 0;
  /* Refused while the main thread's probe is inside: fed again (nothing was decoded). */
  do {
    f->rc = a2a_sse_decoder_feed_packed(f->d, f->chunk, f->len, &p);
  } while (f->rc == A2A_IN_USE && tries++ < 100000000UL);
  if (f->rc == A2A_OK) f->events = p.event_count;
  pthread_mutex_lock(&f->mu);
  f->done = 1;
  pthread_mutex_unlock(&f->mu);
  return NULL;
}

static void test_decoder_freed_during_a_feed(void) {
  size_t big_len = 0, small_len = 0;
  uint8_t *big = events_chunk(20000, &big_len), *small = events_chunk(1, &small_len);
  int attempt, freed_inside = 0;

  CHECK(big != NULL && small != NULL);
  if (big == NULL || small == NULL) return;
  /* Retried until the free lands while the feed is inside (seen as A2A_IN_USE). */
  for (attempt = 0; attempt < 50 && !freed_inside; attempt++) {
    struct one_feed f;
    pthread_t t;
    a2a_sse_decoder *d = NULL;
    memset(&f, 0, sizeof f);
    pthread_mutex_init(&f.mu, NULL);
    CHECK(a2a_sse_decoder_new_with(1 << 20, 1 << 20, A2A_SSE_AT_EOF_DISCARD, &d) == A2A_OK);
    f.d = d, f.chunk = big, f.len = big_len;
    CHECK(pthread_create(&t, NULL, feed_once, &f) == 0);
    for (;;) {
      a2a_sse_packed p;
      int done;
      pthread_mutex_lock(&f.mu);
      done = f.done;
      pthread_mutex_unlock(&f.mu);
      if (done) break;
      if (a2a_sse_decoder_feed_packed(d, small, small_len, &p) == A2A_IN_USE) {
        a2a_sse_decoder_free(d); /* waits for the feed inside */
        d = NULL;
        freed_inside = 1;
        break;
      }
    }
    pthread_join(t, NULL);
    if (d != NULL) a2a_sse_decoder_free(d);
    /* The feed completed whole, freed under or not. */
    CHECK(f.rc == A2A_OK && f.events == 20000);
    pthread_mutex_destroy(&f.mu);
  }
  printf("decoder freed during a feed: after %d attempt(s)\n", attempt);
  CHECK(freed_inside);
  free(big);
  free(small);
}

/* --- a client freed under load ----------------------------------------------------- */

static char url_buf[512];

static const char *url(const char *base, const char *path) {
  snprintf(url_buf, sizeof url_buf, "%s%s", base, path);
  return url_buf;
}

/* The fault server's count of message/send calls that reached its `hang` scenario, or -1. */
static long hang_sends(a2a_client *raw, const char *base) {
  static const char key[] = "\"sends\":";
  a2a_raw_response *r = NULL;
  a2a_bytes body;
  size_t i, k = sizeof key - 1;
  long n = -1;
  url(base, "/_counters/hang");
  if (a2a_client_exchange(raw, "GET", 3, url_buf, strlen(url_buf), NULL, 0, NULL, 0, 5000, NULL,
                          &r, NULL) != A2A_OK)
    return -1;
  body = a2a_raw_response_body(r);
  /* The counters come before the (long) list of requests seen: the first match is it. */
  for (i = 0; body.ptr != NULL && i + k < body.len; i++) {
    if (memcmp(body.ptr + i, key, k) == 0) {
      n = 0;
      for (i += k; i < body.len && body.ptr[i] >= '0' && body.ptr[i] <= '9'; i++)
        n = n * 10 + (body.ptr[i] - '0');
      break;
    }
  }
  a2a_raw_response_free(r);
  return n;
}

struct caller {
  a2a_client *c;
  a2a_result rc;
  a2a_outcome *o;
};

static void *call_hang(void *arg) {
  struct caller *k = (struct caller *)arg;
  k->rc = a2a_client_send_text(k->c, "hold", 4, NULL, &k->o);
  return NULL;
}

static void *free_client(void *arg) {
  a2a_client_free((a2a_client *)arg);
  return NULL;
}

static void no_headers(void *userdata, const char *method, size_t method_len,
                       a2a_header_setter *setter) {
  (void)userdata, (void)method, (void)method_len, (void)setter;
}

#define CALLERS 4
/* Each held call ends by this timeout; the probes below stay well inside it. */
#define CALL_TIMEOUT_MS 4000

static void test_client_freed_under_load(const char *base) {
  a2a_client_config cfg;
  a2a_client *raw = NULL, *c = NULL;
  struct caller k[CALLERS];
  pthread_t t[CALLERS], freer;
  long before, sends = -1;
  double t0, probe_until;
  int i, closed_seen = 0;
  a2a_outcome *late = NULL;

  CHECK(a2a_client_config_default(&cfg) == A2A_OK);
  cfg.allow_http = true;
  cfg.connect_timeout_ms = 2000;
  CHECK(a2a_client_new_raw(&cfg, &raw) == A2A_OK);
  before = hang_sends(raw, base);
  CHECK(before >= 0);
  cfg.call_timeout_ms = CALL_TIMEOUT_MS;
  url(base, "/hang/a2a");
  CHECK(a2a_client_new_with_target(url_buf, strlen(url_buf), A2A_PROTOCOL_VERSION_V0_3,
                                   A2A_BINDING_JSON_RPC, &cfg, &c) == A2A_OK);
  /* No call can end before t0 + CALL_TIMEOUT_MS: the client stays alive until then. */
  t0 = now_s();
  probe_until = t0 + (CALL_TIMEOUT_MS - 1500) / 1000.0;
  memset(k, 0, sizeof k);
  for (i = 0; i < CALLERS; i++) {
    k[i].c = c;
    CHECK(pthread_create(&t[i], NULL, call_hang, &k[i]) == 0);
  }
  /* Every call is inside the client once the server has counted its request. */
  while (now_s() < t0 + 15.0) {
    sends = hang_sends(raw, base);
    if (sends >= before + CALLERS) break;
    sleep_ms(10);
  }
  CHECK(sends >= before + CALLERS);
  CHECK(pthread_create(&freer, NULL, free_client, c) == 0);
  /* While the free waits, the client refuses new work: add_header_hook says A2A_IN_USE
   * (calls inside) until the free has marked it closing, then A2A_CLOSED, as every call. */
  while (now_s() < probe_until) {
    a2a_result r = a2a_client_add_header_hook(c, no_headers, NULL);
    CHECK(r == A2A_IN_USE || r == A2A_CLOSED);
    if (r == A2A_CLOSED) {
      closed_seen = 1;
      break;
    }
    sleep_ms(1);
  }
  if (now_s() < probe_until) {
    CHECK(a2a_client_send_text(c, "late", 4, NULL, &late) == A2A_CLOSED);
    CHECK(late == NULL);
  }
  printf("client freed under load: A2A_CLOSED %s %.2f s after the calls started\n",
         closed_seen ? "seen" : "NOT seen", now_s() - t0);
  CHECK(closed_seen);
  pthread_join(freer, NULL); /* returns once the held calls have timed out */
  for (i = 0; i < CALLERS; i++) {
    a2a_outcome_info info;
    pthread_join(t[i], NULL);
    /* Each call ran to its own end: a transport timeout outcome, not a crash. */
    CHECK(k[i].rc == A2A_OK && k[i].o != NULL);
    if (k[i].o == NULL) continue;
    info = t_info(k[i].o);
    CHECK(info.channel == A2A_CHANNEL_TRANSPORT);
    CHECK(info.has_error_name && info.error_name == A2A_ERROR_NAME_TIMEOUT);
    a2a_outcome_free(k[i].o);
  }
  a2a_client_free(raw);
}

void test_concurrency(void) {
  const char *base = getenv("A2A_TEST_FAULT_URL");
  test_decoder_shared_by_two_threads();
  test_decoder_freed_during_a_feed();
  /* No skipping: the runner (scripts/ci/30-c.sh) starts the fault server. */
  CHECK(base != NULL && base[0] != '\0');
  if (base == NULL || base[0] == '\0') return;
  test_client_freed_under_load(base);
}
