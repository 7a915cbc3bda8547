package dev.a2acore.a2ajava;

import dev.a2acore.ErrorName;
import dev.a2acore.Outcome;
import dev.a2acore.Outcomes;
import dev.a2acore.RequestSent;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ProxySelector;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The drop-in's byte mover for streams, the card's GET and REST calls: the JDK's
 * {@link HttpClient} (as the stock a2a-java client uses), redirects never followed (a 3xx is
 * a response), every status a response, the call deadline up to the response head (a plain
 * exchange: to its last byte), bodies bounded, and a stream's body read chunk by chunk with a
 * per-read idle deadline. Transport failures carry a2a-core's transport {@link Outcome} (what
 * failed, whether the request may have gone out). Thread-safe.
 */
final class JdkHttp {
    /** Headers {@code java.net.http} writes itself and refuses from the caller. */
    private static final Set<String> RESTRICTED = Set.of("connection", "content-length", "expect", "host", "upgrade");

    private final HttpClient client;
    private final Duration connectTimeout;

    /**
     * The executor of every drop-in's HttpClient: as many daemon threads as CPUs (2 to 8),
     * gone after 30 s idle, tasks queued beyond them. The JDK's default is a cached pool per
     * client, which a burst of streams grows by a thread per overlapping task, each about
     * 100 KiB of touched stack while it stays parked. Bounded is safe because nothing run on
     * it waits: the HttpClient's own tasks, a stream's chunk processing ({@link Stream#process},
     * the machine and the decoder, no a2a-java code) and the hand-off of a response head to
     * {@code SseCall}'s readers; a2a-java's callbacks run on those readers, never here.
     */
    private static final java.util.concurrent.ExecutorService WORKERS;

