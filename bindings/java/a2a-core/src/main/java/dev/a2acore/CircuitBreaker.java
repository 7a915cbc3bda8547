package dev.a2acore;

import dev.a2acore.internal.A2aCoreLibrary;

/**
 * The circuit breaker's configuration ({@link Config}) for {@link A2aClient.Builder#breaker}
 * and the a2a-java drop-in: the breaker itself is the core client's (one per client state,
 * i.e. per agent, in the client machine and the driver); the standalone breaker handle
 * ({@code a2a_breaker_*}) is no longer bound. A breaker opens on a count or rate of counted
 * failures (transport, HTTP 5xx, timeouts; protocol errors and failed tasks do not count) in
 * a sliding window, and while open refuses calls unsent ({@code CircuitOpen}).
 */
public final class CircuitBreaker {
    private CircuitBreaker() {}

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
}
