package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case of {@code bindings/fixtures/requests.json} through {@link RequestBuilder}: the
 * HTTP method, the path, the header set (order-free, names case-insensitive) and the body
 * (as JSON values; null means an empty body), plus the JSON-RPC id the response must echo.
 * Then the text builder, the HTTP/1.1 writer and the refusals, derived by hand.
 */
class RequestsFixtureTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TestFactory
    Stream<DynamicTest> requests() throws Exception {
        JsonNode cases = Fixtures.load("requests.json").get("cases");
        List<DynamicTest> tests = new ArrayList<>();
        RequestBuilder builder = new RequestBuilder();
        for (JsonNode c : cases) {
            tests.add(DynamicTest.dynamicTest(c.get("name").asText(), () -> runCase(builder, c)));
        }
        if (tests.size() < 40) {
            throw new AssertionError("requests.json has only " + tests.size() + " cases");
        }
        return tests.stream().onClose(builder::close);
    }

    private static void runCase(RequestBuilder builder, JsonNode c) throws Exception {
        String src = c.get("name").asText() + " (" + c.get("source").asText() + ")";
        JsonNode i = c.get("interface");
        ProtocolVersion version = ProtocolVersion.fromWireName(i.get("version").asText()).orElseThrow();
        Binding binding = Binding.fromWireName(i.get("binding").asText()).orElseThrow();
        JsonNode tenant = i.get("tenant");
        RequestBuilder.Target target = new RequestBuilder.Target(version, binding,
            tenant == null || tenant.isNull() ? Optional.empty() : Optional.of(tenant.asText()));
        String methodName = c.get("call").get("method").asText();
        A2aMethod method = A2aMethod.fromJsonRpcName(methodName)
            .orElseThrow(() -> new AssertionError("unknown method " + methodName));
        assertEquals(Optional.of(methodName), method.jsonRpcName(ProtocolVersion.V1_0), "1.0 name round trip");
        JsonNode params = c.get("call").get("params");
        String paramsJson = params == null || params.isNull() ? null : JSON.writeValueAsString(params);
        JsonNode id = c.get("id");
        Object rpcId = id == null || id.isNull() ? null : id.isNumber() ? (Object) id.asLong() : id.asText();
        List<String> extensions = new ArrayList<>();
        if (c.has("extensions")) {
            c.get("extensions").forEach(e -> extensions.add(e.asText()));
        }
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        if (c.has("headers")) {
            c.get("headers").forEach(h -> headers.add(Map.entry(h.get(0).asText(), h.get(1).asText())));
        }
        Request r = builder.build(target, method, paramsJson, new RequestBuilder.Options(rpcId, extensions, headers));
        JsonNode e = c.get("expect");
        assertEquals(e.get("method").asText(), r.httpMethod(), src);
        assertEquals(e.get("path").asText(), r.path(), src);
        assertEquals(headerSet(e.get("headers")), headerSet(r.headers()), src);
        JsonNode body = e.get("body");
        if (body.isNull()) {
            assertEquals(0, r.body().length, src + ": body " + r.bodyText());
        } else {
            assertEquals(body, JSON.readTree(r.body()), src);
        }
        assertEquals(method, r.method(), src);
        if (binding == Binding.JSON_RPC) {
            assertEquals(Optional.of(id.isNumber() ? Long.toString(id.asLong()) : id.asText()), r.rpcId(), src);
        } else {
            assertEquals(Optional.empty(), r.rpcId(), src);
        }
    }

    /** name (lower case) → values in order, so order across names is free but not within one. */
    private static Map<String, List<String>> headerSet(JsonNode pairs) {
        Map<String, List<String>> m = new TreeMap<>();
        pairs.forEach(p -> m.computeIfAbsent(p.get(0).asText().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
            .add(p.get(1).asText()));
        return m;
    }

    private static Map<String, List<String>> headerSet(List<Map.Entry<String, String>> pairs) {
        Map<String, List<String>> m = new TreeMap<>();
        pairs.forEach(p -> m.computeIfAbsent(p.getKey().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
            .add(p.getValue()));
        return m;
    }

    /** Hand derivation: a 0.3 JSON-RPC message/send of one user text part (docs/wire.md §8.1 shape). */
    @Test
    void textBuilderAndHttp1Writer() throws Exception {
        try (RequestBuilder b = new RequestBuilder()) {
            Request r = b.buildText(RequestBuilder.Target.of(ProtocolVersion.V0_3, Binding.JSON_RPC), "m-1",
                "hello \"world\"", RequestBuilder.Options.id(7L));
            assertEquals("POST", r.httpMethod());
            assertEquals("", r.path());
            assertEquals(A2aMethod.SEND_MESSAGE, r.method());
            assertEquals(Optional.of("7"), r.rpcId());
            JsonNode body = JSON.readTree(r.body());
            assertEquals("2.0", body.get("jsonrpc").asText());
            assertEquals(7, body.get("id").asInt());
            assertEquals("message/send", body.get("method").asText());
            JsonNode msg = body.get("params").get("message");
            assertEquals("m-1", msg.get("messageId").asText());
            assertEquals("user", msg.get("role").asText());
            assertEquals("hello \"world\"", msg.get("parts").get(0).get("text").asText());
            assertEquals(Optional.of("application/json"), r.header("content-type"));
            Asked asked = r.asked(ProtocolVersion.V0_3, Binding.JSON_RPC);
            assertEquals(Optional.of("message/send"), asked.method());
            assertEquals(Optional.of("7"), asked.requestId());

            byte[] wire = b.writeHttp1("/agents/a2a", "agent.example:8443");
            String text = new String(wire, StandardCharsets.UTF_8);
            assertTrue(text.startsWith("POST /agents/a2a HTTP/1.1\r\n"), text);
            assertTrue(text.toLowerCase(Locale.ROOT).contains("\r\nhost: agent.example:8443\r\n"), text);
            assertTrue(text.toLowerCase(Locale.ROOT).contains("\r\ncontent-length: " + r.body().length + "\r\n"), text);
            int split = text.indexOf("\r\n\r\n");
            assertTrue(split > 0, text);
            byte[] tail = java.util.Arrays.copyOfRange(wire, wire.length - r.body().length, wire.length);
            assertArrayEquals(r.body(), tail, "the body follows the head");
        }
    }

    /** Refusals, each with the library's reason and its C code. */
    @Test
    void refusalsAreTyped() {
        try (RequestBuilder b = new RequestBuilder()) {
            RequestBuilder.Target v03 = RequestBuilder.Target.of(ProtocolVersion.V0_3, Binding.JSON_RPC);
            RequestBuilder.BuildException notInVersion = assertThrows(RequestBuilder.BuildException.class,
                () -> b.build(v03, A2aMethod.LIST_TASKS, "{}", RequestBuilder.Options.id(1L)));
            assertEquals(401, notInVersion.code(), notInVersion.getMessage());
            RequestBuilder.BuildException noId = assertThrows(RequestBuilder.BuildException.class,
                () -> b.build(v03, A2aMethod.GET_TASK, "{\"id\":\"t\"}", RequestBuilder.Options.none()));
            assertEquals(402, noId.code(), noId.getMessage());
            RequestBuilder.BuildException badParams = assertThrows(RequestBuilder.BuildException.class,
                () -> b.build(v03, A2aMethod.GET_TASK, "not json", RequestBuilder.Options.id(1L)));
            assertEquals(400, badParams.code(), badParams.getMessage());
            RequestBuilder.BuildException injected = assertThrows(RequestBuilder.BuildException.class,
                () -> b.build(v03, A2aMethod.GET_TASK, "{\"id\":\"t\"}", new RequestBuilder.Options(1L, List.of(),
                    List.of(Map.entry("X-Evil", "a\r\nHost: other")))));
            assertEquals(404, injected.code(), injected.getMessage());
            assertThrows(IllegalStateException.class, () -> b.writeHttp1("/", "h"), "nothing built after a refusal");
            assertEquals(Optional.empty(), A2aMethod.fromJsonRpcName("tasks/nope"));
            assertEquals(Optional.of(A2aMethod.SEND_MESSAGE), A2aMethod.fromJsonRpcName("message/send"));
            assertEquals(Optional.empty(), A2aMethod.LIST_TASKS.jsonRpcName(ProtocolVersion.V0_3));
        }
    }
}
