package dev.a2acore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Per-call options of an {@link A2aClient} call; immutable, built with the {@code with...}
 * methods from {@link #none()}.
 *
 * @param timeout the caller's remaining turn budget (empty: the client's call timeout; positive)
 * @param idleTimeout the stream idle timeout of this call (empty: the client's; positive)
 * @param traceparent the {@code traceparent} to send (empty: a fresh one)
 * @param idempotencyKey the {@code Idempotency-Key} to send (empty: none)
 * @param messageId the messageId of a send or stream (empty: a fresh one; reuse it on a retry)
 * @param contextId the context to continue
 * @param taskId the task to continue (e.g. answering input-required)
 * @param headers extra headers for this call, in order
 * @param historyLength how many history messages the answer's task should carry (A2A
 *     {@code historyLength}; send, stream and get): empty leaves it to the agent, 0 asks for none
 * @param returnImmediately whether a send (every path: the blocking driver's calls too) asks
 *     the agent to answer at once with the task as it stands (A2A 1.0 {@code returnImmediately}, 0.3 {@code blocking: false}); wait
 *     for it with {@link A2aClient#waitAsync}
 */
public record CallOptions(Optional<Duration> timeout, Optional<Duration> idleTimeout, Optional<String> traceparent,
                          Optional<String> idempotencyKey, Optional<String> messageId, Optional<String> contextId,
                          Optional<String> taskId, List<Map.Entry<String, String>> headers,
                          OptionalInt historyLength, boolean returnImmediately) {

    private static final CallOptions NONE = new CallOptions(Optional.empty(), Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), List.of(), OptionalInt.empty(), false);

    /** Checks and copies. */
    public CallOptions {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(traceparent, "traceparent");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(contextId, "contextId");
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(historyLength, "historyLength");
        if (historyLength.isPresent() && historyLength.getAsInt() < 0) {
            throw new IllegalArgumentException("historyLength must not be negative: " + historyLength.getAsInt());
        }
        headers = List.copyOf(headers);
    }

    /**
     * Without a history length (the components before {@code historyLength} was added).
     *
     * @param timeout see the record
     * @param idleTimeout see the record
     * @param traceparent see the record
     * @param idempotencyKey see the record
     * @param messageId see the record
     * @param contextId see the record
     * @param taskId see the record
     * @param headers see the record
     */
    public CallOptions(Optional<Duration> timeout, Optional<Duration> idleTimeout, Optional<String> traceparent,
                       Optional<String> idempotencyKey, Optional<String> messageId, Optional<String> contextId,
                       Optional<String> taskId, List<Map.Entry<String, String>> headers) {
        this(timeout, idleTimeout, traceparent, idempotencyKey, messageId, contextId, taskId, headers,
            OptionalInt.empty(), false);
    }

    /**
     * Without return-immediately (the components before {@code returnImmediately} was added).
     *
     * @param timeout see the record
     * @param idleTimeout see the record
     * @param traceparent see the record
     * @param idempotencyKey see the record
     * @param messageId see the record
     * @param contextId see the record
     * @param taskId see the record
     * @param headers see the record
     * @param historyLength see the record
     */
    public CallOptions(Optional<Duration> timeout, Optional<Duration> idleTimeout, Optional<String> traceparent,
                       Optional<String> idempotencyKey, Optional<String> messageId, Optional<String> contextId,
                       Optional<String> taskId, List<Map.Entry<String, String>> headers, OptionalInt historyLength) {
        this(timeout, idleTimeout, traceparent, idempotencyKey, messageId, contextId, taskId, headers, historyLength,
            false);
    }

    /** No options: the client's defaults. */
    public static CallOptions none() {
        return NONE;
    }

    /** With a turn budget. */
    public CallOptions withTimeout(Duration d) {
        return new CallOptions(Optional.of(d), idleTimeout, traceparent, idempotencyKey, messageId, contextId, taskId,
            headers, historyLength, returnImmediately);
    }

    /** With a stream idle timeout. */
    public CallOptions withIdleTimeout(Duration d) {
        return new CallOptions(timeout, Optional.of(d), traceparent, idempotencyKey, messageId, contextId, taskId,
            headers, historyLength, returnImmediately);
    }

    /** With a {@code traceparent}. */
    public CallOptions withTraceparent(String v) {
        return new CallOptions(timeout, idleTimeout, Optional.of(v), idempotencyKey, messageId, contextId, taskId,
            headers, historyLength, returnImmediately);
    }

    /** With an {@code Idempotency-Key}. */
    public CallOptions withIdempotencyKey(String v) {
        return new CallOptions(timeout, idleTimeout, traceparent, Optional.of(v), messageId, contextId, taskId,
            headers, historyLength, returnImmediately);
    }

    /** With a messageId. */
    public CallOptions withMessageId(String v) {
        return new CallOptions(timeout, idleTimeout, traceparent, idempotencyKey, Optional.of(v), contextId, taskId,
            headers, historyLength, returnImmediately);
    }

    /** Continuing a context. */
    public CallOptions withContextId(String v) {
        return new CallOptions(timeout, idleTimeout, traceparent, idempotencyKey, messageId, Optional.of(v), taskId,
            headers, historyLength, returnImmediately);
    }

    /** Continuing a task. */
    public CallOptions withTaskId(String v) {
        return new CallOptions(timeout, idleTimeout, traceparent, idempotencyKey, messageId, contextId, Optional.of(v),
            headers, historyLength, returnImmediately);
    }

    /** With one more header. */
    public CallOptions withHeader(String name, String value) {
        List<Map.Entry<String, String>> h = new ArrayList<>(headers);
        h.add(Map.entry(name, value));
        return new CallOptions(timeout, idleTimeout, traceparent, idempotencyKey, messageId, contextId, taskId, h,
            historyLength, returnImmediately);
    }

    /** Asking for {@code n} history messages in the answer's task (0: none). */
    public CallOptions withHistoryLength(int n) {
        return new CallOptions(timeout, idleTimeout, traceparent, idempotencyKey, messageId, contextId, taskId,
            headers, OptionalInt.of(n), returnImmediately);
    }

    /** Asking a send to answer at once with the task as it stands (see the record's {@code returnImmediately}). */
    public CallOptions withReturnImmediately(boolean on) {
        return new CallOptions(timeout, idleTimeout, traceparent, idempotencyKey, messageId, contextId, taskId,
            headers, historyLength, on);
    }
}
