package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link Tally}: the code label by channel (module docs of core/src/tally: protocol → error
 * name, http → status, task → state, transport → error name), counts apart from the HTTP
 * status, and the Prometheus text format 0.0.4 (escaping backslash, quote and line feed).
 */
class TallyTest {
    private static Outcome rpc(String json) {
        return Outcomes.classify(200, "application/json", null, json.getBytes(StandardCharsets.UTF_8),
            Asked.jsonRpc(ProtocolVersion.V0_3, "message/send", "1"));
    }

    @Test
    void countsByChannelAndCode() {
        try (Tally t = new Tally()) {
            Outcome unavailable = Outcomes.classify(503, "text/html", "5", new byte[0],
                Asked.jsonRpc(ProtocolVersion.V0_3, "message/send", "1"));
            Outcome notFound = rpc("{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"error\":{\"code\":-32001,\"message\":\"nope\"}}");
            Outcome failed = rpc("{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"task\",\"id\":\"t\","
                + "\"contextId\":\"c\",\"status\":{\"state\":\"failed\"}}}");
            Outcome timeout = Outcomes.transport(ErrorName.TIMEOUT, RequestSent.UNKNOWN, "read timed out");
            t.record("planner", "message/send", unavailable);
            t.record("planner", "message/send", unavailable);
            t.record("planner", "message/send", notFound);
            t.record("planner", "message/send", failed);
            t.record("booker", "tasks/get", timeout);
            assertEquals(2, t.count("planner", "message/send", Channel.HTTP, "503"));
            assertEquals(1, t.count("planner", "message/send", Channel.PROTOCOL, "TaskNotFound"));
            assertEquals(1, t.count("planner", "message/send", Channel.TASK, "failed"));
            assertEquals(1, t.count("booker", "tasks/get", Channel.TRANSPORT, "Timeout"));
            assertEquals(0, t.count("booker", "tasks/get", Channel.TRANSPORT, "ConnectFailed"));
            assertEquals(5, t.total());
            List<Tally.Entry> entries = t.entries();
            assertEquals(4, entries.size(), entries.toString());
            assertEquals("booker", entries.get(0).agent(), "sorted by agent first: " + entries);
            Set<Tally.Entry> want = Set.of(new Tally.Entry("booker", "tasks/get", Channel.TRANSPORT, "Timeout", 1),
                new Tally.Entry("planner", "message/send", Channel.HTTP, "503", 2),
                new Tally.Entry("planner", "message/send", Channel.PROTOCOL, "TaskNotFound", 1),
                new Tally.Entry("planner", "message/send", Channel.TASK, "failed", 1));
            assertEquals(want, new HashSet<>(entries));
            String text = t.renderPrometheus();
            assertTrue(text.startsWith("# HELP a2a_outcomes_total "), text);
            assertTrue(text.contains("\n# TYPE a2a_outcomes_total counter\n"), text);
            assertTrue(text.contains("\na2a_outcomes_total{agent=\"planner\",method=\"message/send\",channel=\"http\","
                + "code=\"503\"} 2\n"), text);
            assertEquals(2 + 4, text.split("\n").length, text);
        }
    }

    @Test
    void addMergesAndLabelsAreEscaped() {
        try (Tally t = new Tally()) {
            t.add("a \"b\"\\c\nd", "SendMessage", Channel.MESSAGE, "message", 40);
            t.add("a \"b\"\\c\nd", "SendMessage", Channel.MESSAGE, "message", 2);
            assertEquals(42, t.count("a \"b\"\\c\nd", "SendMessage", Channel.MESSAGE, "message"));
            assertTrue(t.renderPrometheus().contains(
                "a2a_outcomes_total{agent=\"a \\\"b\\\"\\\\c\\nd\",method=\"SendMessage\",channel=\"message\","
                    + "code=\"message\"} 42\n"), t.renderPrometheus());
        }
    }

    @Test
    void borrowedOutcomesAreRefusedAndClosedTalliesToo() {
        Tally t = new Tally();
        // A stream item's outcome is borrowed from the client machine's call.
        MachineTarget target = MachineTarget.builder().build().target("http://agent.example/", ProtocolVersion.V0_3,
            Binding.JSON_RPC);
        try (MachineTarget.Call call = target.startText(true, "hi", 1L, java.util.List.of())) {
            int id = call.pollTransmit().orElseThrow().requestId();
            call.head(id, 200, java.util.List.of(java.util.Map.entry("content-type", "text/event-stream")));
            byte[] chunk = ("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":"
                + "\"status-update\",\"taskId\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"working\"},"
                + "\"final\":false}}\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            call.body(id, chunk, 0, chunk.length);
            StreamItem item = call.events().stream().filter(ev -> ev instanceof MachineTarget.ItemEvent)
                .map(ev -> ((MachineTarget.ItemEvent) ev).item()).findFirst().orElseThrow();
            assertEquals(StreamItemKind.STATUS_UPDATE, item.kind());
            assertThrows(IllegalStateException.class, () -> t.record("a", "m", item.outcome()));
        }
        t.close();
        t.close();
        assertThrows(IllegalStateException.class, t::total);
    }
}
