/* Concurrent misuse is refused, and _free waits for the calls inside (ffi/src/handle.rs),
 * with pthreads (run under ASan+UBSan and valgrind by scripts/ci/30-c.sh, which see a free
 * under a call as a use-after-free):
 *   - two threads feeding one SSE decoder: every feed that is let in decodes exactly its
 *     chunk's events, the others are refused with A2A_IN_USE;
 *   - a decoder freed while another thread is inside a feed: the feed completes;
 *   - a transport freed while four threads are inside a2a_call_run on calls held by the
 *     fault server's `hang` scenario (base URL in A2A_TEST_FAULT_URL): the free waits, the
 *     calls end with their own timeout outcome, and runs entering during the wait are
 *     refused with A2A_CLOSED.
 * Every wait is bounded. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

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
  /* Refused while the main thread's probe is inside: fed again (nothing was decoded),
   * after giving the CPU away, so that a scheduler running one thread at a time (valgrind)
   * lets the probe finish instead of starving this feed until its tries run out. */
  for (;;) {
    f->rc = a2a_sse_decoder_feed_packed(f->d, f->chunk, f->len, &p);
    if (f->rc != A2A_IN_USE || tries++ >= 100000000UL) break;
    sched_yield();
  }
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
      /* The probe got in: leave the decoder free a moment for the feed thread (the big
       * feed, once in, stays in far longer than this pause). */
      sched_yield();
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

/* --- a transport freed under load -------------------------------------------------- */

static char url_buf[512];

static const char *url(const char *base, const char *path) {
  snprintf(url_buf, sizeof url_buf, "%s%s", base, path);
  return url_buf;
}

/* `GET path` on the fault server at `base` (`http://127.0.0.1:PORT`) over a plain socket
 * (the library has no raw exchange: it only performs machine calls); the body, at most
 * `cap - 1` bytes, NUL-terminated, into `buf`. Returns 0, or -1 on any failure. Bounded by
 * a 5 s receive timeout. */
static int http_get(const char *base, const char *path, char *buf, size_t cap) {
  struct sockaddr_in addr;
  struct timeval tv;
  unsigned port = 0;
  char req[256];
  size_t got = 0;
  int fd, rc = -1;
  const char *body;
  if (sscanf(base, "http://127.0.0.1:%u", &port) != 1 || port == 0 || port > 65535) return -1;
  fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  tv.tv_sec = 5;
  tv.tv_usec = 0;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
      send(fd, req, strlen(req), 0) == (ssize_t)strlen(req)) {
    for (;;) {
      ssize_t n = recv(fd, buf + got, cap - 1 - got, 0);
      if (n <= 0) break;
      got += (size_t)n;
      if (got == cap - 1) break;
    }
    buf[got] = '\0';
    body = strstr(buf, "\r\n\r\n");
    if (body != NULL) {
      memmove(buf, body + 4, strlen(body + 4) + 1);
      rc = 0;
    }
  }
  close(fd);
  return rc;
}

/* The fault server's count of message/send calls that reached its `hang` scenario, or -1. */
static long hang_sends(const char *base) {
  static char body[65536];
  static const char key[] = "\"sends\":";
  const char *at;
  long n = 0;
  if (http_get(base, "/_counters/hang", body, sizeof body) != 0) return -1;
  /* The counters come before the (long) list of requests seen: the first match is it. */
  at = strstr(body, key);
  if (at == NULL) return -1;
  for (at += sizeof key - 1; *at >= '0' && *at <= '9'; at++) n = n * 10 + (*at - '0');
  return n;
}

struct caller {
  a2a_client_state *st;
  a2a_transport *t;
  a2a_result rc;
  int finished;
  a2a_outcome_info end;
};

/* One held send run to its end on the shared transport (no CHECK here: the counters are
 * the main thread's). */
static void *call_hang(void *arg) {
  struct caller *k = (struct caller *)arg;
  a2a_call *call = NULL;
  uint64_t now = 1000;
  int runs;
  k->rc = a2a_call_new_text(k->st, false, "hold", 4, NULL, now, &call);
  for (runs = 0; k->rc == A2A_OK && !k->finished && runs < 100; runs++) {
    a2a_event ev;
    uint64_t reached = now;
    k->rc = a2a_call_run(call, k->t, NULL, now, &reached);
    now = reached;
    while (k->rc == A2A_OK && a2a_call_poll_event(call, &ev) == A2A_OK) {
      if (ev.kind == A2A_EVENT_KIND_FINISHED) {
        k->finished = 1;
        memset(&k->end, 0, sizeof k->end);
        a2a_outcome_get_info(ev.outcome, &k->end);
        /* Its views die with the call: keep only the scalars read below. */
        k->end.message.ptr = NULL;
      }
    }
  }
  a2a_call_free(call);
  return NULL;
}

