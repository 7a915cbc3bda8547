package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * {@link SseEncoder}: exact bytes derived by hand from the WHATWG event stream format
 * ({@code field: value} lines, LF, a blank line ends an event, data line breaks become
 * separate {@code data:} lines, {@code :} starts a comment), and a round trip through
 * {@link SseDecoder}.
 */
class SseEncoderTest {
    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void writesEventsCommentsAndKeepAlives() {
        try (SseEncoder e = new SseEncoder()) {
            e.event("{\"a\":1}");
            assertEquals("data: {\"a\":1}\n\n", s(e.output()));
            e.clear();
            assertEquals("", s(e.output()));
            e.event("line one\nline two", "update", "7", OptionalLong.of(2500));
            // WHATWG strips one optional space after the colon: both spellings mean retry 2500.
            String full = s(e.take());
            String rest = "\nid: 7\nevent: update\ndata: line one\ndata: line two\n\n";
            assertEquals(true, full.equals("retry: 2500" + rest) || full.equals("retry:2500" + rest), full);
            e.comment("hello\nworld").keepAlive();
            assertEquals(": hello\n: world\n: keep-alive\n\n", s(e.take()));
            // An empty id is written (it resets the reader's last event ID), unlike a null one.
            e.event("x", null, "", OptionalLong.empty());
            String reset = s(e.take());
            assertEquals(true, reset.startsWith("id") && reset.endsWith("\ndata: x\n\n"), reset);
            try (SseDecoder d = new SseDecoder()) {
                d.feed("id: 7\ndata: a\n\n".getBytes(StandardCharsets.UTF_8));
                assertEquals(List.of(new SseEvent("message", "x", "")), d.feed(reset.getBytes(StandardCharsets.UTF_8)));
            }
        }
    }

    @Test
    void refusesWhatWouldBreakTheFraming() {
        try (SseEncoder e = new SseEncoder()) {
            e.event("kept");
            A2aCoreException t = assertThrows(A2aCoreException.class,
                () -> e.event("x", "a\nb", null, OptionalLong.empty()));
            assertEquals(303, t.code(), t.getMessage());
            A2aCoreException i = assertThrows(A2aCoreException.class,
                () -> e.event("x", null, "a\rb", OptionalLong.empty()));
            assertEquals(304, i.code(), i.getMessage());
            A2aCoreException n = assertThrows(A2aCoreException.class,
                () -> e.event("x", null, "a\0b", OptionalLong.empty()));
            assertEquals(302, n.code(), n.getMessage());
            assertEquals("data: kept\n\n", s(e.output()), "nothing appended by a refused event");
        }
    }

    @Test
    void roundTripsThroughTheDecoder() {
        String json = "{\"jsonrpc\":\"2.0\",\"id\":1,\n\"result\":{\"kind\":\"message\"}}";
        try (SseEncoder e = new SseEncoder(); SseDecoder d = new SseDecoder()) {
            e.event(json, "message", "42", OptionalLong.empty()).keepAlive().event("second");
            List<SseEvent> events = d.feed(e.take());
            assertEquals(List.of(new SseEvent("message", json, "42"), new SseEvent("message", "second", "42")), events);
            assertEquals(OptionalLong.empty(), d.retryMillis());
        }
    }
}
