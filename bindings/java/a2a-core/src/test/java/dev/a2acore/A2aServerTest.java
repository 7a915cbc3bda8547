package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A2aServer on a real com.sun.net.httpserver.HttpServer on 127.0.0.1, driven by the binding's own
 * A2aClient in both versions on both bindings, and by plain HTTP for what a client does not show
 * (headers, keep-alive comments, the Host check, the card's bytes).
 */
class A2aServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ERROR_ID = Pattern.compile("Agent execution failed\\. \\(error_id: ([0-9a-f]{12})\\)");
    private static final List<LogRecord> LOGGED = new ArrayList<>();
    private static final Handler CAPTURE = new Handler() {
        @Override
        public void publish(LogRecord r) {
            synchronized (LOGGED) {
                LOGGED.add(r);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private static HttpServer http;
    private static A2aServer server;
    private static String url;

    @BeforeAll
    static void start() throws IOException {
        Logger.getLogger("dev.a2acore.server").addHandler(CAPTURE);
        server = A2aServer.builder(ctx -> {
            String[] w = ctx.text().trim().split(" ", 2);
            String rest = w.length > 1 ? w[1] : "";
            switch (w[0]) {
                case "echo" -> ctx.reply(rest);
                case "fail" -> throw new IllegalStateException("db password wrong");
                case "count" -> {
                    ctx.status("working", null);
                    int n = Integer.parseInt(rest);
                    for (int i = 0; i < n; i++) {
                        ctx.artifact("count", "chunk " + (i + 1), i > 0, i == n - 1);
                    }
                }
                case "slow" -> {
                    ctx.status("working", null);
                    Thread.sleep(Long.parseLong(rest));
                    ctx.artifact(null, "done", false, true);
                }
                case "ask" -> ctx.status("input-required", "name?");
                default -> {
                    if (ctx.continuesTask()) {
                        ctx.status("completed", "thanks " + ctx.text());
                    } else {
                        ctx.reply(ctx.text());
                    }
                }
            }
        })
            .card("java-agent", "test agent", "2.0.0")
            .skill("demo", "Demo", "test skill", "demo")
            .keepAlive(Duration.ofMillis(100))
            .beforeExecute(ctx -> {
                if (ctx.text().equals("busy")) {
                    throw new A2aServer.Refused("queue full");
                }
            })
            .afterExecute((ctx, e) -> e == null ? null : new A2aServer.Hint(false, Map.of("reason", "bug")))
            .build();
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/", server);
        http.setExecutor(Executors.newCachedThreadPool());
        http.start();
        url = "http://127.0.0.1:" + http.getAddress().getPort();
    }

    @AfterAll
    static void stop() {
        http.stop(0);
        server.close();
        Logger.getLogger("dev.a2acore.server").removeHandler(CAPTURE);
    }

    private static HttpResponse<String> post(String path, String body, Map<String, String> headers)
        throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String send10(String method, String text) {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":{\"message\":{\"messageId\":\"m-"
            + System.nanoTime() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"" + text + "\"}]}}}";
    }

    private static A2aClient client(String protocol, String binding) {
        return A2aClient.builder(url).allowHttp(true)
            .protocol(ProtocolVersion.fromWireName(protocol).orElseThrow())
            .binding(Binding.fromWireName(binding).orElseThrow())
            .callTimeout(Duration.ofSeconds(20)).streamIdleTimeout(Duration.ofSeconds(20)).build();
    }

    @Test
    void theCardIsTheCardBuildersForBothVersions() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create(url + "/.well-known/agent-card.json")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        JsonNode card = JSON.readTree(r.body());
        assertEquals(4, card.get("supportedInterfaces").size());
        assertEquals(url + "/", card.get("url").asText());
        assertEquals("JSONRPC", card.get("preferredTransport").asText());
        assertEquals(url + "/rest", card.get("supportedInterfaces").get(1).get("url").asText());
        try (CardBuilder b = new CardBuilder("java-agent", "test agent", "2.0.0")) {
            for (ProtocolVersion v : List.of(ProtocolVersion.V1_0, ProtocolVersion.V0_3)) {
                b.addInterface(url + "/", v, Binding.JSON_RPC).addInterface(url + "/rest", v, Binding.HTTP_JSON);
            }
            b.capabilities(true, false).addSkill("demo", "Demo", "test skill", List.of("demo"), List.of());
            assertEquals(r.body(), new String(b.build(), StandardCharsets.UTF_8));
        }
        try (CardBuilder none = new CardBuilder("a", "b", "1")) {
            A2aCoreException e = assertThrows(A2aCoreException.class, none::build);
            assertTrue(e.getMessage().contains("no interface"), e.getMessage());
        }
    }

    @ParameterizedTest
    @CsvSource({"1.0,JSONRPC", "0.3,JSONRPC", "1.0,HTTP+JSON", "0.3,HTTP+JSON"})
    void theBindingsOwnClientInBothVersionsOnBothBindings(String protocol, String binding) {
        try (A2aClient c = client(protocol, binding)) {
            Outcome o = c.send("echo native");
            assertEquals(Channel.MESSAGE, o.channel());
            assertEquals("native", o.text().orElseThrow());
            assertEquals(protocol, o.version().orElseThrow().wireName());

            o = c.send("fail");
            assertEquals(TaskState.FAILED, o.state().orElseThrow());
            String id = o.errorId().orElseThrow();
            assertTrue(id.matches("[0-9a-f]{12}"), id);
            assertEquals(Boolean.FALSE, o.remoteHintRetryable().orElseThrow());
            assertFalse(o.leakedDetail());
            synchronized (LOGGED) {
                assertTrue(LOGGED.stream().anyMatch(l -> l.getMessage().contains(id) && l.getThrown() != null
                    && "db password wrong".equals(l.getThrown().getMessage())), "the cause is logged with its id");
            }

            o = c.send("busy");
            assertEquals(TaskState.CANCELED, o.state().orElseThrow());
            assertEquals("admission", o.cancelOrigin().orElseThrow());

            o = c.send("count 2");
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow());
            assertEquals(TaskState.COMPLETED, c.get(o.taskId().orElseThrow()).state().orElseThrow());

            try (ClientStream s = c.stream("count 3")) {
                int items = 0;
                ClientStreamEvent last = null;
                while (s.hasNext()) {
                    last = s.next();
                    if (last instanceof ClientStreamEvent.Item) {
                        items++;
                    }
                }
                assertTrue(last instanceof ClientStreamEvent.End);
                assertEquals(TaskState.COMPLETED, ((ClientStreamEvent.End) last).outcome().state().orElseThrow());
                assertTrue(items >= 5, "task, working, 3 chunks, completed: " + items);
            }
        }
        assertTrue(server.tally().count("java-agent", "SendMessage", Channel.TASK, "failed") >= 1);
        assertTrue(server.tally().count("java-agent", "SendStreamingMessage", Channel.TASK, "completed") >= 1);
    }

    @Test
    void failedTextsCarryAFreshIdAndNoDetail() throws Exception {
        HttpResponse<String> a = post("/", send10("SendMessage", "fail"), Map.of("A2A-Version", "1.0"));
        HttpResponse<String> b = post("/", send10("SendMessage", "fail"), Map.of("A2A-Version", "1.0"));
        Matcher ma = ERROR_ID.matcher(a.body());
        Matcher mb = ERROR_ID.matcher(b.body());
        assertTrue(ma.find() && mb.find(), a.body());
        assertNotEquals(ma.group(1), mb.group(1));
        assertFalse(a.body().contains("password"));
        assertTrue(a.body().contains("[retryable=false; reason=bug]"), a.body());
    }

    @Test
    void streamsCarryProxySafeHeadersAndKeepAliveComments() throws Exception {
        HttpResponse<String> r = post("/", send10("SendStreamingMessage", "slow 500"), Map.of("A2A-Version", "1.0"));
        assertEquals("text/event-stream", r.headers().firstValue("content-type").orElseThrow());
        assertEquals("no", r.headers().firstValue("x-accel-buffering").orElseThrow());
        assertTrue(r.body().split(": keep-alive", -1).length - 1 >= 2, r.body());
        assertTrue(r.body().contains("TASK_STATE_COMPLETED"), r.body());
    }

    @Test
    void taskMethodsRefusalsAndTheHostCheck() throws Exception {
        HttpResponse<String> asked = post("/", send10("SendMessage", "ask"), Map.of("A2A-Version", "1.0"));
        JsonNode task = JSON.readTree(asked.body()).get("result").get("task");
        assertEquals("TASK_STATE_INPUT_REQUIRED", task.get("status").get("state").asText());
        String id = task.get("id").asText();
        String next = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"SendMessage\",\"params\":{\"message\":{\"messageId\":\"m-x\","
            + "\"role\":\"ROLE_USER\",\"taskId\":\"" + id + "\",\"parts\":[{\"text\":\"Ada\"}]}}}";
        JsonNode done = JSON.readTree(post("/", next, Map.of("A2A-Version", "1.0")).body()).get("result").get("task");
        assertEquals(id, done.get("id").asText());
        assertEquals("TASK_STATE_COMPLETED", done.get("status").get("state").asText());
        String cancel = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"CancelTask\",\"params\":{\"id\":\"" + id + "\"}}";
        assertEquals(-32002, JSON.readTree(post("/", cancel, Map.of("A2A-Version", "1.0")).body())
            .get("error").get("code").asInt());
        String get = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/get\",\"params\":{\"id\":\"nope\"}}";
        assertEquals(-32001, JSON.readTree(post("/", get, Map.of()).body()).get("error").get("code").asInt());
        HttpResponse<String> wrongType = post("/", send10("SendMessage", "x"), Map.of("Content-Type", "text/plain"));
        assertEquals(415, wrongType.statusCode());
        assertTrue(server.tally().count("java-agent", "unknown", Channel.PROTOCOL, "ContentTypeNotSupported") >= 1);
        // The Host check (DNS rebinding): only this listener's own address and names.
        java.net.Socket s = new java.net.Socket("127.0.0.1", http.getAddress().getPort());
        try (s) {
            String body = send10("SendMessage", "echo x");
            s.getOutputStream().write(("POST / HTTP/1.1\r\nHost: rebound.example\r\nContent-Type: application/json\r\n"
                + "A2A-Version: 1.0\r\nConnection: close\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                .getBytes(StandardCharsets.UTF_8));
            String head = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 421", head);
        }
    }
}
