package dev.a2acore;

import java.util.Optional;

/**
 * An enum mirrored from the C ABI: a stable number there and a name in JSON and the fixtures.
 * Implemented once ({@link NativeEnums}): the numbers come from include/a2a_core.h through the
 * generated {@link AbiEnums}, the names from the library's {@code a2a_vocab_name}; an enum
 * only lists its constants (the C names without the prefix).
 */
interface NativeEnum {
    /** The number of this value in the C ABI. */
    default int code() {
        return NativeEnums.code((Enum<?>) this);
    }

    /** The name used in JSON output and the fixtures (the C ABI's {@code a2a_vocab_name}). */
    default String wireName() {
        return NativeEnums.wireName((Enum<?>) this);
    }

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