    static {
        int n = Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors()));
        java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.ThreadPoolExecutor w = new java.util.concurrent.ThreadPoolExecutor(n, n, 30,
            TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "a2a-core-http-" + count.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        w.allowCoreThreadTimeOut(true);
        WORKERS = w;
    }

    JdkHttp(Duration connectTimeout, SSLContext ssl, ProxySelector proxy) {
        this.connectTimeout = connectTimeout;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER).version(HttpClient.Version.HTTP_1_1).executor(WORKERS);
        if (ssl != null) {
            b.sslContext(ssl);
        }
        if (proxy != null) {
            b.proxy(proxy);
        }
        client = b.build();
    }

    /** A failure in transport (connect, timeout, reset, idle cut, abort, body over the limit). */
    static final class TransportException extends IOException {
        private static final long serialVersionUID = 1L;
        private final transient Outcome outcome;

        TransportException(Outcome outcome, Throwable cause) {
            super(outcome.message().orElse("transport failure"), cause);
            this.outcome = outcome;
        }

        /** a2a-core's {@code transport} outcome. */
        Outcome outcome() {
            return outcome;
        }
    }

    /** A response (header names lower-cased, in arrival order); the body empty for an open event stream. */
    record Response(int status, List<Map.Entry<String, String>> headers, byte[] body) {
        /** The first value of header {@code name} (case-insensitive). */
        Optional<String> header(String name) {
            return headers.stream().filter(e -> e.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue)
                .findFirst();
        }
    }

    private static TransportException failure(ErrorName name, RequestSent sent, String message, Throwable cause) {
        return new TransportException(Outcomes.transport(name, sent, message), cause);
    }

    /** The transport outcome of what {@code java.net.http} threw ({@code headSeen}: a response head arrived). */
    private TransportException failure(Throwable err, boolean headSeen, String what) {
        Throwable t = err;
        while ((t instanceof ExecutionException || t instanceof java.util.concurrent.CompletionException)
            && t.getCause() != null) {
            t = t.getCause();
        }
        String m = t.getClass().getSimpleName() + ": " + t.getMessage();
        if (has(t, HttpConnectTimeoutException.class)) {
            return failure(ErrorName.TIMEOUT, RequestSent.NO,
                what + ": connect timeout after " + connectTimeout.toMillis() + " ms", t);
        }
        if (has(t, UnresolvedAddressException.class) || has(t, UnknownHostException.class)) {
            return failure(ErrorName.DNS, RequestSent.NO, what + ": " + m, t);
        }
        if (has(t, ConnectException.class)) {
            return failure(ErrorName.CONNECT_FAILED, RequestSent.NO, what + ": connection refused (" + m + ")", t);
        }
        if (has(t, SSLException.class) && !headSeen) {
            return failure(ErrorName.TLS, RequestSent.NO, what + ": TLS failed (" + m + ")", t);
        }
        if (has(t, HttpTimeoutException.class)) {
            return failure(ErrorName.TIMEOUT, RequestSent.UNKNOWN, what + ": call timeout (no response head)", t);
        }
        return failure(ErrorName.RESET, RequestSent.UNKNOWN, what + ": " + m, t);
    }

    private static boolean has(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private HttpRequest request(String method, String url, List<Map.Entry<String, String>> headers, byte[] body,
                                Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout)
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        for (Map.Entry<String, String> h : headers) {
            if (!RESTRICTED.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                b.header(h.getKey(), h.getValue());
            }
        }
        return b.build();
    }

    /**
     * Sends one request and reads the whole response (BLOCKS, bounded by {@code timeout},
     * head and body; a body over {@code maxBytes} fails).
     */
    Response exchange(String method, String url, List<Map.Entry<String, String>> headers, byte[] body,
                      Duration timeout, long maxBytes) throws TransportException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Stream s = open(method, url, headers, body, timeout, maxBytes, null)) {
            if (s.isEventStream()) {
                // Read whole: a plain exchange has no idle rule, only its deadline.
                byte[] b = s.readAll(deadline, maxBytes);
                return new Response(s.head().status(), s.head().headers(), b);
            }
            return s.head();
        }
    }

    /**
     * Sends a request and returns once the response head arrived (BLOCKS, bounded by
     * {@code timeout}); a response that is not a 2xx {@code text/event-stream} is read whole
     * (within the same deadline) into the head's body. {@code onOpen} (null for none) gets
     * the stream before the request goes out, so another thread can {@link Stream#abort} it.
     */
    Stream open(String method, String url, List<Map.Entry<String, String>> headers, byte[] body, Duration timeout,
                long maxBytes, java.util.function.Consumer<Stream> onOpen) throws TransportException, InterruptedException {
        Opening o = begin(method, url, headers, body, timeout, onOpen);
        Stream s = o.stream();
        CompletableFuture<HttpResponse.ResponseInfo> f = o.head();
        long deadline = o.deadline();
        HttpResponse.ResponseInfo r;
        try {
            r = f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            s.pending.cancel(true);
            throw failure(ErrorName.TIMEOUT, RequestSent.UNKNOWN, s.what + ": call timeout after "
                + timeout.toMillis() + " ms (no response head)", e);
        } catch (CancellationException e) {
            throw failure(ErrorName.RESET, RequestSent.UNKNOWN, s.what + ": aborted", e);
        } catch (ExecutionException e) {
            throw failure(e, false, s.what);
        } catch (InterruptedException e) {
            s.pending.cancel(true);
            throw e;
        }
        return opened(s, r, deadline, maxBytes);
    }

    /**
     * An open whose head is awaited without a thread ({@link #begin}, then {@link #finish}):
     * {@code head} completes on the HttpClient's thread as the response head arrives, or
     * exceptionally when the request fails before it.
     */
    record Opening(Stream stream, CompletableFuture<HttpResponse.ResponseInfo> head, long deadline, Duration timeout) {}

    /**
     * {@link #open} without waiting: sends the request and returns at once; once
     * {@link Opening#head} is done, or its deadline (nanoTime) passed, {@link #finish}
     * returns what {@code open} would have.
     */
    Opening begin(String method, String url, List<Map.Entry<String, String>> headers, byte[] body, Duration timeout,
                  java.util.function.Consumer<Stream> onOpen) throws TransportException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Stream s = new Stream(method + " " + url);
        if (onOpen != null) {
            onOpen.accept(s);
        }
        HttpRequest req = request(method, url, headers, body, timeout);
        // The head is signalled by the body handler, on the HttpClient's thread, not by the
        // future sendAsync returns: the JDK completes that future through CompletableFuture's
        // default async executor, which is a new thread per task wherever the common pool
        // has fewer than two threads (one or two CPUs). The future completes once the body
        // has ended (Stream#getBody), so a stream costs that task at its end, as with the
        // stock client's line subscriber, not a thread start at its head.
        CompletableFuture<HttpResponse<Stream>> f = client.sendAsync(req, info -> {
            s.headSeen.complete(info);
            return s;
        });
        s.pending = f;
        f.whenComplete((r, err) -> {
            if (err != null) {
                s.headSeen.completeExceptionally(err);
            }
        });
        if (s.aborted) {
            f.cancel(true);
        }
        return new Opening(s, s.headSeen, deadline, timeout);
    }

    /**
     * The rest of {@link #open} for {@code o}, whose head is done or whose deadline passed
     * (then a {@code Timeout}); a body that is not an event stream is read whole here (BLOCKS).
     */
    Stream finish(Opening o, long maxBytes) throws TransportException, InterruptedException {
        Stream s = o.stream();
        CompletableFuture<HttpResponse.ResponseInfo> f = o.head();
        if (!f.isDone()) {
            s.pending.cancel(true);
            throw failure(ErrorName.TIMEOUT, RequestSent.UNKNOWN, s.what + ": call timeout after "
                + o.timeout().toMillis() + " ms (no response head)", null);
        }
        HttpResponse.ResponseInfo r;
        try {
            r = f.get();
        } catch (CancellationException e) {
            throw failure(ErrorName.RESET, RequestSent.UNKNOWN, s.what + ": aborted", e);
        } catch (ExecutionException e) {
            throw failure(e, false, s.what);
        }
        return opened(s, r, o.deadline(), maxBytes);
    }

    /** The stream {@code s} once its head {@code r} arrived (a body not an event stream read whole). */
    private static Stream opened(Stream s, HttpResponse.ResponseInfo r, long deadline, long maxBytes)
        throws TransportException, InterruptedException {
        List<Map.Entry<String, String>> h = new ArrayList<>();
        r.headers().map().forEach((k, vs) -> {
            for (String v : vs) {
                h.add(Map.entry(k.toLowerCase(Locale.ROOT), v));
            }
        });
        int status = r.statusCode();
        String ct = h.stream().filter(e -> e.getKey().equals("content-type")).map(Map.Entry::getValue).findFirst()
            .orElse(null);
        s.eventStream = status >= 200 && status <= 299 && Outcomes.isEventStream(ct);
        byte[] whole = new byte[0];
        if (!s.eventStream) {
            try {
                whole = s.readAll(deadline, maxBytes);
            } catch (TransportException | RuntimeException | InterruptedException e) {
                s.close();
                throw e;
            }
        }
        s.head = new Response(status, List.copyOf(h), whole);
        return s;
    }

    /**
     * Asks for a stream's next chunks when its reader freed room and nothing was in flight
     * (JdkHttp.Stream#take): the HttpClient may deliver them on the asking thread, so not the
     * reader's. Daemon threads made on demand, gone after 30 s idle.
     */
    private static final java.util.concurrent.ExecutorService DEMAND = new java.util.concurrent.ThreadPoolExecutor(
        0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new java.util.concurrent.SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "a2a-core-http-demand");
            t.setDaemon(true);
            return t;
        });

    /** How long an aborted body that delivers nothing more waits before its subscription is cancelled. */
    private static final long CUT_AFTER_MS = 1_000;

    /**
     * Cancels the subscription of an aborted body that delivered nothing more within
     * {@link #CUT_AFTER_MS} (a stalled server): one daemon thread, made on first use.
     */
    private static final java.util.concurrent.ScheduledExecutorService CUTTER;

    static {
        java.util.concurrent.ScheduledThreadPoolExecutor c = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "a2a-core-http-cut");
            t.setDaemon(true);
            return t;
        });
        c.setRemoveOnCancelPolicy(true);
        CUTTER = c;
    }

    /** An end-of-body or failure marker in a stream's queue. */
    private record Mark(Throwable error) {}

    private static final Mark END = new Mark(null);

    /** {@link Stream#takeNow}'s answer when nothing is queued. */
    static final Object NONE = new Object();

    /**
     * An open response: its head, and for an event stream the body read chunk by chunk. Not
     * thread-safe, except {@link #abort}, which may be called from another thread while a
     * {@link #read} or the open blocks. No body bytes are asked for before the first read,
     * {@link #readAll} or {@link #process}: a chunk processor set then sees every chunk.
     */
    static final class Stream implements HttpResponse.BodySubscriber<Stream>, AutoCloseable {
        /** Chunks requested ahead of the reader (the HttpClient's buffers it may hold). */
        private static final int WINDOW = 8;
        /** A read joins the chunks already received up to about this many bytes. */
        private static final int JOIN_LIMIT = 64 * 1024;
        private final String what;
        private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        private volatile Flow.Subscription subscription;
        /** Guards the first request for body bytes against {@link #onSubscribe} (either may come first). */
        private final Object demand = new Object();
        /** The reader asked for the body (first read or {@link #process}); under {@link #demand}. */
        private boolean wanted;
        /** The window was requested from the subscription; under {@link #demand}. */
        private boolean requested;
        /** Turns each chunk into what the reader takes, on the HttpClient's thread (null: the bytes). */
        private volatile java.util.function.Function<byte[], Object> processor;
        /**
         * {@link #take}'s demand, as credits that always add up to {@link #WINDOW}: asked of
         * the HttpClient and not yet delivered ({@code inFlight}), queued, or taken by the
         * reader and not yet asked again ({@code freed}). Freed credits are asked again from
         * the HttpClient's own thread at its next chunk, or, when nothing is in flight, from
         * {@link #DEMAND} ({@code kicking}: one such request pending): never from the reader,
         * on whose thread the HttpClient would deliver the next chunks, processor and all.
         */
        private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
        private final java.util.concurrent.atomic.AtomicInteger freed = new java.util.concurrent.atomic.AtomicInteger();
        private final java.util.concurrent.atomic.AtomicBoolean kicking = new java.util.concurrent.atomic.AtomicBoolean();
        private volatile CompletableFuture<?> pending;
        /** The response head, from the body handler; exceptional when the request failed before it. */
        private final CompletableFuture<HttpResponse.ResponseInfo> headSeen = new CompletableFuture<>();
        /** {@link #getBody}: completed once the body is over (ended, failed or cut). */
        private final CompletableFuture<Stream> bodyDone = new CompletableFuture<>();
        private volatile boolean aborted;
        /**
         * The HttpClient delivered the body's end: it has the connection back in its pool,
         * and a cancel now would close it under the next request.
         */
        private volatile boolean complete;
        /** The subscription of the aborted body was cancelled (guarded by {@code demand}). */
        private boolean cut;
        private boolean over;
        private Response head;
        private boolean eventStream;

        Stream(String what) {
            this.what = what;
        }

        /** Status and headers; the whole body when the response is not an event stream. */
        Response head() {
            return head;
        }

        /** Whether the response is a 2xx {@code text/event-stream} read with {@link #read}. */
        boolean isEventStream() {
            return eventStream;
        }

        /** Completes once the body is over (see {@code begin}: not at the head). */
        @Override
        public CompletionStage<Stream> getBody() {
            return bodyDone;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            synchronized (demand) {
                subscription = s;
                if (aborted) {
                    s.cancel();
                    return;
                }
                if (wanted && !requested) {
                    requested = true;
                    inFlight.set(WINDOW);
                    s.request(WINDOW);
                }
            }
        }

        /** Asks for the first window of body bytes (once; at once when subscribed, else on subscription). */
        private void want() {
            synchronized (demand) {
                if (wanted) {
                    return;
                }
                wanted = true;
                Flow.Subscription s = subscription;
                if (s != null && !aborted && !requested) {
                    requested = true;
                    inFlight.set(WINDOW);
                    s.request(WINDOW);
                }
            }
        }

        /**
         * Has every chunk of the body turned by {@code p} on the HttpClient's thread as it
         * arrives (before any is read), so that work runs beside the reader's; {@link #take}
         * then returns what {@code p} made of each, in order, still at most {@link #WINDOW}
         * chunks ahead of the reader. {@code p} must not throw.
         */
        void process(java.util.function.Function<byte[], Object> p) {
            processor = p;
            want();
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            if (aborted) {
                cut(); // on the HttpClient's delivery: before it could pool the connection
                return;
            }
            int n = 0;
            for (ByteBuffer b : item) {
                n += b.remaining();
            }
            byte[] out = new byte[n];
            int at = 0;
            for (ByteBuffer b : item) {
                int len = b.remaining();
                b.get(out, at, len);
                at += len;
            }
            java.util.function.Function<byte[], Object> p = processor;
            if (p == null) {
                put(out);
                return;
            }
            inFlight.decrementAndGet();
            put(p.apply(out));
            askFreed();
        }

        /** Asks the HttpClient again for the credits the reader freed (see {@link #inFlight}). */
        private void askFreed() {
            int f = freed.getAndSet(0);
            Flow.Subscription s = subscription;
            if (f > 0 && s != null && !aborted) {
                inFlight.addAndGet(f);
                s.request(f);
            }
        }

        @Override
        public void onError(Throwable t) {
            put(new Mark(t));
            bodyDone.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            complete = true;
            put(END);
            bodyDone.complete(this);
        }

        /**
         * The next bytes of the body (BLOCKS at most {@code idle}), or null once the body
         * ended cleanly.
         *
         * @throws TransportException on an idle cut ({@code Timeout}), a broken connection or
         *     an abort ({@code Reset})
         */
        byte[] read(Duration idle) throws TransportException {
            want();
            while (true) {
                if (over) {
                    return null;
                }
                Object o = next(idle);
                if (o instanceof byte[] b) {
                    // The chunks already here go out as one: one machine feed and one SSE
                    // decode for what arrived together.
                    int taken = 1;
                    if (queue.peek() instanceof byte[]) {
                        java.io.ByteArrayOutputStream joined = new java.io.ByteArrayOutputStream(2 * b.length + 256);
                        joined.write(b, 0, b.length);
                        while (joined.size() < JOIN_LIMIT && queue.peek() instanceof byte[]) {
                            byte[] next = (byte[]) queue.poll();
                            joined.write(next, 0, next.length);
                            taken++;
                        }
                        b = joined.toByteArray();
                    }
                    Flow.Subscription s = subscription;
                    if (s != null && !aborted) {
                        s.request(taken);
                    }
                    if (b.length == 0) {
                        continue;
                    }
                    return b;
                }
                return ended((Mark) o);
            }
        }

        /**
         * What {@link #process}'s function made of the next chunk (BLOCKS at most
         * {@code idle}), one chunk per call, or null once the body ended cleanly; failures as
         * {@link #read}'s.
         */
        Object take(Duration idle) throws TransportException {
            want();
            if (over) {
                return null;
            }
            return taken(next(idle));
        }

        /** {@link #take}'s bookkeeping for the entry {@code o} taken off the queue. */
        private Object taken(Object o) throws TransportException {
            if (o instanceof Mark m) {
                return ended(m);
            }
            freed.incrementAndGet();
            if (inFlight.get() == 0 && kicking.compareAndSet(false, true)) {
                // Nothing in flight, so no chunk will come to ask again: ask off this thread.
                DEMAND.execute(() -> {
                    kicking.set(false);
                    askFreed();
                });
            }
            return o;
        }

        /**
         * {@link #take} without waiting: what the processing function made of the next chunk,
         * null once the body ended cleanly, or {@link #NONE} when nothing is queued (then
         * {@link #onArrival} says when something is).
         */
        Object takeNow() throws TransportException {
            want();
            if (over) {
                return null;
            }
            Object o = queue.poll();
            if (o == null) {
                return NONE;
            }
            return taken(o);
        }

        /**
         * Runs {@code r} once, on the thread that queues the next entry (a chunk, the end,
         * a failure or an abort), or at once when one is queued already: a reader that found
         * nothing ({@link #takeNow}) holds no thread while it waits.
         */
        void onArrival(Runnable r) {
            waiter.set(r);
            if (!queue.isEmpty()) {
                Runnable w = waiter.getAndSet(null);
                if (w != null) {
                    w.run();
                }
            }
        }

        /** The reader waiting for the next entry ({@link #onArrival}), or null. */
        private final java.util.concurrent.atomic.AtomicReference<Runnable> waiter =
            new java.util.concurrent.atomic.AtomicReference<>();

        /** Queues an entry for the reader and wakes it when it waits without a thread. */
        private void put(Object o) {
            queue.add(o);
            Runnable w = waiter.getAndSet(null);
            if (w != null) {
                w.run();
            }
        }

        /**
         * The queue's next entry (a chunk, what the processing function made of one, or the
         * end marker), waiting at most {@code idle}.
         *
         * @throws TransportException {@code Timeout} when nothing came within {@code idle},
         *     {@code Reset} when the waiting thread was interrupted
         */
        private Object next(Duration idle) throws TransportException {
            Object o;
            try {
                o = queue.poll(idle.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failure(ErrorName.RESET, RequestSent.UNKNOWN, what + ": interrupted", e);
            }
            if (o == null) {
                throw failure(ErrorName.TIMEOUT, RequestSent.UNKNOWN, what + ": stream idle for more than "
                    + idle.toMillis() + " ms", null);
            }
            return o;
        }

        /** The body's end marker: null for a clean end, else the failure. */
        private byte[] ended(Mark m) throws TransportException {
            over = true;
            if (m.error() == null && !aborted) {
                return null;
            }
            if (aborted) {
                throw failure(ErrorName.RESET, RequestSent.UNKNOWN, what + ": aborted", m.error());
            }
            throw failure(ErrorName.RESET, RequestSent.UNKNOWN, what + ": connection broken while reading the body ("
                + m.error().getClass().getSimpleName() + ": " + m.error().getMessage() + ")", m.error());
        }

        /** The whole remaining body, by {@code deadline} (nanoTime) and within {@code maxBytes}. */
        private byte[] readAll(long deadline, long maxBytes) throws TransportException, InterruptedException {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    abort();
                    throw failure(ErrorName.TIMEOUT, RequestSent.UNKNOWN, what + ": call timeout (body not complete)",
                        null);
                }
                byte[] b;
                try {
                    b = read(Duration.ofNanos(left));
                } catch (TransportException e) {
                    if (e.outcome().errorName().orElse(null) == ErrorName.TIMEOUT) {
                        abort();
                        throw failure(ErrorName.TIMEOUT, RequestSent.UNKNOWN,
                            what + ": call timeout (body not complete)", e);
                    }
                    throw e;
                }
                if (Thread.interrupted()) {
                    abort();
                    throw new InterruptedException();
                }
                if (b == null) {
                    return out.toByteArray();
                }
                if (out.size() + (long) b.length > maxBytes) {
                    abort();
                    throw failure(ErrorName.RESPONSE_TOO_LARGE, RequestSent.UNKNOWN, what + ": response body over "
                        + maxBytes + " bytes", null);
                }
                out.write(b, 0, b.length);
            }
        }

        /** Aborts the request or stream; a read or open blocked in another thread returns. Any thread. */
        void abort() {
            aborted = true;
            Flow.Subscription s = subscription;
            if (s != null) {
                // Once the body is subscribed, the future is left alone, and the subscription
                // is cancelled only from the HttpClient's own delivery (onNext), never from
                // here: the JDK client returns the connection to its pool before it calls
                // onComplete, and the future's cancel, or a cancel in between, closes the
                // pooled connection under the next request that took it ("HTTP/1.1 header
                // parser received no bytes"). Asking for more makes the HttpClient deliver
                // what it has (on this thread when idle): the next chunk cancels, the end
                // completes. A body that delivers nothing is cut after CUT_AFTER_MS.
                if (!complete) {
                    s.request(Long.MAX_VALUE);
                    if (!complete && !cut) {
                        CUTTER.schedule(this::cut, CUT_AFTER_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
                    }
                }
            } else {
                CompletableFuture<?> f = pending;
                if (f != null) {
                    f.cancel(true);
                }
            }
            put(new Mark(new CancellationException("aborted")));
        }

        /** Cancels the subscription of an aborted body that is still open (once). */
        private void cut() {
            synchronized (demand) {
                if (cut || complete) {
                    return;
                }
                cut = true;
            }
            subscription.cancel();
            bodyDone.complete(this); // nothing more comes after a cancel
        }

        /** Closes the stream (its connection, unless the body was read to its end). */
        @Override
        public void close() {
            if (!over && !complete) {
                Flow.Subscription s = subscription;
                if (s != null) {
                    aborted = true;
                    s.request(Long.MAX_VALUE); // cut by the next chunk, or later: see abort
                    if (!complete && !cut) {
                        CUTTER.schedule(this::cut, CUT_AFTER_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
                    }
                } else {
                    CompletableFuture<?> f = pending;
                    if (f != null && !f.isDone()) {
                        f.cancel(true);
                    }
                }
            }
        }
    }
}
