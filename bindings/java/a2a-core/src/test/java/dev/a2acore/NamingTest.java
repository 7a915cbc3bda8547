package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** The names before the one naming scheme ({@code V<major>_<minor>}) still compile and mean the same values. */
class NamingTest {
    @Test
    @SuppressWarnings("deprecation")
    void deprecatedNamesAreAliases() {
        assertSame(ProtocolVersion.V0_3, ProtocolVersion.V03);
        assertSame(ProtocolVersion.V1_0, ProtocolVersion.V10);
        assertSame(AgentCard.Shape.V0_3, AgentCard.Shape.V03);
        assertSame(AgentCard.Shape.V1_0, AgentCard.Shape.V10);
        // The aliases add no enum constants: the C numbering and the wire names are unchanged.
        assertArrayEquals(new ProtocolVersion[] {ProtocolVersion.V0_3, ProtocolVersion.V1_0}, ProtocolVersion.values());
        assertEquals(1, ProtocolVersion.V0_3.code());
        assertEquals("1.0", ProtocolVersion.V1_0.wireName());
        assertEquals(3, AgentCard.Shape.values().length);
    }
}
