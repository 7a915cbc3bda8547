package dev.a2acore;

import java.util.Optional;

/**
 * A {@link HeaderHook} threw. The C ABI's hooks cannot fail a request, so the request went
 * out without the headers the hook did not set; the hook's exception is the cause, and the
 * call's outcome (when the call produced one) is attached.
 */
public final class HeaderHookException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Outcome outcome;

    HeaderHookException(Throwable cause, Outcome outcome) {
        super("a header hook threw: " + cause, cause);
        this.outcome = outcome;
    }

    /** The outcome of the call the hook ran for (empty for streams). */
    public Optional<Outcome> outcome() {
        return Optional.ofNullable(outcome);
    }
}
