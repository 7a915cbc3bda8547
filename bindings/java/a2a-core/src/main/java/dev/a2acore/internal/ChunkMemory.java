package dev.a2acore.internal;

import com.sun.jna.Memory;

/**
 * Native memory for a chunk of bytes that one foreign call borrows for its duration only
 * ({@code a2a_call_handle_body} and {@code a2a_sse_decoder_feed_packed}: the library copies
 * what it keeps before it returns), one block per thread instead of one per call or decoder.
 * An open stream then holds no chunk memory between its chunks (16 KiB per call and 4 KiB per
 * decoder before). Use: {@code Memory m = ChunkMemory.borrow(n)}, write at most {@code n}
 * bytes, make the one call, then {@link #release}; nothing else may use this thread's block in
 * between. A thread keeps at most {@link #KEEP} bytes; a larger chunk gets a block of its own,
 * freed on release.
 */
public final class ChunkMemory {
    /** The size of a thread's first block (a network read rarely brings more). */
    static final long FIRST = 16 * 1024;
    /** The largest block a thread keeps between calls. */
    static final long KEEP = 256 * 1024;

    private static final ThreadLocal<Memory[]> KEPT = ThreadLocal.withInitial(() -> new Memory[1]);

    private ChunkMemory() {}

    /** Native memory of at least {@code size} bytes (at least 1) for one call on this thread. */
    public static Memory borrow(long size) {
        if (size > KEEP) {
            return new Memory(size);
        }
        Memory[] slot = KEPT.get();
        Memory m = slot[0];
        if (m == null || m.size() < size) {
            long grown = m == null ? FIRST : m.size();
            while (grown < size) {
                grown *= 2;
            }
            if (m != null) {
                m.close();
            }
            m = new Memory(Math.min(grown, KEEP));
            slot[0] = m;
        }
        return m;
    }

    /** Ends a {@link #borrow}: a block larger than {@link #KEEP} is freed now, this thread's block is kept. */
    public static void release(Memory m) {
        if (m.size() > KEEP) {
            m.close();
        }
    }
}
