package dev.a2acore;

/** For a transport outcome: whether the request may have reached the server. */
public enum RequestSent implements NativeEnum {
    /** Provably never left the process (connect refused, DNS failure, breaker open). */
    NO(1, "no"),
    /** May have been received (timeout or reset after bytes were written). */
    UNKNOWN(2, "unknown");

    private final int code;
    private final String wireName;

    RequestSent(int code, String wireName) {
        this.code = code;
        this.wireName = wireName;
    }

    /** The number of this value in the C ABI. */
    @Override
    public int code() {
        return code;
    }

    /** The name used in JSON output and the fixtures (the C ABI's {@code _to_str}). */
    @Override
    public String wireName() {
        return wireName;
    }

    /** The value with this C ABI number. */
    public static java.util.Optional<RequestSent> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<RequestSent> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
