package dev.a2acore;

/**
 * The two protocol shapes deployed today, named {@code V<major>_<minor>} in every binding (Rust
 * {@code ProtocolVersion::V1_0}, C {@code A2A_PROTOCOL_VERSION_V1_0}, Go and Python {@code V1_0}).
 */
public enum ProtocolVersion implements NativeEnum {
    /** Protocol 0.3 (message/send, kind discriminators). */
    V0_3,
    /** Protocol 1.x (SendMessage, ProtoJSON, A2A-Version: 1.0). */
    V1_0;

    /**
     * The name before the naming scheme.
     *
     * @deprecated use {@link #V0_3}
     */
    @Deprecated
    public static final ProtocolVersion V03 = V0_3;

    /**
     * The name before the naming scheme.
     *
     * @deprecated use {@link #V1_0}
     */
    @Deprecated
    public static final ProtocolVersion V10 = V1_0;

    /** The value with this C ABI number. */
    public static java.util.Optional<ProtocolVersion> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name. */
    public static java.util.Optional<ProtocolVersion> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
