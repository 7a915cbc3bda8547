package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every shared fixture file is either run by this binding or listed here with the reason it
 * cannot be yet: a new fixture file fails this test until someone decides.
 */
class FixtureCoverageTest {
    /** Run by this binding's tests (and must exist: Fixtures.load fails on a missing file). */
    private static final Map<String, String> RUN = Map.of(
        "sse.json", "SseFixtureTest",
        "outcomes.json", "OutcomesFixtureTest",
        "error_ids.json", "ErrorIdsFixtureTest",
        "idempotency.json", "IdempotencyFixtureTest",
        "cards.json", "CardsFixtureTest",
        "requests.json", "RequestsFixtureTest",
        "answers.json", "AnswersFixtureTest");

    /** Not reachable through the C ABI yet (no export for what they test). */
    private static final Map<String, String> NOT_EXPORTED = Map.of(
        "wire_objects.json", "A2A object model round trip: Rust-internal (a2a_core::model), no C ABI export",
        "wire_tolerance.json", "A2A object model tolerant reading: Rust-internal, no C ABI export");

    @Test
    void everyFixtureFileIsAccountedFor() throws Exception {
        Path dir = Fixtures.repoRoot().resolve("bindings").resolve("fixtures");
        TreeSet<String> present;
        try (Stream<Path> s = Files.list(dir)) {
            present = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json"))
                .collect(Collectors.toCollection(TreeSet::new));
        }
        TreeSet<String> known = new TreeSet<>(RUN.keySet());
        known.addAll(NOT_EXPORTED.keySet());
        TreeSet<String> unknown = new TreeSet<>(present);
        unknown.removeAll(known);
        assertEquals(new TreeSet<>(), unknown, "fixture files the Java binding neither runs nor lists as not exported");
        TreeSet<String> missing = new TreeSet<>(RUN.keySet());
        missing.removeAll(present);
        assertEquals(new TreeSet<>(), missing, "fixture files the Java binding depends on are missing");
    }
}
