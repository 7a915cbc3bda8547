package dev.a2acore;

import dev.a2acore.internal.A2aCoreLibrary;

/**
 * The circuit breaker's configuration for {@link A2aClient.Builder#breaker},
 * {@link MachineTarget.Builder#breaker} and the a2a-java drop-in; start from
 * {@link #defaults()}. The breaker itself is the core client machine's (one per client
 * state, i.e. per agent). A breaker opens on a count or rate of counted failures
 * (transport, HTTP 5xx, timeouts; protocol errors and failed tasks do not count) in a
 * sliding window, and while open refuses calls unsent ({@code CircuitOpen}).
 */
public record BreakerConfig(int failureThreshold, int failureRatePercent, int minCalls, long windowMs, int buckets,
                            long coolDownMs, int halfOpenTrials) {
    /** 5 counted failures, or 50% of at least 10 calls, in 30 s (10 buckets) open it for 15 s; 1 trial call. */
    public static BreakerConfig defaults() {
        A2aCoreLibrary.BreakerConfig c = new A2aCoreLibrary.BreakerConfig();
        A2aCoreException.check("a2a_breaker_config_default", A2aCore.lib().a2a_breaker_config_default(c));
        c.read();
        return new BreakerConfig(c.failure_threshold, Byte.toUnsignedInt(c.failure_rate_percent), c.min_calls, c.window_ms,
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
