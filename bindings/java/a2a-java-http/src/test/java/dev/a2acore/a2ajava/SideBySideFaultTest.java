package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.a2acore.ErrorName;
import dev.a2acore.RequestSent;
import dev.a2acore.RetryAdvice;
import io.a2a.A2A;
import io.a2a.client.Client;
import io.a2a.client.ClientEvent;
import io.a2a.client.TaskEvent;
import io.a2a.client.http.JdkA2AHttpClient;
import io.a2a.spec.A2AClientException;
import io.a2a.spec.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The four fault cases of issue 7, each run through a2a-java 0.3.2's own {@link Client} and
 * {@code JSONRPCTransport}, once with the SDK's stock {@link JdkA2AHttpClient} and once with
 * {@link A2aCoreHttpClient}: the test asserts what the stock client does (events lost, waits
 * past the timeout, follows the redirect) and that ours gets every event or fails fast with
 * the right outcome. Loopback only; every wait bounded.
 */
class SideBySideFaultTest {
    /** Our timeouts in these tests; the stock client is watched for several times as long. */
    private static final Duration CALL = Duration.ofMillis(600);
    private static final Duration IDLE = Duration.ofMillis(600);
    private static final long STOCK_WATCH_MS = 3_000;

    private FaultServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeEach
    void start() throws Exception {
        server = new FaultServer();
    }

    @AfterEach
    void stop() {
        server.close();
        pool.shutdownNow();
    }

    private static A2aCoreHttpClient ours() {
        return A2aCoreHttpClient.builder().connectTimeout(Duration.ofSeconds(2)).callTimeout(CALL)
            .streamIdleTimeout(IDLE).build();
    }

    @Test
    void splitDataLinesStockLosesEventsOursGetsAll() throws Exception {
        String url = server.url() + "/split";

        Recorder stock = new Recorder().send(Recorder.client(new JdkA2AHttpClient(), url, true), "go");
        assertTrue(stock.awaitEnd(10_000), "stock client: stream never ended");
        // Stock 0.3.2 treats every data: line as a whole JSON message. Only the one-line
        // task snapshot survives. Of the pretty-printed events, "{" fails to parse (dropped
        // with a WARNING), and the next line, `"jsonrpc": "2.0",`, is read by Jackson as the
        // JSON string "jsonrpc" (trailing tokens ignored), which the listener rejects with
        // IllegalArgumentException("Unknown message type"): the stream ends with that
        // misleading error, and WORKING, the artifact and the final COMPLETED are lost.
        assertEquals(1, stock.events.size(), "stock client events: " + stock.events);
        assertFalse(stock.sawState(TaskState.WORKING), "stock client saw WORKING");
        assertFalse(stock.sawState(TaskState.COMPLETED), "stock client saw the final event");
        assertInstanceOf(IllegalArgumentException.class, stock.endError());
        assertEquals("Unknown message type", stock.endError().getMessage());

        Recorder ours = new Recorder().send(Recorder.client(ours(), url, true), "go");
        assertTrue(ours.awaitEnd(10_000), "our client: stream never ended");
        assertNull(ours.endError(), "our client signalled an error: " + ours.endError());
        assertEquals(4, ours.events.size(), "our client events: " + ours.events);
        assertTrue(ours.sawState(TaskState.WORKING));
        assertTrue(ours.sawState(TaskState.COMPLETED), "our client missed the final event");
        ClientEvent last = ours.events.get(3);
        assertTrue(last instanceof io.a2a.client.TaskUpdateEvent u
            && u.getTask().getArtifacts().size() == 1
            && "a1".equals(u.getTask().getArtifacts().get(0).artifactId()), "artifact lost: " + last);
    }

    @Test
    void hungCallStockWaitsPastTimeoutOursFailsFast() throws Exception {
        String url = server.url() + "/hang";

        Future<?> stockCall = pool.submit(() -> {
            Recorder.client(new JdkA2AHttpClient(), url, false).sendMessage(A2A.toUserMessage("go"), null);
            return null;
        });
        assertTrue(Recorder.eventually(5_000, () -> server.hangHits.get() == 1), "stock request never arrived");
        long t0 = System.nanoTime();
        Thread.sleep(STOCK_WATCH_MS);
        // No connect or request timeout: still waiting at 5x our call timeout.
        assertFalse(stockCall.isDone(), "stock client returned although the server never answered");

        Client ourClient = Recorder.client(ours(), url, false);
        long t1 = System.nanoTime();
        A2AClientException e = assertThrows(A2AClientException.class,
            () -> ourClient.sendMessage(A2A.toUserMessage("go"), null));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1);
        assertTrue(tookMs >= CALL.toMillis() - 50 && tookMs < CALL.toMillis() + 1_500, "took " + tookMs + " ms");
        A2aCallException cause = A2aCallException.find(e).orElseThrow(() -> new AssertionError("no cause", e));
        assertEquals(ErrorName.TIMEOUT, cause.errorName());
        assertEquals(java.util.Optional.of(A2aCallException.Deadline.CALL), cause.deadline());
        assertEquals(java.util.Optional.of(RequestSent.UNKNOWN), cause.requestSent());
        assertEquals(RetryAdvice.UNKNOWN_OUTCOME, cause.retry());
        assertEquals(dev.a2acore.Channel.TRANSPORT, cause.outcome().channel());

