package dev.a2acore;

/** The channel of an outcome: exactly one per outcome. */
public enum Channel implements NativeEnum {
    /** No HTTP response: connect failure, timeout, reset, circuit open, card resolution. */
    TRANSPORT,
    /** A non-2xx HTTP status whose body carries no protocol error. */
    HTTP,
    /** A JSON-RPC error object or an HTTP+JSON error body. */
    PROTOCOL,
    /** A task (or a status update) came back. */
    TASK,
    /** A direct message reply. */
    MESSAGE,
    /** A 2xx body that fits neither protocol version's shapes. */
    MALFORMED;

    /** The value with this C ABI number. */
    public static java.util.Optional<Channel> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<Channel> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
