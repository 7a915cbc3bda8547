package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;

/**
 * A trust check refused its input (issue 26: signed cards, push notifications, webhook URLs,
 * OAuth2): {@link #code()} is the C result ({@code 1300}-{@code 1305}), {@link #reason()}
 * the core's stable snake_case kind, {@link #detail()} the core's text. Subclasses:
 * {@link CardSignatureException}, {@link WebhookRefusedException}, {@link OAuth2Exception}.
 */
public class TrustException extends A2aCoreException {
    private static final long serialVersionUID = 1L;
    static final ObjectMapper MAPPER = new ObjectMapper();

    /** {@code A2A_TRUST_JSON}: the input is not the JSON it should be (card, policy, JWKS). */
    public static final int TRUST_JSON = 1300;
    /** {@code A2A_TRUST_KEY}: a key (PEM, JWK, JWKS) cannot be read or used. */
    public static final int TRUST_KEY = 1301;
    /** {@code A2A_CARD_SIGNATURE}: no signature of the card verifies (or it has none). */
    public static final int CARD_SIGNATURE = 1302;
    /** {@code A2A_PUSH_REJECTED}: a push notification failed a check. */
    public static final int PUSH_REJECTED = 1303;
    /** {@code A2A_WEBHOOK_REFUSED}: the webhook URL (or an address it resolves to) is refused. */
    public static final int WEBHOOK_REFUSED = 1304;
    /** {@code A2A_OAUTH2_REFUSED}: the token endpoint refused or answered nonsense. */
    public static final int OAUTH2_REFUSED = 1305;

    /** Whether {@code code} is one of the trust results (the 1300 range). */
    static boolean isTrustCode(int code) {
        return code >= TRUST_JSON && code < TRUST_JSON + 100;
    }

    private final String reason;
    private final String detail;
    private final transient JsonNode report;

    TrustException(String function, int code, JsonNode report) {
        super(function, code, text(report, "reason") + (text(report, "detail").isEmpty() ? "" : ": "
            + text(report, "detail")));
        this.report = report;
        this.reason = text(report, "reason");
        this.detail = text(report, "detail");
    }

    /** The core's stable snake_case kind of the refusal (e.g. {@code bad_signature}, {@code private_address}). */
    public String reason() {
        return reason;
    }

    /** The core's explanation (never a secret). */
    public String detail() {
        return detail;
    }

    /** The library's JSON report as it came (empty object when there was none). */
    public String reportJson() {
        return report == null ? "{}" : report.toString();
    }

    JsonNode report() {
        return report;
    }

    static String text(JsonNode n, String field) {
        if (n == null) {
            return "";
        }
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? "" : v.asText();
    }

    /** Reads a JSON report (a report that is no JSON becomes {@code {"detail": text}}). */
    static JsonNode parse(byte[] json) {
        if (json == null || json.length == 0) {
            return MAPPER.createObjectNode();
        }
        try {
            JsonNode n = MAPPER.readTree(json);
            if (n != null && n.isObject()) {
                return n;
            }
        } catch (java.io.IOException e) {
            // fall through: not JSON
        }
        return MAPPER.createObjectNode().put("detail", new String(json, StandardCharsets.UTF_8));
    }

    /** The typed exception for a refusal {@code code} of {@code function} with its report. */
    static TrustException of(String function, int code, byte[] report) {
        JsonNode n = parse(report);
        switch (code) {
            case CARD_SIGNATURE: return new CardSignatureException(function, n);
            case WEBHOOK_REFUSED: return new WebhookRefusedException(function, n);
            case OAUTH2_REFUSED: return new OAuth2Exception(function, n);
            default: return new TrustException(function, code, n);
        }
    }
}
