package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.LibraryLoader;
import dev.a2acore.internal.Machine;

/**
 * JNA direct mapping ({@link Native#register}) of the client machine's per-request and
 * per-event functions ({@code a2a_call_poll_transmit}, {@code a2a_call_poll_event},
 * {@code a2a_call_poll_timeout}, {@code a2a_call_handle_head}, {@code a2a_call_handle_body},
 * {@code a2a_call_handle_end}, {@code a2a_call_run}), and the C offsets of the
 * {@code a2a_event} fields a stream item is read from and of the {@code a2a_transmit}
 * fields a request is built from: they are read from raw native memory at those offsets
 * instead of through a JNA {@code Structure} (an allocation and a reflective read of every
 * field per poll). The offsets come from the JNA mirrors, which LayoutTest checks against
 * the C compiler. {@link #ON} is false where {@code size_t} or pointers are not 64-bit
 * (callers then use {@link A2aCoreLibrary}).
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
    /** Size of {@code a2a_transmit}. */
    static final int TRANSMIT_SIZE;

    /**
     * Per thread: an {@code a2a_transmit} for {@code a2a_call_poll_transmit} to fill, read out
     * before anything else on the thread polls (MachineCall's and MachineTarget's transmits).
     */
    static final ThreadLocal<Memory> TRANSMIT_MEMORY =
        ThreadLocal.withInitial(() -> new Memory(MachineDirect.TRANSMIT_SIZE));

    /** Offsets of the {@code a2a_transmit} fields a request is built from. */
    static final int TRANSMIT_REQUEST_ID;
    static final int TRANSMIT_METHOD;
    static final int TRANSMIT_URL;
    static final int TRANSMIT_HEADERS;
    static final int TRANSMIT_HEADERS_LEN;
    static final int TRANSMIT_BODY;
    static final int TRANSMIT_CONNECT_BY;
    static final int TRANSMIT_DEADLINE;
    /** Offsets of a {@code a2a_bytes_view}'s pointer and length, from the view's start. */
    static final int VIEW_PTR;
    static final int VIEW_LEN;
    /** Offsets of the {@code a2a_event} fields a {@code FINISHED} event is read from. */
    static final int EVENT_OUTCOME;
    static final int EVENT_HAS_RESPONSE;
    static final int EVENT_RESPONSE_STATUS;
    static final int EVENT_RESPONSE_BODY;
    static final int EVENT_HAS_END_KIND;
    static final int EVENT_END_KIND;

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
        Machine.Transmit t = new Machine.Transmit();
        TRANSMIT_SIZE = t.size();
        TRANSMIT_REQUEST_ID = at(t, "request_id");
        TRANSMIT_METHOD = at(t, "method");
        TRANSMIT_URL = at(t, "url");
        TRANSMIT_HEADERS = at(t, "headers");
        TRANSMIT_HEADERS_LEN = at(t, "headers_len");
        TRANSMIT_BODY = at(t, "body");
        TRANSMIT_CONNECT_BY = at(t, "connect_by_ms");
        TRANSMIT_DEADLINE = at(t, "deadline_ms");
        VIEW_PTR = at(v, "ptr");
        VIEW_LEN = at(v, "len");
        EVENT_OUTCOME = at(e, "outcome");
        EVENT_HAS_RESPONSE = at(e, "has_response");
        EVENT_RESPONSE_STATUS = at(e, "response_status");
        EVENT_RESPONSE_BODY = at(e, "response_body");
        EVENT_HAS_END_KIND = at(e, "has_end_kind");
        EVENT_END_KIND = at(e, "end_kind");
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

    /** {@code a2a_call_poll_transmit} (out: an {@code a2a_transmit}). */
    static native int a2a_call_poll_transmit(Pointer call, long nowMs, Pointer out);

    /** {@code a2a_call_poll_timeout} (C bool; out: a {@code uint64_t}). */
    static native byte a2a_call_poll_timeout(Pointer call, Pointer out);

    /** {@code a2a_call_handle_head} (headers: {@code len} {@code a2a_header}s, or NULL when none). */
    static native int a2a_call_handle_head(Pointer call, int requestId, short status, Pointer headers, long len,
                                           long nowMs);

    /** {@code a2a_call_handle_end}. */
    static native int a2a_call_handle_end(Pointer call, int requestId, long nowMs);

    /** {@code a2a_call_handle_body}. */
    static native int a2a_call_handle_body(Pointer call, int requestId, Pointer chunk, long len, long nowMs);

    /** {@code a2a_call_run} (abort may be NULL; nowOut: a {@code uint64_t}). */
    static native int a2a_call_run(Pointer call, Pointer transport, Pointer abort, long nowMs, Pointer nowOut);
}
