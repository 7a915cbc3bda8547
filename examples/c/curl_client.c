/*
 * curl_client: libcurl drives a2a-core's client machine through the C ABI.
 *
 *   curl_client URL send TEXT     resolve the agent card at URL, send TEXT, print the
 *                                 answer's text
 *   curl_client URL stream TEXT   the same as a stream: print each item's text as it
 *                                 arrives, then the end state ("end: completed")
 *
 * The exit status is the outcome's CLI exit code (0 success, 3 transport / HTTP /
 * malformed, 4 protocol error, 5 failed, 6 canceled / rejected / input or auth required,
 * 7 still running; docs/outcomes.md); 2 for a usage error.
 *
 * libcurl moves the bytes (easy interface: header and write callbacks hand the response
 * to the machine as it arrives); the machine decides everything else: the card's
 * interface, the request, the deadlines (CURLOPT_CONNECTTIMEOUT_MS from connect_by_ms,
 * CURLOPT_TIMEOUT_MS from deadline_ms for a non-streaming call, and for a stream the idle
 * deadline checked in the transfer-progress callback), when to abort and what the answer
 * means. Plain http is accepted for http:// URLs (local agents and test servers).
 *
 * Build: cc -std=c99 -Iinclude examples/c/curl_client.c -Ltarget/debug -la2a_core -lcurl
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "a2a_core.h"

/* The host's monotonic clock in milliseconds: the machine's only notion of time. */
static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_until(uint64_t at) {
  uint64_t now = now_ms();
  struct timespec ts;
  if (at <= now) return;
  ts.tv_sec = (time_t)((at - now) / 1000u);
  ts.tv_nsec = (long)((at - now) % 1000u) * 1000000L;
  nanosleep(&ts, NULL);
}

/* Prints a view (never NUL-terminated) followed by `end`. */
static void put(FILE *f, a2a_str v, const char *end) {
  if (v.ptr != NULL) fwrite(v.ptr, 1, v.len, f);
  fputs(end, f);
}

/* One call being driven, and the request in flight. */
struct drive {
  a2a_call *call;
  int card_fetch;     /* the call resolves the card (its FINISHED makes the state) */
  int streaming;      /* print items; say the end state */
  int finished;       /* FINISHED was polled */
  int exit_code;      /* its exit code */
  uint32_t request;   /* the request in flight (0: none) */
  int aborted;        /* the machine asked to drop it */
  int head_given;     /* its head was handed in */
  a2a_header headers[64];
  char *header_text[64];
  size_t header_count;
  a2a_client_state *resolved_state; /* card fetch: the state it resolved to */
  const a2a_machine_config *config;
};

static void report_outcome(const a2a_outcome *o) {
  a2a_outcome_info info;
  if (o == NULL || a2a_outcome_get_info(o, &info) != A2A_OK) return;
  fputs("error: ", stderr);
  put(stderr, a2a_vocab_name(A2A_VOCAB_CHANNEL, info.channel), "");
  if (info.has_state) {
    fputs("/", stderr);
    put(stderr, a2a_vocab_name(A2A_VOCAB_TASK_STATE, info.state), "");
  }
  if (info.has_error_name) {
    fputs("/", stderr);
    put(stderr, a2a_vocab_name(A2A_VOCAB_ERROR_NAME, info.error_name), "");
  }
  if (info.has_http_status) fprintf(stderr, " (HTTP %u)", (unsigned)info.http_status);
  if (info.message.ptr != NULL) {
    fputs(": ", stderr);
    put(stderr, info.message, "");
  }
  fputs("\n", stderr);
}

/* Acts on every event the machine has now. */
static void drain(struct drive *d) {
  a2a_event e;
  a2a_outcome_info info;
  while (!d->finished && a2a_call_poll_event(d->call, &e) == A2A_OK) {
    switch (e.kind) {
    case A2A_EVENT_KIND_ABORT:
      if (e.request_id == d->request) d->aborted = 1;
      break;
    case A2A_EVENT_KIND_RETRYING:
      fprintf(stderr, "retrying (attempt %u in %llu ms)\n", (unsigned)e.attempt,
              (unsigned long long)e.delay_ms);
      break;
    case A2A_EVENT_KIND_RESUBSCRIBING:
      fputs("resubscribing to ", stderr);
      put(stderr, e.task_id, "\n");
      break;
    case A2A_EVENT_KIND_ITEM:
      if (e.answer_text.ptr != NULL) put(stdout, e.answer_text, "\n");
      fflush(stdout);
      break;
    case A2A_EVENT_KIND_FINISHED:
      d->finished = 1;
      d->exit_code = e.exit_code;
      if (d->card_fetch) {
        if (e.outcome != NULL) {
          report_outcome(e.outcome);
        } else if (a2a_client_state_from_card(d->config, d->call, (uint64_t)time(NULL) ^ now_ms(),
                                              &d->resolved_state) != A2A_OK) {
          d->exit_code = 3;
        }
        break;
      }
      if (a2a_outcome_get_info(e.outcome, &info) != A2A_OK) {
        d->exit_code = 3;
        break;
      }
      if (d->streaming) {
        fputs("end: ", stdout);
        if (info.has_state)
          put(stdout, a2a_vocab_name(A2A_VOCAB_TASK_STATE, info.state), "\n");
        else
          put(stdout, a2a_vocab_name(A2A_VOCAB_CHANNEL, info.channel), "\n");
        if (e.dropped_events + e.unreadable_events > 0)
          fprintf(stderr, "content lost: %u dropped, %u unreadable events\n",
                  (unsigned)e.dropped_events, (unsigned)e.unreadable_events);
      } else if (e.answer_text.ptr != NULL) {
        put(stdout, e.answer_text, "\n");
      }
      if (e.exit_code != 0) report_outcome(e.outcome);
      break;
    }
  }
}

