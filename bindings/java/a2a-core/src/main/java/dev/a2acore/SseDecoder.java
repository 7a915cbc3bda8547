package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.ChunkMemory;
import dev.a2acore.internal.Direct;
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
 * <p>One foreign call per chunk: the chunk is copied once into the calling thread's native
 * chunk memory (so the library never sees the Java heap; the decoder copies what it keeps),
 * decoded with the packed batch call, and
 * the events' values come back with one bulk read of the packed buffer and one of its
 * offsets (the item array is read only when the chunk also completed comments, retry
 * fields or limit errors); every item is a Java object before the call returns. Not thread-safe in the
 * sense of interleaved streams, but every method is synchronized so that {@link #close()}
 * from another thread (a watchdog) is safe. {@link #close()} frees the native handle; a
 * {@link Cleaner} frees it if the object is dropped unclosed.
 */
public final class SseDecoder implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Native state, freed by close() or by the cleaner; never references the decoder. */
    private static final class State implements Runnable {
        Pointer handle;

        @Override
        public void run() {
            if (handle != null) {
                A2aCore.lib().a2a_sse_decoder_free(handle);
                handle = null;
            }
        }
    }

    private final A2aCoreLibrary lib;
    private final State state = new State();
    private final Cleaner.Cleanable cleanable;
    /**
     * Per thread: the {@code a2a_sse_packed} a feed fills, read before the feed returns (a
     * decoder holds none between feeds; what it points to is the decoder's own).
     */
    private static final ThreadLocal<Memory> PACKED_OUT = ThreadLocal.withInitial(() -> new Memory(Layout.PACKED_SIZE));
    private final SseConfig config;
    private boolean poisoned;
    private byte[] itemScratch = new byte[0];
    /**
     * The last packed feed's values and offsets (copied out; reused across feeds), made by
     * the first feed that completes an event: a decoder of an idle stream holds none.
     */
    private byte[] values = new byte[0];
    private long[] offsets = new long[0];
    private String lastType;
    private String lastId;

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
    public synchronized List<SseEvent> feed(byte[] chunk, int off, int len) {
        int events = feedPacked(chunk, off, len);
        if (events == 0) {
            return Collections.emptyList();
        }
        List<SseEvent> result = new ArrayList<>(events);
        for (int i = 0; i < events; i++) {
            result.add(event(i));
        }
        return result;
    }

    /** Decodes a chunk and returns every item it completed, in order. */
    public List<SseItem> feedItems(byte[] chunk) {
        return feedItems(chunk, 0, chunk.length);
    }

    /** Decodes {@code len} bytes of {@code chunk} from {@code off} and returns every item they completed, in order. */
    public synchronized List<SseItem> feedItems(byte[] chunk, int off, int len) {
        int events = feedPacked(chunk, off, len);
        Memory out = PACKED_OUT.get();
        long count = Layout.sizeT(out, Layout.PACKED_ITEM_COUNT);
        if (count == 0) {
            return Collections.emptyList();
        }
        List<SseItem> result = new ArrayList<>(Math.toIntExact(count));
        if (count == events) {
            // Events only (the common case): the packed values say everything.
            for (int i = 0; i < events; i++) {
                result.add(event(i));
            }
            return result;
        }
        // Comments, retry fields or limit errors among them: walk the items for the order.
        Pointer items = out.getPointer(Layout.PACKED_ITEMS);
        int bytes = Math.toIntExact(count * Layout.ITEM_SIZE);
        if (itemScratch.length < bytes) {
            itemScratch = new byte[Math.max(bytes, itemScratch.length * 2)];
        }
        items.read(0, itemScratch, 0, bytes);
        ByteBuffer bb = ByteBuffer.wrap(itemScratch, 0, bytes).order(ByteOrder.nativeOrder());
        int event = 0;
        for (int i = 0; i < count; i++) {
            int at = i * Layout.ITEM_SIZE;
            int kind = bb.getInt(at + Layout.ITEM_KIND);
            switch (kind) {
                case 1 -> result.add(event(event++));
                case 2 -> result.add(new SseItem.Comment(nativeString(bb, at + Layout.ITEM_DATA)));
                case 3 -> result.add(new SseItem.Retry(bb.getLong(at + Layout.ITEM_RETRY)));
                case 4 -> result.add(new SseItem.LimitError(
                    SseItem.SseLimit.fromResult(bb.getInt(at + Layout.ITEM_ERROR)), Layout.sizeT(bb, at + Layout.ITEM_LIMIT)));
                default -> throw new IllegalStateException("a2a_sse_decoder_feed_packed returned an item of unknown kind " + kind);
            }
        }
        if (event != events) {
            throw new IllegalStateException("a2a_sse_decoder_feed_packed: " + event + " event items for " + events + " events");
        }
        return result;
    }

    /**
     * One foreign call: copies the chunk into this thread's chunk memory, decodes it
     * with {@code a2a_sse_decoder_feed_packed}, and reads the packed values and their offsets
     * with one bulk read each (see {@code a2a_sse_packed} in the C header: every event's type,
     * data and id, each followed by one CR, and {@code 3n + 1} start offsets). Returns the
     * number of events; {@link #event} then builds them.
     */
    private int feedPacked(byte[] chunk, int off, int len) {
        if (off < 0 || len < 0 || off + len > chunk.length) {
            throw new IndexOutOfBoundsException("off=" + off + " len=" + len + " length=" + chunk.length);
        }
        Pointer handle = handle();
        Memory out = PACKED_OUT.get();
        // The chunk is borrowed for the call only (the decoder copies what it keeps), so it
        // goes through this thread's chunk memory: a decoder holds none between feeds.
        Memory buf = ChunkMemory.borrow(Math.max(len, 1));
        int rc;
        try {
            if (len > 0) {
                buf.write(0, chunk, off, len);
            }
            rc = Direct.ON ? Direct.a2a_sse_decoder_feed_packed(handle, buf, len, out)
                : lib.a2a_sse_decoder_feed_packed(handle, buf, new SizeT(len), out);
        } finally {
            ChunkMemory.release(buf);
        }
        checkRc("a2a_sse_decoder_feed_packed", rc);
        int events = Math.toIntExact(Layout.sizeT(out, Layout.PACKED_EVENT_COUNT));
        if (events == 0) {
            return 0;
        }
        int total = Math.toIntExact(Layout.sizeT(out, Layout.PACKED_BYTES + Layout.VIEW_LEN));
        if (values.length < total) {
            values = new byte[Math.max(total, Math.max(256, values.length * 2))];
        }
        out.getPointer(Layout.PACKED_BYTES).read(0, values, 0, total);
        int n = Math.addExact(Math.multiplyExact(3, events), 1);
        if (offsets.length < n) {
            offsets = new long[Math.max(n, Math.max(16, offsets.length * 2))];
        }
        out.getPointer(Layout.PACKED_OFFSETS).read(0, offsets, 0, n);
        if (offsets[0] != 0 || offsets[n - 1] != total) {
            throw new IllegalStateException("a2a_sse_decoder_feed_packed: offsets do not span the values");
        }
        lastType = null;
        lastId = null;
        return events;
    }

    /** Event {@code i} of the last packed feed; a type or id equal to the previous event's is shared, not decoded again. */
    private SseEvent event(int i) {
        int k = 3 * i;
        String type = value(k, lastType);
        lastType = type;
        String data = value(k + 1, null);
        String id = value(k + 2, lastId);
        lastId = id;
        return new SseEvent(type, data, id);
    }

    /** Value {@code k}: bytes {@code [offsets[k], offsets[k + 1] - 1)} (the CR excluded), decoded as UTF-8. */
    private String value(int k, String previous) {
        int from = (int) offsets[k];
        int to = (int) offsets[k + 1] - 1;
        int n = to - from;
        if (n < 0 || to > values.length) {
            throw new IllegalStateException("a2a_sse_decoder_feed_packed: offsets out of order");
        }
        if (n == 0) {
            return "";
        }
        if (n == 7 && isMessage(values, from)) {
            return "message";
        }
        if (previous != null && previous.length() == n && sameAscii(previous, values, from)) {
            return previous;
        }
        return new String(values, from, n, StandardCharsets.UTF_8);
    }

    /** Whether {@code s} (of length n) is exactly the ASCII bytes at {@code from}. */
    private static boolean sameAscii(String s, byte[] b, int from) {
        for (int j = 0; j < s.length(); j++) {
            char c = s.charAt(j);
            if (c >= 0x80 || b[from + j] != (byte) c) {
                return false;
            }
        }
        return true;
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

    /** Copies a view of native memory out as UTF-8 (empty when absent). */
    private static String nativeString(ByteBuffer bb, int at) {
        long ptr = Layout.address(bb, at);
        long n = Layout.sizeT(bb, at + Layout.VIEW_LEN);
        if (ptr == 0 || n == 0) {
            return "";
        }
        return new String(new Pointer(ptr).getByteArray(0, Math.toIntExact(n)), StandardCharsets.UTF_8);
    }

    private static boolean isMessage(byte[] b, int at) {
        return b[at] == 'm' && b[at + 1] == 'e' && b[at + 2] == 's' && b[at + 3] == 's' && b[at + 4] == 'a'
            && b[at + 5] == 'g' && b[at + 6] == 'e';
    }

    private static String string(Layout.BytesView v) {
        if (v == null || v.ptr == null) {
            return "";
        }
        long n = v.len.longValue();
        return n == 0 ? "" : new String(v.ptr.getByteArray(0, Math.toIntExact(n)), StandardCharsets.UTF_8);
    }
}
