package dev.a2acore.a2ajava;

import dev.a2acore.Asked;
import dev.a2acore.ErrorName;
import dev.a2acore.Outcome;
import dev.a2acore.Outcomes;
import dev.a2acore.RequestSent;
import dev.a2acore.SseDecoder;
import dev.a2acore.SseEvent;
import dev.a2acore.SseFinish;
import dev.a2acore.SseItem;
import dev.a2acore.StreamTracker;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One streaming call: status and content-type checks, SSE through a2a-core's decoder, the
 * idle watchdog, and exactly one terminal signal ({@code complete} or {@code error}).
 */
final class SseCall implements BodySubscriber<Void> {
    private static final int EXCERPT = 512;

    private final A2aCoreHttpClient client;
    private final String method;
    private final String url;
    private final Consumer<String> onMessage;
    private final Consumer<Throwable> onError;
    private final Runnable onComplete;
    private final CompletableFuture<Void> handle = new CompletableFuture<>();
    private final CompletableFuture<Void> body = new CompletableFuture<>();
    private final AtomicBoolean finished = new AtomicBoolean();
    private final long startNanos = System.nanoTime();
    private volatile long lastActivity = System.nanoTime();
    private volatile Flow.Subscription subscription;
    private volatile BodyCollector collector;
    private volatile ScheduledFuture<?> watchdog;
    private volatile SseDecoder decoder;
    private final StreamTracker tracker;
    private byte[] scratch = new byte[8192];

    private SseCall(A2aCoreHttpClient client, String method, String url, Asked asked, Consumer<String> onMessage,
                    Consumer<Throwable> onError, Runnable onComplete) {
        this.client = client;
        this.tracker = new StreamTracker(asked, client.streamIdleTimeout, 0);
        this.method = method;
        this.url = url;
        this.onMessage = onMessage;
        this.onError = onError;
        this.onComplete = onComplete;
    }

    static CompletableFuture<Void> start(A2aCoreHttpClient client, String method, String url, HttpRequest request,
                                         Asked asked, Consumer<String> onMessage, Consumer<Throwable> onError,
                                         Runnable onComplete) {
        SseCall call = new SseCall(client, method, url, asked, onMessage, onError, onComplete);
        // The caller (a2a-java's SSE listener) cancels this future after a final event.
        call.handle.whenComplete((v, t) -> {
            if (call.handle.isCancelled()) {
                call.cancelledByCaller();
            }
        });
        client.http.sendAsync(request, call::select).whenComplete((resp, t) -> {
            if (t != null) {
                call.fail(client.map(method, url, t));
            }
        });
        return call.handle;
    }

    /** Chooses how to read the body once the status line and headers are in. */
    private BodySubscriber<Void> select(HttpResponse.ResponseInfo info) {
        try {
            return selectChecked(info);
        } catch (RuntimeException | Error e) {
            fail(e);
            return discard();
        }
    }

    private BodySubscriber<Void> selectChecked(HttpResponse.ResponseInfo info) {
        lastActivity = System.nanoTime();
        startWatchdog();
        int status = info.statusCode();
        if (A2aCoreHttpClient.isRedirect(status)) {
            fail(A2aCallException.redirect(method, url, status, info.headers().firstValue("Location").orElse(null)));
            return discard();
        }
        if (status < 200 || status >= 300) {
            BodyCollector c = new BodyCollector(64 * 1024, this::touch);
            collector = c;
            String ct = info.headers().firstValue("Content-Type").orElse(null);
            String ra = info.headers().firstValue("Retry-After").orElse(null);
            c.future().whenComplete((b, t) -> fail(A2aCallException.httpStatus(method, url, status, ct, ra, b,
                b == null ? null : excerpt(b))));
            return HttpResponse.BodySubscribers.mapping(c, b -> null);
        }
        if (!Outcomes.isEventStream(info.headers().firstValue("Content-Type").orElse(null))) {
            // A server may answer a streaming call with one plain JSON-RPC error (the Python
            // and Java reference servers do, with HTTP 200): hand it over as one message.
            BodyCollector c = new BodyCollector(client.maxResponseBytes, this::touch);
            collector = c;
            c.future().whenComplete((b, t) -> {
                if (t != null) {
                    fail(client.map(method, url, t));
                    return;
                }
                String text = new String(b, StandardCharsets.UTF_8);
                if (!text.isBlank() && !deliver(text)) {
                    return;
                }
                complete();
            });
            return HttpResponse.BodySubscribers.mapping(c, b -> null);
        }
        decoder = new SseDecoder(client.sseConfig);
        return this;
    }

    private BodySubscriber<Void> discard() {
        return HttpResponse.BodySubscribers.mapping(new BodyCollector(-1, () -> {}), b -> null);
    }

    private static String excerpt(byte[] b) {
        String s = new String(b, 0, Math.min(b.length, EXCERPT), StandardCharsets.UTF_8).strip();
        return b.length > EXCERPT ? s + "..." : s;
    }

    private void touch() {
        lastActivity = System.nanoTime();
    }

