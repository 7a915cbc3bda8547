package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * The OAuth 2.0 token endpoint refused the client credentials or answered nonsense (or could
 * not be reached): {@link #error()} is the RFC 6749 {@code error} code when it sent one. The
 * message never carries the client secret.
 */
public final class OAuth2Exception extends TrustException {
    private static final long serialVersionUID = 1L;

    OAuth2Exception(String function, JsonNode report) {
        super(function, OAUTH2_REFUSED, report);
    }

    /** The token endpoint's RFC 6749 {@code error} ({@code invalid_client}, ...), when it sent one. */
    public Optional<String> error() {
        String e = text(report(), "error");
        return e.isEmpty() ? Optional.empty() : Optional.of(e);
    }
}
