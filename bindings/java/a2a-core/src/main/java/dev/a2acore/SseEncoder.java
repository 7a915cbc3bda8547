package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.SizeT;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * Writes an event stream (server side): events (data line breaks become separate
 * {@code data:} lines), comments and keep-alives, appended to a native buffer;
 * {@link #take()} copies the bytes out and empties it. Every method is synchronized.
 */
public final class SseEncoder implements AutoCloseable {
    private final A2aCoreLibrary lib;
    private final OwnedHandle handle;

    /** A new encoder with an empty buffer. */
    public SseEncoder() {
        lib = A2aCore.lib();
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_sse_encoder_new", lib.a2a_sse_encoder_new(out));
        handle = new OwnedHandle(this, out.getPointer(0), h -> A2aCore.lib().a2a_sse_encoder_free(h), "SseEncoder");
    }

    /** Appends an event with {@code data} and no type, id or retry. */
    public synchronized SseEncoder event(String data) {
        return event(data, null, null, OptionalLong.empty());
    }

    /**
     * Appends one event.
     *
     * @param data the data (line breaks become separate {@code data:} lines)
     * @param type the {@code event:} type (null or empty: none)
     * @param id the {@code id:} (null: none; empty: resets the client's last event ID)
     * @param retryMs a {@code retry:} line when present
     * @throws A2aCoreException with {@code A2A_SSE_EVENT_TYPE_LINE_BREAK}, {@code A2A_SSE_ID_LINE_BREAK}
     *     or {@code A2A_SSE_ID_NUL} (nothing is appended)
     */
    public synchronized SseEncoder event(String data, String type, String id, OptionalLong retryMs) {
        byte[] d = data.getBytes(StandardCharsets.UTF_8);
        byte[] t = type == null ? null : type.getBytes(StandardCharsets.UTF_8);
        byte[] i = id == null ? null : id.getBytes(StandardCharsets.UTF_8);
        int rc = lib.a2a_sse_encoder_event(h(), d, new SizeT(d.length), t, new SizeT(t == null ? 0 : t.length),
            (byte) (id == null ? 0 : 1), i, new SizeT(i == null ? 0 : i.length), (byte) (retryMs.isPresent() ? 1 : 0),
            retryMs.orElse(0));
        check("a2a_sse_encoder_event", rc);
        return this;
    }

    /** Appends a comment ({@code : text}; a line break starts another comment line). */
    public synchronized SseEncoder comment(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        check("a2a_sse_encoder_comment", lib.a2a_sse_encoder_comment(h(), b, new SizeT(b.length)));
        return this;
    }

    /** Appends {@code : keep-alive} and a blank line. */
    public synchronized SseEncoder keepAlive() {
        check("a2a_sse_encoder_keep_alive", lib.a2a_sse_encoder_keep_alive(h()));
        return this;
    }

    /** A copy of everything written since creation or the last {@link #take()}/{@link #clear()}. */
    public synchronized byte[] output() {
        byte[] b = lib.a2a_sse_encoder_output(h()).bytes();
        return b == null ? new byte[0] : b;
    }

    /** {@link #output()}, then {@link #clear()}. */
    public synchronized byte[] take() {
        byte[] b = output();
        clear();
        return b;
    }

    /** Empties the buffer. */
    public synchronized void clear() {
        check("a2a_sse_encoder_clear", lib.a2a_sse_encoder_clear(h()));
    }

    private void check(String function, int rc) {
        if (rc != 0) {
            throw new A2aCoreException(function, rc, lib.a2a_sse_encoder_last_error(h()).string());
        }
    }

    private Pointer h() {
        return handle.get();
    }

    /** Frees the encoder; idempotent. */
    @Override
    public synchronized void close() {
        handle.close();
    }
}
