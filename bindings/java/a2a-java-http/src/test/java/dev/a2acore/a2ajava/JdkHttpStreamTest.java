package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The demand of a processed stream ({@link JdkHttp.Stream#process}, what a drop-in stream
 * reads): no body asked for before the processor is set, each chunk processed on the thread
 * that delivers it, at most the window of 8 chunks in flight or queued, and the reader's
 * take never asking for more on its own thread (the HttpClient would deliver the next chunks
 * there, processor and all): freed room is asked again by the next delivery, or, with
 * nothing in flight, from another thread.
 */
class JdkHttpStreamTest {
    /** A subscription that records each request: its size and the asking thread. */
    private static final class Recorded implements Flow.Subscription {
        final List<long[]> sizes = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new CopyOnWriteArrayList<>();

        @Override
        public void request(long n) {
            sizes.add(new long[] {n});
            threads.add(Thread.currentThread());
        }

        final List<Thread> cancels = new CopyOnWriteArrayList<>();

        @Override
        public void cancel() {
            cancels.add(Thread.currentThread());
        }

        long total() {
            return sizes.stream().mapToLong(a -> a[0]).sum();
        }
    }

    private static List<ByteBuffer> chunk(int i) {
        return List.of(ByteBuffer.wrap(("chunk " + i).getBytes(StandardCharsets.UTF_8)));
    }

    /** Waits (at most 10 s) until {@code sub} was asked for {@code total} chunks in all. */
    private static void awaitTotal(Recorded sub, long total) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sub.total() < total && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertEquals(total, sub.total());
    }

    @Test
    void processedStreamKeepsItsWindowAndNeverAsksOnTheReader() throws Exception {
        JdkHttp.Stream s = new JdkHttp.Stream("test stream");
        Recorded sub = new Recorded();
        s.onSubscribe(sub);
        assertEquals(0, sub.total(), "nothing asked for before the processor is set");
        Thread reader = Thread.currentThread();
        s.process(b -> new String(b, StandardCharsets.UTF_8) + " @" + Thread.currentThread().getName());
        assertEquals(8, sub.total(), "the first window");

        // The HttpClient delivers the whole window on its thread: each chunk processed there.
        Thread http = new Thread(() -> {
            for (int i = 0; i < 8; i++) {
                s.onNext(chunk(i));
            }
        }, "fake-http");
        http.start();
        http.join(10_000);
        assertEquals(8, sub.total(), "a full queue asks for nothing more");

        // The reader takes one: nothing is in flight, so the freed room is asked again, off its thread.
        assertEquals("chunk 0 @fake-http", s.take(Duration.ofSeconds(5)));
        awaitTotal(sub, 9);
        assertNotEquals(reader, sub.threads.get(1));
        assertEquals("a2a-core-http-demand", sub.threads.get(1).getName());

        // One more chunk fills the window again (7 queued + 1): nothing asked.
        s.onNext(chunk(8));
        assertEquals(9, sub.total());
        // The reader frees room while nothing is in flight: asked again off its thread.
        assertEquals("chunk 1 @fake-http", s.take(Duration.ofSeconds(5)));
        awaitTotal(sub, 10);
        assertNotEquals(reader, sub.threads.get(2));
        // Now one chunk is in flight: a take leaves the freed room to the next delivery, which
        // asks for it on the delivering thread.
        assertEquals("chunk 2 @fake-http", s.take(Duration.ofSeconds(5)));
        Thread http2 = new Thread(() -> s.onNext(chunk(9)), "fake-http-2");
        http2.start();
        http2.join(10_000);
        assertEquals(11, sub.total());
        assertEquals(http2, sub.threads.get(3));

        // Every chunk comes out once, in order; then the clean end.
        s.onComplete();
        for (int i = 3; i <= 9; i++) {
            Object o = s.take(Duration.ofSeconds(5));
            assertTrue(String.valueOf(o).startsWith("chunk " + i + " @"), String.valueOf(o));
        }
        assertNull(s.take(Duration.ofSeconds(5)));
        // Draining the queue asked for nothing more: 11 asked for, 10 delivered, the one in
        // flight and the 7 queued after the last request made the window of 8.
        assertEquals(11, sub.total());
    }

    /**
     * An abort never cancels the body from the aborting thread: the JDK client returns the
     * connection to its pool before it calls onComplete, and a cancel in between closes the
     * pooled connection under the next request ("HTTP/1.1 header parser received no bytes").
     * It asks for the rest instead; the next chunk cancels on the HttpClient's delivery, an
     * end cancels nothing, and a body that delivers nothing is cut after a grace period.
     */
    @Test
    void anAbortCancelsOnlyOnTheHttpClientsDelivery() throws Exception {
        // The end arrives after the abort: never cancelled.
        JdkHttp.Stream ended = new JdkHttp.Stream("ended");
        Recorded a = new Recorded();
        ended.onSubscribe(a);
        ended.abort();
        assertTrue(a.cancels.isEmpty(), "not cancelled by the abort itself");
        assertEquals(Long.MAX_VALUE, a.sizes.get(a.sizes.size() - 1)[0], "the rest is asked for");
        ended.onComplete();
        Thread.sleep(1_500);
        assertTrue(a.cancels.isEmpty(), "a body that ended is never cancelled");

        // More body arrives after the abort: cancelled there, on the delivering thread.
        JdkHttp.Stream more = new JdkHttp.Stream("more");
        Recorded b = new Recorded();
        more.onSubscribe(b);
        more.abort();
        assertTrue(b.cancels.isEmpty());
        Thread http = new Thread(() -> more.onNext(chunk(1)), "fake-http");
        http.start();
        http.join(10_000);
        assertEquals(List.of(http), b.cancels, "cancelled once, by the delivery");

        // Nothing more arrives: cut after the grace period.
        JdkHttp.Stream silent = new JdkHttp.Stream("silent");
        Recorded c = new Recorded();
        silent.onSubscribe(c);
        silent.abort();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.cancels.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(1, c.cancels.size(), "a silent body is cut");
    }

    /**
     * The body subscriber's {@code getBody} completes when the body is over, not when the head
     * arrives: the HttpClient completes sendAsync's future with it, through CompletableFuture's
     * default async executor (a thread start per task on one or two CPUs), so a stream pays
     * that at its end, as the stock client's line subscriber does, not at its head.
     */
    @Test
    void theBodyIsDoneOnlyOnceItIsOver() throws Exception {
        JdkHttp.Stream ended = new JdkHttp.Stream("ended");
        ended.onSubscribe(new Recorded());
        ended.process(b -> b);
        ended.onNext(chunk(1));
        assertFalse(ended.getBody().toCompletableFuture().isDone(), "open while the body goes on");
        ended.onComplete();
        assertSame(ended, ended.getBody().toCompletableFuture().get(1, TimeUnit.SECONDS));

        JdkHttp.Stream broken = new JdkHttp.Stream("broken");
        broken.onSubscribe(new Recorded());
        broken.onError(new java.io.IOException("reset"));
        assertTrue(broken.getBody().toCompletableFuture().isCompletedExceptionally(), "a failed body is over");

        JdkHttp.Stream aborted = new JdkHttp.Stream("aborted");
        Recorded sub = new Recorded();
        aborted.onSubscribe(sub);
        aborted.abort();
        assertFalse(aborted.getBody().toCompletableFuture().isDone(), "not over before the cut");
        Thread http = new Thread(() -> aborted.onNext(chunk(2)), "fake-http");
        http.start();
        http.join(10_000);
        assertEquals(1, sub.cancels.size());
        assertSame(aborted, aborted.getBody().toCompletableFuture().get(1, TimeUnit.SECONDS),
            "a cut body is over: nothing more comes after a cancel");
    }
}
