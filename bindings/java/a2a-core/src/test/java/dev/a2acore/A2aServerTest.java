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
                case "refuse" -> throw new A2aServer.ProtocolError(ErrorName.INVALID_PARAMS, "refused: " + rest);
                case "unsupported" -> throw new IllegalStateException("wrapped",
                    new A2aServer.ProtocolError(ErrorName.UNSUPPORTED_OPERATION, null));
                case "late" -> {
                    ctx.status("working", null);
                    throw new A2aServer.ProtocolError(ErrorName.INVALID_PARAMS, "too late");
                }
                default -> {
                    if (ctx.continuesTask() && ctx.text().equals("refuse-turn")) {
                        throw new A2aServer.ProtocolError(ErrorName.UNSUPPORTED_OPERATION, "not this turn");
                    }
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

    private static final Map<String, String> V1 = Map.of("A2A-Version", "1.0");

    private static JsonNode rpc(String method, Object params, Map<String, String> headers) throws Exception {
        String body = JSON.writeValueAsString(Map.of("jsonrpc", "2.0", "id", 7, "method", method, "params", params));
        return JSON.readTree(post("/", body, headers).body());
    }

    private static Map<String, Object> message(String text, String contextId, String taskId) {
        Map<String, Object> m = new java.util.HashMap<>(Map.of("messageId", java.util.UUID.randomUUID().toString(),
            "role", "ROLE_USER", "parts", List.of(Map.of("text", text))));
        if (contextId != null) {
            m.put("contextId", contextId);
        }
        if (taskId != null) {
            m.put("taskId", taskId);
        }
        return Map.of("message", m);
    }

    private static String sendIn(String text, String contextId) throws Exception {
        JsonNode r = rpc("SendMessage", message(text, contextId, null), V1);
        assertTrue(r.path("result").has("task"), r.toString());
        return r.get("result").get("task").get("id").asText();
    }

    private static List<String> ids(JsonNode listResult) {
        List<String> out = new ArrayList<>();
        listResult.get("tasks").forEach(t -> out.add(t.get("id").asText()));
        assertEquals(out.size(), listResult.get("pageSize").asInt(), listResult.toString());
        return out;
    }

    private static JsonNode list(Map<String, Object> params) throws Exception {
        JsonNode r = rpc("ListTasks", params, V1);
        assertTrue(r.has("result"), params + ": " + r);
        assertTrue(r.get("result").has("nextPageToken"), r.toString());
        return r.get("result");
    }

    @Test
    void listTasksPagesAndFilters() throws Exception {
        String ca = "ctx-a-" + System.nanoTime();
        String cb = "ctx-b-" + System.nanoTime();
        List<String> a = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            a.add(sendIn("count 1", ca));
        }
        String b1 = sendIn("ask", cb);
        String b2 = sendIn("ask", cb);
        // statusTimestampAfter is inclusive: keep mid clear of b2's status time (a status
        // stamped in mid's millisecond counts as "at" mid)
        Thread.sleep(5);
        String mid = java.time.Instant.now().toString();
        Thread.sleep(5);
        rpc("CancelTask", Map.of("id", b1), V1);

        JsonNode p1 = list(Map.of("contextId", ca, "pageSize", 2));
        assertEquals(List.of(a.get(2), a.get(1)), ids(p1));
        assertEquals(3, p1.get("totalSize").asInt());
        assertFalse(p1.get("tasks").get(0).has("artifacts"), p1.toString());
        String token = p1.get("nextPageToken").asText();
        assertFalse(token.isEmpty());
        JsonNode p2 = list(Map.of("contextId", ca, "pageSize", 2, "pageToken", token));
        assertEquals(List.of(a.get(0)), ids(p2));
        assertEquals("", p2.get("nextPageToken").asText());

        assertEquals(List.of(b2), ids(list(Map.of("contextId", cb, "status", "TASK_STATE_INPUT_REQUIRED"))));
        assertEquals(List.of(b1), ids(list(Map.of("contextId", cb, "status", "TASK_STATE_CANCELED"))));
        assertEquals(List.of(b1), ids(list(Map.of("contextId", cb, "statusTimestampAfter", mid))));
        assertEquals(List.of(b1, b2), ids(list(Map.of("contextId", cb))));
        assertEquals(List.of(), ids(list(Map.of("statusTimestampAfter", "2999-01-01T00:00:00+02:00"))));

        JsonNode full = list(Map.of("contextId", ca, "historyLength", 0, "includeArtifacts", true));
        full.get("tasks").forEach(t -> {
            assertEquals(0, t.path("history").size(), t.toString());
            assertEquals(1, t.get("artifacts").size(), t.toString());
        });
        for (Map<String, Object> bad : List.<Map<String, Object>>of(Map.of("pageSize", 0), Map.of("pageSize", 101),
            Map.of("historyLength", -1), Map.of("statusTimestampAfter", "yesterday"), Map.of("status", "sleeping"),
            Map.of("pageToken", "not-ours"))) {
            assertEquals(-32602, rpc("ListTasks", bad, V1).path("error").path("code").asInt(), bad.toString());
        }
        // The same over HTTP+JSON 1.0 (query parameters).
        HttpResponse<String> rest = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(url + "/rest/tasks?contextId=" + ca + "&pageSize=1&pageToken=" + token))
            .header("A2A-Version", "1.0").GET().build(), HttpResponse.BodyHandlers.ofString());
        JsonNode page = JSON.readTree(rest.body());
        assertEquals(List.of(a.get(0)), ids(page), rest.body());
        assertEquals(3, page.get("totalSize").asInt());
    }

    @Test
    void handlerProtocolErrorsInBothVersionsAndBindings() throws Exception {
        JsonNode r = rpc("SendMessage", message("refuse bad word", null, null), V1);
        assertEquals(-32602, r.get("error").get("code").asInt(), r.toString());
        assertEquals("refused: bad word", r.get("error").get("message").asText());
        assertEquals(7, r.get("id").asInt());
        assertEquals("INVALID_PARAMS", r.get("error").get("data").get(0).get("reason").asText(), r.toString());
        r = rpc("SendMessage", message("unsupported", null, null), V1);
        assertEquals(-32004, r.get("error").get("code").asInt(), r.toString());
        assertFalse(r.get("error").get("message").asText().isEmpty());
        // 0.3 JSON-RPC: the same code, no 1.0 data.
        r = rpc("message/send", Map.of("message", Map.of("messageId", "m-1", "role", "user", "kind", "message",
            "parts", List.of(Map.of("kind", "text", "text", "refuse old")))), Map.of());
        assertEquals(-32602, r.get("error").get("code").asInt(), r.toString());
        assertFalse(r.get("error").has("data"), r.toString());
        // 1.0 HTTP+JSON: the spec's status and a google.rpc.Status body.
        HttpResponse<String> rest = post("/rest/message:send", JSON.writeValueAsString(message("refuse rest", null, null)), V1);
        assertEquals(400, rest.statusCode(), rest.body());
        JsonNode st = JSON.readTree(rest.body()).get("error");
        assertEquals("INVALID_ARGUMENT", st.get("status").asText(), rest.body());
        assertEquals("refused: rest", st.get("message").asText());
        assertTrue(rest.body().contains("INVALID_PARAMS"), rest.body());
        // Streaming: JSON-RPC as an event stream of the one error, HTTP+JSON as the error response.
        String body = JSON.writeValueAsString(Map.of("jsonrpc", "2.0", "id", 9, "method", "SendStreamingMessage",
            "params", message("refuse stream", null, null)));
        HttpResponse<String> s = post("/", body, V1);
        assertEquals(200, s.statusCode());
        assertEquals("text/event-stream", s.headers().firstValue("content-type").orElseThrow());
        assertTrue(s.body().startsWith("data:") || s.body().contains("\ndata:"), s.body());
        assertTrue(s.body().contains("\"code\":-32602") && s.body().contains("\"id\":9"), s.body());
        rest = post("/rest/message:stream", JSON.writeValueAsString(message("refuse rest stream", null, null)), V1);
        assertEquals(400, rest.statusCode(), rest.body());
        // A refused follow-up leaves its task as it was; no failure is logged for refusals.
        String asked = sendIn("ask", "ctx-r-" + System.nanoTime());
        r = rpc("SendMessage", message("refuse-turn", null, asked), V1);
        assertEquals(-32004, r.get("error").get("code").asInt(), r.toString());
        assertEquals("TASK_STATE_INPUT_REQUIRED",
            rpc("GetTask", Map.of("id", asked), V1).get("result").get("status").get("state").asText());
        synchronized (LOGGED) {
            assertTrue(LOGGED.stream().noneMatch(l -> String.valueOf(l.getMessage()).contains("refused")), "refusals logged");
        }
        // After the handler reported, a protocol error fails the task (an error_id).
        r = rpc("SendMessage", message("late", null, null), V1);
        assertEquals("TASK_STATE_FAILED", r.get("result").get("task").get("status").get("state").asText(), r.toString());
        assertTrue(ERROR_ID.matcher(r.toString()).find(), r.toString());
        assertTrue(server.tally().count("java-agent", "SendStreamingMessage", Channel.PROTOCOL, "InvalidParams") >= 2);
    }
}
