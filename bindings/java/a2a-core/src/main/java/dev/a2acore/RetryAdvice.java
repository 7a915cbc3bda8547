package dev.a2acore;

/** What the caller should do about an outcome. */
public enum RetryAdvice implements NativeEnum {
    /** Success: nothing to do. */
    NONE(1, "none"),
    /** The request itself is wrong; retrying cannot help. */
    NEVER(2, "never"),
    /** The task is terminal; a retry means a new task (safe only with an idempotency key). */
    NEW_TASK(3, "new_task"),
    /** A stream ended before a terminal state: resubscribe or poll, never resend. */
    RESUBSCRIBE(4, "resubscribe"),
    /** Poll the task with get-task. */
    POLL(5, "poll"),
    /** Retry later with backoff, honouring Retry-After when given. */
    BACKOFF(6, "backoff"),
    /** The request may or may not have been received: retry only with the same messageId and idempotency key. */
    UNKNOWN_OUTCOME(7, "unknown_outcome"),
    /** Credentials are missing or refused. */
    REAUTHENTICATE(8, "reauthenticate"),
    /** Client and server speak different protocol versions. */
    FIX_VERSION(9, "fix_version");

    private final int code;
    private final String wireName;

    RetryAdvice(int code, String wireName) {
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
    public static java.util.Optional<RetryAdvice> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<RetryAdvice> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
