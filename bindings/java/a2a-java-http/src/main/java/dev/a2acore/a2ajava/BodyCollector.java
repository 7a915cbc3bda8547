package dev.a2acore.a2ajava;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Collects a response body up to a limit; cancellable from another thread (which closes
 * the connection). With a limit of -1 it takes nothing: it cancels at once (a redirect's
 * body is never read).
 */
final class BodyCollector implements BodySubscriber<byte[]> {
    /** The body went over the limit. */
    static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge(long limit) {
            super("response body larger than " + limit + " bytes");
        }
    }

    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final long limit;
    private final Runnable onActivity;
    private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
    private volatile Flow.Subscription subscription;
    private volatile boolean cancelled;

    BodyCollector(long limit, Runnable onActivity) {
        this.limit = limit;
        this.onActivity = onActivity;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (limit < 0 || cancelled) {
            s.cancel();
            result.complete(new byte[0]);
            return;
        }
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        onActivity.run();
        for (ByteBuffer bb : item) {
            if (buf.size() + (long) bb.remaining() > limit) {
                subscription.cancel();
                result.completeExceptionally(new TooLarge(limit));
                return;
            }
            byte[] b = new byte[bb.remaining()];
            bb.get(b);
            buf.write(b, 0, b.length);
        }
    }

    @Override
    public void onError(Throwable t) {
        result.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
        result.complete(buf.toByteArray());
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }

    /** The body, once complete (or the failure). */
    CompletableFuture<byte[]> future() {
        return result;
    }

    /** Stops reading and closes the connection. */
    void cancel() {
        cancelled = true;
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }
}
