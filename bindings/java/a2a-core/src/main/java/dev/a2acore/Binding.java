package dev.a2acore;

/** The HTTP binding a call travels over. */
public enum Binding implements NativeEnum {
    /** JSON-RPC 2.0 over HTTP POST. */
    JSON_RPC,
    /** HTTP+JSON (REST). */
    HTTP_JSON;

    /** The value with this C ABI number. */
    public static java.util.Optional<Binding> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<Binding> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
