package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A sans-IO retry policy: feed it each attempt's {@link Outcome} and the caller's clock (ms)
 * and it answers the next {@link Action}: done, retry after a delay (same messageId and
 * idempotency key, new JSON-RPC id), resubscribe, poll, start a new task, or give up with a
 * reason. Jitter comes from caller-supplied random bits. {@link #close()} frees it (a
 * {@link Cleaner} is the safety net); every method is synchronized.
 */
public final class RetryPolicy implements AutoCloseable {
    /** What kind of call the policy guards. */
    public enum CallKind {
        /** A read (get task, get card): always safe to repeat. */
        READ(1),
        /** An operation whose repetition is harmless (cancel). */
        IDEMPOTENT(2),
        /** A side-effecting call sent with an idempotency key. */
        WITH_IDEMPOTENCY_KEY(3),
        /** A side-effecting call without a key: never resent when the outcome is unknown. */
        SIDE_EFFECTING(4);

        final int code;

        CallKind(int code) {
            this.code = code;
        }
    }

    /** What to do next. */
    public enum ActionKind {
        /** Finished: nothing more to do. */
        DONE,
        /** Send the request again after the delay. */
        RETRY_AFTER,
        /** Resubscribe to the task after the delay. */
        RESUBSCRIBE,
        /** Poll the task (get) after the delay. */
        POLL,
        /** Start a new task after the delay. */
        START_NEW_TASK,
        /** Stop: see the reason. */
        GIVE_UP
    }

    /** What to do with an id on the next request. */
    public enum IdRule {
        /** No next request. */
        NONE,
        /** Send the same value again. */
        KEEP,
        /** Send a new value. */
        NEW,
        /** The next request does not carry this id. */
        NOT_SENT
    }

    /**
     * The policy's configuration (milliseconds). Start from {@link #defaults(CallKind)}.
     *
     * @param deadlineMs the overall deadline on the caller's clock (the turn budget), if any
     * @param streaming whether the task can be resubscribed to (false: resubscribe becomes poll)
     */
    public record Config(CallKind kind, int maxAttempts, int maxFollowUps, int maxNewTasks, long baseDelayMs,
                         long maxDelayMs, boolean honourRetryAfter, long maxRetryAfterMs, OptionalLong deadlineMs,
                         long attemptEstimateMs, boolean streaming) {

        /** The library's defaults for {@code kind} (3 attempts, 10 follow-ups, backoff 200 ms to 10 s, ...). */
        public static Config defaults(CallKind kind) {
            A2aCoreLibrary.RetryConfig c = new A2aCoreLibrary.RetryConfig();
            A2aCoreException.check("a2a_retry_config_default", A2aCore.lib().a2a_retry_config_default(c));
            c.read();
            return new Config(kind, c.max_attempts, c.max_follow_ups, c.max_new_tasks, c.base_delay_ms, c.max_delay_ms,
                c.honour_retry_after != 0, c.max_retry_after_ms,
                c.has_deadline != 0 ? OptionalLong.of(c.deadline_ms) : OptionalLong.empty(), c.attempt_estimate_ms,
                c.streaming != 0);
        }

        /** A copy with a deadline. */
        public Config withDeadline(long deadlineMs) {
            return new Config(kind, maxAttempts, maxFollowUps, maxNewTasks, baseDelayMs, maxDelayMs, honourRetryAfter,
                maxRetryAfterMs, OptionalLong.of(deadlineMs), attemptEstimateMs, streaming);
        }

        /** A copy with another attempt count. */
        public Config withMaxAttempts(int n) {
            return new Config(kind, n, maxFollowUps, maxNewTasks, baseDelayMs, maxDelayMs, honourRetryAfter,
                maxRetryAfterMs, deadlineMs, attemptEstimateMs, streaming);
        }
    }

    /**
     * The next step.
     *
     * @param delayMs how long to wait before the next request (absent for done and give-up)
     * @param taskId resubscribe and poll: the task
     * @param generation start-new-task: the new task's generation (1 for the first)
     * @param giveUpReason give-up: the reason's code word ({@code attempts_exhausted}, ...)
     * @param giveUpText give-up: an English sentence saying why
     */
    public record Action(ActionKind kind, OptionalLong delayMs, Optional<String> taskId, int generation,
                         Optional<String> giveUpReason, Optional<String> giveUpText, IdRule messageId,
                         IdRule idempotencyKey, IdRule jsonRpcId) {}

    private final A2aCoreLibrary lib;
    private final OwnedHandle handle;

