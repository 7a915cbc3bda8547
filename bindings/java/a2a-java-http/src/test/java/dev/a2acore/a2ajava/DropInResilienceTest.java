package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.a2acore.BreakerConfig;
import dev.a2acore.ErrorName;
import dev.a2acore.RetryAdvice;
import dev.a2acore.RequestSent;
import io.a2a.client.http.A2AHttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 at the drop-in's layer, against the project's {@code a2a-testkit fault-server}: a gateway's
 * 502 on a send reaches the agent once (no blind resend); the optional per-agent breaker opens
 * after its threshold and then refuses without sending, for plain calls and streams alike.
 */
class DropInResilienceTest {
    private static ProjectFaultServer server;
    private static final String SEND = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":"
        + "{\"message\":{\"kind\":\"message\",\"messageId\":\"m-1\",\"role\":\"user\",\"parts\":[{\"kind\":\"text\","
        + "\"text\":\"book seat 12A\"}]}}}";

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

    @Test
    void aGatewayErrorIsReportedNotResent() throws Exception {
        A2aCoreHttpClient http = new A2aCoreHttpClient();
        // A JSON-RPC call answered non-2xx reaches the caller as the classified outcome.
        A2aCallException e = assertThrows(A2aCallException.class,
            () -> http.createPost().url(server.rpc("status-502")).body(SEND).post());
        assertEquals(502, e.httpStatus().getAsInt());
        assertEquals(RetryAdvice.UNKNOWN_OUTCOME, e.retry());
        assertEquals(1, server.counters("status-502").get("sends").asInt(), "sent once, never replayed");
    }

    @Test
    void thePerAgentBreakerOpensAndRefusesWithoutSending() throws Exception {
        BreakerConfig d = BreakerConfig.defaults();
        A2aCoreHttpClient http = A2aCoreHttpClient.builder().breaker(new BreakerConfig(2,
            d.failureRatePercent(), d.minCalls(), d.windowMs(), d.buckets(), 60_000, d.halfOpenTrials())).build();
        for (int i = 0; i < 2; i++) {
            A2aCallException failed = assertThrows(A2aCallException.class,
                () -> http.createPost().url(server.rpc("status-500")).body(SEND).post());
            assertEquals(500, failed.httpStatus().getAsInt());
        }
        A2aCallException e = assertThrows(A2aCallException.class,
            () -> http.createPost().url(server.rpc("status-500")).body(SEND).post());
        assertEquals(ErrorName.CIRCUIT_OPEN, e.errorName());
        assertEquals(RequestSent.NO, e.outcome().requestSent().orElseThrow());
        // The same agent (its interface URL) through a stream: refused too, through the error consumer.
        java.util.concurrent.CompletableFuture<Throwable> failed = new java.util.concurrent.CompletableFuture<>();
        http.createPost().url(server.rpc("status-500")).body(SEND).postAsyncSSE(m -> { }, failed::complete,
            () -> failed.complete(null));
        Throwable t = failed.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(ErrorName.CIRCUIT_OPEN, A2aCallException.find(t).orElseThrow().errorName());
        assertEquals(2, server.counters("status-500").get("sends").asInt(), "the open breaker sent nothing");
        // Another agent on the same origin (another path) has its own breaker: it is served.
        assertEquals(200, http.createPost().url(server.rpc("ok")).body(SEND).post().status());
        assertEquals(1, server.counters("ok").get("sends").asInt());
        // The breaker is the client machine's, which judges A2A calls (JSON-RPC POSTs): the
        // card's GET is no A2A call and still goes out while it is open.
        io.a2a.client.http.A2AHttpResponse card = http.createGet()
            .url(server.url + "/ok/.well-known/agent-card.json").get();
        assertEquals(200, card.status());
        assertThrows(RuntimeException.class, () -> A2aCoreHttpClient.builder().breaker(new BreakerConfig(0, 0,
            d.minCalls(), d.windowMs(), d.buckets(), d.coolDownMs(), d.halfOpenTrials())).build());
    }
}
