package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamTracker} over the C ABI. Events are 0.3 JSON-RPC stream results shaped like
 * the Python a2a-sdk 1.3.0 transcripts (docs/peers.md §1, 0.3 message/stream);
 * expectations follow the tracker's documented rules (a2a_core.h).
 */
class StreamTrackerTest {
    private static final String TASK = "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"task\",\"id\":\"t1\","
        + "\"contextId\":\"c1\",\"status\":{\"state\":\"submitted\"}}}";
    private static final String WORKING = "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"status-update\","
        + "\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"working\"},\"final\":false}}";
    private static final String ARTIFACT = "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"artifact-update\","
        + "\"taskId\":\"t1\",\"contextId\":\"c1\",\"artifact\":{\"artifactId\":\"a1\",\"parts\":[{\"kind\":\"text\","
        + "\"text\":\"x\"}]},\"lastChunk\":true}}";
    private static final String FAILED = "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"status-update\","
        + "\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"failed\",\"message\":{\"kind\":\"message\","
        + "\"role\":\"agent\",\"messageId\":\"m\",\"parts\":[{\"kind\":\"text\",\"text\":"
        + "\"Agent execution failed. (error_id: 7dac02a750a9)\"}]}},\"final\":true}}";

    private static Asked asked() {
        return Asked.jsonRpc(ProtocolVersion.V0_3, "message/stream", "1");
    }

    @Test
    void routeMovesTheTrackerAsOnEventAndCopiesOnlyAFailuresOutcome() {
        String error = "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"error\":{\"code\":-32603,\"message\":\"boom\"}}";
        String[] events = {TASK, WORKING, ARTIFACT, error};
        try (StreamTracker routed = new StreamTracker(asked(), Duration.ofSeconds(10), 0);
             StreamTracker items = new StreamTracker(asked(), Duration.ofSeconds(10), 0)) {
            for (int i = 0; i < events.length; i++) {
                StreamTracker.Route r = routed.route(i + 1, "message", events[i]).orElseThrow();
                StreamTracker.Item it = items.onEvent(i + 1, "message", events[i]).orElseThrow();
                assertEquals(it.kind(), r.kind(), events[i]);
                assertEquals(it.outcome().channel(), r.channel(), events[i]);
                boolean answer = r.channel() == Channel.TASK || r.channel() == Channel.MESSAGE;
                assertEquals(!answer, r.failure().isPresent(), events[i]);
                r.failure().ifPresent(o -> assertEquals(it.outcome().toString(), o.toString()));
            }
            assertEquals(items.events(), routed.events());
            assertEquals(items.isOver(), routed.isOver());
            assertEquals(Optional.of("t1"), routed.taskId());
            assertEquals(items.taskId(), routed.taskId());
            assertEquals(items.lastState(), routed.lastState());
            assertEquals(Optional.empty(), routed.route(11, "message", "  "), "empty data: nothing to route");
            assertEquals(items.finish().kind(), routed.finish().kind());
        }
    }

    @Test
    void completeStreamEndsCompletedWithTheFailedTaskAndItsErrorId() {
        try (StreamTracker t = new StreamTracker(asked(), Duration.ofSeconds(10), 0)) {
            assertEquals(StreamTracker.ItemKind.TASK, t.onEvent(1, "message", TASK).orElseThrow().kind());
            StreamTracker.Item w = t.onEvent(2, "message", WORKING).orElseThrow();
            assertEquals(StreamTracker.ItemKind.STATUS_UPDATE, w.kind());
            assertEquals(Optional.of(false), w.finalFlag());
            StreamTracker.Item a = t.onEvent(3, null, ARTIFACT).orElseThrow();
            assertEquals(Optional.of("a1"), a.artifactId());
            assertTrue(a.lastChunk());
            StreamTracker.Item f = t.onEvent(4, "message", FAILED).orElseThrow();
            assertTrue(f.endsStream());
            assertEquals(Optional.of(TaskState.FAILED), f.outcome().state());
            assertTrue(t.isOver());
            assertEquals(4, t.events());
            assertEquals(Optional.of("t1"), t.taskId());
            assertEquals(Optional.of(TaskState.FAILED), t.lastState());
            StreamTracker.End end = t.finish();
            assertEquals(StreamTracker.EndKind.COMPLETED, end.kind());
            assertEquals(Channel.TASK, end.outcome().channel());
            assertEquals(Optional.of("7dac02a750a9"), end.outcome().errorId());
            assertEquals(end.kind(), t.finish().kind(), "finish is idempotent");
        }
    }

