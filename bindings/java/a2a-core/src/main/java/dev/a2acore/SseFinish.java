package dev.a2acore;

import java.util.Optional;

/**
 * What the end-of-stream rule did when the body ended ({@link SseDecoder#finish()}).
 *
 * @param event with {@link SseConfig#dispatchAtEof()}: the unterminated block, dispatched
 * @param discarded with the WHATWG rule: what was dropped, absent when the stream ended
 *     cleanly at a block boundary
 * @param error with dispatch: the last line went over a limit (nothing was dispatched)
 */
public record SseFinish(Optional<SseEvent> event, Optional<Discarded> discarded,
                        Optional<SseItem.LimitError> error) {

    /**
     * What the WHATWG rule dropped at the end of the body.
     *
     * @param partialLine bytes after the last line terminator that were dropped
     * @param event a blank line at that point would have dispatched an event
     * @param id the dropped block set an event ID that was therefore not committed
     */
    public record Discarded(long partialLine, boolean event, boolean id) {}

    /** Whether the stream ended cleanly: nothing dropped and no limit error. */
    public boolean clean() {
        return discarded.isEmpty() && error.isEmpty();
    }
}
