package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client shared by threads and closed while they are inside calls that a loopback server
 * holds: {@code close()} waits for them (they complete normally), and calls afterwards are
 * refused ({@link A2aClient}). Every wait is bounded.
 */
class CloseUnderLoadTest {
    private static final int CALLERS = 4;
    private static final long WAIT_S = 20;

    private HttpServer server;
    private ExecutorService pool;
    private CountDownLatch release;
    private CountDownLatch arrived;
    private String base;

    @BeforeEach
    void start() throws IOException {
        release = new CountDownLatch(1);
        arrived = new CountDownLatch(CALLERS);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::hold);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
        pool = Executors.newFixedThreadPool(CALLERS + 1);
    }

    @AfterEach
    void stop() {
        release.countDown();
        pool.shutdownNow();
        server.stop(0);
    }

    /** Answers a JSON-RPC call with a completed task once {@code release} opens (bounded). */
    private void hold(HttpExchange ex) throws IOException {
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        arrived.countDown();
        try {
            release.await(WAIT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String id = body.replaceAll("(?s).*\"id\"\\s*:\\s*(\"[^\"]*\"|[0-9]+).*", "$1");
        byte[] reply = ("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
            + "\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\"}}}").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, reply.length);
        ex.getResponseBody().write(reply);
        ex.close();
    }

    /** Starts {@code close}, checks it waits while the calls are held, then releases them. */
    private void closeWhileHeld(AutoCloseable client) throws Exception {
        assertTrue(arrived.await(WAIT_S, TimeUnit.SECONDS), "the calls did not reach the server");
        Future<?> closing = pool.submit(() -> {
            client.close();
            return null;
        });
        Thread.sleep(300);
        assertFalse(closing.isDone(), "close returned while calls were in flight");
        release.countDown();
        closing.get(WAIT_S, TimeUnit.SECONDS);
    }

    @Test
    void clientCloseWaitsForCallsInFlight() throws Exception {
        A2aClient c = A2aClient.builder(base + "/a2a").knownTarget(ProtocolVersion.V03, Binding.JSON_RPC)
            .allowHttp(true).callTimeout(Duration.ofSeconds(WAIT_S)).build();
        List<Future<Outcome>> calls = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            calls.add(pool.submit(() -> c.send("hold")));
        }
        closeWhileHeld(c);
        for (Future<Outcome> f : calls) {
            Outcome o = f.get(WAIT_S, TimeUnit.SECONDS);
            assertTrue(o.isSuccess(), o.toString());
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow());
        }
        c.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> c.send("late"));
    }

    /**
     * A stream closed from another thread while its reader is blocked (the server holds the
     * request): the read ends at once with the call's Canceled end, not with the server's
     * answer (which never comes while {@code release} stays shut).
     */
    @Test
    void streamCloseFromAnotherThreadEndsABlockedRead() throws Exception {
        try (A2aClient c = A2aClient.builder(base + "/a2a").knownTarget(ProtocolVersion.V03, Binding.JSON_RPC)
                .allowHttp(true).build()) {
            ClientStream s = c.stream("hold");
            Future<ClientStreamEvent> reader = pool.submit(s::next);
            for (int i = 0; i < WAIT_S * 100 && arrived.getCount() == CALLERS; i++) {
                Thread.sleep(10);
            }
            assertEquals(CALLERS - 1, arrived.getCount(), "the stream's request did not reach the server");
            s.close();
            ClientStreamEvent got = reader.get(WAIT_S, TimeUnit.SECONDS);
            assertEquals(1, release.getCount(), "the server still holds the request");
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, got, String.valueOf(got));
            assertFalse(end.outcome().isSuccess(), end.toString());
            assertEquals(Channel.TRANSPORT, end.outcome().channel(), end.toString());
            assertTrue(end.outcome().message().orElse("").contains("cancel"), end.toString());
            assertFalse(s.hasNext(), "nothing follows the end");
        }
    }

    @Test
    void theNewResultCodesAreNamed() {
        assertEquals(104, A2aCoreException.IN_USE);
        assertEquals(105, A2aCoreException.CLOSED);
        assertTrue(A2aCore.describe(A2aCoreException.IN_USE).contains("in use by another thread"));
        assertTrue(A2aCore.describe(A2aCoreException.CLOSED).contains("being freed"));
    }
}
