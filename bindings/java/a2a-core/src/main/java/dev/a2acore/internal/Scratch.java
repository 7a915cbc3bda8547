package dev.a2acore.internal;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Native memory a foreign call fills (a struct out-parameter), reused by one thread, and read
 * back with one bulk copy into a heap buffer at the C offsets of the struct's JNA mirror
 * (which LayoutTest checks against the C compiler). It replaces a JNA {@code Structure} per
 * call, which costs a native allocation, a cleaner registration and a reflective read of
 * every field. Each struct kind has its own per-thread Scratch, so a nested use (a stream
 * event, then its item's outcome) never overwrites another; never shared between threads.
 */
public final class Scratch {
    private final Memory memory;
    private final int size;
    private final byte[] heap;
    private final ByteBuffer buffer;

    private Scratch(int size) {
        this.size = size;
        this.memory = new Memory(size);
        this.heap = new byte[size];
        this.buffer = ByteBuffer.wrap(heap).order(ByteOrder.nativeOrder());
    }

    /** One Scratch of {@code size} bytes per thread. */
    public static ThreadLocal<Scratch> perThread(int size) {
        return ThreadLocal.withInitial(() -> new Scratch(size));
    }

    /** The native memory, zeroed, for the next call to fill. */
    public Pointer cleared() {
        memory.clear(size);
        return memory;
    }

    /** The native memory as the last call left it (that call writes every field). */
    public Pointer pointer() {
        return memory;
    }

    /** Copies the struct into the heap buffer (one bulk read) and returns it, in native byte order. */
    public ByteBuffer read() {
        memory.read(0, heap, 0, size);
        return buffer;
    }

    /**
     * The {@code a2a_str}/{@code a2a_bytes} view at {@code at} of a buffer {@link #read}
     * returned, as UTF-8 text: null when absent (NULL pointer), "" when empty.
     */
    public static String string(ByteBuffer b, int at) {
        byte[] bytes = bytes(b, at);
        return bytes == null ? null : bytes.length == 0 ? "" : new String(bytes, StandardCharsets.UTF_8);
    }

    /** The view at {@code at} as a copy of its bytes: null when absent (NULL pointer). */
    public static byte[] bytes(ByteBuffer b, int at) {
        long ptr = Layout.address(b, at);
        if (ptr == 0) {
            return null;
        }
        long len = Layout.sizeT(b, at + Layout.VIEW_LEN);
        return len == 0 ? new byte[0] : new Pointer(ptr).getByteArray(0, Math.toIntExact(len));
    }

    /** The pointer at {@code at} (null for NULL). */
    public static Pointer pointer(ByteBuffer b, int at) {
        long ptr = Layout.address(b, at);
        return ptr == 0 ? null : new Pointer(ptr);
    }
}
