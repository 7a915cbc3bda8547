package dev.a2acore.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Memory;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A thread's chunk memory: one block reused call after call, grown as needed up to
 * {@link ChunkMemory#KEEP} and never shared with another thread; a larger chunk gets a block
 * of its own, freed on release.
 */
class ChunkMemoryTest {
    /** Runs {@code body} on a new thread (whose chunk memory no earlier test grew) and rethrows its failure. */
    private static void onFreshThread(Runnable body) throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        t.join(10_000);
        assertFalse(t.isAlive(), "the test thread ended");
        if (failed.get() instanceof Error e) {
            throw e;
        }
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
    }

    @Test
    void aThreadReusesOneBlockAndGrowsItUpToTheLimit() throws Exception {
        onFreshThread(ChunkMemoryTest::reuseAndGrowth);
    }

    private static void reuseAndGrowth() {
        Memory first = ChunkMemory.borrow(1);
        assertTrue(first.size() >= ChunkMemory.FIRST, "a first block of at least 16 KiB");
        ChunkMemory.release(first);
        assertTrue(first.valid(), "this thread's block survives its release");
        assertSame(first, ChunkMemory.borrow(ChunkMemory.FIRST), "the same block for the next call");

        Memory grown = ChunkMemory.borrow(ChunkMemory.FIRST + 1);
        assertNotSame(first, grown);
        assertTrue(grown.size() > ChunkMemory.FIRST && grown.size() <= ChunkMemory.KEEP);
        assertFalse(first.valid(), "the outgrown block is freed");
        ChunkMemory.release(grown);

        Memory limit = ChunkMemory.borrow(ChunkMemory.KEEP);
        assertEquals(ChunkMemory.KEEP, limit.size(), "grown to the limit, not beyond");
        ChunkMemory.release(limit);
        assertSame(limit, ChunkMemory.borrow(100), "kept at the limit");
    }

    @Test
    void aChunkOverTheLimitGetsABlockOfItsOwnFreedOnRelease() throws Exception {
        onFreshThread(ChunkMemoryTest::overTheLimit);
    }

    private static void overTheLimit() {
        Memory kept = ChunkMemory.borrow(100);
        Memory big = ChunkMemory.borrow(ChunkMemory.KEEP + 1);
        assertNotSame(kept, big);
        assertTrue(big.size() >= ChunkMemory.KEEP + 1);
        big.setByte(ChunkMemory.KEEP, (byte) 7);
        ChunkMemory.release(big);
        assertFalse(big.valid(), "freed at once");
        assertSame(kept, ChunkMemory.borrow(100), "this thread's block untouched");
    }

    @Test
    void threadsNeverShareABlock() throws Exception {
        Memory mine = ChunkMemory.borrow(100);
        AtomicReference<Memory> theirs = new AtomicReference<>();
        Thread t = new Thread(() -> theirs.set(ChunkMemory.borrow(100)));
        t.start();
        t.join(10_000);
        assertNotSame(mine, theirs.get());
    }
}
