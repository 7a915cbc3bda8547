package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.LibraryLoader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The Java enums agree with the library's own numbering and names; handles behave. */
class NativeApiTest {
    private final A2aCoreLibrary lib = LibraryLoader.lib();

    @Test
    void libraryVersionMatchesBinding() {
        assertTrue(A2aCore.version().startsWith(A2aCore.ABI_VERSION + "."), A2aCore.version());
    }

    @Test
    void enumsMatchLibraryNames() {
        for (Channel c : Channel.values()) {
            assertEquals(c.wireName(), lib.a2a_vocab_name(AbiEnums.VOCAB_CHANNEL, c.code()).string(), c.name());
        }
        assertEquals(null, lib.a2a_vocab_name(AbiEnums.VOCAB_CHANNEL, 0).string(), "channel 0 is not a member");
        for (TaskState s : TaskState.values()) {
            assertEquals(s.wireName(), lib.a2a_vocab_name(AbiEnums.VOCAB_TASK_STATE, s.code()).string(), s.name());
            int kind = lib.a2a_task_state_classify(s.code());
            assertEquals(s.isTerminal(), kind == AbiEnums.A2A_TASK_STATE_CLASS_TERMINAL, s.name());
            assertEquals(s.isInterrupted(), kind == AbiEnums.A2A_TASK_STATE_CLASS_INTERRUPTED, s.name());
        }
        for (RetryAdvice r : RetryAdvice.values()) {
            assertEquals(r.wireName(), lib.a2a_vocab_name(AbiEnums.VOCAB_RETRY, r.code()).string(), r.name());
        }
        for (RequestSent r : RequestSent.values()) {
            assertEquals(r.wireName(), lib.a2a_vocab_name(AbiEnums.VOCAB_REQUEST_SENT, r.code()).string(), r.name());
        }
        for (ErrorName e : ErrorName.values()) {
            assertEquals(e.wireName(), lib.a2a_vocab_name(AbiEnums.VOCAB_ERROR_NAME, e.code()).string(), e.name());
        }
        for (ProtocolVersion v : ProtocolVersion.values()) {
            assertEquals(v.wireName(), lib.a2a_vocab_name(AbiEnums.VOCAB_PROTOCOL_VERSION, v.code()).string(), v.name());
        }
        for (Binding b : Binding.values()) {
            assertEquals(b.wireName(), lib.a2a_vocab_name(AbiEnums.VOCAB_BINDING, b.code()).string(), b.name());
        }
        // One past the last member is not a name in the library either (no member missing).
        assertEquals(null, lib.a2a_vocab_name(AbiEnums.VOCAB_TASK_STATE, 9).string());
        assertEquals(null, lib.a2a_vocab_name(AbiEnums.VOCAB_RETRY, 10).string());
        assertEquals(null, lib.a2a_vocab_name(AbiEnums.VOCAB_ERROR_NAME, 212).string());
        assertEquals(null, lib.a2a_vocab_name(AbiEnums.VOCAB_ERROR_NAME, 111).string());
        assertEquals(null, lib.a2a_vocab_name(AbiEnums.VOCAB_ERROR_NAME, 16).string());
    }

    @Test
    void transportOutcomeAfterTimeoutIsUnknownOutcome() {
        Outcome o = Outcomes.transport(ErrorName.TIMEOUT, RequestSent.UNKNOWN, "call deadline 500 ms expired");
        assertEquals(Channel.TRANSPORT, o.channel());
        assertFalse(o.isSuccess());
        assertEquals(Optional.of(ErrorName.TIMEOUT), o.errorName());
        assertEquals(Optional.of(RequestSent.UNKNOWN), o.requestSent());
        assertEquals(RetryAdvice.UNKNOWN_OUTCOME, o.retry());
        assertEquals(Optional.of("call deadline 500 ms expired"), o.message());
        assertTrue(o.httpStatus().isEmpty());
        assertTrue(o.state().isEmpty());
    }

    @Test
    void transportOutcomeNeverSentIsBackoff() {
        Outcome o = Outcomes.transport(ErrorName.CONNECT_FAILED, RequestSent.NO, "connection refused");
        assertEquals(RetryAdvice.BACKOFF, o.retry());
        assertEquals(Optional.of(RequestSent.NO), o.requestSent());
    }

    @Test
    void transportOutcomeRejectsNonTransportNames() {
        assertThrows(IllegalArgumentException.class,
            () -> Outcomes.transport(ErrorName.REDIRECT, RequestSent.NO, "x"));
    }

    @Test
    void decoderCloseIsIdempotentAndUseAfterCloseThrows() {
        SseDecoder d = new SseDecoder();
        d.close();
        d.close();
        assertThrows(IllegalStateException.class, () -> d.feed(new byte[] {'x'}));
    }

    @Test
    void decoderGrowsItsBufferForLargeChunks() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            sb.append("data: event-").append(i).append("\r\n\r\n");
        }
        try (SseDecoder d = new SseDecoder()) {
            List<SseEvent> events = d.feed(sb.toString().getBytes(StandardCharsets.UTF_8));
            assertEquals(5000, events.size());
            assertEquals("event-4999", events.get(4999).data());
            assertTrue(d.finish().clean());
        }
    }

    @Test
    void multiLineJsonAcrossChunksIsJoined() {
        // The a2a-java 0.3.x failure case: one JSON object over several data: lines, CRLF,
        // with a keep-alive comment in between events.
        String stream = ": ping\r\n\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n";
        byte[] b = stream.getBytes(StandardCharsets.UTF_8);
        try (SseDecoder d = new SseDecoder()) {
            List<SseItem> items = d.feedItems(java.util.Arrays.copyOfRange(b, 0, 20));
            items = new java.util.ArrayList<>(items);
            items.addAll(d.feedItems(java.util.Arrays.copyOfRange(b, 20, b.length)));
            assertEquals(List.of(new SseItem.Comment(" ping"), new SseEvent("message", "{\"a\":\n1}", "")), items);
        }
    }

    @Test
    void limitErrorIsAnItemAndDecodingGoesOn() {
        try (SseDecoder d = new SseDecoder(SseConfig.defaults().withMaxLine(8))) {
            List<SseItem> items = d.feedItems("data: 123456789\n\ndata: ok\n\n".getBytes(StandardCharsets.UTF_8));
            assertEquals(List.of(new SseItem.LimitError(SseItem.SseLimit.MAX_LINE, 8), new SseEvent("message", "ok", "")),
                items);
        }
    }

    @Test
    void lastEventIdRoundTrip() {
        try (SseDecoder d = new SseDecoder()) {
            d.setLastEventId("41");
            assertEquals("41", d.lastEventId());
            assertEquals(List.of(new SseEvent("message", "x", "41")), d.feed("data: x\n\n".getBytes(StandardCharsets.UTF_8)));
            A2aCoreException e = assertThrows(A2aCoreException.class, () -> d.setLastEventId("a\0b"));
            assertEquals(A2aCoreException.SSE_ID_NUL, e.code());
            assertTrue(d.retryMillis().isEmpty());
            d.feed("retry: 250\n".getBytes(StandardCharsets.UTF_8));
            assertEquals(250, d.retryMillis().getAsLong());
        }
    }

    @Test
    void invalidConfigRejected() {
        assertThrows(IllegalArgumentException.class, () -> new SseConfig(0, 1, false));
    }
}
