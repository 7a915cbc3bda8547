package dev.a2acore;

/** Task state, normalized across protocol versions (numbers of the A2A 1.0 enum). */
public enum TaskState implements NativeEnum {
    /** Unknown or unspecified state. */
    UNKNOWN,
    /** Accepted, not yet running. */
    SUBMITTED,
    /** Running. */
    WORKING,
    /** Terminal: finished successfully. */
    COMPLETED,
    /** Terminal: the agent ran and failed. */
    FAILED,
    /** Terminal: canceled. */
    CANCELED,
    /** Interrupted: the agent needs input from the caller. */
    INPUT_REQUIRED,
    /** Terminal: the agent refused the task. */
    REJECTED,
    /** Interrupted: the agent needs credentials. */
    AUTH_REQUIRED;

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
