package dev.a2acore;

/** The channel of an outcome: exactly one per outcome. */
public enum Channel implements NativeEnum {
    /** No HTTP response: connect failure, timeout, reset, circuit open, card resolution. */
    TRANSPORT(1, "transport"),
    /** A non-2xx HTTP status whose body carries no protocol error. */
    HTTP(2, "http"),
    /** A JSON-RPC error object or an HTTP+JSON error body. */
    PROTOCOL(3, "protocol"),
    /** A task (or a status update) came back. */
    TASK(4, "task"),
    /** A direct message reply. */
    MESSAGE(5, "message"),
    /** A 2xx body that fits neither protocol version's shapes. */
    MALFORMED(6, "malformed");

    private final int code;
    private final String wireName;

    Channel(int code, String wireName) {
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
    public static java.util.Optional<Channel> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<Channel> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
