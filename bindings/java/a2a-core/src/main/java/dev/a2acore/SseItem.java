package dev.a2acore;

/**
 * One item decoded from an event stream: an {@link SseEvent}, a {@link Comment} (a liveness
 * signal such as a keep-alive), a {@link Retry} field, or a {@link LimitError}.
 */
public sealed interface SseItem permits SseEvent, SseItem.Comment, SseItem.Retry, SseItem.LimitError {

    /** A comment line: {@code text} is everything after the colon, a leading space kept. */
    record Comment(String text) implements SseItem {}

    /** A valid {@code retry} field: the server's reconnection time. */
    record Retry(long millis) implements SseItem {}

    /** Input went over a limit; the rest of that event was skipped and decoding went on. */
    record LimitError(SseLimit limit, long bytes) implements SseItem {}

    /** Which decoder limit was hit. */
    enum SseLimit {
        /** A line was longer than {@link SseConfig#maxLine()}. */
        MAX_LINE("max_line"),
        /** An event's data grew larger than {@link SseConfig#maxEvent()}. */
        MAX_EVENT("max_event");

        private final String wireName;

        SseLimit(String wireName) {
            this.wireName = wireName;
        }

        /** The name used in the fixtures ({@code max_line}, {@code max_event}). */
        public String wireName() {
            return wireName;
        }

        static SseLimit fromResult(int code) {
            if (code == A2aCoreException.SSE_LINE_TOO_LONG) {
                return MAX_LINE;
            }
            if (code == A2aCoreException.SSE_EVENT_TOO_LARGE) {
                return MAX_EVENT;
            }
            throw new IllegalStateException("unknown SSE limit error code " + code);
        }
    }
}