    @Test
    void bodyEndingAfterWorkingIsTruncatedResubscribe() {
        try (StreamTracker t = new StreamTracker(asked(), null, 0)) {
            t.onEvent(1, null, TASK);
            t.onEvent(2, null, WORKING);
            assertFalse(t.isOver());
            StreamTracker.End end = t.finish();
            assertEquals(StreamTracker.EndKind.TRUNCATED, end.kind());
            assertEquals(Channel.TRANSPORT, end.outcome().channel());
            assertEquals(RetryAdvice.RESUBSCRIBE, end.outcome().retry());
            assertEquals(Optional.of("t1"), end.outcome().taskId());
        }
    }

    @Test
    void idleDeadlineMovesWithBytesAndComments() {
        try (StreamTracker t = new StreamTracker(asked(), Duration.ofMillis(1000), 0)) {
            assertEquals(1000, t.nextDeadline().getAsLong());
            t.onBytes(400);
            assertEquals(1400, t.nextDeadline().getAsLong());
            t.onComment(900);
            assertEquals(1900, t.nextDeadline().getAsLong());
            assertEquals(Optional.empty(), t.onTimeout(1899));
            Outcome o = t.onTimeout(1900).orElseThrow();
            assertEquals(Optional.of(ErrorName.TIMEOUT), o.errorName());
            assertEquals(StreamTracker.EndKind.TIMED_OUT, t.finish().kind());
        }
    }

    @Test
    void emptyDataIsNothingToClassify() {
        try (StreamTracker t = new StreamTracker(Asked.unknown(), null, 0)) {
            assertEquals(Optional.empty(), t.onEvent(1, null, ""));
        }
    }

    @Test
    void upFrontJsonErrorIsNotAStream() {
        try (StreamTracker t = new StreamTracker(asked(), null, 0)) {
            Outcome o = t.onNonSseBody(200, "application/json", null,
                "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}"
                    .getBytes(StandardCharsets.UTF_8));
            assertEquals(Channel.PROTOCOL, o.channel());
            assertEquals(Optional.of(ErrorName.METHOD_NOT_FOUND), o.errorName());
            assertEquals(StreamTracker.EndKind.NOT_A_STREAM, t.finish().kind());
        }
    }

    @Test
    void closedTrackerRefusesCalls() {
        StreamTracker t = new StreamTracker(Asked.unknown(), null, 0);
        t.close();
        t.close();
        assertThrows(IllegalStateException.class, () -> t.onBytes(1));
    }

    @Test
    void leakedExceptionAndHelpers() {
        assertEquals(Optional.of(new ErrorIds.LeakedException("java.lang.IllegalStateException", "boom")),
            ErrorIds.leakedException("Agent execution failed. (error_id: 7dac02a750a9): java.lang.IllegalStateException: boom"));
        assertEquals(Optional.empty(), ErrorIds.leakedException("all fine"));
        assertEquals(7, Outcomes.parseRetryAfter("7").getAsLong());
        assertTrue(Outcomes.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT").isEmpty());
        assertTrue(Outcomes.isEventStream("Text/Event-Stream; charset=utf-8"));
        assertFalse(Outcomes.isEventStream("application/json"));
        assertEquals(ErrorName.TASK_NOT_FOUND, Outcomes.errorNameOfCode(-32001));
        assertEquals(ErrorName.OTHER, Outcomes.errorNameOfCode(-1));
    }
}
