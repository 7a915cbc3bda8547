package dev.a2acore;

/** The agent card could not be fetched or validated; {@link #outcome()} is the transport outcome (CardResolution). */
public final class CardResolutionException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Outcome outcome;

    CardResolutionException(Outcome outcome) {
        super("card resolution failed: " + outcome.message().orElse(outcome.toString()));
        this.outcome = outcome;
    }

    /** The transport outcome (channel transport, error CardResolution, with advice and message). */
    public Outcome outcome() {
        return outcome;
    }
}
