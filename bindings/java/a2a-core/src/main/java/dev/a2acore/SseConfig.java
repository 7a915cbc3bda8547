package dev.a2acore;

/**
 * Limits and end-of-stream rule of an {@link SseDecoder}.
 *
 * @param maxLine longest line in bytes (every field counts)
 * @param maxEvent largest event data in bytes
 * @param dispatchAtEof at the end of the body, dispatch an unterminated last block (what
 *     the Java, JavaScript and Go A2A SDKs do) instead of discarding it (the WHATWG rule)
 */
public record SseConfig(long maxLine, long maxEvent, boolean dispatchAtEof) {
    /** The library's default limit for lines and events: 16 MiB. */
    public static final long DEFAULT_LIMIT = 16L * 1024 * 1024;

    /** Checks the limits are positive. */
    public SseConfig {
        if (maxLine <= 0 || maxEvent <= 0) {
            throw new IllegalArgumentException("SSE limits must be positive: maxLine=" + maxLine
                + ", maxEvent=" + maxEvent);
        }
    }

    /** 16 MiB lines and events, the WHATWG end-of-stream rule. */
    public static SseConfig defaults() {
        return new SseConfig(DEFAULT_LIMIT, DEFAULT_LIMIT, false);
    }

    /** A copy with another line limit. */
    public SseConfig withMaxLine(long bytes) {
        return new SseConfig(bytes, maxEvent, dispatchAtEof);
    }

    /** A copy with another event limit. */
    public SseConfig withMaxEvent(long bytes) {
        return new SseConfig(maxLine, bytes, dispatchAtEof);
    }

    /** A copy with another end-of-stream rule. */
    public SseConfig withDispatchAtEof(boolean dispatch) {
        return new SseConfig(maxLine, maxEvent, dispatch);
    }
}
