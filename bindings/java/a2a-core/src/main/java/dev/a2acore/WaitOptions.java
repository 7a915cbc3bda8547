package dev.a2acore;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link A2aClient#waitAsync} paces its polls of a task; immutable, built with the
 * {@code with...} methods from {@link #defaults()}.
 *
 * @param pollInterval the delay before the second poll (the first goes out at once); each
 *     delay is 1.5 times the one before (default 500 ms)
 * @param maxInterval the longest delay between two polls (default 5 s)
 * @param timeout the whole wait: no poll starts after it (default 10 minutes)
 * @param poll the options of each poll ({@code historyLength}, {@code traceparent}, headers;
 *     its {@code timeout} is each poll's budget)
 */
public record WaitOptions(Duration pollInterval, Duration maxInterval, Duration timeout, CallOptions poll) {
    private static final WaitOptions DEFAULTS = new WaitOptions(Duration.ofMillis(500), Duration.ofSeconds(5),
        Duration.ofMinutes(10), CallOptions.none());

    /** Checks: every duration positive, the first interval not above the longest. */
    public WaitOptions {
        Objects.requireNonNull(pollInterval, "pollInterval");
        Objects.requireNonNull(maxInterval, "maxInterval");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(poll, "poll");
        for (Duration d : new Duration[] {pollInterval, maxInterval, timeout}) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("wait durations must be positive: " + d);
            }
        }
        if (pollInterval.compareTo(maxInterval) > 0) {
            throw new IllegalArgumentException("pollInterval " + pollInterval + " is above maxInterval " + maxInterval);
        }
    }

    /** 500 ms, growing to at most 5 s between polls, for at most 10 minutes. */
    public static WaitOptions defaults() {
        return DEFAULTS;
    }

    /** With the delay before the second poll. */
    public WaitOptions withPollInterval(Duration d) {
        return new WaitOptions(d, maxInterval, timeout, poll);
    }

    /** With the longest delay between polls. */
    public WaitOptions withMaxInterval(Duration d) {
        return new WaitOptions(pollInterval, d, timeout, poll);
    }

    /** With the whole wait's time. */
    public WaitOptions withTimeout(Duration d) {
        return new WaitOptions(pollInterval, maxInterval, d, poll);
    }

    /** With the options of each poll. */
    public WaitOptions withPollOptions(CallOptions o) {
        return new WaitOptions(pollInterval, maxInterval, timeout, o);
    }
}
