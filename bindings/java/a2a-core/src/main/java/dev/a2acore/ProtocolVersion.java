package dev.a2acore;

/** The two protocol shapes deployed today. */
public enum ProtocolVersion implements NativeEnum {
    /** Protocol 0.3 (message/send, kind discriminators). */
    V03(1, "0.3"),
    /** Protocol 1.x (SendMessage, ProtoJSON, A2A-Version: 1.0). */
    V10(2, "1.0");

    private final int code;
    private final String wireName;

    ProtocolVersion(int code, String wireName) {
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
    public static java.util.Optional<ProtocolVersion> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<ProtocolVersion> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
