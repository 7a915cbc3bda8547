package dev.a2acore.internal;

/**
 * JNA mirrors of the client machine's structs ({@code a2a_transmit}, {@code a2a_correlation},
 * {@code a2a_event}), their fields generated in {@link AbiStructs}; LayoutTest checks each
 * against the C compiler's layout. Filled by
 * {@code a2a_call_poll_transmit} / {@code a2a_call_poll_event} into memory JNA owns and read
 * back at once: every view in them points into the call and is copied out before the next
 * mutating call on it.
 */
public final class Machine {
    private Machine() {}

    /** {@code a2a_transmit}: one HTTP request to perform. */
    @CStruct("a2a_transmit")
    public static class Transmit extends AbiStructs.Transmit {}

    /** {@code a2a_wait_step}: what comes after a poll of a task wait. */
    @CStruct("a2a_wait_step")
    public static class WaitStep extends AbiStructs.WaitStep {}

    /** {@code a2a_correlation}: the ids to log on both sides of a call. */
    @CStruct("a2a_correlation")
    public static class Correlation extends AbiStructs.Correlation {}

    /** {@code a2a_event}: one event of a call. */
    @CStruct("a2a_event")
    public static class Event extends AbiStructs.Event {}

    /** A view's bytes copied out (null when absent). */
    public static byte[] bytes(Layout.BytesView v) {
        if (v == null || v.ptr == null) {
            return null;
        }
        long n = v.len.longValue();
        return n == 0 ? new byte[0] : v.ptr.getByteArray(0, Math.toIntExact(n));
    }

    /** A view as UTF-8 text (null when absent). */
    public static String string(Layout.BytesView v) {
        byte[] b = bytes(v);
        return b == null ? null : new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }
}