    /** Milliseconds since the call started: the tracker's clock. */
    private long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private void startWatchdog() {
        long idle = client.streamIdleTimeout.toNanos();
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(idle / 4, TimeUnit.SECONDS.toNanos(1)));
        watchdog = A2aCoreHttpClient.WATCHDOG.scheduleAtFixedRate(this::checkIdle, period, period, TimeUnit.NANOSECONDS);
        if (finished.get()) {
            watchdog.cancel(false);
        }
    }

    private void checkIdle() {
        long now = System.nanoTime();
        if (now - lastActivity > client.streamIdleTimeout.toNanos()) {
            // The tracker's outcome knows the task: advice resubscribe when its id was seen.
            Outcome o;
            try {
                o = tracker.onTimeout(Math.max(nowMs(), tracker.nextDeadline().orElse(0))).orElse(null);
            } catch (IllegalStateException closed) {
                return;
            }
            String what = method + " " + url + ": stream idle for more than " + client.streamIdleTimeout.toMillis()
                + " ms (no bytes, not even a keep-alive)";
            fail(o == null ? client.timeout(A2aCallException.Deadline.STREAM_IDLE, what, null)
                : A2aCallException.transport(o, A2aCallException.Deadline.STREAM_IDLE, null, what));
        } else if (client.streamTimeout != null && now - startNanos > client.streamTimeout.toNanos()) {
            fail(client.timeout(A2aCallException.Deadline.CALL, method + " " + url + ": stream longer than "
                + client.streamTimeout.toMillis() + " ms (stream timeout)", null));
        }
    }

    // --- BodySubscriber for text/event-stream --------------------------------------------

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (finished.get()) {
            s.cancel();
            return;
        }
        s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        touch();
        try {
            tracker.onBytes(nowMs());
            for (ByteBuffer bb : buffers) {
                int n = bb.remaining();
                if (scratch.length < n) {
                    scratch = new byte[Math.max(n, scratch.length * 2)];
                }
                bb.get(scratch, 0, n);
                List<SseItem> items;
                synchronized (this) {
                    if (finished.get()) {
                        return;
                    }
                    items = decoder.feedItems(scratch, 0, n);
                }
                for (SseItem item : items) {
                    if (item instanceof SseEvent e) {
                        tracker.onEvent(nowMs(), e);
                        if (!deliver(e.data())) {
                            return;
                        }
                    } else if (item instanceof SseItem.LimitError l) {
                        fail(A2aCallException.transport(Outcomes.transport(ErrorName.RESPONSE_TOO_LARGE,
                            RequestSent.UNKNOWN, method + " " + url + ": SSE " + l.limit().wireName() + " of "
                                + l.bytes() + " bytes exceeded"), null, null));
                        return;
                    }
                    // Comments and retry fields: liveness only (touch() above).
                }
            }
        } catch (RuntimeException e) {
            if (!finished.get()) {
                fail(e);
            }
            return;
        }
        Flow.Subscription s = subscription;
        if (s != null && !finished.get()) {
            s.request(1);
        }
    }

    /** Hands one message to the consumer; false when the stream is over (by it or before). */
    private boolean deliver(String data) {
        if (finished.get()) {
            return false;
        }
        try {
            onMessage.accept(data);
        } catch (RuntimeException e) {
            fail(e);
            return false;
        }
        return !finished.get();
    }

    @Override
    public void onError(Throwable t) {
        fail(client.map(method, url, t));
    }

    @Override
    public void onComplete() {
        SseFinish f;
        synchronized (this) {
            if (finished.get()) {
                return;
            }
            f = decoder.finish();
        }
        if (f.discarded().map(d -> d.event() || d.partialLine() > 0).orElse(false)) {
            SseFinish.Discarded d = f.discarded().get();
            fail(A2aCallException.transport(Outcomes.transport(ErrorName.RESET, RequestSent.UNKNOWN,
                method + " " + url + ": stream ended inside an event (" + d.partialLine()
                    + " bytes of an unterminated line" + (d.event() ? ", an undispatched event" : "") + " dropped)"),
                null, null));
            return;
        }
        StreamTracker.End end = tracker.finish();
        if (end.kind() == StreamTracker.EndKind.TRUNCATED) {
            // A clean end of the body before a terminal or interrupted state: the task may
            // still be running. Say so (advice resubscribe with the task id) instead of
            // signalling a completion that a2a-java would report as success.
            fail(A2aCallException.transport(end.outcome(), null, null, method + " " + url + ": "
                + end.outcome().message().orElse("stream closed before a terminal state")));
            return;
        }
        complete();
    }

    @Override
    public CompletionStage<Void> getBody() {
        return body;
    }

    // --- terminal signals ----------------------------------------------------------------

    private void complete() {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        cleanup();
        body.complete(null);
        try {
            onComplete.run();
        } finally {
            handle.complete(null);
        }
    }

    private void fail(Throwable error) {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        cleanup();
        body.complete(null);
        try {
            onError.accept(error);
        } finally {
            handle.completeExceptionally(error);
        }
    }

    /** The caller cancelled the returned future (after a final event): a clean end. */
    private void cancelledByCaller() {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        cleanup();
        body.complete(null);
        onComplete.run();
    }

    private void cleanup() {
        ScheduledFuture<?> w = watchdog;
        if (w != null) {
            w.cancel(false);
        }
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
        BodyCollector c = collector;
        if (c != null) {
            c.cancel();
        }
        synchronized (this) {
            if (decoder != null) {
                decoder.close();
            }
        }
        tracker.close();
    }
}
