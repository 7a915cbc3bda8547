package dev.a2acore;

/** Task state, normalized across protocol versions (numbers of the A2A 1.0 enum). */
public enum TaskState implements NativeEnum {
    /** Unknown or unspecified state. */
    UNKNOWN(0, "unknown"),
    /** Accepted, not yet running. */
    SUBMITTED(1, "submitted"),
    /** Running. */
    WORKING(2, "working"),
    /** Terminal: finished successfully. */
    COMPLETED(3, "completed"),
    /** Terminal: the agent ran and failed. */
    FAILED(4, "failed"),
    /** Terminal: canceled. */
    CANCELED(5, "canceled"),
    /** Interrupted: the agent needs input from the caller. */
    INPUT_REQUIRED(6, "input-required"),
    /** Terminal: the agent refused the task. */
    REJECTED(7, "rejected"),
    /** Interrupted: the agent needs credentials. */
    AUTH_REQUIRED(8, "auth-required");

    private final int code;
    private final String wireName;

    TaskState(int code, String wireName) {
        this.code = code;
        this.wireName = wireName;
    }

    /** The number of this value in the C ABI. */
    @Override
    public int code() {
        return code;
    }

    /** The name used in JSON output and the fixtures (the C ABI's {@code _to_str}). */
    @Override
    public String wireName() {
        return wireName;
    }

    /** The value with this C ABI number. */
    public static java.util.Optional<TaskState> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<TaskState> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }

    /** Whether the state is terminal (completed, canceled, failed, rejected). */
    public boolean isTerminal() {
        return this == COMPLETED || this == FAILED || this == CANCELED || this == REJECTED;
    }

    /** Whether the state is interrupted (input-required, auth-required). */
    public boolean isInterrupted() {
        return this == INPUT_REQUIRED || this == AUTH_REQUIRED;
    }
}
