package dev.a2acore.internal;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

/**
 * JNA direct mapping ({@link Native#register}) of the functions a call's run on the reference
 * driver, an outcome, a classification or an SSE chunk runs through: a direct call skips the interface mapping's proxy, reflective
 * method lookup and per-argument conversion of {@link A2aCoreLibrary} (the same library
 * instance, loaded by {@link LibraryLoader}). {@code size_t} is a Java {@code long}, so the
 * mapping is registered only where {@code size_t} and pointers are 64-bit and the library
 * has every function below; elsewhere {@link #ON} is false and callers use
 * {@link A2aCoreLibrary}. Same signatures and rules as
 * {@code include/a2a_core.h}; every struct out-parameter is raw native memory read back at
 * its mirror's offsets ({@link Scratch}).
 */
public final class Direct {
    /** Whether the functions below are bound (64-bit {@code size_t} and pointers). */
    public static final boolean ON = register();

    private Direct() {}

    private static boolean register() {
        if (Native.SIZE_T_SIZE != 8 || Native.POINTER_SIZE != 8) {
            return false;
        }
        LibraryLoader.lib();
        try {
            Native.register(Direct.class, NativeLibrary.getInstance(LibraryLoader.path()));
            return true;
        } catch (UnsatisfiedLinkError e) {
            // A library without one of these functions: every call goes through the interface
            // mapping, which reports a missing function when (if ever) it is called.
            return false;
        }
    }

    /** {@code a2a_outcome_get_info} (out: an {@code a2a_outcome_info}). */
    public static native int a2a_outcome_get_info(Pointer outcome, Pointer out);

    /** {@code a2a_counts_toward_breaker} (C bool). */
    public static native byte a2a_counts_toward_breaker(Pointer outcome);

    /** {@code a2a_outcome_free}. */
    public static native void a2a_outcome_free(Pointer outcome);

    /** {@code a2a_call_run} (abort: an {@code a2a_abort} or NULL; nowOut: a {@code uint64_t} or NULL). */
    public static native int a2a_call_run(Pointer call, Pointer transport, Pointer abort, long nowMs, Pointer nowOut);

    /** {@code a2a_call_poll_event} (out: an {@code a2a_event}). */
    public static native int a2a_call_poll_event(Pointer call, Pointer out);

    /** {@code a2a_call_new} (settings: an {@code a2a_call_settings} or NULL). */
    public static native int a2a_call_new(Pointer state, int method, byte[] params, long paramsLen, Pointer settings,
                                          long nowMs, Pointer out);

    /** {@code a2a_call_new_text} (streaming: a C bool, 0 or 1; settings: or NULL). */
    public static native int a2a_call_new_text(Pointer state, byte streaming, byte[] text, long textLen,
                                               Pointer settings, long nowMs, Pointer out);

    /** {@code a2a_sse_decoder_feed_packed} (out: an {@code a2a_sse_packed}). */
    public static native int a2a_sse_decoder_feed_packed(Pointer decoder, Pointer chunk, long len, Pointer out);

    /** {@code a2a_classify} (response: an {@code a2a_response}; out: outcome). */
    public static native int a2a_classify(Pointer response, Pointer out);
}
