package dev.a2acore;

/** A call into liba2a_core failed: carries the C {@code a2a_result} code and its meaning. */
public class A2aCoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** {@code A2A_NONE}: not an error, "nothing found". */
    public static final int NONE = 2;
    /** {@code A2A_NULL_PARAMETER}. */
    public static final int NULL_PARAMETER = 100;
    /** {@code A2A_INVALID_UTF8}. */
    public static final int INVALID_UTF8 = 101;
    /** {@code A2A_INVALID_ARGUMENT}. */
    public static final int INVALID_ARGUMENT = 102;
    /** {@code A2A_INSUFFICIENT_SIZE}: a caller buffer was too small. */
    public static final int INSUFFICIENT_SIZE = 103;
    /** {@code A2A_IN_USE}: another thread is inside a call on this (not thread-safe) handle. */
    public static final int IN_USE = 104;
    /** {@code A2A_CLOSED}: the handle is being freed (its free waits for calls in flight). */
    public static final int CLOSED = 105;
    /** {@code A2A_KEY_EMPTY_INPUT}: no part, or only empty parts, for a key. */
    public static final int KEY_EMPTY_INPUT = 910;
    /** {@code A2A_VERSION_MALFORMED}. */
    public static final int VERSION_MALFORMED = 200;
    /** {@code A2A_VERSION_UNSUPPORTED}. */
    public static final int VERSION_UNSUPPORTED = 201;
    /** {@code A2A_BINDING_UNKNOWN}. */
    public static final int BINDING_UNKNOWN = 202;
    /** {@code A2A_SSE_LINE_TOO_LONG}. */
    public static final int SSE_LINE_TOO_LONG = 300;
    /** {@code A2A_SSE_EVENT_TOO_LARGE}. */
    public static final int SSE_EVENT_TOO_LARGE = 301;
    /** {@code A2A_SSE_ID_NUL}. */
    public static final int SSE_ID_NUL = 302;
    /** {@code A2A_PANIC}: a bug in the library; the handle may only be freed. */
    public static final int PANIC = 999;

    private final int code;

    /** An exception for result {@code code} of {@code function}. */
    public A2aCoreException(String function, int code, String detail) {
        super(function + ": " + A2aCore.describe(code) + " (" + code + ")"
            + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        this.code = code;
    }

    /** The C {@code a2a_result} code. */
    public int code() {
        return code;
    }

    static void check(String function, int rc) {
        if (rc != 0) {
            throw new A2aCoreException(function, rc, null);
        }
    }
}
