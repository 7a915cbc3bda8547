package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case of {@code bindings/fixtures/requests.json} through the client machine's request
 * ({@link MachineTarget.Call#pollTransmit}): the HTTP method, the path below the interface
 * URL, the body (as JSON values; null means an empty body) and the header set (order-free,
 * names case-insensitive), the machine adding only its own {@code traceparent} and
 * {@code Accept}. The case's extensions go in as their header, its caller headers as the
 * call's headers. The four cases whose interface has a tenant are left out: a tenant comes
 * from the agent card, and a target made from a URL has none. Then a refusal.
 */
class RequestsFixtureTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "http://agent.example/a2a";
    /** Headers the machine sends on its own beyond what the fixture lists. */
    private static final Set<String> MACHINE_OWN = Set.of("traceparent", "accept");

    @TestFactory
    Stream<DynamicTest> requests() throws Exception {
        JsonNode cases = Fixtures.load("requests.json").get("cases");
        MachineTarget.Config config = MachineTarget.builder().build();
        List<DynamicTest> tests = new ArrayList<>();
        int tenants = 0;
        for (JsonNode c : cases) {
            JsonNode tenant = c.get("interface").get("tenant");
            if (tenant != null && !tenant.isNull()) {
                // The tenant of an interface comes from its card (a2a_client_state_from_card);
                // a target made from a URL has none: the core, ffi and C tests run these.
                tenants++;
                continue;
            }
            tests.add(DynamicTest.dynamicTest(c.get("name").asText(), () -> runCase(config, c)));
        }
        assertEquals(4, tenants, "requests.json cases with a tenant (left to the card-made states' tests)");
        if (tests.size() < 40) {
            throw new AssertionError("requests.json has only " + tests.size() + " cases");
        }
        return tests.stream();
    }

    private static void runCase(MachineTarget.Config config, JsonNode c) throws Exception {
        String src = c.get("name").asText() + " (" + c.get("source").asText() + ")";
        JsonNode i = c.get("interface");
        ProtocolVersion version = ProtocolVersion.fromWireName(i.get("version").asText()).orElseThrow();
        Binding binding = Binding.fromWireName(i.get("binding").asText()).orElseThrow();
        String methodName = c.get("call").get("method").asText();
        A2aMethod method = A2aMethod.fromJsonRpcName(methodName)
            .orElseThrow(() -> new AssertionError("unknown method " + methodName));
        JsonNode params = c.get("call").get("params");
        byte[] paramsJson = params == null || params.isNull() ? null : JSON.writeValueAsBytes(params);
        JsonNode id = c.get("id");
        Object rpcId = id == null || id.isNull() ? null : id.isNumber() ? (Object) id.asLong() : id.asText();
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        if (c.has("extensions")) {
            List<String> ext = new ArrayList<>();
            c.get("extensions").forEach(e -> ext.add(e.asText()));
            headers.add(Map.entry(version == ProtocolVersion.V0_3 ? "X-A2A-Extensions" : "A2A-Extensions",
                String.join(",", ext)));
        }
        if (c.has("headers")) {
            c.get("headers").forEach(h -> headers.add(Map.entry(h.get(0).asText(), h.get(1).asText())));
        }
        MachineTarget target = config.target(BASE, version, binding);
        try (MachineTarget.Call call = target.start(method, paramsJson, rpcId, headers)) {
            MachineTarget.Transmit t = call.pollTransmit().orElseThrow(() -> new AssertionError(src + ": no request"));
            JsonNode e = c.get("expect");
            assertEquals(e.get("method").asText(), t.method(), src);
            assertTrue(t.url().startsWith(BASE), src + ": " + t.url());
            assertEquals(e.get("path").asText(), t.url().substring(BASE.length()), src);
            JsonNode body = e.get("body");
            if (body.isNull()) {
                assertEquals(0, t.body().length, src + ": body " + new String(t.body()));
            } else {
                assertEquals(body, JSON.readTree(t.body()), src);
            }
            Map<String, List<String>> expected = headerSet(e.get("headers"));
            Map<String, List<String>> actual = headerSet(t.headers());
            MACHINE_OWN.forEach(n -> {
                if (!expected.containsKey(n)) {
                    actual.remove(n);
                }
            });
            assertEquals(expected, actual, src);
        }
    }

    @Test
    void paramsOfTheWrongShapeAreRefused() {
        MachineTarget target = MachineTarget.builder().build().target(BASE, ProtocolVersion.V0_3, Binding.JSON_RPC);
        A2aCoreException e = assertThrows(A2aCoreException.class,
            () -> target.start(A2aMethod.GET_TASK, "not json".getBytes(), 1L, List.of()));
        assertTrue(e.getMessage().contains("a2a_call_new"), e.getMessage());
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
}
