package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * A sans-IO circuit breaker for one remote agent (closed / open / half-open), opened by a
 * count or rate of counted failures (transport, HTTP 5xx, timeouts; protocol errors and
 * failed tasks do not count) in a sliding window, on the caller's clock (ms). When
 * {@link #allow} says no, report {@link #refusal} (a transport outcome naming the breaker,
 * request not sent). {@link #close()} frees it; every method is synchronized.
 */
public final class CircuitBreaker implements AutoCloseable {
    /** The breaker's state. */
    public enum State {
        /** Calls pass; failures are counted. */
        CLOSED,
        /** Calls are refused until the cool-down passes. */
        OPEN,
        /** A limited number of trial calls decide whether to close. */
        HALF_OPEN
    }

    /** Configuration; start from {@link #defaults()}. */
    public record Config(int failureThreshold, int failureRatePercent, int minCalls, long windowMs, int buckets,
                         long coolDownMs, int halfOpenTrials) {
        /** 5 counted failures, or 50% of at least 10 calls, in 30 s (10 buckets) open it for 15 s; 1 trial call. */
        public static Config defaults() {
            A2aCoreLibrary.BreakerConfig c = new A2aCoreLibrary.BreakerConfig();
            A2aCoreException.check("a2a_breaker_config_default", A2aCore.lib().a2a_breaker_config_default(c));
            c.read();
            return new Config(c.failure_threshold, Byte.toUnsignedInt(c.failure_rate_percent), c.min_calls, c.window_ms,
                Short.toUnsignedInt(c.buckets), c.cool_down_ms, c.half_open_trials);
        }

        /** Copies this configuration into the C mirror {@code c}. */
        void fill(A2aCoreLibrary.BreakerConfig c) {
            c.failure_threshold = failureThreshold;
            c.failure_rate_percent = (byte) failureRatePercent;
            c.min_calls = minCalls;
            c.window_ms = windowMs;
            c.buckets = (short) buckets;
            c.cool_down_ms = coolDownMs;
            c.half_open_trials = halfOpenTrials;
        }
    }

    /** A point-in-time view, for metrics and logs. */
    public record Snapshot(State state, int callsInWindow, int failuresInWindow, OptionalLong halfOpenAtMs,
                           int trialsInFlight, int trialSuccesses, long timesOpened, long refused) {}

    private final A2aCoreLibrary lib;
    private final OwnedHandle handle;

    /** A breaker for {@code agent}. */
    public CircuitBreaker(String agent, Config config) {
        lib = A2aCore.lib();
        A2aCoreLibrary.BreakerConfig c = new A2aCoreLibrary.BreakerConfig();
        config.fill(c);
        byte[] a = agent.getBytes(StandardCharsets.UTF_8);
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_breaker_new", lib.a2a_breaker_new(a, new SizeT(a.length), c, out));
        handle = new OwnedHandle(this, out.getPointer(0), h -> A2aCore.lib().a2a_breaker_free(h), "CircuitBreaker");
    }

    private Pointer h() {
        return handle.get();
    }

    /** Whether a call may go out now (half-open: takes a trial permit; report it or {@link #release}). */
    public synchronized boolean allow(long nowMs) {
        return lib.a2a_breaker_allow(h(), nowMs) != 0;
    }

    /** The transport outcome (CircuitOpen, request not sent) for a refused call. */
    public synchronized Outcome refusal(long nowMs) {
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_breaker_refusal", lib.a2a_breaker_refusal(h(), nowMs, out));
        return Outcome.consume(lib, out.getPointer(0));
    }

    /** Records the outcome of a call {@link #allow} let through. */
    public synchronized void record(Outcome outcome, long nowMs) {
        Pointer o = outcome.nativeHandle();
        if (o == null) {
            recordResult(outcome.countsTowardBreaker(), nowMs);
            return;
        }
        int rc = lib.a2a_breaker_record(h(), o, nowMs);
        Reference.reachabilityFence(outcome);
        A2aCoreException.check("a2a_breaker_record", rc);
    }

    /**
     * Records a call {@link #allow} let through by whether it counts as a failure (see
     * {@link Outcome#countsTowardBreaker()}), for callers without an outcome (a stream that
     * opened: a success).
     */
    public synchronized void recordResult(boolean countedFailure, long nowMs) {
        Outcome o = ResultOutcomes.of(countedFailure);
        int rc = lib.a2a_breaker_record(h(), o.nativeHandle(), nowMs);
        Reference.reachabilityFence(o);
        A2aCoreException.check("a2a_breaker_record", rc);
    }

    /**
     * One outcome per breaker effect, made once and kept for the life of the class:
     * {@link #recordResult} records one of them with {@code a2a_breaker_record}, which records
     * exactly {@code a2a_counts_toward_breaker(outcome)}.
     */
    private static final class ResultOutcomes {
        /** An HTTP 503: counts toward opening. */
        static final Outcome FAILURE = check(Outcomes.classify(503, null, null, new byte[0], Asked.unknown()), true);
        /** A JSON-RPC reply carrying a message: a success. */
        static final Outcome SUCCESS = check(Outcomes.classify(200, "application/json", null,
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"message\",\"messageId\":\"m\","
                + "\"role\":\"agent\",\"parts\":[]}}").getBytes(java.nio.charset.StandardCharsets.UTF_8),
            Asked.unknown()), false);

        private static Outcome check(Outcome o, boolean counted) {
            if (o.nativeHandle() == null || o.countsTowardBreaker() != counted) {
                throw new IllegalStateException("the library classified the breaker outcome unexpectedly");
            }
            return o;
        }

        static Outcome of(boolean countedFailure) {
            return countedFailure ? FAILURE : SUCCESS;
        }
    }

    /** Returns a trial permit for a call that was never made. */
    public synchronized void release(long nowMs) {
        A2aCoreException.check("a2a_breaker_release", lib.a2a_breaker_release(h(), nowMs));
    }

    /** The state now. */
    public synchronized State state(long nowMs) {
        return snapshot(nowMs).state();
    }

    /** A snapshot now. */
    public synchronized Snapshot snapshot(long nowMs) {
        A2aCoreLibrary.BreakerSnapshot s = new A2aCoreLibrary.BreakerSnapshot();
        A2aCoreException.check("a2a_breaker_snapshot_at", lib.a2a_breaker_snapshot_at(h(), nowMs, s));
        s.read();
        return new Snapshot(State.values()[s.state - 1], s.calls_in_window, s.failures_in_window,
            s.has_half_open_at != 0 ? OptionalLong.of(s.half_open_at_ms) : OptionalLong.empty(), s.trials_in_flight,
            s.trial_successes, s.times_opened, s.refused);
    }

    /** Closes the breaker and forgets its window (keeps the lifetime counters). */
    public synchronized void reset() {
        A2aCoreException.check("a2a_breaker_reset", lib.a2a_breaker_reset(h()));
    }

    /** Frees the breaker; idempotent. */
    @Override
    public synchronized void close() {
        handle.close();
    }
}
