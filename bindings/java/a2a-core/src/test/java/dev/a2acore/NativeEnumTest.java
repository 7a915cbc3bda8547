package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The C-mirrored enums against the generated {@link AbiEnums} (include/a2a_core.h): each enum
 * has exactly the header's constants, every number round-trips, and the wire names (from the
 * library) are the documented words.
 */
class NativeEnumTest {
    private static final List<Class<? extends Enum<?>>> MIRRORED = List.of(Channel.class, TaskState.class,
        RetryAdvice.class, RequestSent.class, ErrorName.class, ProtocolVersion.class, Binding.class);

    @Test
    void everyEnumHasExactlyTheHeadersConstants() {
        for (Class<? extends Enum<?>> c : MIRRORED) {
            Set<String> mine = new HashSet<>();
            for (Enum<?> e : c.getEnumConstants()) {
                mine.add(e.name());
            }
            assertEquals(new HashSet<>(Arrays.asList(AbiEnums.names(c))), mine, c.getSimpleName());
            assertEquals(AbiEnums.names(c).length, AbiEnums.codes(c).length, c.getSimpleName());
        }
    }

    @Test
    void numbersAndWireNamesRoundTrip() {
        for (Class<? extends Enum<?>> c : MIRRORED) {
            Set<Integer> codes = new HashSet<>();
            for (Enum<?> e : c.getEnumConstants()) {
                NativeEnum n = (NativeEnum) e;
                int k = Arrays.asList(AbiEnums.names(c)).indexOf(e.name());
                assertEquals(AbiEnums.codes(c)[k], n.code(), e.name());
                assertNotNull(n.wireName(), e.name());
                codes.add(n.code());
            }
            assertEquals(c.getEnumConstants().length, codes.size(), c.getSimpleName() + ": numbers are distinct");
        }
        for (Channel v : Channel.values()) {
            assertEquals(v, Channel.fromCode(v.code()).orElseThrow());
            assertEquals(v, Channel.fromWireName(v.wireName()).orElseThrow());
        }
        for (ErrorName v : ErrorName.values()) {
            assertEquals(v, ErrorName.fromCode(v.code()).orElseThrow());
            assertEquals(v, ErrorName.fromWireName(v.wireName()).orElseThrow());
        }
        assertEquals(java.util.Optional.empty(), TaskState.fromCode(9));
    }

    @Test
    void wireNamesAreTheDocumentedWords() {
        Map<NativeEnum, String> words = Map.of(Channel.TRANSPORT, "transport", TaskState.INPUT_REQUIRED,
            "input-required", RetryAdvice.NEW_TASK, "new_task", RequestSent.UNKNOWN, "unknown",
            ErrorName.TASK_NOT_FOUND, "TaskNotFound", ProtocolVersion.V0_3, "0.3", Binding.JSON_RPC, "JSONRPC",
            Binding.HTTP_JSON, "HTTP+JSON", ErrorName.CAPABILITY_NOT_DECLARED, "CapabilityNotDeclared");
        words.forEach((e, w) -> assertEquals(w, e.wireName(), e.toString()));
        assertEquals(8, TaskState.AUTH_REQUIRED.code());
        assertEquals(211, ErrorName.CAPABILITY_NOT_DECLARED.code());
        assertEquals(Channel.TRANSPORT, ErrorName.TIMEOUT.channel());
    }

    @Test
    void anEnumTheHeaderDoesNotMirrorIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> AbiEnums.wireName(String.class, 1));
        assertEquals(null, AbiEnums.names(String.class));
    }
}
