package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.SizeT;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Stable idempotency keys and messageIds (version 1) derived from the caller's stable inputs
 * (for example conversation id, operation, its arguments): the same parts give the same key
 * in every language and after a restart, so a retry carries the same {@code Idempotency-Key}
 * and messageId. Servers: the same key means the same operation.
 */
public final class Idempotency {
    private Idempotency() {}

    /** {@code a2a-ik1-} + 32 lowercase hex digits. */
    public static String key(String... parts) {
        return derive(true, utf8(parts));
    }

    /** The key of raw byte parts. */
    public static String key(List<byte[]> parts) {
        return derive(true, parts);
    }

    /** A lowercase RFC 9562 version 8 UUID. */
    public static String messageId(String... parts) {
        return derive(false, utf8(parts));
    }

    /** The messageId of raw byte parts. */
    public static String messageId(List<byte[]> parts) {
        return derive(false, parts);
    }

    private static List<byte[]> utf8(String... parts) {
        List<byte[]> out = new ArrayList<>(parts.length);
        for (String p : parts) {
            out.add(p.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    /**
     * @throws A2aCoreException with {@link A2aCoreException#KEY_EMPTY_INPUT} when there is no
     *     part or every part is empty (every call would share one key)
     */
    private static String derive(boolean key, List<byte[]> parts) {
        int view = Native.POINTER_SIZE + Native.SIZE_T_SIZE;
        Memory views = new Memory(Math.max(1, parts.size()) * (long) view);
        List<Memory> keep = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            byte[] p = parts.get(i);
            Pointer ptr = null;
            if (p.length > 0) {
                Memory m = new Memory(p.length);
                m.write(0, p, 0, p.length);
                keep.add(m);
                ptr = m;
            }
            views.setPointer((long) i * view, ptr);
            if (Native.SIZE_T_SIZE == 8) {
                views.setLong((long) i * view + Native.POINTER_SIZE, p.length);
            } else {
                views.setInt((long) i * view + Native.POINTER_SIZE, p.length);
            }
        }
        Memory buf = new Memory(64);
        Memory written = new Memory(8);
        int rc = key
            ? A2aCore.lib().a2a_derive_idempotency_key(views, new SizeT(parts.size()), buf, new SizeT(64), written)
            : A2aCore.lib().a2a_derive_message_id(views, new SizeT(parts.size()), buf, new SizeT(64), written);
        keep.clear();
        A2aCoreException.check(key ? "a2a_derive_idempotency_key" : "a2a_derive_message_id", rc);
        long n = Native.SIZE_T_SIZE == 8 ? written.getLong(0) : Integer.toUnsignedLong(written.getInt(0));
        return new String(buf.getByteArray(0, (int) n), StandardCharsets.US_ASCII);
    }
}