    /** A policy whose first attempt starts at {@code nowMs}. */
    public RetryPolicy(Config config, long nowMs) {
        lib = A2aCore.lib();
        A2aCoreLibrary.RetryConfig c = new A2aCoreLibrary.RetryConfig();
        c.kind = config.kind().code;
        c.max_attempts = config.maxAttempts();
        c.max_follow_ups = config.maxFollowUps();
        c.max_new_tasks = config.maxNewTasks();
        c.base_delay_ms = config.baseDelayMs();
        c.max_delay_ms = config.maxDelayMs();
        c.honour_retry_after = (byte) (config.honourRetryAfter() ? 1 : 0);
        c.max_retry_after_ms = config.maxRetryAfterMs();
        c.has_deadline = (byte) (config.deadlineMs().isPresent() ? 1 : 0);
        c.deadline_ms = config.deadlineMs().orElse(0);
        c.attempt_estimate_ms = config.attemptEstimateMs();
        c.streaming = (byte) (config.streaming() ? 1 : 0);
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_retry_policy_new", lib.a2a_retry_policy_new(c, nowMs, out));
        handle = new OwnedHandle(this, out.getPointer(0), h -> A2aCore.lib().a2a_retry_policy_free(h), "RetryPolicy");
    }

    private Pointer h() {
        return handle.get();
    }

    /** Marks the start of an attempt (the policy learns how long attempts take). */
    public synchronized void beginAttempt(long nowMs) {
        A2aCoreException.check("a2a_retry_policy_begin_attempt", lib.a2a_retry_policy_begin_attempt(h(), nowMs));
    }

    /** Records the task id the call created (for resubscribe and poll). */
    public synchronized void setTaskId(String taskId) {
        byte[] b = taskId.getBytes(StandardCharsets.UTF_8);
        A2aCoreException.check("a2a_retry_policy_set_task_id", lib.a2a_retry_policy_set_task_id(h(), b, new SizeT(b.length)));
    }

    /** The task id known to the policy. */
    public synchronized Optional<String> taskId() {
        return Optional.ofNullable(lib.a2a_retry_policy_task_id(h()).string());
    }

    /** Sends of the request so far. */
    public synchronized int attempts() {
        return lib.a2a_retry_policy_attempts(h());
    }

    /** Resubscribe and poll calls so far. */
    public synchronized int followUps() {
        return lib.a2a_retry_policy_follow_ups(h());
    }

    /** New tasks started so far. */
    public synchronized int newTasks() {
        return lib.a2a_retry_policy_new_tasks(h());
    }

    /** Time left before the deadline. */
    public synchronized OptionalLong remaining(long nowMs) {
        Memory m = new Memory(8);
        return lib.a2a_retry_policy_remaining(h(), nowMs, m) != 0 ? OptionalLong.of(m.getLong(0)) : OptionalLong.empty();
    }

    /** Whether the policy has answered done or give-up. */
    public synchronized boolean isFinished() {
        return lib.a2a_retry_policy_is_finished(h()) != 0;
    }

    /**
     * Feeds the outcome of the attempt that just ended and answers what to do next.
     *
     * @param random caller-supplied random bits for the backoff jitter
     * @throws IllegalArgumentException for a stream item's borrowed outcome (use the stream's end outcome)
     */
    public synchronized Action next(Outcome outcome, long nowMs, long random) {
        Pointer o = outcome.nativeHandle();
        if (o == null) {
            throw new IllegalArgumentException("a stream item's outcome cannot be fed to a retry policy");
        }
        A2aCoreLibrary.RetryAction a = new A2aCoreLibrary.RetryAction();
        int rc = lib.a2a_retry_policy_next(h(), o, nowMs, random, a);
        Reference.reachabilityFence(outcome);
        A2aCoreException.check("a2a_retry_policy_next", rc);
        a.read();
        if (a.kind < 1 || a.kind > 6) {
            throw new IllegalStateException("a2a_retry_policy_next gave action kind " + a.kind);
        }
        Optional<String> reason = a.give_up == 0 ? Optional.empty()
            : Optional.ofNullable(lib.a2a_vocab_name(AbiEnums.VOCAB_GIVE_UP_REASON, a.give_up).string());
        return new Action(ActionKind.values()[a.kind - 1],
            a.has_delay != 0 ? OptionalLong.of(a.delay_ms) : OptionalLong.empty(), view(a.task_id), a.generation,
            reason, view(a.give_up_text), IdRule.values()[a.message_id], IdRule.values()[a.idempotency_key],
            IdRule.values()[a.jsonrpc_id]);
    }

    /** Frees the policy; idempotent. */
    @Override
    public synchronized void close() {
        handle.close();
    }

    private static Optional<String> view(Layout.BytesView v) {
        if (v == null || v.ptr == null) {
            return Optional.empty();
        }
        long n = v.len.longValue();
        return Optional.of(n == 0 ? "" : new String(v.ptr.getByteArray(0, (int) n), StandardCharsets.UTF_8));
    }
}
