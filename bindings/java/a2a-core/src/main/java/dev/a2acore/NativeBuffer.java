package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import java.nio.charset.StandardCharsets;

/** One caller-owned {@code a2a_buffer} for the length of a try-with-resources block. */
final class NativeBuffer implements AutoCloseable {
    private final A2aCoreLibrary lib;
    final Pointer p;

    NativeBuffer(A2aCoreLibrary lib) {
        this.lib = lib;
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_buffer_new", lib.a2a_buffer_new(out));
        this.p = out.getPointer(0);
    }

    /** The contents copied out (empty array when empty). */
    byte[] bytes() {
        byte[] b = lib.a2a_buffer_bytes(p).bytes();
        return b == null ? new byte[0] : b;
    }

    /** The contents as UTF-8. */
    String string() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }

    /** The buffer's last error text (for a failure that is not a trust refusal). */
    String lastError() {
        return lib.a2a_buffer_last_error(p).string();
    }

    /**
     * Throws for a nonzero {@code rc}: the typed {@link TrustException} with the buffer's JSON
     * report for a 12xx code, else an {@link A2aCoreException}.
     */
    void check(String function, int rc) {
        if (rc == 0) {
            return;
        }
        if (TrustException.isTrustCode(rc)) {
            throw TrustException.of(function, rc, bytes());
        }
        String err = lastError();
        throw new A2aCoreException(function, rc, err == null || err.isEmpty() ? string() : err);
    }

    @Override
    public void close() {
        lib.a2a_buffer_free(p);
    }
}
