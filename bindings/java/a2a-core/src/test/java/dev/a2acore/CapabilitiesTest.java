package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A card without {@code capabilities.streaming}: a stream and a resubscribe are refused before
 * anything is sent (the asynchronous client on {@link HttpClient}, and the blocking client on
 * the reference driver), as a transport {@link ErrorName#CAPABILITY_NOT_DECLARED} outcome;
 * {@link A2aClient.Builder#ignoreCapabilities} sends them.
 */
class CapabilitiesTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private HttpServer server;
    private String base;
    /** POSTs (A2A calls) the agent received. */
    private final AtomicInteger posts = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void answer(HttpExchange ex) throws IOException {
        String body;
        String type = "application/json";
        if (ex.getRequestMethod().equals("GET")) {
            body = "{\"protocolVersion\":\"0.3.0\",\"name\":\"nocaps\",\"description\":\"d\",\"url\":\"" + base
                + "a2a\",\"preferredTransport\":\"JSONRPC\",\"version\":\"1\",\"capabilities\":{},"
                + "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";
        } else {
            posts.incrementAndGet();
            // The stream's event answers the request's own JSON-RPC id.
            String id = MAPPER.readTree(ex.getRequestBody().readAllBytes()).get("id").toString();
            type = "text/event-stream";
            body = "data: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
                + "\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\"}}}\n\n";
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void assertRefused(Outcome o, String method) {
        assertEquals(Channel.TRANSPORT, o.channel(), String.valueOf(o));
        assertEquals(ErrorName.CAPABILITY_NOT_DECLARED, o.errorName().orElseThrow());
        assertEquals(RequestSent.NO, o.requestSent().orElseThrow());
        assertEquals(RetryAdvice.NEVER, o.retry());
        assertEquals(3, o.exitCode());
        String message = o.message().orElseThrow();
        assertTrue(message.contains(method) && message.contains("capabilities.streaming"), message);
    }

    private A2aClient.Builder builder() {
        return A2aClient.builder(base).allowHttp(true).connectTimeout(Duration.ofSeconds(2))
            .callTimeout(Duration.ofSeconds(10));
    }

    private static HttpClient http() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(2)).build();
    }

    @Test
    void asyncClientRefusesStreamsTheCardDoesNotDeclare() throws Exception {
        try (A2aClient c = builder().httpClient(http()).build()) {
            assertRefused(Streams.end(c.streamAsync("hi")), "message/stream");
            assertRefused(Streams.end(c.resubscribeAsync("t-1", CallOptions.none())), "tasks/resubscribe");
        }
        assertEquals(0, posts.get(), "nothing reached the agent");
        try (A2aClient c = builder().httpClient(http()).ignoreCapabilities(true).build()) {
            Outcome o = Streams.end(c.streamAsync("hi"));
            assertTrue(o.isSuccess(), String.valueOf(o));
        }
        assertEquals(1, posts.get(), "with the check off the stream went out");
    }

    @Test
    void driverClientRefusesStreamsTheCardDoesNotDeclare() {
        try (A2aClient c = builder().build(); ClientStream s = c.stream("hi")) {
            assertRefused(s.drain().outcome(), "message/stream");
        }
        assertEquals(0, posts.get(), "nothing reached the agent");
        try (A2aClient c = builder().ignoreCapabilities(true).build(); ClientStream s = c.stream("hi")) {
            Outcome o = s.drain().outcome();
            assertTrue(o.isSuccess(), String.valueOf(o));
        }
        assertEquals(1, posts.get(), "with the check off the stream went out");
    }
}
