package dev.a2acore;

/** An agent card could not be parsed, offers no usable interface, or its URL failed validation. */
public final class CardException extends A2aCoreException {
    private static final long serialVersionUID = 1L;

    private final String kind;

    CardException(String function, int code, String detail) {
        super(function, code, detail);
        this.kind = kindOf(code);
    }

    /**
     * The stable snake_case kind ({@code json}, {@code no_usable_interface},
     * {@code plain_http}, {@code card_url_drift}, {@code host_mismatch}, ...).
     */
    public String kind() {
        return kind;
    }

    static String kindOf(int code) {
        switch (code) {
            case 700: return "json";
            case 701: return "not_an_object";
            case 702: return "invalid_field";
            case 703: return "invalid_interface";
            case 704: return "no_usable_interface";
            case 705: return "invalid_url";
            case 706: return "userinfo_in_url";
            case 707: return "plain_http";
            case 708: return "unsupported_scheme";
            case 709: return "card_url_drift";
            case 710: return "host_mismatch";
            case 711: return "invalid";
            default: return "other";
        }
    }

    static boolean isCardCode(int code) {
        return code >= 700 && code < 800;
    }
}
