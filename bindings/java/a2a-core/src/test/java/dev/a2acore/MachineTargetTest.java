package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link MachineTarget} driven by hand (no network): the host performs the machine's request
 * and hands the response back; the stream's items and end, a JSON-RPC error event, and the
 * breaker kept per target.
 */
class MachineTargetTest {
    private static final List<Map.Entry<String, String>> SSE = List.of(Map.entry("content-type", "text/event-stream"));

    private static MachineTarget.Finished finished(List<MachineTarget.Event> events) {
        return events.stream().filter(e -> e instanceof MachineTarget.Finished).map(e -> (MachineTarget.Finished) e)
            .findFirst().orElseThrow(() -> new AssertionError("no Finished in " + events));
    }

    private static List<StreamItem> items(List<MachineTarget.Event> events) {
        return events.stream().filter(e -> e instanceof MachineTarget.ItemEvent)
            .map(e -> ((MachineTarget.ItemEvent) e).item()).toList();
    }

    private static void feed(MachineTarget.Call call, int id, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        call.body(id, b, 0, b.length);
    }

    @Test
    void aStreamIsFollowedToItsEndAndOnlyFailuresAreCopiedWhenAsked() {
        MachineTarget target = MachineTarget.builder().build().target("http://agent.example/", ProtocolVersion.V0_3,
            Binding.JSON_RPC);
        try (MachineTarget.Call call = target.startText(true, "hi", "r-1", List.of())) {
            MachineTarget.Transmit t = call.pollTransmit().orElseThrow();
            assertEquals("POST", t.method());
            assertTrue(new String(t.body(), StandardCharsets.UTF_8).contains("\"id\":\"r-1\""));
            call.head(t.requestId(), 200, SSE);
            feed(call, t.requestId(), "data: {\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"result\":{\"kind\":\"task\","
                + "\"id\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"working\"}}}\n\n");
            List<StreamItem> working = items(call.events(false));
            assertEquals(1, working.size());
            assertEquals(StreamItemKind.TASK, working.get(0).kind());
            assertNull(working.get(0).outcome(), "a task item's outcome is not copied out");
            feed(call, t.requestId(), "data: {\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"error\":{\"code\":-32001,"
                + "\"message\":\"Task not found\"}}\n\n");
            List<MachineTarget.Event> events = call.events(false);
            StreamItem error = items(events).get(0);
            assertEquals(StreamItemKind.ERROR, error.kind());
            assertNotNull(error.outcome());
            assertEquals(Channel.PROTOCOL, error.outcome().channel());
            MachineTarget.Finished end = finished(events);
            assertEquals(Optional.of(StreamEndKind.ERROR), end.endKind());
            assertEquals(Optional.of(ErrorName.TASK_NOT_FOUND), end.outcome().errorName());
            assertTrue(call.isOver());
        }
    }

    /** One stream of every item kind, fed to a call; its events polled as {@code everyItemOutcome} says. */
    private static List<MachineTarget.Event> streamEvents(boolean everyItemOutcome) {
        MachineTarget target = MachineTarget.builder().build().target("http://agent.example/", ProtocolVersion.V0_3,
            Binding.JSON_RPC);
        try (MachineTarget.Call call = target.startText(true, "hi", "r-1", List.of())) {
            int id = call.pollTransmit().orElseThrow().requestId();
            call.head(id, 200, SSE);
            String r = "data: {\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"result\":";
            feed(call, id, r + "{\"kind\":\"task\",\"id\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":"
                + "\"working\"}}}\n\n" + r + "{\"kind\":\"artifact-update\",\"taskId\":\"t-1\",\"contextId\":\"c-1\","
                + "\"append\":true,\"lastChunk\":false,\"artifact\":{\"artifactId\":\"a-\u00e9\",\"parts\":[{\"kind\":"
                + "\"text\",\"text\":\"x\"}]}}}\n\n" + r + "{\"kind\":\"status-update\",\"taskId\":\"t-1\","
                + "\"contextId\":\"c-1\",\"final\":true,\"status\":{\"state\":\"completed\"}}}\n\n");
            call.end(id);
            return call.events(everyItemOutcome);
        }
    }

