package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A push notification config's webhook URL may not be called (SSRF rules: not HTTPS,
 * userinfo, or a private, loopback, link-local or unspecified host or resolved address);
 * {@link #reason()} is the core's kind.
 */
public final class WebhookRefusedException extends TrustException {
    private static final long serialVersionUID = 1L;

    WebhookRefusedException(String function, JsonNode report) {
        super(function, WEBHOOK_REFUSED, report);
    }
}
