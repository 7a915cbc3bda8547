package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.a2acore.A2aClient;
import dev.a2acore.Binding;
import dev.a2acore.CallOptions;
import dev.a2acore.CardResolutionException;
import dev.a2acore.Channel;
import dev.a2acore.BreakerConfig;
import dev.a2acore.ClientStream;
import dev.a2acore.ClientStreamEvent;
import dev.a2acore.ErrorName;
import dev.a2acore.HeaderHookException;
import dev.a2acore.Outcome;
import dev.a2acore.ProtocolVersion;
import dev.a2acore.RequestSent;
import dev.a2acore.RetryAdvice;
import dev.a2acore.StreamEndKind;
import dev.a2acore.StreamItem;
import dev.a2acore.StreamItemKind;
import dev.a2acore.TaskState;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link A2aClient} against the project's {@code a2a-testkit fault-server} (contract in
 * testkit/src/fault_server/mod.rs): header hooks seen by the server (its {@code seen}
 * log and the {@code secured} scenario's 401 without {@code Authorization}), a hook that
 * throws, resubscribe after a cut stream, explicit resubscribe, a stalled stream, a connect
 * refused, a card refused by the https-only default.
 */
class A2aClientFaultTest {
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

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    /**
     * Issue 12: a gateway's 502 may come after the upstream did the work, so with
     * {@code sendRetries(2)} a send without an idempotency key goes out once (REMOTE_UNKNOWN);
     * with a key it is resent twice with the same key and messageId.
     */
    @Test
    void aGatewayErrorIsResentOnlyWithAKey() throws Exception {
        try (A2aClient c = builder("status-502").sendRetries(2).build()) {
            Outcome o = c.send("book seat 12A");
            assertEquals(RetryAdvice.UNKNOWN_OUTCOME, o.retry(), o.toString());
            assertEquals(1, server.counters("status-502").get("sends").asInt());
            assertTrue(o.modelText("booking").orElseThrow().startsWith("REMOTE_UNKNOWN booking: HTTP 502"));
            Outcome keyed = c.send("book seat 12A", CallOptions.none().withIdempotencyKey("java-502-key"));
            assertEquals(RetryAdvice.UNKNOWN_OUTCOME, keyed.retry(), keyed.toString());
        }
        JsonNode seen = server.counters("status-502").get("seen");
        assertEquals(4, seen.size(), seen.toString());
        for (int i = 1; i < 4; i++) {
            assertEquals("java-502-key", seen.get(i).get("idempotency_key").asText());
            assertEquals(seen.get(1).get("message_id"), seen.get(i).get("message_id"));
        }
        try (A2aClient c = builder("status-429").sendRetries(2).build()) {
            Outcome o = c.send("book seat 12B");
            assertEquals(RetryAdvice.BACKOFF, o.retry(), o.toString());
        }
        assertEquals(3, server.counters("status-429").get("sends").asInt(), "429 proves non-receipt: resent");
    }

    /**
     * Issue 12: the breaker in the client config. After 2 counted failures (HTTP 500) the
     * agent is not called again; threads sharing the client share its breaker.
     */
    @Test
    void theClientsBreakerOpensAndIsSharedByThreads() throws Exception {
        BreakerConfig d = BreakerConfig.defaults();
        BreakerConfig cfg = new BreakerConfig(2, d.failureRatePercent(), d.minCalls(), d.windowMs(),
            d.buckets(), 60_000, d.halfOpenTrials());
        try (A2aClient c = builder("status-500").breaker(cfg).build()) {
            assertEquals(Channel.HTTP, c.send("a").channel());
            assertEquals(Channel.HTTP, c.send("b").channel());
            List<Outcome> results = Collections.synchronizedList(new ArrayList<>());
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Thread t = new Thread(() -> results.add(c.send("c")));
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join(30_000);
            }
            assertEquals(4, results.size());
            for (Outcome o : results) {
                assertEquals(ErrorName.CIRCUIT_OPEN, o.errorName().orElseThrow(), o.toString());
                assertEquals(RequestSent.NO, o.requestSent().orElseThrow());
            }
        }
        assertEquals(2, server.counters("status-500").get("sends").asInt(), "the open breaker sent nothing");
        BreakerConfig bad = new BreakerConfig(0, 0, d.minCalls(), d.windowMs(), d.buckets(),
            d.coolDownMs(), d.halfOpenTrials());
        assertThrows(RuntimeException.class, () -> builder("status-500").breaker(bad).build());
    }

    @Test
    void hooksAddHeadersTheServerSees() throws Exception {
        List<String> methods = Collections.synchronizedList(new ArrayList<>());
        try (A2aClient bare = builder("secured").build()) {
            // The card asks for a bearer token: the driver does not even send the call.
            Outcome refused = bare.send("echo no credentials");
            assertEquals(Channel.TRANSPORT, refused.channel(), refused.toString());
            assertEquals(ErrorName.UNAUTHENTICATED, refused.errorName().orElseThrow(), refused.toString());
            assertEquals(RequestSent.NO, refused.requestSent().orElseThrow());
        }
        try (A2aClient c = builder("secured").headerHook((method, h) -> {
            methods.add(method);
            h.set("Authorization", "Bearer java-hook-token");
        }).headerHook((method, h) -> h.set("traceparent", TRACEPARENT)).build()) {
            Outcome o = c.send("echo with credentials");
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
            Outcome got = c.get(o.taskId().orElseThrow());
            assertEquals(TaskState.COMPLETED, got.state().orElseThrow(), got.toString());
            try (ClientStream s = c.stream("echo streamed")) {
                assertEquals(StreamEndKind.COMPLETED, s.drain().endKind().orElseThrow());
            }
        }
        // The driver names the operation by its 1.0 name, also on this 0.3 interface (the wire
        // method, checked in the server's log below, is the 0.3 one).
        assertEquals(List.of("SendMessage", "GetTask", "SendStreamingMessage"), methods, "hook saw each call's method");
        JsonNode seen = server.counters("secured").get("seen");
        assertEquals(3, seen.size(), "the bare client's call never left: " + seen);
        for (int i = 0; i < 3; i++) {
            JsonNode s = seen.get(i);
            assertTrue(s.get("authorization").asBoolean(), s.toString());
            assertEquals(TRACEPARENT, s.get("traceparent").asText(), s.toString());
        }
        assertEquals("message/stream", seen.get(2).get("method").asText());
    }

    @Test
    void callOptionsReachTheWire() throws Exception {
        try (A2aClient c = builder("idle1").build()) {
            Outcome o = c.send("echo options", CallOptions.none().withIdempotencyKey("a2a-ik1-java-test")
                .withMessageId("java-message-1").withTraceparent(TRACEPARENT).withTimeout(Duration.ofSeconds(5)));
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
            try (ClientStream s = c.stream("echo streamed", CallOptions.none().withMessageId("java-message-2"))) {
                List<ClientStreamEvent> events = s.stream().collect(java.util.stream.Collectors.toList());
                assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
                assertEquals(1, events.stream().filter(e -> e instanceof ClientStreamEvent.End).count());
            }
        }
        JsonNode seen = server.counters("idle1").get("seen");
        assertEquals(2, seen.size(), seen.toString());
        assertEquals("message/send", seen.get(0).get("method").asText());
        assertEquals("a2a-ik1-java-test", seen.get(0).get("idempotency_key").asText(), seen.toString());
        assertEquals("java-message-1", seen.get(0).get("message_id").asText(), seen.toString());
        assertEquals(TRACEPARENT, seen.get(0).get("traceparent").asText(), seen.toString());
        assertEquals("message/stream", seen.get(1).get("method").asText());
        assertEquals("java-message-2", seen.get(1).get("message_id").asText(), seen.toString());
        assertTrue(seen.get(1).get("idempotency_key").isNull(), "no key unless asked: " + seen);
        String fresh = seen.get(1).get("traceparent").asText();
        assertTrue(fresh.matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]") && !fresh.equals(TRACEPARENT),
            "a fresh traceparent per call: " + fresh);
    }

    @Test
    void oneClientServesConcurrentCalls() throws Exception {
        try (A2aClient c = builder("ok").build()) {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
                List<java.util.concurrent.Future<Outcome>> fs = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    String text = "echo parallel " + i;
                    fs.add(pool.submit(() -> c.send(text)));
                }
                Set<String> tasks = new java.util.HashSet<>();
                for (java.util.concurrent.Future<Outcome> f : fs) {
                    Outcome o = f.get(30, java.util.concurrent.TimeUnit.SECONDS);
                    assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
                    tasks.add(o.taskId().orElseThrow());
                }
                assertEquals(16, tasks.size(), "one task per call");
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void aHookThatThrowsIsRethrownWithTheOutcome() {
        RuntimeException boom = new IllegalStateException("vault unavailable");
        try (A2aClient c = builder("secured").headerHook((method, h) -> {
            throw boom;
        }).build()) {
            HeaderHookException e = assertThrows(HeaderHookException.class, () -> c.send("echo x"));
            assertEquals(boom, e.getCause());
            Outcome o = e.outcome().orElseThrow();
            assertEquals(ErrorName.UNAUTHENTICATED, o.errorName().orElseThrow(), "no header was set: " + o);
            // The next call on the same thread is not blamed for the earlier failure.
            HeaderHookException again = assertThrows(HeaderHookException.class, () -> c.get("task-x"));
            assertEquals(boom, again.getCause());
        }
    }

    @Test
    void aRefusedHeaderIsAnIllegalArgumentFromTheHook() {
        try (A2aClient c = builder("ok").headerHook((method, h) -> h.set("X-Bad", "a\r\nInjected: yes")).build()) {
            HeaderHookException e = assertThrows(HeaderHookException.class, () -> c.send("echo x"));
            assertInstanceOf(IllegalArgumentException.class, e.getCause(), e.toString());
            assertEquals(TaskState.COMPLETED, e.outcome().orElseThrow().state().orElseThrow());
        }
    }

    /**
     * Issue 21: framing and protocol headers are the client's. The hook's {@code set} throws
     * (the library's A2A_REQUEST_RESERVED_HEADER) and the call is refused before anything is
     * sent: the outcome says InvalidRequest, not sent, and names the header.
     */
    @Test
    void aHookCannotSetAReservedHeader() throws Exception {
        for (String name : List.of("Content-Length", "Host", "A2A-Version", "Transfer-Encoding")) {
            try (A2aClient c = builder("reserved-hook").headerHook((method, h) -> h.set(name, "0")).build()) {
                HeaderHookException e = assertThrows(HeaderHookException.class, () -> c.send("echo x"));
                assertInstanceOf(IllegalArgumentException.class, e.getCause(), e.toString());
                assertTrue(e.getCause().getMessage().contains(name), e.getCause().getMessage());
                Outcome o = e.outcome().orElseThrow();
                assertEquals(Channel.TRANSPORT, o.channel(), o.toString());
                assertEquals(ErrorName.INVALID_REQUEST, o.errorName().orElseThrow(), o.toString());
                assertEquals(RequestSent.NO, o.requestSent().orElseThrow(), o.toString());
                assertEquals(RetryAdvice.NEVER, o.retry(), o.toString());
                assertTrue(o.message().orElseThrow().contains(name), o.toString());
            }
        }
        assertEquals(0, server.counters("reserved-hook").get("messages").asInt(), "nothing was sent");
    }

    @Test
    void headersKeptPastTheHookAreDead() {
        List<dev.a2acore.HeaderHook.Headers> kept = new ArrayList<>();
        try (A2aClient c = builder("ok").headerHook((method, h) -> kept.add(h)).build()) {
            assertEquals(TaskState.COMPLETED, c.send("echo x").state().orElseThrow());
        }
        assertEquals(1, kept.size());
        assertThrows(IllegalStateException.class, () -> kept.get(0).set("X-Late", "1"));
        assertThrows(IllegalArgumentException.class, () -> A2aClient.builder("https://a.example").sendRetries(-1));
        try (A2aClient c = A2aClient.builder("http://127.0.0.1:9/a2a").allowHttp(true)
            .knownTarget(ProtocolVersion.V0_3, Binding.JSON_RPC).build()) {
            assertThrows(IllegalArgumentException.class,
                () -> c.send("x", CallOptions.none().withTimeout(Duration.ZERO)));
        }
    }

    @Test
    void aCutStreamIsResubscribedNeverResent() throws Exception {
        try (A2aClient c = builder("stream-drop").streamResubscribeAttempts(2).build();
             ClientStream s = c.stream("echo cut")) {
            List<ClientStreamEvent> events = new ArrayList<>();
            s.forEachRemaining(events::add);
            ClientStreamEvent.Resubscribing r = events.stream().filter(e -> e instanceof ClientStreamEvent.Resubscribing)
                .map(e -> (ClientStreamEvent.Resubscribing) e).findFirst()
                .orElseThrow(() -> new AssertionError("no Resubscribing in " + events));
            assertEquals(1, r.attempt());
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
            assertEquals(TaskState.COMPLETED, end.outcome().state().orElseThrow(), end.toString());
            assertEquals(1, end.resubscribes());
            assertEquals(r.taskId(), end.outcome().taskId().orElseThrow());
        }
        JsonNode counters = server.counters("stream-drop");
        assertEquals(1, counters.get("streams").asInt(), counters.toString());
        assertEquals(1, counters.get("resubscribes").asInt(), counters.toString());
    }

    @Test
    void explicitResubscribe() {
        try (A2aClient c = builder("ok").build(); ClientStream s = c.resubscribe("task-77")) {
            ClientStreamEvent.End end = s.drain();
            assertEquals(StreamEndKind.COMPLETED, end.endKind().orElseThrow(), end.toString());
            assertEquals("task-77", end.outcome().taskId().orElseThrow());
            assertEquals(TaskState.COMPLETED, end.outcome().state().orElseThrow());
        }
    }

    @Test
    void aStalledStreamTimesOutWithResubscribeAdvice() {
        long t0 = System.nanoTime();
        try (A2aClient c = builder("stall").build();
             ClientStream s = c.stream("echo stall", CallOptions.none().withIdleTimeout(Duration.ofMillis(500)))) {
            ClientStreamEvent.End end = s.drain();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(StreamEndKind.TIMED_OUT, end.endKind().orElseThrow(), end.toString());
            assertEquals(ErrorName.TIMEOUT, end.outcome().errorName().orElseThrow());
            assertEquals(RetryAdvice.RESUBSCRIBE, end.outcome().retry(), end.toString());
            assertTrue(ms < 5000, "ended by the 500 ms idle timeout, not the 5 s default: " + ms + " ms");
        }
    }

    @Test
    void connectRefusedIsATransportOutcomeNotSent() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (A2aClient c = A2aClient.builder("http://127.0.0.1:" + port + "/a2a").allowHttp(true)
            .knownTarget(ProtocolVersion.V0_3, Binding.JSON_RPC).build()) {
            Outcome o = c.send("echo nobody");
            assertEquals(Channel.TRANSPORT, o.channel());
            assertEquals(ErrorName.CONNECT_FAILED, o.errorName().orElseThrow(), o.toString());
            assertEquals(RequestSent.NO, o.requestSent().orElseThrow());
            ClientStreamEvent.End end = c.stream("echo nobody").drain();
            assertTrue(end.endKind().isEmpty(), "no stream was opened: " + end);
            assertEquals(ErrorName.CONNECT_FAILED, end.outcome().errorName().orElseThrow());
        }
    }

    @Test
    void plainHttpCardIsRefusedByDefault() {
        CardResolutionException e = assertThrows(CardResolutionException.class,
            () -> A2aClient.builder(server.url + "/ok").build());
        assertEquals(ErrorName.CARD_RESOLUTION, e.outcome().errorName().orElseThrow(), e.outcome().toString());
        assertEquals(Channel.TRANSPORT, e.outcome().channel());
    }

    @Test
    void aClosedClientRefusesCallsAndOpenStreamsOutliveIt() {
        A2aClient c = builder("ok").headerHook((m, h) -> h.set("traceparent", TRACEPARENT)).build();
        ClientStream s = c.stream("echo after close");
        c.close();
        c.close();
        assertThrows(IllegalStateException.class, () -> c.send("x"));
        try (s) {
            assertEquals(StreamEndKind.COMPLETED, s.drain().endKind().orElseThrow());
        }
    }
}
