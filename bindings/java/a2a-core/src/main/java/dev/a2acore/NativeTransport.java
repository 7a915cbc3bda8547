package dev.a2acore;

import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;

/**
 * The reference driver's native transport ({@code a2a_transport_new}: its connection pool,
 * TLS roots, client certificate, proxy and DNS rules) that the blocking {@link A2aClient}
 * runs its machine calls on with {@code a2a_call_run}. Counted: the client holds one
 * reference and every open {@link ClientStream} another, so a stream outlives the client's
 * {@code close()}; the last release frees it.
 */
final class NativeTransport {
    private final A2aCoreLibrary lib;
    private Pointer handle;
    private int refs = 1;

    NativeTransport(A2aCoreLibrary lib, Pointer handle) {
        this.lib = lib;
        this.handle = handle;
    }

    /** One more reference (released with {@link #release}). */
    synchronized Pointer acquire() {
        if (handle == null) {
            throw new IllegalStateException("A2aClient is closed");
        }
        refs++;
        return handle;
    }

    /** Drops one reference; the last one frees the transport. */
    synchronized void release() {
        if (handle != null && --refs == 0) {
            lib.a2a_transport_free(handle);
            handle = null;
        }
    }
}
