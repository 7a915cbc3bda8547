package dev.a2acore;

import java.util.Optional;

/**
 * The types of a followed stream: what each event carried ({@link Item}, {@link ItemKind})
 * and how the stream ended ({@link EndKind}). The core's client machine follows every stream
 * ({@link A2aClient#stream} and {@link A2aClient#streamAsync},
 * {@link MachineTarget}); the standalone tracker handle these types came with
 * ({@code a2a_stream_tracker_*}) is no longer bound.
 */
public final class StreamTracker {
    private StreamTracker() {}

    /** What a stream event carried. */
    public enum ItemKind {
        /** A task snapshot. */
        TASK(1),
        /** A direct message (ends the interaction). */
        MESSAGE(2),
        /** A status update. */
        STATUS_UPDATE(3),
        /** An artifact update. */
        ARTIFACT_UPDATE(4),
        /** A protocol error in the stream. */
        ERROR(5),
        /** Data that fits no shape. */
        MALFORMED(6);

        private final int code;

        ItemKind(int code) {
            this.code = code;
        }

        private static final ItemKind[] ALL = values();

        static ItemKind of(int code) {
            for (ItemKind k : ALL) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new IllegalStateException("unknown stream item kind " + code);
        }
    }

    /** How a stream ended. */
    public enum EndKind {
        /** A terminal state or a Message was seen (the task itself may have failed). */
        COMPLETED(1),
        /** An interrupted state (input-required, auth-required) ended the turn. */
        INTERRUPTED(2),
        /** The body ended before a terminal state: the task may still be running (resubscribe). */
        TRUNCATED(3),
        /** A protocol error arrived in the stream (or instead of it). */
        ERROR(4),
        /** The idle timeout expired. */
        TIMED_OUT(5),
        /** The response was not an event stream. */
        NOT_A_STREAM(6);

        private final int code;

        EndKind(int code) {
            this.code = code;
        }

        static EndKind of(int code) {
            for (EndKind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new IllegalStateException("unknown stream end kind " + code);
        }
    }

    /**
     * One classified event.
     *
     * @param kind what it carried
     * @param outcome the event classified like a whole response (null only from
     *     {@code MachineTarget.Call.events(false)}, for an item that is no failure)
     * @param finalFlag the 0.3 {@code final} flag, when present
     * @param artifactId artifact updates: the artifact id
     * @param append artifact updates: {@code append}
     * @param lastChunk artifact updates: {@code lastChunk}
     * @param endsStream whether this item ends the interaction (the stream is over after it)
     */
    public record Item(ItemKind kind, Outcome outcome, Optional<Boolean> finalFlag, Optional<String> artifactId,
                       boolean append, boolean lastChunk, boolean endsStream) {}
}
