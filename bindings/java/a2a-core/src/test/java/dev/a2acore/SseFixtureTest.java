package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case of {@code bindings/fixtures/sse.json}, fed whole, split into two chunks at every
 * byte offset, and in 1-byte chunks: each must give exactly the expected events, comment
 * count, retries, limit errors, finish report and last event ID; and through {@code feed}
 * (events only), whole and split at every byte.
 */
class SseFixtureTest {

    /** What one run of a case produced, in the fixture's vocabulary. */
    private record Run(List<SseEvent> events, int comments, List<Long> retries, List<String> errors,
                       SseFinish finish, String lastEventId) {}

    @TestFactory
    Stream<DynamicTest> sseFixtures() throws Exception {
        JsonNode root = Fixtures.load("sse.json");
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : root.get("cases")) {
            String name = c.get("name").asText();
            byte[] input = c.has("input_base64")
                ? Base64.getDecoder().decode(c.get("input_base64").asText())
                : c.get("input").asText().getBytes(StandardCharsets.UTF_8);
            SseConfig config = config(c.get("options"));
            tests.add(DynamicTest.dynamicTest(name + " [whole]", () -> check(c, run(config, input, new int[] {input.length}))));
            tests.add(DynamicTest.dynamicTest(name + " [split at every byte]", () -> {
                for (int at = 0; at <= input.length; at++) {
                    Run r = run(config, input, new int[] {at, input.length - at});
                    check(c, r, "split at " + at);
                }
            }));
            tests.add(DynamicTest.dynamicTest(name + " [1-byte chunks]", () -> {
                int[] sizes = new int[input.length];
                java.util.Arrays.fill(sizes, 1);
                check(c, run(config, input, sizes), "1-byte chunks");
            }));
            // feed() (events only) reads no item array: the same events, whole and split.
            tests.add(DynamicTest.dynamicTest(name + " [feed: whole and split at every byte]", () -> {
                List<SseEvent> expected = new ArrayList<>();
                c.get("events").forEach(e -> expected.add(event(e)));
                assertEquals(expected, runEvents(config, input, new int[] {input.length}), name + " (feed, whole)");
                for (int at = 0; at <= input.length; at++) {
                    assertEquals(expected, runEvents(config, input, new int[] {at, input.length - at}),
                        name + " (feed, split at " + at + ")");
                }
            }));
        }
        if (tests.isEmpty()) {
            throw new AssertionError("sse.json has no cases");
        }
        return tests.stream();
    }

    private static SseConfig config(JsonNode options) {
        SseConfig cfg = SseConfig.defaults();
        if (options != null) {
            if (options.has("max_line")) {
                cfg = cfg.withMaxLine(options.get("max_line").asLong());
            }
            if (options.has("max_event")) {
                cfg = cfg.withMaxEvent(options.get("max_event").asLong());
            }
            if (options.has("dispatch_at_eof")) {
                cfg = cfg.withDispatchAtEof(options.get("dispatch_at_eof").asBoolean());
            }
        }
        return cfg;
    }

    private static Run run(SseConfig config, byte[] input, int[] sizes) {
        try (SseDecoder d = new SseDecoder(config)) {
            List<SseEvent> events = new ArrayList<>();
            int comments = 0;
            List<Long> retries = new ArrayList<>();
            List<String> errors = new ArrayList<>();
            int off = 0;
            for (int size : sizes) {
                // Feed from a fresh array holding only this chunk (the decoder must not rely
                // on bytes outside what it was given).
                byte[] chunk = java.util.Arrays.copyOfRange(input, off, off + size);
                off += size;
                for (SseItem item : d.feedItems(chunk)) {
                    if (item instanceof SseEvent e) {
                        events.add(e);
                    } else if (item instanceof SseItem.Comment) {
                        comments++;
                    } else if (item instanceof SseItem.Retry r) {
                        retries.add(r.millis());
                    } else if (item instanceof SseItem.LimitError l) {
                        errors.add(l.limit().wireName());
                    }
                }
            }
            SseFinish finish = d.finish();
            return new Run(events, comments, retries, errors, finish, d.lastEventId());
        }
    }

    private static List<SseEvent> runEvents(SseConfig config, byte[] input, int[] sizes) {
        try (SseDecoder d = new SseDecoder(config)) {
            List<SseEvent> events = new ArrayList<>();
            int off = 0;
            for (int size : sizes) {
                events.addAll(d.feed(input, off, size));
                off += size;
            }
            return events;
        }
    }

    private static void check(JsonNode c, Run r) {
        check(c, r, "whole");
    }

    private static void check(JsonNode c, Run r, String how) {
        String where = c.get("name").asText() + " (" + how + ")";
        List<SseEvent> expected = new ArrayList<>();
        for (JsonNode e : c.get("events")) {
            expected.add(event(e));
        }
        assertEquals(expected, r.events(), where + ": events");
        assertEquals(c.get("comments").asInt(), r.comments(), where + ": comments");
        List<Long> retries = new ArrayList<>();
        c.get("retries").forEach(n -> retries.add(n.asLong()));
        assertEquals(retries, r.retries(), where + ": retries");
        List<String> errors = new ArrayList<>();
        c.get("errors").forEach(n -> errors.add(n.asText()));
        assertEquals(errors, r.errors(), where + ": errors");

        JsonNode f = c.get("finish");
        JsonNode disc = f.get("discarded");
        if (disc == null || disc.isNull()) {
            assertEquals(java.util.Optional.empty(), r.finish().discarded(), where + ": finish.discarded");
        } else {
            assertEquals(java.util.Optional.of(new SseFinish.Discarded(disc.get("partial_line").asLong(),
                disc.get("event").asBoolean(), disc.get("id").asBoolean())), r.finish().discarded(),
                where + ": finish.discarded");
        }
        JsonNode fe = f.get("event");
        assertEquals(fe == null || fe.isNull() ? java.util.Optional.empty() : java.util.Optional.of(event(fe)),
            r.finish().event(), where + ": finish.event");
        JsonNode err = f.get("error");
        if (err == null || err.isNull()) {
            assertEquals(java.util.Optional.empty(), r.finish().error(), where + ": finish.error");
        } else {
            String expectedLimit = err.isTextual() ? err.asText() : err.get("limit").asText();
            assertEquals(expectedLimit, r.finish().error().map(l -> l.limit().wireName()).orElse(null),
                where + ": finish.error");
        }
        if (c.has("last_event_id")) {
            assertEquals(c.get("last_event_id").asText(), r.lastEventId(), where + ": last_event_id");
        }
    }

    private static SseEvent event(JsonNode e) {
        return new SseEvent(e.get("type").asText(), e.get("data").asText(), e.get("id").asText());
    }
}