static void clear_headers(struct drive *d) {
  size_t i;
  for (i = 0; i < d->header_count; i++) free(d->header_text[i]);
  d->header_count = 0;
}

/* Header lines: collected until the blank line ending a final (not 1xx) head. */
static size_t on_header(char *line, size_t size, size_t n, void *user) {
  struct drive *d = user;
  size_t total = size * n, len = total, name_len, k;
  char *copy, *colon;
  if (d->aborted || d->finished) return 0;
  if (len >= 5 && memcmp(line, "HTTP/", 5) == 0) { /* a status line: a new head */
    clear_headers(d);
    return total;
  }
  if (len <= 2 && (line[0] == '\r' || line[0] == '\n'))
    return total; /* the head is handed in at the first body byte or at the end */
  colon = memchr(line, ':', len);
  if (colon == NULL || d->header_count == sizeof d->headers / sizeof d->headers[0]) return total;
  copy = malloc(len + 1);
  if (copy == NULL) return 0;
  memcpy(copy, line, len);
  copy[len] = '\0';
  while (len > 0 && (copy[len - 1] == '\r' || copy[len - 1] == '\n')) copy[--len] = '\0';
  name_len = (size_t)(colon - line);
  k = name_len + 1;
  while (k < len && (copy[k] == ' ' || copy[k] == '\t')) k++;
  d->header_text[d->header_count] = copy;
  d->headers[d->header_count].name = copy;
  d->headers[d->header_count].name_len = name_len;
  d->headers[d->header_count].value = copy + k;
  d->headers[d->header_count].value_len = len - k;
  d->header_count++;
  return total;
}

/* Hands in the head once (status from libcurl, headers collected). */
static int give_head(struct drive *d, CURL *easy) {
  long status = 0;
  if (d->head_given) return 1;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200) return 0;
  d->head_given = 1;
  if (a2a_call_handle_head(d->call, d->request, (uint16_t)status, d->headers, d->header_count,
                           now_ms()) != A2A_OK)
    return 0;
  drain(d);
  return !d->aborted && !d->finished;
}

struct body_ctx {
  struct drive *d;
  CURL *easy;
};

static size_t on_body(char *data, size_t size, size_t n, void *user) {
  struct body_ctx *b = user;
  size_t len = size * n;
  if (!give_head(b->d, b->easy)) return 0;
  if (a2a_call_handle_body(b->d->call, b->d->request, (const uint8_t *)data, len, now_ms()) != A2A_OK)
    return 0;
  drain(b->d);
  /* Returning less than len makes libcurl drop the connection: what ABORT asks for. */
  return b->d->aborted || b->d->finished ? 0 : len;
}

