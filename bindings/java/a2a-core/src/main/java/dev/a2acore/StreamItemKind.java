package dev.a2acore;

/** What a stream event carried (a {@link StreamItem}'s kind). */
public enum StreamItemKind {
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

    StreamItemKind(int code) {
        this.code = code;
    }

    private static final StreamItemKind[] ALL = values();

    static StreamItemKind of(int code) {
        for (StreamItemKind k : ALL) {
            if (k.code == code) {
                return k;
            }
        }
        throw new IllegalStateException("unknown stream item kind " + code);
    }
}
