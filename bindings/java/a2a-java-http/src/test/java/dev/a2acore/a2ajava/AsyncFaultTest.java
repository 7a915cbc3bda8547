package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.a2acore.A2aClient;
import dev.a2acore.Channel;
import dev.a2acore.ClientStream;
import dev.a2acore.ClientStreamEvent;
import dev.a2acore.ErrorName;
import dev.a2acore.HeaderHookException;
import dev.a2acore.Outcome;
import dev.a2acore.StreamEndKind;
import dev.a2acore.StreamItem;
import dev.a2acore.StreamItemKind;
import dev.a2acore.TaskState;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The asynchronous client (client machine on java.net.http) against the project's
 * {@code a2a-testkit fault-server}: the same outcomes as the blocking reference driver for
 * each fault, a 502 sent once, the hung call and the silent stream ended at the configured
 * timeouts, a stream cut and resubscribed, header hooks, and cancellation against a hung
 * server (the future and the subscription end the exchange at once, never as a success; a
 * blocking call on the machine returns Canceled when its thread is interrupted).
 */
class AsyncFaultTest {
    private static ProjectFaultServer server;

    @BeforeAll
    static void start() throws Exception {
        server = ProjectFaultServer.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static A2aClient.Builder builder(String scenario) {
        return A2aClient.builder(server.url + "/" + scenario).allowHttp(true).connectTimeout(Duration.ofSeconds(2))
            .callTimeout(Duration.ofSeconds(10)).streamIdleTimeout(Duration.ofSeconds(5));
    }

    private static String describe(Outcome o) {
        return o.channel() + "/" + o.state().map(Enum::name).orElse("-") + "/"
            + o.errorName().map(Enum::name).orElse("-") + "/" + (o.httpStatus().isPresent() ? String.valueOf(o.httpStatus().getAsInt()) : "-")
            + "/" + o.retry() + "/exit " + o.exitCode();
    }

    /** The same fault gives the same outcome on the driver, on the machine async, and on the machine blocking. */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "ok, hello",
        "ok, fail now",
        "status-502, hi",
        "status-503, hi",
        "status-500-rpc, hi",
        "rpc-error, hi",
        "html200, hi",
        "html502, hi",
        "status-401, hi",
        "badutf8, hi",
        "parts, hi",
    })
    void asyncOutcomesEqualBlocking(String scenario, String text) throws Exception {
        Outcome blocking;
        try (A2aClient c = builder(scenario).build()) {
            blocking = c.send(text);
        }
        Outcome async;
        try (A2aClient c = builder(scenario).build()) {
            async = c.sendAsync(text).get(30, TimeUnit.SECONDS);
        }
        Outcome onMachine;
        try (A2aClient c = builder(scenario).httpClient(HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER).version(HttpClient.Version.HTTP_1_1).build()).build()) {
            onMachine = c.send(text);
        }
        assertEquals(describe(blocking), describe(async), blocking + "\n" + async);
        assertEquals(describe(blocking), describe(onMachine), blocking + "\n" + onMachine);
        // The same answer (the server numbers each task: ids differ).
        assertEquals(blocking.result().map(a -> a.kind() + ":" + a.text()), async.result().map(a -> a.kind() + ":" + a.text()));
        assertEquals(blocking.modelPrefix(), async.modelPrefix());
    }

    @Test
    void aGatewayErrorIsSentOnce() throws Exception {
        int before = server.counters("status-502").path("sends").asInt();
        try (A2aClient c = builder("status-502").sendRetries(2).build()) {
            Outcome o = c.sendAsync("book seat 14C").get(30, TimeUnit.SECONDS);
            assertEquals(502, o.httpStatus().getAsInt(), o.toString());
            assertTrue(o.modelText("booking").orElseThrow().startsWith("REMOTE_UNKNOWN booking: HTTP 502"), o.toString());
        }
        assertEquals(before + 1, server.counters("status-502").path("sends").asInt(), "sent once, never resent");
    }

    @Test
    void aHungCallEndsAtTheCallTimeout() throws Exception {
        try (A2aClient c = builder("hang").callTimeout(Duration.ofSeconds(1)).build()) {
            long t0 = System.nanoTime();
            Outcome o = c.sendAsync("hello").get(20, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(ErrorName.TIMEOUT, o.errorName().orElseThrow(), o.toString());
            assertFalse(o.isSuccess());
            assertTrue(ms >= 900 && ms < 5_000, "ended at the 1 s call timeout, took " + ms + " ms");
        }
    }

    @Test
    void aSilentStreamEndsAtTheIdleTimeout() throws Exception {
        try (A2aClient c = builder("stall").streamIdleTimeout(Duration.ofSeconds(1)).build()) {
            long t0 = System.nanoTime();
            List<ClientStreamEvent> events = Collect.all(c.streamAsync("hello"), 20);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
            assertEquals(StreamEndKind.TIMED_OUT, end.endKind().orElseThrow(), end.toString());
            assertFalse(end.outcome().isSuccess(), end.toString());
            assertTrue(ms < 10_000, "bounded by the idle timeout, took " + ms + " ms");
        }
    }

    /**
     * java.net.http does not decode a body; the fault server compresses the stream although
     * identity was asked (gzip of stored blocks, the events' text visible inside): the machine
     * refuses it as malformed instead of reading the compressed bytes as events.
     */
    @Test
    void aStreamStillGzipCompressedIsRefusedNotReadAsEvents() throws Exception {
        try (A2aClient c = builder("gzip").build()) {
            List<ClientStreamEvent> events = Collect.all(c.streamAsync("hello"), 20);
            assertFalse(events.stream().anyMatch(e -> e instanceof ClientStreamEvent.Item), events.toString());
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
            assertEquals(Channel.MALFORMED, end.outcome().channel(), end.toString());
            assertTrue(end.outcome().message().orElse("").contains("gzip"), end.toString());
        }
    }

    /**
     * A subscriber slower than the idle timeout while the server keeps sending: once it holds
     * the most items the body is paused for, the server's bytes wait unread, and the idle
     * deadline that passes then is settled when reading resumes, not cut as idle with them
     * waiting. A silent server still ends the stream timed out.
     */
    @ParameterizedTest
    @CsvSource({"false", "true"})
    void aSlowSubscriberReadsWhatCameMeanwhile(boolean blocking) throws Exception {
        try (A2aClient c = builder("flow-10-2000").streamIdleTimeout(Duration.ofMillis(300)).build()) {
            List<ClientStreamEvent> events = slowly(c, 1500, blocking);
            assertFalse(events.stream().anyMatch(e -> e instanceof ClientStreamEvent.Resubscribing), events.toString());
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
            assertEquals(StreamEndKind.COMPLETED, end.endKind().orElseThrow(), end.toString());
            assertTrue(events.size() > 100, events.size() + " events");
        }
        try (A2aClient c = builder("stall").streamIdleTimeout(Duration.ofMillis(300)).build()) {
            List<ClientStreamEvent> events = slowly(c, 1000, blocking);
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
            assertEquals(StreamEndKind.TIMED_OUT, end.endKind().orElseThrow(), end.toString());
        }
    }

    /**
     * A subscriber slow on every item, while the server's last events came 50 ms apart and
     * then nothing (the connection stays open): they arrive together and wait in the HTTP
     * stack's buffers, not on the socket. Each is read and the stream completes.
     */
    @ParameterizedTest
    @CsvSource({"false", "true"})
    void aSubscriberSlowOnEveryItemReadsWhatItsHttpStackHolds(boolean blocking) throws Exception {
        try (A2aClient c = builder("flow-50-200").streamIdleTimeout(Duration.ofMillis(200)).build()) {
            List<ClientStreamEvent> events = slowly(c, 350, blocking, true);
            assertFalse(events.stream().anyMatch(e -> e instanceof ClientStreamEvent.Resubscribing), events.toString());
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
            assertEquals(StreamEndKind.COMPLETED, end.endKind().orElseThrow(), end.toString());
            assertTrue(events.size() >= 6, events.size() + " events");
        }
    }

    private static List<ClientStreamEvent> slowly(A2aClient c, long holdMs, boolean blocking) throws Exception {
        return slowly(c, holdMs, blocking, false);
    }

    /**
     * Streams with a subscriber that holds the first item (every item with {@code everyItem})
     * for {@code holdMs} (asking for the next one later, or {@code blocking} in its onNext),
     * then takes one at a time.
     */
    private static List<ClientStreamEvent> slowly(A2aClient c, long holdMs, boolean blocking, boolean everyItem)
            throws Exception {
        List<ClientStreamEvent> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        c.streamAsync("go").subscribe(new Flow.Subscriber<>() {
            Flow.Subscription s;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                this.s = s;
                s.request(1);
            }

            @Override
            public void onNext(ClientStreamEvent e) {
                got.add(e);
                boolean slow = got.size() == 1 || (everyItem && !(e instanceof ClientStreamEvent.End));
                if (slow && blocking) {
                    try {
                        Thread.sleep(holdMs);
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    }
                    s.request(1);
                } else if (slow) {
                    CompletableFuture.delayedExecutor(holdMs, TimeUnit.MILLISECONDS).execute(() -> s.request(1));
                } else {
                    s.request(1);
                }
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                done.complete(null);
            }
        });
        done.get(30, TimeUnit.SECONDS);
        return got;
    }

    @Test
    void aCutStreamIsResubscribed() throws Exception {
        try (A2aClient c = builder("stream-drop").streamResubscribeAttempts(2).build()) {
            List<ClientStreamEvent> events = Collect.all(c.streamAsync("hello"), 30);
            assertTrue(events.stream().anyMatch(e -> e instanceof ClientStreamEvent.Resubscribing), events.toString());
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
            assertEquals(TaskState.COMPLETED, end.outcome().state().orElseThrow(), end.toString());
            assertEquals(1, end.resubscribes(), end.toString());
        }
    }

    @Test
    void headerHooksRunOnTheMachine() throws Exception {
        try (A2aClient c = builder("secured").headerHook((m, h) -> h.set("Authorization", "Bearer t")).build()) {
            Outcome o = c.sendAsync("hello").get(30, TimeUnit.SECONDS);
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
        }
        try (A2aClient c = builder("secured").build(); A2aClient d = builder("secured").build()) {
            Outcome o = c.sendAsync("hello").get(30, TimeUnit.SECONDS);
            assertFalse(o.isSuccess(), o.toString());
            assertEquals(describe(d.send("hello")), describe(o), "no credentials: as the driver says");
        }
        try (A2aClient c = builder("ok").headerHook((m, h) -> {
            throw new IllegalStateException("vault down");
        }).build()) {
            ExecutionException e = assertThrows(ExecutionException.class,
                () -> c.sendAsync("hello").get(30, TimeUnit.SECONDS));
            HeaderHookException h = assertInstanceOf(HeaderHookException.class, e.getCause());
            assertEquals("vault down", h.getCause().getMessage());
        }
    }

    @Test
    void cancellingTheFutureEndsAHungCallAtOnce() throws Exception {
        try (A2aClient c = builder("hang").build()) {
            CompletableFuture<Outcome> f = c.sendAsync("hello");
            Thread.sleep(300);
            assertFalse(f.isDone(), "the hung call is still waiting");
            long t0 = System.nanoTime();
            assertTrue(f.cancel(true));
            assertThrows(CancellationException.class, () -> f.get(5, TimeUnit.SECONDS));
            assertTrue(f.isCancelled());
            assertTrue((System.nanoTime() - t0) / 1_000_000 < 2_000);
            // The client stays usable after a cancel.
            try (A2aClient ok = builder("ok").build()) {
                assertEquals(TaskState.COMPLETED, ok.sendAsync("after").get(30, TimeUnit.SECONDS).state().orElseThrow());
            }
        }
    }

    @Test
    void cancellingTheSubscriptionEndsASilentStream() throws Exception {
        try (A2aClient c = builder("stall").streamIdleTimeout(Duration.ofSeconds(30)).build()) {
            Collect sub = new Collect();
            c.streamAsync("hello").subscribe(sub);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (sub.events.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(sub.events.size() >= 2, "submitted and working arrived: " + sub.events);
            sub.subscription.cancel();
            Thread.sleep(500);
            assertFalse(sub.done.isDone(), "nothing is signalled after cancel");
            assertTrue(sub.events.stream().noneMatch(e -> e instanceof ClientStreamEvent.End), sub.events.toString());
        }
    }

    @Test
    void anInterruptedBlockingCallOnTheMachineReturnsCanceled() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (A2aClient c = builder("hang").httpClient(http).build()) {
            AtomicReference<Outcome> result = new AtomicReference<>();
            AtomicReference<Boolean> flag = new AtomicReference<>();
            Thread t = new Thread(() -> {
                result.set(c.send("hello"));
                flag.set(Thread.currentThread().isInterrupted());
            });
            t.start();
            Thread.sleep(300);
            long t0 = System.nanoTime();
            t.interrupt();
            t.join(5_000);
            assertFalse(t.isAlive(), "the blocking call returned after the interrupt");
            assertTrue((System.nanoTime() - t0) / 1_000_000 < 2_000);
            Outcome o = result.get();
            assertEquals(Channel.TRANSPORT, o.channel(), o.toString());
            assertEquals(ErrorName.RESET, o.errorName().orElseThrow(), o.toString());
            assertTrue(o.toString().contains("canceled by the caller"), o.toString());
            assertFalse(o.isSuccess());
            assertTrue(flag.get(), "the interrupt status is kept");
        }
        try (A2aClient c = builder("stall").httpClient(http).build()) {
            AtomicReference<ClientStreamEvent.End> end = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try (ClientStream s = c.stream("hello")) {
                    end.set(s.drain());
                }
            });
            t.start();
            Thread.sleep(500);
            t.interrupt();
            t.join(5_000);
            assertFalse(t.isAlive());
            assertTrue(end.get().outcome().toString().contains("canceled by the caller"), end.get().toString());
            assertFalse(end.get().outcome().isSuccess());
        }
    }

    /** Flow rule 3.9: a non-positive request is an error, not a hang. */
    @Test
    void aNonPositiveRequestIsAnError() throws Exception {
        try (A2aClient c = builder("ok").build()) {
            CompletableFuture<Throwable> err = new CompletableFuture<>();
            c.streamAsync("hello").subscribe(new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription s) {
                    s.request(0);
                }

                @Override
                public void onNext(ClientStreamEvent item) {}

                @Override
                public void onError(Throwable t) {
                    err.complete(t);
                }

                @Override
                public void onComplete() {
                    err.complete(null);
                }
            });
            assertInstanceOf(IllegalArgumentException.class, err.get(10, TimeUnit.SECONDS));
        }
    }
}
