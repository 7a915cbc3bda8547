package dev.a2acore;

import java.util.Optional;

/** An enum mirrored from the C ABI: a stable number there and a name in JSON and the fixtures. */
interface NativeEnum {
    /** The number of this value in the C ABI. */
    int code();

    /** The name used in JSON output and the fixtures. */
    String wireName();

    /** The value of {@code values} with this C ABI number. */
    static <E extends NativeEnum> Optional<E> byCode(E[] values, int code) {
        for (E v : values) {
            if (v.code() == code) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }

    /** The value of {@code values} with this wire name (exact, case-sensitive). */
    static <E extends NativeEnum> Optional<E> byWireName(E[] values, String name) {
        for (E v : values) {
            if (v.wireName().equals(name)) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }
}
