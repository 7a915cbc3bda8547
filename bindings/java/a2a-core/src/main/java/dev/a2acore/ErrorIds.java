package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** ADK error ids and leaked exception detail in failure texts. */
public final class ErrorIds {
    private ErrorIds() {}

    /** Exception detail a remote leaked into a failure text ({@code ...: java.lang.X: boom}). */
    public record LeakedException(String className, String message) {}

    /** The first ADK error id (twelve lowercase hex digits after {@code error_id}) in {@code text}. */
    public static Optional<String> extract(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        NativeArgs args = new NativeArgs();
        Pointer p = args.bytes(b);
        Memory out = new Memory(Native.POINTER_SIZE + Native.SIZE_T_SIZE);
        int rc = A2aCore.lib().a2a_extract_error_id(p, new SizeT(b.length), out);
        try {
            if (rc == A2aCoreException.NONE) {
                return Optional.empty();
            }
            A2aCoreException.check("a2a_extract_error_id", rc);
            return Optional.of(slice(b, p, out, 0));
        } finally {
            args.release();
        }
    }

    /** Leaked exception detail in a failure text, if any. */
    public static Optional<LeakedException> leakedException(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        NativeArgs args = new NativeArgs();
        Pointer p = args.bytes(b);
        int view = Native.POINTER_SIZE + Native.SIZE_T_SIZE;
        Memory out = new Memory(2L * view);
        int rc = A2aCore.lib().a2a_leaked_exception(p, new SizeT(b.length), out, out.share(view));
        try {
            if (rc == A2aCoreException.NONE) {
                return Optional.empty();
            }
            A2aCoreException.check("a2a_leaked_exception", rc);
            return Optional.of(new LeakedException(slice(b, p, out, 0), slice(b, p, out, view)));
        } finally {
            args.release();
        }
    }

    /** The text of an {@code a2a_str} view into {@code base} (a native copy of {@code b}), from the Java bytes. */
    private static String slice(byte[] b, Pointer base, Memory views, int at) {
        Pointer ptr = views.getPointer(at);
        long len = Native.SIZE_T_SIZE == 8 ? views.getLong(at + Native.POINTER_SIZE)
            : Integer.toUnsignedLong(views.getInt(at + Native.POINTER_SIZE));
        if (ptr == null || len == 0) {
            return "";
        }
        long off = Pointer.nativeValue(ptr) - Pointer.nativeValue(base);
        if (base == null || off < 0 || off + len > b.length) {
            throw new IllegalStateException("library returned a view outside the text it was given");
        }
        return new String(b, (int) off, (int) len, StandardCharsets.UTF_8);
    }
}
