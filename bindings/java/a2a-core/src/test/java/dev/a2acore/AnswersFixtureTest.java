package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * bindings/fixtures/answers.json through the Java binding: every result body (0.3 and 1.0,
 * JSON-RPC and HTTP+JSON, every part kind) and every stream reads to the same typed answer;
 * unreadable bodies throw saying where; messages to send are written in the canonical shape
 * and accepted by the library.
 */
class AnswersFixtureTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static ProtocolVersion version(JsonNode c) {
        return c.path("version").asText().equals("0.3") ? ProtocolVersion.V03 : ProtocolVersion.V10;
    }

    private static Binding binding(JsonNode c) {
        return c.path("binding").asText().equals("jsonrpc") ? Binding.JSON_RPC : Binding.HTTP_JSON;
    }

    private static void checkParts(String name, List<Answer.Part> got, JsonNode want) {
        assertEquals(want.size(), got.size(), name);
        for (int i = 0; i < want.size(); i++) {
            JsonNode w = want.get(i);
            Answer.Part p = got.get(i);
            assertEquals(w.path("kind").asText(), p.kind().name().toLowerCase(java.util.Locale.ROOT), name);
            assertEquals(w.path("media_type").isNull() ? null : w.path("media_type").asText(),
                p.mediaType().orElse(null), name);
            assertEquals(w.path("name").isNull() ? null : w.path("name").asText(), p.name().orElse(null), name);
            assertEquals(w.path("metadata").isNull() ? Map.of() : MAPPER.convertValue(w.get("metadata"), Map.class),
                p.metadata(), name);
            switch (p.kind()) {
                case TEXT -> assertEquals(w.path("text").asText(), p.text(), name);
                case DATA -> assertEquals(MAPPER.convertValue(w.get("data"), Object.class), p.data(), name);
                case FILE -> {
                    if (w.has("bytes")) {
                        assertArrayEquals(Base64.getDecoder().decode(w.path("bytes").asText()), p.bytes(), name);
                        assertEquals(w.path("size").asInt(), p.bytes().length, name);
                    } else {
                        assertEquals(w.path("uri").asText(), p.uri(), name);
                        assertNull(p.bytes(), name);
                    }
                }
            }
        }
    }

    private static void checkAnswer(String name, Answer a, JsonNode want) {
        assertEquals(want.path("kind").asText(), a.kind(), name);
        assertEquals(want.path("text").asText(), a.text().orElseThrow(), name);
        if (a.kind().equals("message")) {
            Answer.Message m = a.message().orElseThrow();
            assertEquals(want.path("message_id").asText(), m.messageId(), name);
            assertEquals(want.path("role").asText(), m.role(), name);
            checkParts(name, m.parts(), want.path("parts"));
            assertEquals(a.text(), m.text(), name);
            return;
        }
        Answer.Task t = a.task().orElseThrow();
        assertEquals(want.path("id").asText(), t.id(), name);
        assertEquals(want.path("status").path("state").asText(), t.status().state(), name);
        JsonNode arts = want.path("artifacts");
        assertEquals(arts.size(), t.artifacts().size(), name);
        for (int i = 0; i < arts.size(); i++) {
            assertEquals(arts.get(i).path("artifact_id").asText(), t.artifacts().get(i).artifactId(), name);
            checkParts(name, t.artifacts().get(i).parts(), arts.get(i).path("parts"));
        }
    }

    @Test
    void everyResultAndStreamReadsToTheSameAnswer() throws Exception {
        JsonNode doc = Fixtures.load("answers.json");
        assertTrue(doc.path("results").size() >= 9);
        for (JsonNode c : doc.path("results")) {
            byte[] body = c.get("body").toString().getBytes(StandardCharsets.UTF_8);
            checkAnswer(c.path("name").asText(), Answer.read(body, version(c), binding(c), false).orElseThrow(),
                c.path("expect"));
        }
        for (JsonNode c : doc.path("streams")) {
            StringBuilder sb = new StringBuilder();
            c.path("events").forEach(e -> sb.append("data: ").append(e.asText()).append("\n\n"));
            Answer a = Answer.read(sb.toString().getBytes(StandardCharsets.UTF_8), version(c), binding(c), true)
                .orElseThrow();
            checkAnswer(c.path("name").asText(), a, c.path("expect"));
        }
        assertTrue(Answer.read(new byte[0], ProtocolVersion.V10, Binding.JSON_RPC, true).isEmpty());
    }

    @Test
    void unreadableBodiesThrowSayingWhere() throws Exception {
        for (JsonNode c : Fixtures.load("answers.json").path("unreadable")) {
            byte[] body = c.has("body_text") ? c.path("body_text").asText().getBytes(StandardCharsets.UTF_8)
                : Base64.getDecoder().decode(c.path("body_b64").asText());
            Answer.UnreadableException e = assertThrows(Answer.UnreadableException.class,
                () -> Answer.read(body, version(c), binding(c), false));
            String where = c.has("at") ? c.path("at").asText() : c.path("at_prefix").asText();
            assertTrue(e.getMessage().contains(where), e.getMessage());
        }
    }

    @Test
    void messagesToSendAreWrittenInTheCanonicalShape() throws Exception {
        try (A2aClient client = A2aClient.builder("http://127.0.0.1:1/a2a")
                .knownTarget(ProtocolVersion.V10, Binding.JSON_RPC).allowHttp(true)
                .connectTimeout(Duration.ofMillis(200)).build()) {
            for (JsonNode s : Fixtures.load("answers.json").path("send")) {
                JsonNode msg = s.path("message");
                List<Answer.Part> parts = new ArrayList<>();
                for (JsonNode p : msg.path("parts")) {
                    Answer.Part part = switch (p.path("kind").asText()) {
                        case "text" -> Answer.Part.text(p.path("text").asText());
                        case "data" -> Answer.Part.data(MAPPER.convertValue(p.get("data"), Object.class));
                        default -> p.has("bytes")
                            ? Answer.Part.file(p.has("name") ? p.path("name").asText() : null,
                                p.has("media_type") ? p.path("media_type").asText() : null,
                                Base64.getDecoder().decode(p.path("bytes").asText()))
                            : Answer.Part.fileUri(p.path("uri").asText(),
                                p.has("media_type") ? p.path("media_type").asText() : null);
                    };
                    parts.add(part);
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> md = msg.has("metadata") ? MAPPER.convertValue(msg.get("metadata"), Map.class) : Map.of();
                assertEquals(msg, MAPPER.readTree(Answer.messageJson(parts, md)), s.path("name").asText());
                Outcome o = client.send(parts, md, CallOptions.none());
                assertEquals(Channel.TRANSPORT, o.channel(), s.path("name").asText());
                assertTrue(o.result().isEmpty());
            }
            assertThrows(IllegalArgumentException.class, () -> client.send(List.of(), Map.of(), CallOptions.none()));
        }
    }
}
