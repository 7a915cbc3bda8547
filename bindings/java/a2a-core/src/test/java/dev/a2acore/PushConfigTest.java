package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Push configs through the client machine ({@link A2aClient#createPushConfigAsync} and the rest),
 * in both protocol versions on both bindings, asynchronously and blocking (on the native
 * transport and on a caller's HttpClient), against an agent on the project's server side
 * ({@link ServerRequest}: the core reads each version's request into 1.0 params and writes each
 * version's answer from a 1.0 result) that keeps push configs in memory on 127.0.0.1.
 */
class PushConfigTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static HttpServer http;
    private static String url;
    /** Configs by task id, then config id (1.0 ProtoJSON TaskPushNotificationConfig). */
    private static final Map<String, Map<String, ObjectNode>> STORE = new ConcurrentHashMap<>();
    /** Version, binding and method of every request the agent read. */
    private static final List<String> SEEN = new CopyOnWriteArrayList<>();
    private static final AtomicInteger IDS = new AtomicInteger();

    @BeforeAll
    static void start() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", PushConfigTest::serve);
        http.setExecutor(Executors.newCachedThreadPool());
        http.start();
        url = "http://127.0.0.1:" + http.getAddress().getPort();
    }

    @AfterAll
    static void stop() {
        http.stop(0);
    }

    @BeforeEach
    void clear() {
        SEEN.clear();
    }

    private static void serve(HttpExchange x) throws IOException {
        try (x) {
            byte[] body = x.getRequestBody().readAllBytes();
            List<Map.Entry<String, String>> headers = new ArrayList<>();
            x.getRequestHeaders().forEach((k, vs) -> vs.forEach(v -> headers.add(Map.entry(k, v))));
            ServerRequest.Options opts = ServerRequest.Options.both();
            String path = x.getRequestURI().getRawPath();
            String query = x.getRequestURI().getRawQuery();
            ServerRequest req = path.startsWith("/rest")
                ? ServerRequest.parseRest(x.getRequestMethod(), path.substring(5) + (query == null ? "" : "?" + query),
                    headers, body, opts)
                : ServerRequest.parseJsonRpc(headers, body, opts);
            try (ServerRequest r = req) {
                ServerRequest.Response resp = r.isRefused() ? r.refusal() : answer(r);
                resp.headers().forEach(h -> x.getResponseHeaders().add(h.getKey(), h.getValue()));
                x.sendResponseHeaders(resp.status(), resp.body().length == 0 ? -1 : resp.body().length);
                try (OutputStream out = x.getResponseBody()) {
                    out.write(resp.body());
                }
            }
        }
    }

    private static ServerRequest.Response answer(ServerRequest r) throws IOException {
        ServerRequest.Info info = r.info();
        SEEN.add(info.version() + " " + info.binding() + " " + info.method());
        JsonNode p = r.params();
        String taskId = p.path("taskId").asText("");
        Map<String, ObjectNode> configs = STORE.computeIfAbsent(taskId, k -> new ConcurrentHashMap<>());
        switch (info.method()) {
            case CREATE_PUSH_CONFIG -> {
                JsonNode src = p.path("config").isObject() ? p.path("config")
                    : p.path("pushNotificationConfig").isObject() ? p.path("pushNotificationConfig") : p;
                ObjectNode c = JSON.createObjectNode();
                String id = src.path("id").asText("");
                c.put("id", id.isEmpty() ? "cfg-" + IDS.incrementAndGet() : id);
                c.put("taskId", taskId);
                c.put("url", src.path("url").asText());
                if (src.hasNonNull("token")) {
                    c.put("token", src.get("token").asText());
                }
                if (src.path("authentication").isObject()) {
                    c.set("authentication", src.get("authentication"));
                }
                configs.put(c.get("id").asText(), c);
                return r.result(JSON.writeValueAsBytes(c));
            }
            case GET_PUSH_CONFIG -> {
                ObjectNode c = configs.get(p.path("id").asText());
                return c == null ? r.error(ErrorName.TASK_NOT_FOUND, "no such push config")
                    : r.result(JSON.writeValueAsBytes(c));
            }
            case LIST_PUSH_CONFIGS -> {
                ObjectNode page = JSON.createObjectNode();
                configs.values().stream().sorted((a, b) -> a.get("id").asText().compareTo(b.get("id").asText()))
                    .forEach(page.withArray("configs")::add);
                page.withArray("configs");
                return r.result(JSON.writeValueAsBytes(page));
            }
            case DELETE_PUSH_CONFIG -> {
                return configs.remove(p.path("id").asText()) == null
                    ? r.error(ErrorName.TASK_NOT_FOUND, "no such push config") : r.result(null);
            }
            default -> {
                return r.error(ErrorName.UNSUPPORTED_OPERATION, "push configs only");
            }
        }
    }

    static Stream<Arguments> targets() {
        List<Arguments> out = new ArrayList<>();
        for (ProtocolVersion v : ProtocolVersion.values()) {
            for (Binding b : Binding.values()) {
                for (String path : List.of("async", "native", "httpclient")) {
                    out.add(Arguments.of(v, b, path));
                }
            }
        }
        return out.stream();
    }

    private static A2aClient client(ProtocolVersion v, Binding b, String path) {
        A2aClient.Builder builder = A2aClient.builder(url + (b == Binding.JSON_RPC ? "/" : "/rest"))
            .knownTarget(v, b).allowHttp(true).connectTimeout(Duration.ofSeconds(2)).callTimeout(Duration.ofSeconds(20));
        if (path.equals("httpclient")) {
            builder.httpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build());
        }
        return builder.build();
    }

    /** The four calls on one client, each asynchronous or blocking as {@code path} says. */
    private record Calls(A2aClient c, boolean async) {
        A2aClient.PushConfigResult create(PushConfig cfg) throws Exception {
            return async ? c.createPushConfigAsync(cfg, CallOptions.none()).get(30, TimeUnit.SECONDS)
                : c.createPushConfig(cfg, CallOptions.none());
        }

        A2aClient.PushConfigResult get(String task, String id) throws Exception {
            return async ? c.getPushConfigAsync(task, id, CallOptions.none()).get(30, TimeUnit.SECONDS)
                : c.getPushConfig(task, id, CallOptions.none());
        }

        A2aClient.PushConfigList list(String task) throws Exception {
            return async ? c.listPushConfigsAsync(task, CallOptions.none()).get(30, TimeUnit.SECONDS)
                : c.listPushConfigs(task, CallOptions.none());
        }

        Outcome delete(String task, String id) throws Exception {
            return async ? c.deletePushConfigAsync(task, id, CallOptions.none()).get(30, TimeUnit.SECONDS)
                : c.deletePushConfig(task, id, CallOptions.none());
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("targets")
    void createGetListDeleteRoundTrip(ProtocolVersion v, Binding b, String path) throws Exception {
        String task = "t-" + v + "-" + b + "-" + path;
        try (A2aClient client = client(v, b, path)) {
            Calls c = new Calls(client, path.equals("async"));
            A2aClient.PushConfigResult created = c.create(PushConfig.of(task, "https://hooks.example/a")
                .withToken("tok-a").withAuthentication(List.of("Bearer"), "cred-a"));
            assertTrue(created.outcome().isSuccess(), created.outcome() + " " + SEEN);
            PushConfig a = created.config().orElseThrow();
            assertEquals(task, a.taskId());
            assertTrue(a.id().startsWith("cfg-"), a.toString());
            assertEquals("https://hooks.example/a", a.url());
            assertEquals(Optional.of("tok-a"), a.token());
            assertEquals(List.of("Bearer"), a.authentication().orElseThrow().schemes());
            assertEquals("cred-a", a.authentication().orElseThrow().credentials());
            // What the agent stored is what was sent, whatever envelope carried it.
            ObjectNode stored = STORE.get(task).get(a.id());
            assertEquals("https://hooks.example/a", stored.path("url").asText(), stored.toString());
            assertEquals("tok-a", stored.path("token").asText(), stored.toString());

            PushConfig b2 = c.create(PushConfig.of(task, "https://hooks.example/b").withId("mine")).config()
                .orElseThrow();
            assertEquals("mine", b2.id());
            assertEquals(Optional.empty(), b2.token());

            A2aClient.PushConfigResult got = c.get(task, a.id());
            assertTrue(got.outcome().isSuccess(), got.outcome().toString());
            assertEquals(a, got.config().orElseThrow());

            A2aClient.PushConfigList listed = c.list(task);
            assertTrue(listed.outcome().isSuccess(), listed.outcome().toString());
            assertEquals(List.of(a.id(), "mine"), listed.configs().stream().map(PushConfig::id).toList());
            assertEquals(List.of(task, task), listed.configs().stream().map(PushConfig::taskId).toList());
            assertEquals("https://hooks.example/b", listed.configs().get(1).url());

            Outcome deleted = c.delete(task, a.id());
            assertTrue(deleted.isSuccess(), deleted.toString());
            assertFalse(STORE.get(task).containsKey(a.id()));
            assertEquals(List.of("mine"), c.list(task).configs().stream().map(PushConfig::id).toList());

            A2aClient.PushConfigResult gone = c.get(task, a.id());
            assertFalse(gone.outcome().isSuccess(), gone.outcome().toString());
            assertEquals(Channel.PROTOCOL, gone.outcome().channel(), gone.outcome().toString());
            assertEquals(Optional.of(ErrorName.TASK_NOT_FOUND), gone.outcome().errorName(), gone.outcome().toString());
            assertEquals(Optional.empty(), gone.config());
            Outcome again = c.delete(task, a.id());
            assertEquals(Optional.of(ErrorName.TASK_NOT_FOUND), again.errorName(), again.toString());
        }
        // Every call reached the agent in the version and binding asked for, as the method asked for.
        assertEquals(List.of("CREATE_PUSH_CONFIG", "CREATE_PUSH_CONFIG", "GET_PUSH_CONFIG", "LIST_PUSH_CONFIGS",
            "DELETE_PUSH_CONFIG", "LIST_PUSH_CONFIGS", "GET_PUSH_CONFIG", "DELETE_PUSH_CONFIG"),
            SEEN.stream().map(s -> s.substring(s.lastIndexOf(' ') + 1)).toList());
        assertTrue(SEEN.stream().allMatch(s -> s.startsWith(v + " " + b + " ")), SEEN.toString());
    }
}
