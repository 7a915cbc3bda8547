package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Agent card caching (RFC 9111) on the machine, the minimum protocol version on both paths,
 * and return-immediately on the blocking driver, against a loopback 0.3 agent that counts its
 * card requests: a second client within max-age makes none, after max-age a conditional one
 * (If-None-Match) is answered 304 and the card reused, no-store is never cached; a 0.3-only
 * card under a 1.0 minimum is refused with nothing sent.
 */
class CardCacheTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private HttpServer server;
    private String base;
    private String cacheControl;
    /** The If-None-Match of each card request ("" when absent). */
    private final List<String> cardRequests = Collections.synchronizedList(new ArrayList<>());
    private final List<JsonNode> calls = Collections.synchronizedList(new ArrayList<>());

    private void start(String cacheControl) throws IOException {
        this.cacheControl = cacheControl;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private void answer(HttpExchange ex) throws IOException {
        String body;
        if (ex.getRequestMethod().equals("GET")) {
            String inm = ex.getRequestHeaders().getFirst("If-None-Match");
            cardRequests.add(inm == null ? "" : inm);
            ex.getResponseHeaders().set("ETag", "\"v1\"");
            ex.getResponseHeaders().set("Cache-Control", cacheControl);
            if ("\"v1\"".equals(inm)) {
                ex.sendResponseHeaders(304, -1);
                ex.close();
                return;
            }
            body = "{\"protocolVersion\":\"0.3.0\",\"name\":\"cached\",\"description\":\"d\",\"url\":\"" + base
                + "a2a\",\"preferredTransport\":\"JSONRPC\",\"version\":\"1\",\"capabilities\":{},"
                + "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";
        } else {
            JsonNode req = MAPPER.readTree(ex.getRequestBody().readAllBytes());
            calls.add(req);
            body = "{\"jsonrpc\":\"2.0\",\"id\":" + req.get("id") + ",\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
                + "\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\"}}}";
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** One machine client (card fetched on build) sending once. */
    private void sendOnce(boolean cardCache) throws Exception {
        HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .version(HttpClient.Version.HTTP_1_1).build();
        try (A2aClient c = A2aClient.builder(base).allowHttp(true).httpClient(http).cardCache(cardCache).build()) {
            assertTrue(c.sendAsync("hi").get(20, TimeUnit.SECONDS).isSuccess());
        }
    }

    @Test
    void freshCardsAreNotFetchedAgainAndStaleOnesAreRevalidated() throws Exception {
        start("max-age=1");
        sendOnce(true);
        sendOnce(true);
        assertEquals(List.of(""), cardRequests, "within max-age: no second card request");
        Thread.sleep(1200); // past max-age=1 (a bound, not a speed assertion)
        sendOnce(true);
        assertEquals(List.of("", "\"v1\""), cardRequests, "after max-age: If-None-Match, answered 304");
        assertEquals(3, calls.size(), "the reused card led to the agent");
        sendOnce(false);
        assertEquals(List.of("", "\"v1\"", ""), cardRequests, "cardCache(false) fetches unconditionally");
    }

    @Test
    void noStoreIsNeverCached() throws Exception {
        start("no-store");
        for (int i = 0; i < 3; i++) {
            sendOnce(true);
        }
        assertEquals(List.of("", "", ""), cardRequests);
    }

    @Test
    void minProtocolRefusesAnOlderCardWithNothingSent() throws Exception {
        start("no-store");
        HttpClient http = HttpClient.newHttpClient();
        CardResolutionException e = assertThrows(CardResolutionException.class,
            () -> A2aClient.builder(base).allowHttp(true).httpClient(http).minProtocol(ProtocolVersion.V1_0).build());
        assertEquals(ErrorName.CARD_RESOLUTION, e.outcome().errorName().orElseThrow());
        assertTrue(e.outcome().message().orElseThrow().contains("none older than 1.0"), e.getMessage());
        // The reference driver too.
        assertThrows(CardResolutionException.class,
            () -> A2aClient.builder(base).allowHttp(true).minProtocol(ProtocolVersion.V1_0).build());
        assertEquals(0, calls.size(), "nothing reached the agent");
        // A known target older than the minimum is refused.
        assertThrows(A2aCoreException.class, () -> A2aClient.builder(base + "a2a").allowHttp(true)
            .knownTarget(ProtocolVersion.V0_3, Binding.JSON_RPC).minProtocol(ProtocolVersion.V1_0).build());
        try (A2aClient c = A2aClient.builder(base).allowHttp(true).minProtocol(ProtocolVersion.V0_3).build()) {
            assertTrue(c.send("hi").isSuccess());
        }
    }

    @Test
    void theBlockingDriverSendsReturnImmediately() throws Exception {
        start("no-store");
        try (A2aClient c = A2aClient.builder(base).allowHttp(true).callTimeout(Duration.ofSeconds(20)).build()) {
            assertTrue(c.send("hi", CallOptions.none().withReturnImmediately(true)).isSuccess());
            assertTrue(c.send("hi").isSuccess());
        }
        assertFalse(calls.get(0).at("/params/configuration/blocking").asBoolean(true));
        assertTrue(calls.get(0).at("/params/configuration/blocking").isBoolean());
        assertNull(calls.get(1).at("/params/configuration").get("blocking"));
    }
}
