package dev.a2acore;

/** The HTTP binding a call travels over. */
public enum Binding {
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
    public int code() {
        return code;
    }

    /** The name used in JSON output and the fixtures (the C ABI's {@code _to_str}). */
    public String wireName() {
        return wireName;
    }

    /** The value with this C ABI number. */
    public static java.util.Optional<Binding> fromCode(int code) {
        for (Binding v : values()) {
            if (v.code == code) {
                return java.util.Optional.of(v);
            }
        }
        return java.util.Optional.empty();
    }

    /** The value with this wire name. */
    public static java.util.Optional<Binding> fromWireName(String name) {
        for (Binding v : values()) {
            if (v.wireName.equals(name)) {
                return java.util.Optional.of(v);
            }
        }
        return java.util.Optional.empty();
    }
}
