package dev.a2acore;

/** For a transport outcome: whether the request may have reached the server. */
public enum RequestSent implements NativeEnum {
    /** Provably never left the process (connect refused, DNS failure, breaker open). */
    NO,
    /** May have been received (timeout or reset after bytes were written). */
    UNKNOWN;

    /** The value with this C ABI number. */
    public static java.util.Optional<RequestSent> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<RequestSent> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
