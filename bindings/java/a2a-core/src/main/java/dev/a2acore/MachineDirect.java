package dev.a2acore;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.LibraryLoader;
import dev.a2acore.internal.Machine;

/**
 * JNA direct mapping ({@link Native#register}) of the client machine's per-event functions
 * ({@code a2a_call_poll_event}, {@code a2a_call_handle_body}, {@code a2a_call_run}), and
 * the C offsets of the {@code a2a_event} fields a stream item is read from: a stream's
 * events are read from raw native memory at those offsets instead of through a JNA
 * {@code Structure} (a reflective read of every field per event). The offsets come from the
 * JNA mirrors, which LayoutTest checks against the C compiler. {@link #ON} is false where
 * {@code size_t} or pointers are not 64-bit (callers then use {@link A2aCoreLibrary}).
 */
final class MachineDirect {
    /** Whether the functions below are bound. */
    static final boolean ON = register();

    /** Size of {@code a2a_event}. */
    static final int EVENT_SIZE;
    static final int KIND;
    static final int REQUEST_ID;
    /** Offsets of the {@code item} member's fields, from the event's start. */
    static final int ITEM_KIND;
    static final int ITEM_OUTCOME;
    static final int ITEM_HAS_FINAL;
    static final int ITEM_FINAL;
    static final int ITEM_ARTIFACT_PTR;
    static final int ITEM_ARTIFACT_LEN;
    static final int ITEM_APPEND;
    static final int ITEM_LAST_CHUNK;
    static final int ITEM_ENDS_STREAM;

    /** Structure's protected {@code fieldOffset}, read on the mirrors once (no subclass: LayoutTest lists those). */
    private static int at(com.sun.jna.Structure s, String field) {
        try {
            java.lang.reflect.Method m = com.sun.jna.Structure.class.getDeclaredMethod("fieldOffset", String.class);
            m.setAccessible(true);
            return (Integer) m.invoke(s, field);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read the layout of " + s.getClass().getName(), e);
        }
    }

    static {
        Machine.Event e = new Machine.Event();
        A2aCoreLibrary.StreamItem i = new A2aCoreLibrary.StreamItem();
        dev.a2acore.internal.Layout.BytesView v = new dev.a2acore.internal.Layout.BytesView();
        EVENT_SIZE = e.size();
        KIND = at(e, "kind");
        REQUEST_ID = at(e, "request_id");
        int item = at(e, "item");
        ITEM_KIND = item + at(i, "kind");
        ITEM_OUTCOME = item + at(i, "outcome");
        ITEM_HAS_FINAL = item + at(i, "has_final");
        ITEM_FINAL = item + at(i, "final_flag");
        ITEM_ARTIFACT_PTR = item + at(i, "artifact_id") + at(v, "ptr");
        ITEM_ARTIFACT_LEN = item + at(i, "artifact_id") + at(v, "len");
        ITEM_APPEND = item + at(i, "append");
        ITEM_LAST_CHUNK = item + at(i, "last_chunk");
        ITEM_ENDS_STREAM = item + at(i, "ends_stream");
    }

    private MachineDirect() {}

    private static boolean register() {
        if (Native.SIZE_T_SIZE != 8 || Native.POINTER_SIZE != 8) {
            return false;
        }
        LibraryLoader.lib();
        try {
            Native.register(MachineDirect.class, NativeLibrary.getInstance(LibraryLoader.path()));
            return true;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** {@code a2a_call_poll_event} (out: an {@code a2a_event}). */
    static native int a2a_call_poll_event(Pointer call, Pointer out);

    /** {@code a2a_call_handle_body}. */
    static native int a2a_call_handle_body(Pointer call, int requestId, Pointer chunk, long len, long nowMs);

    /** {@code a2a_call_run} (abort may be NULL; nowOut: a {@code uint64_t}). */
    static native int a2a_call_run(Pointer call, Pointer transport, Pointer abort, long nowMs, Pointer nowOut);
}
