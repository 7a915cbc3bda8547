package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.a2acore.ErrorName;
import dev.a2acore.RequestSent;
import dev.a2acore.RetryAdvice;
import io.a2a.A2A;
import io.a2a.client.Client;
import io.a2a.client.http.JdkA2AHttpClient;
import io.a2a.spec.A2AClientException;
import io.a2a.spec.TaskState;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fault cases of issue 7 against the project's own fault-injecting server
 * ({@code a2a-testkit fault-server}: scenarios {@code multiline}, {@code hang}, {@code stall},
 * {@code redirect}), through a2a-java 0.3.2's {@link Client} + {@code JSONRPCTransport}, with
 * the stock {@link JdkA2AHttpClient} and with {@link A2aCoreHttpClient} side by side.
 */
class ProjectFaultServerTest {
    private static final Duration CALL = Duration.ofMillis(600);
    private static final Duration IDLE = Duration.ofMillis(600);
    private static final long STOCK_WATCH_MS = 3_000;

    private static ProjectFaultServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool();

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

    @AfterEach
    void shutdownPool() {
        pool.shutdownNow();
    }

    private static A2aCoreHttpClient ours() {
        return A2aCoreHttpClient.builder().connectTimeout(Duration.ofSeconds(2)).callTimeout(CALL)
            .streamIdleTimeout(IDLE).build();
    }

    @Test
    void multilineStockLosesEverythingOursGetsAll() throws Exception {
        String url = server.rpc("multiline");
        Recorder stock = new Recorder().send(Recorder.client(new JdkA2AHttpClient(), url, true), "hello");
        assertTrue(stock.awaitEnd(10_000), "stock client: stream never ended");
        // Every event is split over several data: lines: the first line `{"id":"7",` is
        // dropped as unparsable, the second, `"jsonrpc":"2.0",`, reads as a JSON string and
        // the listener throws "Unknown message type": no event at all reaches the caller.
        assertEquals(0, stock.events.size(), "stock client events: " + stock.events);
        assertInstanceOf(IllegalArgumentException.class, stock.endError());

        Recorder ours = new Recorder().send(Recorder.client(ours(), url, true), "hello");
        assertTrue(ours.awaitEnd(10_000), "our client: stream never ended");
        assertEquals(null, ours.endError(), "our client error: " + ours.endError());
        assertEquals(4, ours.events.size(), "our client events: " + ours.events);
        assertTrue(ours.sawState(TaskState.WORKING));
        assertTrue(ours.sawState(TaskState.COMPLETED));
    }

    @Test
    void hangStockWaitsOursTimesOut() throws Exception {
        String url = server.rpc("hang");
        long before = server.counters("hang").path("messages").asLong();
        Future<?> stockCall = pool.submit(() -> {
            Recorder.client(new JdkA2AHttpClient(), url, false).sendMessage(A2A.toUserMessage("hi"), null);
            return null;
        });
        assertTrue(Recorder.eventually(5_000, () -> {
            try {
                return server.counters("hang").path("messages").asLong() == before + 1;
            } catch (Exception e) {
                return false;
            }
        }), "stock request never arrived");
        Thread.sleep(STOCK_WATCH_MS);
        assertFalse(stockCall.isDone(), "stock client returned although the server never answered");

        Client ourClient = Recorder.client(ours(), url, false);
        long t1 = System.nanoTime();
        A2AClientException e = assertThrows(A2AClientException.class,
            () -> ourClient.sendMessage(A2A.toUserMessage("hi"), null));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1);
        assertTrue(ms >= CALL.toMillis() - 50 && ms < CALL.toMillis() + 1_500, "took " + ms + " ms");
        A2aCallException cause = A2aCallException.find(e).orElseThrow(() -> new AssertionError("no cause", e));
        assertEquals(ErrorName.TIMEOUT, cause.errorName());
        assertEquals(Optional.of(RequestSent.UNKNOWN), cause.requestSent());
        assertEquals(RetryAdvice.UNKNOWN_OUTCOME, cause.retry());
        assertFalse(stockCall.isDone(), "stock client returned although the server never answered");
        stockCall.cancel(true);
    }

    @Test
    void stallStockSilentOursIdleTimeout() throws Exception {
        String url = server.rpc("stall");
        Recorder stock = new Recorder().send(Recorder.client(new JdkA2AHttpClient(), url, true), "hi");
        assertTrue(Recorder.eventually(5_000, () -> stock.events.size() == 2), "stock: " + stock.events);
        assertFalse(stock.awaitEnd(STOCK_WATCH_MS), "stock client ended the stalled stream: " + stock.signals);

        Recorder ours = new Recorder().send(Recorder.client(ours(), url, true), "hi");
        assertTrue(ours.awaitEnd(IDLE.toMillis() + 3_000), "our client did not end the stalled stream");
        assertEquals(2, ours.events.size(), "our client events: " + ours.events);
        A2aCallException cause = A2aCallException.find(ours.endError())
            .orElseThrow(() -> new AssertionError("not ours: " + ours.endError()));
        assertEquals(ErrorName.TIMEOUT, cause.errorName());
        assertEquals(Optional.of(A2aCallException.Deadline.STREAM_IDLE), cause.deadline());
        assertEquals(RetryAdvice.RESUBSCRIBE, cause.retry());
        assertTrue(cause.outcome().taskId().isPresent(), "task id known: " + cause.outcome());
        assertFalse(stock.end.isDone(), "stock client ended the stalled stream: " + stock.signals);
    }

    @Test
    void redirectStockFollowsOursRefuses() throws Exception {
        String url = server.rpc("redirect");
        long before = server.counters("redirect-target").path("requests").asLong();
        // Stock follows the 302 to /redirect-target/a2a (which answers 404): the caller sees
        // a 404 from a URL it never configured.
        A2AClientException stockError = assertThrows(A2AClientException.class,
            () -> Recorder.client(new JdkA2AHttpClient(), url, false).sendMessage(A2A.toUserMessage("hi"), null));
        assertEquals(before + 1, server.counters("redirect-target").path("requests").asLong(),
            "stock client did not follow the redirect");
        assertTrue(String.valueOf(stockError.getMessage()).contains("404"), stockError.getMessage());

        A2AClientException e = assertThrows(A2AClientException.class,
            () -> Recorder.client(ours(), url, false).sendMessage(A2A.toUserMessage("hi"), null));
        A2aCallException cause = A2aCallException.find(e).orElseThrow(() -> new AssertionError("no cause", e));
        assertEquals(ErrorName.REDIRECT, cause.errorName());
        assertEquals(302, cause.httpStatus().getAsInt());
        // The client machine made the call: its result carries no response headers, so the
        // Location is not known (the card's GET, outside the machine, still reports it).
        assertEquals(Optional.empty(), cause.location());
        assertEquals(RetryAdvice.NEVER, cause.retry());
        assertEquals(before + 1, server.counters("redirect-target").path("requests").asLong(),
            "our client followed the redirect");
    }
}
