package dev.a2acore;

/** What the caller should do about an outcome. */
public enum RetryAdvice implements NativeEnum {
    /** Success: nothing to do. */
    NONE,
    /** The request itself is wrong; retrying cannot help. */
    NEVER,
    /** The task is terminal; a retry means a new task (safe only with an idempotency key). */
    NEW_TASK,
    /** A stream ended before a terminal state: resubscribe or poll, never resend. */
    RESUBSCRIBE,
    /** Poll the task with get-task. */
    POLL,
    /** Retry later with backoff, honouring Retry-After when given. */
    BACKOFF,
    /** The request may or may not have been received: retry only with the same messageId and idempotency key. */
    UNKNOWN_OUTCOME,
    /** Credentials are missing or refused. */
    REAUTHENTICATE,
    /** Client and server speak different protocol versions. */
    FIX_VERSION;

    /** The value with this C ABI number. */
    public static java.util.Optional<RetryAdvice> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<RetryAdvice> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