static void *free_transport(void *arg) {
  a2a_transport_free((a2a_transport *)arg);
  return NULL;
}

#define CALLERS 4
/* Each held call ends by this timeout; the probes below stay well inside it. */
#define CALL_TIMEOUT_MS 4000

/* A call that ends without I/O: its deadline (on the caller's clock) has passed. A run of
 * it on a live transport returns A2A_OK at once; on a closing one, A2A_CLOSED. */
static a2a_result probe(a2a_client_state *st, a2a_transport *t) {
  a2a_call_settings *set = a2a_call_settings_new();
  a2a_call *call = NULL;
  a2a_result r;
  CHECK(a2a_call_settings_set(set, A2A_CALL_OPTION_DEADLINE_MS, 1) == A2A_OK);
  CHECK(a2a_call_new_text(st, false, "late", 4, set, 5000, &call) == A2A_OK);
  r = a2a_call_run(call, t, NULL, 5000, NULL);
  a2a_call_free(call);
  a2a_call_settings_free(set);
  return r;
}

static void test_transport_freed_under_load(const char *base) {
  a2a_client_config_builder *b = a2a_client_config_builder_new();
  a2a_machine_config *cfg = NULL;
  a2a_transport *t = NULL;
  a2a_client_state *st;
  struct caller k[CALLERS];
  pthread_t th[CALLERS], freer;
  long before, sends = -1;
  double t0, probe_until;
  int i, closed_seen = 0;

  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_ALLOW_HTTP, 1) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_CONNECT_TIMEOUT_MS, 2000) == A2A_OK);
  CHECK(a2a_client_config_builder_set(b, A2A_CLIENT_OPTION_CALL_TIMEOUT_MS, CALL_TIMEOUT_MS) == A2A_OK);
  CHECK(a2a_client_config_builder_build(b, &cfg) == A2A_OK);
  a2a_client_config_builder_free(b);
  CHECK(a2a_transport_new(cfg, &t) == A2A_OK);
  st = t_state(cfg, url(base, "/hang/a2a"), A2A_PROTOCOL_VERSION_V0_3, A2A_BINDING_JSON_RPC);
  CHECK(probe(st, t) == A2A_OK); /* a live transport lets the probe in */
  before = hang_sends(base);
  CHECK(before >= 0);
  /* No call can end before t0 + CALL_TIMEOUT_MS: the transport stays alive until then. */
  t0 = now_s();
  probe_until = t0 + (CALL_TIMEOUT_MS - 1500) / 1000.0;
  memset(k, 0, sizeof k);
  for (i = 0; i < CALLERS; i++) {
    k[i].st = st;
    k[i].t = t;
    CHECK(pthread_create(&th[i], NULL, call_hang, &k[i]) == 0);
  }
  /* Every call is inside the transport once the server has counted its request. */
  while (now_s() < t0 + 15.0) {
    sends = hang_sends(base);
    if (sends >= before + CALLERS) break;
    sleep_ms(10);
  }
  CHECK(sends >= before + CALLERS);
  CHECK(pthread_create(&freer, NULL, free_transport, t) == 0);
  /* While the free waits, the transport refuses new runs: the probe says A2A_OK until the
   * free has marked it closing, then A2A_CLOSED. */
  while (now_s() < probe_until) {
    a2a_result r = probe(st, t);
    CHECK(r == A2A_OK || r == A2A_CLOSED);
    if (r == A2A_CLOSED) {
      closed_seen = 1;
      break;
    }
    sleep_ms(1);
  }
  printf("transport freed under load: A2A_CLOSED %s %.2f s after the calls started\n",
         closed_seen ? "seen" : "NOT seen", now_s() - t0);
  CHECK(closed_seen);
  pthread_join(freer, NULL); /* returns once the held calls have timed out */
  for (i = 0; i < CALLERS; i++) {
    pthread_join(th[i], NULL);
    /* Each call ran to its own end: a transport timeout outcome, not a crash. */
    CHECK(k[i].rc == A2A_OK && k[i].finished);
    CHECK(k[i].end.channel == A2A_CHANNEL_TRANSPORT);
    CHECK(k[i].end.has_error_name && k[i].end.error_name == A2A_ERROR_NAME_TIMEOUT);
  }
  a2a_client_state_free(st);
  a2a_machine_config_free(cfg);
}

void test_concurrency(void) {
  const char *base = getenv("A2A_TEST_FAULT_URL");
  test_decoder_shared_by_two_threads();
  test_decoder_freed_during_a_feed();
  /* No skipping: the runner (scripts/ci/30-c.sh) starts the fault server. */
  CHECK(base != NULL && base[0] != '\0');
  if (base == NULL || base[0] == '\0') return;
  test_transport_freed_under_load(base);
}