        assertFalse(stockCall.isDone(), "stock client returned although the server never answered");
        // Released, the server answers with a JSON-RPC error "released": the stock call
        // returns only then, with what the server finally sent.
        server.releaseHeld();
        java.util.concurrent.ExecutionException done = assertThrows(java.util.concurrent.ExecutionException.class,
            () -> stockCall.get(10, TimeUnit.SECONDS));
        assertInstanceOf(A2AClientException.class, done.getCause());
        assertEquals("released", done.getCause().getMessage());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) >= STOCK_WATCH_MS);
    }

    @Test
    void stalledStreamStockHangsOursTimesOutIdle() throws Exception {
        String url = server.url() + "/stall";

        Recorder stock = new Recorder().send(Recorder.client(new JdkA2AHttpClient(), url, true), "go");
        assertTrue(Recorder.eventually(5_000, () -> stock.events.size() == 1), "stock: first event never came");
        // No idle watchdog: the stock client sits on the silent stream with no signal.
        assertFalse(stock.awaitEnd(STOCK_WATCH_MS), "stock client ended the stalled stream: " + stock.signals);

        Recorder ours = new Recorder().send(Recorder.client(ours(), url, true), "go");
        long t1 = System.nanoTime();
        assertTrue(ours.awaitEnd(IDLE.toMillis() + 3_000), "our client did not end the stalled stream");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1);
        assertTrue(tookMs >= IDLE.toMillis() - 50, "idle timeout fired early: " + tookMs + " ms");
        assertEquals(1, ours.events.size(), "our client events: " + ours.events);
        Throwable err = ours.endError();
        A2aCallException cause = A2aCallException.find(err).orElseThrow(() -> new AssertionError("not ours: " + err, err));
        assertEquals(ErrorName.TIMEOUT, cause.errorName());
        assertEquals(java.util.Optional.of(A2aCallException.Deadline.STREAM_IDLE), cause.deadline());
        // The task id was seen (the first event): resubscribe, never resend.
        assertEquals(RetryAdvice.RESUBSCRIBE, cause.retry());
        assertEquals(java.util.Optional.of(FaultServer.TASK_ID), cause.outcome().taskId());
        assertTrue(Recorder.eventually(1_000, () -> ours.signals.size() == 1));
        Thread.sleep(200);
        assertEquals(1, ours.signals.size(), "more than one terminal signal: " + ours.signals);

        assertFalse(stock.end.isDone(), "stock client ended the stalled stream: " + stock.signals);
        server.releaseHeld();
    }

    @Test
    void truncatedStreamStockReportsSuccessOursSaysResubscribe() throws Exception {
        String url = server.url() + "/truncated";

        // Stock: the body ends after WORKING; the listener signals a clean end (null), so the
        // application cannot tell this from a finished task.
        Recorder stock = new Recorder().send(Recorder.client(new JdkA2AHttpClient(), url, true), "go");
        assertTrue(stock.awaitEnd(10_000), "stock client: stream never ended");
        assertEquals(2, stock.events.size(), "stock client events: " + stock.events);
        assertNull(stock.endError(), "stock client signalled an error: " + stock.endError());

        Recorder ours = new Recorder().send(Recorder.client(ours(), url, true), "go");
        assertTrue(ours.awaitEnd(10_000), "our client: stream never ended");
        assertEquals(2, ours.events.size(), "our client events: " + ours.events);
        A2aCallException cause = A2aCallException.find(ours.endError())
            .orElseThrow(() -> new AssertionError("not ours: " + ours.endError()));
        assertEquals(ErrorName.RESET, cause.errorName());
        assertEquals(RetryAdvice.RESUBSCRIBE, cause.retry());
        assertEquals(java.util.Optional.of(FaultServer.TASK_ID), cause.outcome().taskId());
        assertEquals(java.util.Optional.of(dev.a2acore.TaskState.WORKING), cause.outcome().state());
    }

    @Test
    void redirectStockFollowsOursRefuses() throws Exception {
        String url = server.url() + "/redirect";

        // Stock: HttpClient.Redirect.NORMAL re-sends the POST (307 keeps method and body) to
        // wherever Location points, and the caller gets that server's answer as if it came
        // from the agent it configured.
        List<ClientEvent> stockEvents = new ArrayList<>();
        Recorder.client(new JdkA2AHttpClient(), url, false).sendMessage(A2A.toUserMessage("go"),
            List.of((e, c) -> stockEvents.add(e)), null, null);
        assertEquals(1, server.elsewhereHits.get(), "stock client did not follow the redirect");
        assertEquals(1, stockEvents.size());
        assertInstanceOf(TaskEvent.class, stockEvents.get(0));
        assertEquals(TaskState.COMPLETED, ((TaskEvent) stockEvents.get(0)).getTask().getStatus().state());

        Client ourClient = Recorder.client(ours(), url, false);
        long t1 = System.nanoTime();
        A2AClientException e = assertThrows(A2AClientException.class,
            () -> ourClient.sendMessage(A2A.toUserMessage("go"), null));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1) < 2_000);
        A2aCallException cause = A2aCallException.find(e).orElseThrow(() -> new AssertionError("no cause", e));
        assertEquals(ErrorName.REDIRECT, cause.errorName());
        assertEquals(307, cause.httpStatus().getAsInt());
        // The client machine made the call: its result carries no response headers, so the
        // Location is not known (a stream, still on the raw layer, reports it).
        assertEquals(java.util.Optional.empty(), cause.location());
        assertEquals(RetryAdvice.NEVER, cause.retry());
        assertEquals(1, server.elsewhereHits.get(), "our client followed the redirect");

        // The same on a stream: refused, one error signal, nothing sent elsewhere.
        Recorder ours = new Recorder().send(Recorder.client(ours(), url, true), "go");
        assertTrue(ours.awaitEnd(3_000));
        A2aCallException streamCause = A2aCallException.find(ours.endError()).orElseThrow();
        assertEquals(ErrorName.REDIRECT, streamCause.errorName());
        assertEquals(1, server.elsewhereHits.get(), "our client followed the redirect on a stream");
        assertTrue(ours.events.isEmpty());
    }

}
