package dev.a2acore;

import com.sun.jna.Pointer;
import java.lang.ref.Cleaner;
import java.util.function.Consumer;

/**
 * The one library handle of an object of this package and the plumbing every owner shares:
 * the handle ({@code null} once freed), the library's {@code _free} for it, and the
 * {@link Cleaner} registration that frees it when the owner becomes unreachable unclosed.
 * The owner keeps its own locking (its methods are synchronized) and calls {@link #get()} for
 * the live handle and {@link #close()} once done.
 */
final class OwnedHandle implements Runnable {
    private static final Cleaner CLEANER = Cleaner.create();

    private volatile Pointer handle;
    private final Consumer<Pointer> free;
    private final String what;
    private final Cleaner.Cleanable cleanable;

    /**
     * Takes {@code handle} for {@code owner}; {@code free} (the library's {@code _free}) runs
     * exactly once, at {@link #close()} or when owner is collected: it must not reach owner.
     */
    OwnedHandle(Object owner, Pointer handle, Consumer<Pointer> free, String what) {
        this.handle = handle;
        this.free = free;
        this.what = what;
        this.cleanable = CLEANER.register(owner, this);
    }

    /** The live handle; IllegalStateException ("X is closed") after {@link #close()}. */
    Pointer get() {
        Pointer h = handle;
        if (h == null) {
            throw new IllegalStateException(what + " is closed");
        }
        return h;
    }

    /** Frees the handle now (once); later calls do nothing. */
    void close() {
        cleanable.clean();
    }

    /** The cleaning action (run once by the Cleaner, or by {@link #close()}). */
    @Override
    public void run() {
        Pointer h = handle;
        if (h != null) {
            handle = null;
            free.accept(h);
        }
    }
}
