package dev.a2acore;

/** The HTTP binding a call travels over. */
public enum Binding implements NativeEnum {
    /** JSON-RPC 2.0 over HTTP POST. */
    JSON_RPC(1, "JSONRPC"),
    /** HTTP+JSON (REST). */
    HTTP_JSON(2, "HTTP+JSON");

    private final int code;
    private final String wireName;

    Binding(int code, String wireName) {
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
    public static java.util.Optional<Binding> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<Binding> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
