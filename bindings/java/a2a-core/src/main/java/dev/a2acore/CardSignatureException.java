package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * No signature of an agent card verifies against the keys given (or the card has none, or
 * its {@code jku} is refused): {@link #reason()} says why overall, {@link #signatures()} why
 * each signature was rejected. A client built with card verification refuses such a card.
 */
public final class CardSignatureException extends TrustException {
    private static final long serialVersionUID = 1L;

    /**
     * One signature of the card and why it was rejected.
     *
     * @param kid the signature's key id (empty when it names none)
     * @param alg its algorithm (empty when unreadable)
     * @param rejected the core's kind of the rejection (e.g. {@code bad_signature}, {@code no_matching_key})
     */
    public record Rejection(Optional<String> kid, Optional<String> alg, String rejected) {}

    private final transient List<Rejection> signatures;

    CardSignatureException(String function, JsonNode report) {
        super(function, CARD_SIGNATURE, report);
        List<Rejection> list = new ArrayList<>();
        JsonNode sigs = report == null ? null : report.get("signatures");
        if (sigs != null && sigs.isArray()) {
            for (JsonNode s : sigs) {
                list.add(new Rejection(opt(s, "kid"), opt(s, "alg"), text(s, "rejected")));
            }
        }
        this.signatures = List.copyOf(list);
    }

    /** Each signature of the card with its rejection, in the card's order (empty when it has none). */
    public List<Rejection> signatures() {
        return signatures == null ? List.of() : signatures;
    }

    private static Optional<String> opt(JsonNode n, String field) {
        String t = text(n, field);
        return t.isEmpty() ? Optional.empty() : Optional.of(t);
    }
}
