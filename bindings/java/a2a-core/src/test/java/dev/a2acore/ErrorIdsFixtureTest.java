package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Every case of {@code bindings/fixtures/error_ids.json} through {@link ErrorIds#extract}. */
class ErrorIdsFixtureTest {
    @TestFactory
    Stream<DynamicTest> errorIds() throws Exception {
        JsonNode cases = Fixtures.load("error_ids.json").get("cases");
        List<DynamicTest> tests = new ArrayList<>();
        int i = 0;
        for (JsonNode c : cases) {
            String text = c.get("text").asText();
            JsonNode e = c.get("expect");
            Optional<String> want = e == null || e.isNull() ? Optional.empty() : Optional.of(e.asText());
            tests.add(DynamicTest.dynamicTest("case " + (i++) + ": " + text, () ->
                assertEquals(want, ErrorIds.extract(text), c.get("source").asText())));
        }
        if (tests.isEmpty()) {
            throw new AssertionError("error_ids.json has no cases");
        }
        return tests.stream();
    }
}