    @Test
    void itemsReadFromNativeMemoryAgreeWithTheMirror() {
        // events(false) reads items at the C offsets (MachineDirect); events(true) through the JNA mirror.
        assertTrue(MachineDirect.ON, "the direct mapping is off on this platform");
        List<StreamItem> raw = items(streamEvents(false));
        List<StreamItem> mirror = items(streamEvents(true));
        assertEquals(3, raw.size());
        assertEquals(mirror.size(), raw.size());
        for (int i = 0; i < raw.size(); i++) {
            StreamItem a = raw.get(i);
            StreamItem b = mirror.get(i);
            assertEquals(b.kind(), a.kind());
            assertEquals(b.finalFlag(), a.finalFlag());
            assertEquals(b.artifactId(), a.artifactId());
            assertEquals(b.append(), a.append());
            assertEquals(b.lastChunk(), a.lastChunk());
            assertEquals(b.endsStream(), a.endsStream());
            assertNull(a.outcome(), "no failure: the outcome is not copied");
        }
        assertEquals(Optional.of("a-\u00e9"), raw.get(1).artifactId());
        assertTrue(raw.get(1).append());
        assertEquals(Optional.of(true), raw.get(2).finalFlag());
        assertTrue(raw.get(2).endsStream());
        assertEquals(Optional.of(StreamEndKind.COMPLETED), finished(streamEvents(false)).endKind());
    }

    @Test
    void aPlainCallsFinishedCarriesTheResponseBody() {
        MachineTarget target = MachineTarget.builder().build().target("http://agent.example/", ProtocolVersion.V0_3,
            Binding.JSON_RPC);
        try (MachineTarget.Call call = target.start(A2aMethod.GET_TASK, "{\"id\":\"t-1\"}".getBytes(StandardCharsets.UTF_8),
            7L, List.of(Map.entry("Authorization", "Bearer k")))) {
            MachineTarget.Transmit t = call.pollTransmit().orElseThrow();
            assertTrue(t.headers().contains(Map.entry("Authorization", "Bearer k")), String.valueOf(t.headers()));
            String body = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
                + "\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\"}}}";
            call.head(t.requestId(), 200, List.of(Map.entry("content-type", "application/json")));
            feed(call, t.requestId(), body);
            call.end(t.requestId());
            MachineTarget.Finished f = finished(call.events(false));
            assertEquals(200, f.responseStatus().orElseThrow());
            assertEquals(body, new String(f.responseBody(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void theBreakerIsTheTargetsAndRefusesUnsent() {
        BreakerConfig d = BreakerConfig.defaults();
        MachineTarget.Config config = MachineTarget.builder().breaker(new BreakerConfig(1,
            d.failureRatePercent(), d.minCalls(), d.windowMs(), d.buckets(), 60_000, d.halfOpenTrials())).build();
        MachineTarget agent = config.target("http://agent.example/", ProtocolVersion.V0_3, Binding.JSON_RPC);
        MachineTarget other = config.target("http://other.example/", ProtocolVersion.V0_3, Binding.JSON_RPC);
        try (MachineTarget.Call call = agent.startText(false, "hi", 1L, List.of())) {
            int id = call.pollTransmit().orElseThrow().requestId();
            call.head(id, 503, List.of(Map.entry("content-type", "text/html")));
            feed(call, id, "<html>down</html>");
            call.end(id);
            MachineTarget.Finished f = finished(call.events());
            assertEquals(Optional.of(ErrorName.UNAVAILABLE), f.outcome().errorName());
            assertEquals(503, f.responseStatus().orElseThrow());
        }
        try (MachineTarget.Call refused = agent.startText(false, "hi", 2L, List.of())) {
            assertTrue(refused.pollTransmit().isEmpty(), "the open breaker hands out no request");
            MachineTarget.Finished f = finished(refused.events());
            assertEquals(Optional.of(ErrorName.CIRCUIT_OPEN), f.outcome().errorName());
            assertEquals(Optional.of(RequestSent.NO), f.outcome().requestSent());
        }
        try (MachineTarget.Call call = other.startText(false, "hi", 3L, List.of())) {
            assertTrue(call.pollTransmit().isPresent(), "another target has its own breaker");
        }
    }
}
