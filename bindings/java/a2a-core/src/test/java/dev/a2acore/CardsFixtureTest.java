package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case of {@code bindings/fixtures/cards.json} through {@link AgentCard#resolve}: the
 * chosen URL, version, binding, tenant and origin, or the error kind. The
 * {@code credentials} column has no C ABI export and is not checked here.
 */
class CardsFixtureTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TestFactory
    Stream<DynamicTest> cards() throws Exception {
        JsonNode cases = Fixtures.load("cards.json").get("cases");
        assertTrue(cases.size() >= 40, "cards.json shrank to " + cases.size());
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : cases) {
            tests.add(DynamicTest.dynamicTest(c.get("name").asText(), () -> check(c)));
        }
        return tests.stream();
    }

    private static void check(JsonNode c) throws Exception {
        String name = c.get("name").asText() + " (" + c.get("source").asText() + ")";
        JsonNode p = c.get("preferences");
        List<ProtocolVersion> versions = new ArrayList<>();
        p.get("versions").forEach(v -> versions.add(ProtocolVersion.fromWireName(v.asText()).orElseThrow()));
        List<Binding> bindings = new ArrayList<>();
        p.get("bindings").forEach(b -> bindings.add(Binding.fromWireName(b.asText()).orElseThrow()));
        AgentCard.Order order = switch (p.get("order").asText()) {
            case "client" -> AgentCard.Order.CLIENT_FIRST;
            case "card" -> AgentCard.Order.CARD_FIRST;
            default -> throw new AssertionError("order " + p.get("order"));
        };
        JsonNode pol = c.get("policy");
        List<String> origins = new ArrayList<>();
        pol.get("allowed_origins").forEach(o -> origins.add(o.asText()));
        AgentCard.Policy policy = new AgentCard.Policy(pol.get("allow_http").asBoolean(), origins);
        JsonNode expect = c.get("expect");
        try (AgentCard card = AgentCard.parse(JSON.writeValueAsBytes(c.get("card")))) {
            AgentCard.Preferences prefs = new AgentCard.Preferences(versions, bindings, order);
            if (expect.has("error")) {
                CardException e = assertThrows(CardException.class,
                    () -> card.resolve(c.get("card_url").asText(), prefs, policy), name);
                assertEquals(expect.get("error").asText(), e.kind(), name + ": " + e.getMessage());
                return;
            }
            AgentCard.Resolved r = card.resolve(c.get("card_url").asText(), prefs, policy);
            assertEquals(expect.get("url").asText(), r.choice().url(), name);
            assertEquals(expect.get("version").asText(), r.choice().version().wireName(), name);
            assertEquals(expect.get("binding").asText(), r.choice().binding().wireName(), name);
            JsonNode tenant = expect.get("tenant");
            assertEquals(tenant == null || tenant.isNull() ? Optional.empty() : Optional.of(tenant.asText()),
                r.choice().tenant(), name);
            if (expect.has("origin")) {
                assertEquals(expect.get("origin").asText(), r.choice().origin(), name);
            }
            assertTrue(card.explain().isPresent(), name + ": no explanation");
        }
    }

    @Test
    void infoInterfacesAndLocation() {
        String json = "{\"protocolVersion\":\"0.3.0\",\"name\":\"Echo\",\"description\":\"d\",\"url\":"
            + "\"https://agent.example.com/a2a\",\"preferredTransport\":\"JSONRPC\",\"version\":\"1.0.0\","
            + "\"capabilities\":{\"streaming\":true},\"defaultInputModes\":[],\"defaultOutputModes\":[],\"skills\":[]}";
        try (AgentCard card = AgentCard.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
            AgentCard.Info info = card.info();
            assertEquals("Echo", info.name());
            assertTrue(info.streaming());
            assertEquals(AgentCard.Shape.V03, info.shape());
            List<AgentCard.Interface> ifs = card.interfaces();
            assertEquals(1, ifs.size());
            assertEquals("https://agent.example.com/a2a", ifs.get(0).url());
            assertEquals(Optional.of(Binding.JSON_RPC), ifs.get(0).knownBinding());
            assertEquals("url/preferredTransport", ifs.get(0).origin());
            assertEquals("https://agent.example.com/a2a", card.select(AgentCard.Preferences.defaults()).url());
        }
        CardException bad = assertThrows(CardException.class, () -> AgentCard.parse("[1]".getBytes()));
        assertEquals("not_an_object", bad.kind());
        AgentCard.Location loc = AgentCard.location("https://h.example/a2a/agentX");
        assertTrue(loc.primary().startsWith("https://h.example/a2a/agentX/.well-known/"), loc.toString());
        assertTrue(AgentCard.validateInterfaceUrl("https://h.example/x", "https://h.example/.well-known/agent-card.json",
            AgentCard.Policy.strict()));
        CardException http = assertThrows(CardException.class, () -> AgentCard.validateInterfaceUrl(
            "http://h.example/x", "https://h.example/.well-known/agent-card.json", AgentCard.Policy.strict()));
        assertEquals("plain_http", http.kind());
    }
}
