package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every golden vector of {@code bindings/fixtures/idempotency.json} (computed with Python's
 * hashlib from the documented definition) through {@link Idempotency}, and the refused
 * empty inputs.
 */
class IdempotencyFixtureTest {
    @TestFactory
    Stream<DynamicTest> goldenVectors() throws Exception {
        JsonNode root = Fixtures.load("idempotency.json");
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : root.get("cases")) {
            List<byte[]> parts = new ArrayList<>();
            if (c.has("parts_hex")) {
                c.get("parts_hex").forEach(p -> parts.add(HexFormat.of().parseHex(p.asText())));
            } else {
                c.get("parts").forEach(p -> parts.add(p.asText().getBytes(StandardCharsets.UTF_8)));
            }
            tests.add(DynamicTest.dynamicTest(c.get("id").asText(), () -> {
                assertEquals(c.get("idempotency_key").asText(), Idempotency.key(parts));
                assertEquals(c.get("message_id").asText(), Idempotency.messageId(parts));
            }));
        }
        for (JsonNode empty : root.get("empty_input").get("parts")) {
            List<byte[]> parts = new ArrayList<>();
            empty.forEach(p -> parts.add(p.asText().getBytes(StandardCharsets.UTF_8)));
            tests.add(DynamicTest.dynamicTest("empty input " + empty, () -> {
                A2aCoreException e = assertThrows(A2aCoreException.class, () -> Idempotency.key(parts));
                assertEquals(A2aCoreException.KEY_EMPTY_INPUT, e.code());
                assertThrows(A2aCoreException.class, () -> Idempotency.messageId(parts));
            }));
        }
        return tests.stream();
    }
}
