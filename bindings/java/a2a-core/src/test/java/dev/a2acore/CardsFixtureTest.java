package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * chosen URL, version, binding, tenant and origin, or the error kind; and the
 * {@code credentials} column through {@link AgentCard#credentials()}.
 */
class CardsFixtureTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TestFactory
    Stream<DynamicTest> cards() throws Exception {
        JsonNode cases = Fixtures.load("cards.json").get("cases");
        assertTrue(cases.size() >= 40, "cards.json shrank to " + cases.size());
        List<DynamicTest> tests = new ArrayList<>();
        int withCredentials = 0;
        for (JsonNode c : cases) {
            tests.add(DynamicTest.dynamicTest(c.get("name").asText(), () -> check(c)));
            if (c.has("credentials")) {
                withCredentials++;
                tests.add(DynamicTest.dynamicTest(c.get("name").asText() + " (credentials)", () -> checkCredentials(c)));
            }
        }
        assertTrue(withCredentials >= 4, "cards.json has only " + withCredentials + " credentials cases");
        return tests.stream();
    }

    /** The plan's words against the column, and which header each need travels in. */
    private static void checkCredentials(JsonNode c) throws Exception {
        String name = c.get("name").asText() + " (" + c.get("source").asText() + ")";
        List<List<String>> want = new ArrayList<>();
        for (JsonNode alt : c.get("credentials")) {
            List<String> words = new ArrayList<>();
            alt.forEach(w -> words.add(w.asText()));
            want.add(words);
        }
        try (AgentCard card = AgentCard.parse(JSON.writeValueAsBytes(c.get("card")))) {
            AgentCard.CredentialPlan plan = card.credentials();
            List<List<String>> got = new ArrayList<>();
            for (List<AgentCard.CredentialNeed> alt : plan.alternatives()) {
                List<String> words = new ArrayList<>();
                for (AgentCard.CredentialNeed n : alt) {
                    words.add(n.word());
                    assertFalse(n.scheme().isEmpty(), name + ": need without a scheme name");
                    Optional<String> header = switch (n.kind()) {
                        case BEARER, BASIC, OTHER_HTTP -> Optional.of("Authorization");
                        case API_KEY -> n.apiKeyLocation().orElseThrow() == AgentCard.ApiKeyLocation.HEADER
                            ? n.apiKeyName() : Optional.empty();
                        default -> Optional.empty();
                    };
                    assertEquals(header, n.headerName(), name + ": header of " + n.word());
                }
                got.add(words);
            }
            assertEquals(want, got, name);
        }
    }

    @Test
    void credentialDetails() {
        String json = "{\"url\":\"https://h/a2a\",\"securitySchemes\":{"
            + "\"oauth\":{\"type\":\"oauth2\",\"flows\":{\"clientCredentials\":{\"tokenUrl\":\"https://h/t\",\"scopes\":{}}}},"
            + "\"jwt\":{\"type\":\"http\",\"scheme\":\"Bearer\",\"bearerFormat\":\"JWT\"},"
            + "\"q\":{\"type\":\"apiKey\",\"in\":\"query\",\"name\":\"key\"},"
            + "\"sig\":{\"type\":\"http\",\"scheme\":\"HOBA\"}},"
            + "\"security\":[{\"oauth\":[\"read\",\"write\"]},{\"jwt\":[],\"q\":[]},{\"sig\":[]},{\"nope\":[]},{}]}";
        try (AgentCard card = AgentCard.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
            AgentCard.CredentialPlan plan = card.credentials();
            assertTrue(plan.stated());
            List<List<AgentCard.CredentialNeed>> alts = plan.alternatives();
            assertEquals(5, alts.size());
            AgentCard.CredentialNeed oauth = alts.get(0).get(0);
            assertEquals(AgentCard.CredentialKind.BEARER, oauth.kind());
            assertEquals(Optional.of(AgentCard.BearerSource.OAUTH2), oauth.bearerSource());
            assertEquals(List.of("read", "write"), oauth.scopes());
            assertEquals("oauth", oauth.scheme());
            assertEquals(2, alts.get(1).size());
            AgentCard.CredentialNeed jwt = alts.get(1).get(0);
            assertEquals(Optional.of(AgentCard.BearerSource.HTTP), jwt.bearerSource());
            assertEquals(Optional.of("JWT"), jwt.bearerFormat());
            assertEquals(Optional.of("Authorization"), jwt.headerName());
            assertEquals(List.of(), jwt.scopes());
            AgentCard.CredentialNeed q = alts.get(1).get(1);
            assertEquals("api_key:query:key", q.word());
            assertEquals(Optional.empty(), q.headerName());
            assertEquals("other_http:HOBA", alts.get(2).get(0).word());
            AgentCard.CredentialNeed nope = alts.get(3).get(0);
            assertEquals(AgentCard.CredentialKind.UNKNOWN, nope.kind());
            assertEquals("nope", nope.scheme());
            assertEquals(Optional.empty(), nope.headerName());
            assertEquals(List.of(), alts.get(4));
        }
        // Schemes without a requirement: each offered alone, not stated.
        try (AgentCard card = AgentCard.parse(
                "{\"url\":\"https://h/\",\"securitySchemes\":{\"b\":{\"type\":\"http\",\"scheme\":\"Basic\"}}}".getBytes())) {
            AgentCard.CredentialPlan plan = card.credentials();
            assertFalse(plan.stated());
            assertEquals(1, plan.alternatives().size());
            assertEquals("basic", plan.alternatives().get(0).get(0).word());
        }
        AgentCard none = AgentCard.parse("{\"url\":\"https://h/\"}".getBytes());
        assertEquals(List.of(), none.credentials().alternatives());
        none.close();
        assertThrows(IllegalStateException.class, none::credentials);
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
            assertEquals(AgentCard.Shape.V0_3, info.shape());
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
