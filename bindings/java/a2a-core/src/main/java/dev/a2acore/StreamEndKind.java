package dev.a2acore;

/** How a stream ended (the client machine's verdict, e.g. {@code MachineTarget.Finished.endKind()}). */
public enum StreamEndKind {
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

    StreamEndKind(int code) {
        this.code = code;
    }

    static StreamEndKind of(int code) {
        for (StreamEndKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        throw new IllegalStateException("unknown stream end kind " + code);
    }
}
