package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The extended card replaces the public one (A2A §8.6.2) on the asynchronous client: the public
 * card declares no streaming, the extended card does (on {@code /a2a/v2}); after
 * {@link A2aClient#extendedCardAsync} the stream goes out to the extended card's interface. An
 * extended card on another host ({@code localhost}) is refused and the public card stays.
 */
class ExtendedCardTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private HttpServer server;
    private String base;
    private int port;
    private volatile boolean drift;
    /** Path and JSON-RPC method of every POST. */
    private final List<String> posts = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
        port = server.getAddress().getPort();
        base = "http://127.0.0.1:" + port + "/";
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private static String card(String url, boolean streaming) {
        return "{\"protocolVersion\":\"0.3.0\",\"name\":\"ext\",\"description\":\"d\",\"url\":\"" + url
            + "\",\"preferredTransport\":\"JSONRPC\",\"version\":\"1\",\"capabilities\":{\"streaming\":" + streaming
            + "},\"supportsAuthenticatedExtendedCard\":true,"
            + "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";
    }

    private void answer(HttpExchange ex) throws IOException {
        String body;
        String type = "application/json";
        if (ex.getRequestMethod().equals("GET")) {
            body = card(base + "a2a", false);
        } else {
            var req = MAPPER.readTree(ex.getRequestBody().readAllBytes());
            String id = req.get("id").toString();
            String method = req.get("method").asText();
            posts.add(ex.getRequestURI().getPath() + " " + method);
            if (method.equals("agent/getAuthenticatedExtendedCard")) {
                String host = drift ? "localhost" : "127.0.0.1";
                body = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":"
                    + card("http://" + host + ":" + port + "/a2a/v2", true) + "}";
            } else {
                type = "text/event-stream";
                body = "data: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
                    + "\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\"}}}\n\n";
            }
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    private A2aClient client() {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(2)).build();
        return A2aClient.builder(base).allowHttp(true).connectTimeout(Duration.ofSeconds(2))
            .callTimeout(Duration.ofSeconds(10)).httpClient(http).build();
    }

    @Test
    void theExtendedCardReplacesThePublicOne() throws Exception {
        try (A2aClient c = client()) {
            Outcome refused = Streams.end(c.streamAsync("hi"));
            assertEquals(ErrorName.CAPABILITY_NOT_DECLARED, refused.errorName().orElseThrow());
            A2aClient.ExtendedCard ext = c.extendedCardAsync(CallOptions.none()).get(20, TimeUnit.SECONDS);
            assertTrue(ext.outcome().isSuccess(), String.valueOf(ext.outcome()));
            assertTrue(ext.cardJson().orElseThrow().contains("/a2a/v2"), ext.cardJson().toString());
            Outcome streamed = Streams.end(c.streamAsync("hi"));
            assertTrue(streamed.isSuccess(), String.valueOf(streamed));
        }
        assertEquals(List.of("/a2a agent/getAuthenticatedExtendedCard", "/a2a/v2 message/stream"), posts);
    }

    @Test
    void aDriftingExtendedCardIsRefusedAndThePublicCardStays() throws Exception {
        drift = true;
        try (A2aClient c = client()) {
            ExecutionException e = assertThrows(ExecutionException.class,
                () -> c.extendedCardAsync(CallOptions.none()).get(20, TimeUnit.SECONDS));
            A2aCoreException refused = assertInstanceOf(A2aCoreException.class, e.getCause());
            assertEquals(710, refused.code(), refused.toString()); // A2A_CARD_HOST_MISMATCH
            Outcome o = Streams.end(c.streamAsync("hi"));
            assertEquals(ErrorName.CAPABILITY_NOT_DECLARED, o.errorName().orElseThrow());
        }
        assertEquals(List.of("/a2a agent/getAuthenticatedExtendedCard"), posts);
    }
    /** A client whose blocking calls run on the native transport (no HttpClient given). */
    private A2aClient nativeClient() {
        return A2aClient.builder(base).allowHttp(true).connectTimeout(Duration.ofSeconds(2))
            .callTimeout(Duration.ofSeconds(10)).streamIdleTimeout(Duration.ofSeconds(10)).build();
    }

    @Test
    void theBlockingTwinAdoptsTheExtendedCardOnTheNativeTransport() {
        try (A2aClient c = nativeClient()) {
            A2aClient.ExtendedCard ext = c.extendedCard(CallOptions.none());
            assertTrue(ext.outcome().isSuccess(), String.valueOf(ext.outcome()));
            assertTrue(ext.cardJson().orElseThrow().contains("/a2a/v2"), ext.cardJson().toString());
            try (ClientStream s = c.stream("hi")) {
                ClientStreamEvent last = null;
                while (s.hasNext()) {
                    last = s.next();
                }
                ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, last);
                assertTrue(end.outcome().isSuccess(), String.valueOf(end.outcome()));
            }
        }
        assertEquals(List.of("/a2a agent/getAuthenticatedExtendedCard", "/a2a/v2 message/stream"), posts);
    }

    @Test
    void theBlockingTwinThrowsTheRefusalOfADriftingCard() {
        drift = true;
        try (A2aClient c = nativeClient()) {
            A2aCoreException refused = assertThrows(A2aCoreException.class, () -> c.extendedCard(CallOptions.none()));
            assertEquals(710, refused.code(), refused.toString()); // A2A_CARD_HOST_MISMATCH
        }
        assertEquals(List.of("/a2a agent/getAuthenticatedExtendedCard"), posts);
    }
}