/* Called by libcurl during the transfer (at least about once a second): the machine's
   deadlines (a stream's head and idle deadlines, a retry's wait) are checked here. */
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow) {
  struct drive *d = user;
  uint64_t at = 0, now = now_ms();
  (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
  if (a2a_call_poll_timeout(d->call, &at) && now >= at) {
    a2a_call_handle_timeout(d->call, now);
    drain(d);
  }
  return d->aborted || d->finished;
}

static uint32_t failure_name(CURLcode rc) {
  switch (rc) {
  case CURLE_COULDNT_RESOLVE_HOST: return A2A_ERROR_NAME_DNS;
  case CURLE_COULDNT_CONNECT: return A2A_ERROR_NAME_CONNECT_FAILED;
  case CURLE_OPERATION_TIMEDOUT: return A2A_ERROR_NAME_TIMEOUT;
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION: return A2A_ERROR_NAME_TLS;
  default: return A2A_ERROR_NAME_RESET;
  }
}

/* Performs one transmit with libcurl and hands the machine what happened. */
static void perform(struct drive *d, const a2a_transmit *t) {
  CURL *easy = curl_easy_init();
  struct curl_slist *headers = NULL;
  struct body_ctx b;
  char url[4096], line[8192];
  uint64_t now = now_ms();
  size_t i;
  CURLcode rc;
  long sent = 0;
  d->request = t->request_id;
  d->aborted = 0;
  d->head_given = 0;
  clear_headers(d);
  if (easy == NULL || t->url.len >= sizeof url) {
    a2a_call_handle_failure(d->call, t->request_id, A2A_ERROR_NAME_RESET, false, "curl setup", 10, now);
    if (easy != NULL) curl_easy_cleanup(easy);
    return;
  }
  memcpy(url, t->url.ptr, t->url.len);
  url[t->url.len] = '\0';
  for (i = 0; i < t->headers_len; i++) {
    snprintf(line, sizeof line, "%.*s: %.*s", (int)t->headers[i].name_len, t->headers[i].name,
             (int)t->headers[i].value_len, t->headers[i].value);
    headers = curl_slist_append(headers, line);
  }
  headers = curl_slist_append(headers, "Expect:");
  b.d = d;
  b.easy = easy;
  curl_easy_setopt(easy, CURLOPT_URL, url);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  if (t->method.len == 4 && memcmp(t->method.ptr, "POST", 4) == 0) {
    /* The body view stays valid until the next poll_transmit: no copy needed. */
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, t->body.ptr != NULL ? (const char *)t->body.ptr : "");
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)t->body.len);
  } else if (t->method.len == 6 && memcmp(t->method.ptr, "DELETE", 6) == 0) {
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, "DELETE");
  }
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, d);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &b);
  curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(easy, CURLOPT_XFERINFODATA, d);
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   (long)(t->connect_by_ms > now ? t->connect_by_ms - now : 1));
  if (!d->streaming)
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)(t->deadline_ms > now ? t->deadline_ms - now : 1));

  rc = curl_easy_perform(easy);
  now = now_ms();
  if (!d->aborted && !d->finished) {
    if (rc == CURLE_OK) {
      if (give_head(d, easy)) a2a_call_handle_end(d->call, d->request, now);
    } else if (rc == CURLE_OPERATION_TIMEDOUT && now + 5 >= t->deadline_ms) {
      /* libcurl enforced the machine's own deadline: let the machine say so. */
      a2a_call_handle_timeout(d->call, t->deadline_ms > now ? t->deadline_ms : now);
    } else {
      curl_easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &sent);
      a2a_call_handle_failure(d->call, d->request, failure_name(rc), sent > 0 || d->head_given,
                              curl_easy_strerror(rc), strlen(curl_easy_strerror(rc)), now);
    }
  }
  drain(d);
  d->request = 0;
  clear_headers(d);
  curl_slist_free_all(headers);
  curl_easy_cleanup(easy);
}

/* Drives a call to its FINISHED event; returns its exit code. */
static int run(struct drive *d) {
  a2a_transmit t;
  uint64_t at;
  int rounds;
  for (rounds = 0; rounds < 10000 && !d->finished; rounds++) {
    while (!d->finished && a2a_call_poll_transmit(d->call, now_ms(), &t) == A2A_OK) perform(d, &t);
    drain(d);
    if (d->finished) break;
    if (a2a_call_poll_timeout(d->call, &at)) {
      sleep_until(at);
      a2a_call_handle_timeout(d->call, now_ms());
    }
  }
  return d->finished ? d->exit_code : 3;
}

int main(int argc, char **argv) {
  const char *url, *mode, *text;
  a2a_client_config_builder *builder;
  a2a_machine_config *config = NULL;
  struct drive d;
  int code;
  if (argc != 4 || (strcmp(argv[2], "send") != 0 && strcmp(argv[2], "stream") != 0)) {
    fprintf(stderr, "usage: %s URL send|stream TEXT\n", argv[0]);
    return 2;
  }
  url = argv[1];
  mode = argv[2];
  text = argv[3];
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return 3;
  builder = a2a_client_config_builder_new();
  a2a_client_config_builder_set(builder, A2A_CLIENT_OPTION_ALLOW_HTTP, strncmp(url, "http://", 7) == 0);
  if (a2a_client_config_builder_build(builder, &config) != A2A_OK) return 3;
  a2a_client_config_builder_free(builder);

  /* 1. The agent card, through the machine. */
  memset(&d, 0, sizeof d);
  d.config = config;
  d.card_fetch = 1;
  if (a2a_call_new_card_fetch(config, url, strlen(url), &d.call) != A2A_OK) return 3;
  code = run(&d);
  a2a_call_free(d.call);
  if (code != 0 || d.resolved_state == NULL) {
    a2a_machine_config_free(config);
    curl_global_cleanup();
    return code != 0 ? code : 3;
  }

  /* 2. The message, on the interface the card named. */
  {
    a2a_client_state *state = d.resolved_state;
    memset(&d, 0, sizeof d);
    d.config = config;
    d.streaming = strcmp(mode, "stream") == 0;
    if (a2a_call_new_text(state, d.streaming, text, strlen(text), NULL, now_ms(), &d.call) != A2A_OK)
      return 3;
    code = run(&d);
    a2a_call_free(d.call);
    a2a_client_state_free(state);
  }
  a2a_machine_config_free(config);
  curl_global_cleanup();
  return code;
}
