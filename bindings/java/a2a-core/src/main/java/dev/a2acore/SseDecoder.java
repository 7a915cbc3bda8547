package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An incremental SSE decoder (WHATWG event stream interpretation, bounded by its limits)
 * over liba2a_core. Feed the body in chunks of any size, split anywhere; call
 * {@link #finish()} at the end of the body.
 *
 * <p>One foreign call per chunk: the chunk is copied once into native memory this object
 * owns (so the library never sees the Java heap), decoded with the batch call, and every
 * item is copied out into Java objects before the call returns. Not thread-safe in the
 * sense of interleaved streams, but every method is synchronized so that {@link #close()}
 * from another thread (a watchdog) is safe. {@link #close()} frees the native handle; a
 * {@link Cleaner} frees it if the object is dropped unclosed.
 */
public final class SseDecoder implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final int ITEMS_OFF = 0;
    private static final int COUNT_OFF = 8;

    /** Native state, freed by close() or by the cleaner; never references the decoder. */
    private static final class State implements Runnable {
        Pointer handle;
        Memory chunk;

        @Override
        public void run() {
            if (handle != null) {
                A2aCore.lib().a2a_sse_decoder_free(handle);
                handle = null;
            }
            chunk = null;
        }
    }

    private final A2aCoreLibrary lib;
    private final State state = new State();
    private final Cleaner.Cleanable cleanable;
    private final Memory out = new Memory(16);
    private final SseConfig config;
    private boolean poisoned;
    private byte[] itemScratch = new byte[0];

    /** A decoder with the default limits (16 MiB) and the WHATWG end-of-stream rule. */
    public SseDecoder() {
        this(SseConfig.defaults());
    }

    /** A decoder with the given limits and end-of-stream rule. */
    public SseDecoder(SseConfig config) {
        this.config = config;
        this.lib = A2aCore.lib();
        Memory handleOut = new Memory(com.sun.jna.Native.POINTER_SIZE);
        int rc = lib.a2a_sse_decoder_new_with(new SizeT(config.maxLine()), new SizeT(config.maxEvent()),
            config.dispatchAtEof() ? 2 : 1, handleOut);
        A2aCoreException.check("a2a_sse_decoder_new_with", rc);
        state.handle = handleOut.getPointer(0);
        state.chunk = new Memory(4096);
        cleanable = CLEANER.register(this, state);
    }

    /** The limits and end-of-stream rule of this decoder. */
    public SseConfig config() {
        return config;
    }

    /** Decodes a chunk and returns the events it completed (comments, retries and limit errors are skipped; see {@link #feedItems}). */
    public List<SseEvent> feed(byte[] chunk) {
        return feed(chunk, 0, chunk.length);
    }

    /** Decodes {@code len} bytes of {@code chunk} from {@code off} and returns the events they completed. */
    public List<SseEvent> feed(byte[] chunk, int off, int len) {
        List<SseItem> items = feedItems(chunk, off, len);
        List<SseEvent> events = new ArrayList<>(items.size());
        for (SseItem item : items) {
            if (item instanceof SseEvent e) {
                events.add(e);
            }
        }
        return events;
    }

    /** Decodes a chunk and returns every item it completed, in order. */
    public List<SseItem> feedItems(byte[] chunk) {
        return feedItems(chunk, 0, chunk.length);
    }

    /** Decodes {@code len} bytes of {@code chunk} from {@code off} and returns every item they completed, in order. */
    public synchronized List<SseItem> feedItems(byte[] chunk, int off, int len) {
        if (off < 0 || len < 0 || off + len > chunk.length) {
            throw new IndexOutOfBoundsException("off=" + off + " len=" + len + " length=" + chunk.length);
        }
        Pointer handle = handle();
        Memory buf = state.chunk;
        if (buf.size() < len) {
            long size = buf.size();
            while (size < len) {
                size *= 2;
            }
            buf = new Memory(size);
            state.chunk = buf;
        }
        if (len > 0) {
            buf.write(0, chunk, off, len);
        }
        // Zero-copy feed over native memory this decoder owns and keeps unmodified until
        // every view below has been copied out (the next feed overwrites it).
        int rc = lib.a2a_sse_decoder_feed(handle, buf, new SizeT(len), out.share(ITEMS_OFF), out.share(COUNT_OFF));
        checkRc("a2a_sse_decoder_feed", rc);
        long count = Layout.sizeT(out, COUNT_OFF);
        if (count == 0) {
            return Collections.emptyList();
        }
        Pointer items = out.getPointer(ITEMS_OFF);
        int bytes = Math.toIntExact(count * Layout.ITEM_SIZE);
        if (itemScratch.length < bytes) {
            itemScratch = new byte[Math.max(bytes, itemScratch.length * 2)];
        }
        items.read(0, itemScratch, 0, bytes);
        ByteBuffer bb = ByteBuffer.wrap(itemScratch, 0, bytes).order(ByteOrder.nativeOrder());
        long base = Pointer.nativeValue(buf);
        List<SseItem> result = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            result.add(readItem(bb, i * Layout.ITEM_SIZE, chunk, off, len, base));
        }
        return result;
    }

    /**
     * Ends the stream (end of the response body) and reports what the end-of-stream rule
     * did. The decoder is then ready for a new stream; the last event ID and retry value
     * are kept.
     */
    public synchronized SseFinish finish() {
        Pointer handle = handle();
        A2aCoreLibrary.SseFinish f = new A2aCoreLibrary.SseFinish();
        int rc = lib.a2a_sse_decoder_finish(handle, f);
        checkRc("a2a_sse_decoder_finish", rc);
        f.read();
        Optional<SseEvent> event = Optional.empty();
        if (f.has_event != 0) {
            Layout.SseItem e = f.event;
            event = Optional.of(new SseEvent(string(e.event_type), string(e.data), string(e.id)));
        }
        Optional<SseFinish.Discarded> discarded = Optional.empty();
        if (f.discarded != 0) {
            discarded = Optional.of(new SseFinish.Discarded(f.discarded_partial_line.longValue(),
                f.discarded_event != 0, f.discarded_id != 0));
        }
        Optional<SseItem.LimitError> error = Optional.empty();
        if (f.error != 0) {
            error = Optional.of(new SseItem.LimitError(SseItem.SseLimit.fromResult(f.error), f.limit.longValue()));
        }
        return new SseFinish(event, discarded, error);
    }

    /** The last event ID (send it as {@code Last-Event-ID} when reconnecting); empty when none. */
    public synchronized String lastEventId() {
        String id = lib.a2a_sse_decoder_last_event_id(handle()).string();
        return id == null ? "" : id;
    }

    /** Sets the last event ID (for example one persisted earlier); empty clears it. */
    public synchronized void setLastEventId(String id) {
        byte[] b = id.getBytes(StandardCharsets.UTF_8);
        checkRc("a2a_sse_decoder_set_last_event_id",
            lib.a2a_sse_decoder_set_last_event_id(handle(), b, new SizeT(b.length)));
    }

    /** The last valid {@code retry} value in milliseconds seen on any stream of this decoder. */
    public synchronized OptionalLong retryMillis() {
        Memory m = new Memory(8);
        return lib.a2a_sse_decoder_retry(handle(), m) != 0 ? OptionalLong.of(m.getLong(0)) : OptionalLong.empty();
    }

    /** Forgets the stream in progress without reporting it, for a new connection. */
    public synchronized void resetForReconnect() {
        checkRc("a2a_sse_decoder_reset_for_reconnect", lib.a2a_sse_decoder_reset_for_reconnect(handle()));
    }

    /** Frees the native decoder; further calls throw {@link IllegalStateException}. Idempotent. */
    @Override
    public synchronized void close() {
        cleanable.clean();
    }

    private Pointer handle() {
        if (state.handle == null) {
            throw new IllegalStateException("SseDecoder is closed");
        }
        if (poisoned) {
            throw new IllegalStateException("SseDecoder is unusable after a caught panic in the library");
        }
        return state.handle;
    }

    private void checkRc(String function, int rc) {
        if (rc == 0) {
            return;
        }
        if (rc == A2aCoreException.PANIC) {
            poisoned = true;
        }
        String detail = lib.a2a_sse_decoder_last_error(state.handle).string();
        throw new A2aCoreException(function, rc, detail);
    }

    private SseItem readItem(ByteBuffer bb, int at, byte[] chunk, int off, int len, long base) {
        int kind = bb.getInt(at + Layout.ITEM_KIND);
        switch (kind) {
            case 1:
                return new SseEvent(view(bb, at + Layout.ITEM_TYPE, chunk, off, len, base),
                    view(bb, at + Layout.ITEM_DATA, chunk, off, len, base),
                    view(bb, at + Layout.ITEM_ID, chunk, off, len, base));
            case 2:
                return new SseItem.Comment(view(bb, at + Layout.ITEM_DATA, chunk, off, len, base));
            case 3:
                return new SseItem.Retry(bb.getLong(at + Layout.ITEM_RETRY));
            case 4:
                return new SseItem.LimitError(SseItem.SseLimit.fromResult(bb.getInt(at + Layout.ITEM_ERROR)),
                    Layout.sizeT(bb, at + Layout.ITEM_LIMIT));
            default:
                throw new IllegalStateException("a2a_sse_decoder_feed returned an item of unknown kind " + kind);
        }
    }

    /** Copies a view out: from the Java chunk when it lies inside the fed bytes, else from native memory. */
    private static String view(ByteBuffer bb, int at, byte[] chunk, int off, int len, long base) {
        long ptr = Layout.address(bb, at);
        long n = Layout.sizeT(bb, at + Layout.PTR);
        if (ptr == 0 || n == 0) {
            return "";
        }
        long rel = ptr - base;
        if (rel >= 0 && rel + n <= len) {
            return new String(chunk, off + (int) rel, (int) n, StandardCharsets.UTF_8);
        }
        if (n == 7) {
            byte[] b = new Pointer(ptr).getByteArray(0, 7);
            return isMessage(b) ? "message" : new String(b, StandardCharsets.UTF_8);
        }
        return new String(new Pointer(ptr).getByteArray(0, Math.toIntExact(n)), StandardCharsets.UTF_8);
    }

    private static boolean isMessage(byte[] b) {
        return b[0] == 'm' && b[1] == 'e' && b[2] == 's' && b[3] == 's' && b[4] == 'a' && b[5] == 'g' && b[6] == 'e';
    }

    private static String string(Layout.BytesView v) {
        if (v == null || v.ptr == null) {
            return "";
        }
        long n = v.len.longValue();
        return n == 0 ? "" : new String(v.ptr.getByteArray(0, Math.toIntExact(n)), StandardCharsets.UTF_8);
    }
}
