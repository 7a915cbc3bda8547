package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Direct;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.Scratch;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Follows one streaming call (sans-IO): feed it what arrived and when (on the caller's
 * monotonic clock, in milliseconds), and it classifies every event, tracks the task, owns
 * the idle deadline, and says how the stream ended (completed, interrupted, truncated,
 * error, timed out, not a stream) with the call's outcome. {@link #close()} frees it; a
 * {@link Cleaner} frees it if dropped unclosed. Every method is synchronized.
 */
public final class StreamTracker implements AutoCloseable {
    /** What a stream event carried. */
    public enum ItemKind {
        /** A task snapshot. */
        TASK(1),
        /** A direct message (ends the interaction). */
        MESSAGE(2),
        /** A status update. */
        STATUS_UPDATE(3),
        /** An artifact update. */
        ARTIFACT_UPDATE(4),
        /** A protocol error in the stream. */
        ERROR(5),
        /** Data that fits no shape. */
        MALFORMED(6);

        private final int code;

        ItemKind(int code) {
            this.code = code;
        }

        private static final ItemKind[] ALL = values();

        static ItemKind of(int code) {
            for (ItemKind k : ALL) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new IllegalStateException("unknown stream item kind " + code);
        }
    }

    /** How a stream ended. */
    public enum EndKind {
        /** A terminal state or a Message was seen (the task itself may have failed). */
        COMPLETED(1),
        /** An interrupted state (input-required, auth-required) ended the turn. */
        INTERRUPTED(2),
        /** The body ended before a terminal state: the task may still be running (resubscribe). */
        TRUNCATED(3),
        /** A protocol error arrived in the stream (or instead of it). */
        ERROR(4),
        /** The idle timeout expired. */
        TIMED_OUT(5),
        /** The response was not an event stream. */
        NOT_A_STREAM(6);

        private final int code;

        EndKind(int code) {
            this.code = code;
        }

        static EndKind of(int code) {
            for (EndKind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new IllegalStateException("unknown stream end kind " + code);
        }
    }

    /**
     * One classified event.
     *
     * @param kind what it carried
     * @param outcome the event classified like a whole response
     * @param finalFlag the 0.3 {@code final} flag, when present
     * @param artifactId artifact updates: the artifact id
     * @param append artifact updates: {@code append}
     * @param lastChunk artifact updates: {@code lastChunk}
     * @param endsStream whether this item ends the interaction (stop reading, then {@link #finish()})
     */
    public record Item(ItemKind kind, Outcome outcome, Optional<Boolean> finalFlag, Optional<String> artifactId,
                       boolean append, boolean lastChunk, boolean endsStream) {}

    /**
     * What {@link #route} tells about a decoded event: the item's kind, its outcome's channel,
     * and the outcome itself (copied out) only for an {@code ERROR} or {@code MALFORMED} item
     * or a channel other than {@code TASK} and {@code MESSAGE} (what a reader acts on).
     */
    public record Route(ItemKind kind, Channel channel, Optional<Outcome> failure) {}

    /** How the stream ended and the call's outcome. */
    public record End(EndKind kind, Outcome outcome) {}

    private final A2aCoreLibrary lib;
    private final OwnedHandle handle;

    /**
     * A tracker for a call that asked {@code asked}, with an idle timeout (null: none),
     * started at {@code nowMs}.
     */
    public StreamTracker(Asked asked, Duration idleTimeout, long nowMs) {
        lib = A2aCore.lib();
        NativeArgs args = new NativeArgs();
        A2aCoreLibrary.Asked a = new A2aCoreLibrary.Asked();
        args.asked(a, asked.version().map(ProtocolVersion::code).orElse(0), asked.binding().map(Binding::code).orElse(0),
            asked.method().orElse(null), asked.requestId().orElse(null));
        Memory out = new Memory(Native.POINTER_SIZE);
        int rc = lib.a2a_stream_tracker_new(a, idleTimeout == null ? 0 : Math.max(1, idleTimeout.toMillis()), nowMs, out);
        args.release();
        A2aCoreException.check("a2a_stream_tracker_new", rc);
        handle = new OwnedHandle(this, out.getPointer(0), h -> A2aCore.lib().a2a_stream_tracker_free(h), "StreamTracker");
    }

    private Pointer h() {
        return handle.get();
    }

    /** Bytes arrived at {@code nowMs} (pushes the idle deadline). */
    public synchronized void onBytes(long nowMs) {
        A2aCoreException.check("a2a_stream_tracker_on_bytes",
            Direct.ON ? Direct.a2a_stream_tracker_on_bytes(h(), nowMs) : lib.a2a_stream_tracker_on_bytes(h(), nowMs));
    }

    /** A comment (keep-alive) arrived at {@code nowMs}. */
    public synchronized void onComment(long nowMs) {
        A2aCoreException.check("a2a_stream_tracker_on_comment", lib.a2a_stream_tracker_on_comment(h(), nowMs));
    }

    /** A decoded event arrived; empty for an event with empty data (nothing to classify). */
    public synchronized Optional<Item> onEvent(long nowMs, SseEvent event) {
        return onEvent(nowMs, event.type(), event.data());
    }

    /** A decoded event of {@code type} (null: no {@code event:} field) and {@code data} arrived. */
    public synchronized Optional<Item> onEvent(long nowMs, String type, String data) {
        byte[] t = type == null ? null : type.getBytes(StandardCharsets.UTF_8);
        byte[] d = data.getBytes(StandardCharsets.UTF_8);
        Scratch out = ItemLayout.SCRATCH.get();
        int rc = onEvent(nowMs, t, d, out);
        if (rc == A2aCoreException.NONE) {
            return Optional.empty();
        }
        A2aCoreException.check("a2a_stream_tracker_on_event", rc);
        return Optional.of(itemOf(lib, out.read(), 0));
    }

    /**
     * As {@link #onEvent(long, String, String)} (the tracker moves the same way), for a reader
     * that only routes each event's data on (a transport): the item's kind and its outcome's
     * channel, without copying a task or message outcome's fields out (two foreign calls
     * for those: the event and {@code a2a_outcome_get_info}, read for its channel only).
     * Empty for an event with empty data.
     */
    public synchronized Optional<Route> route(long nowMs, String type, String data) {
        byte[] t = type == null ? null : type.getBytes(StandardCharsets.UTF_8);
        byte[] d = data.getBytes(StandardCharsets.UTF_8);
        Scratch out = ItemLayout.SCRATCH.get();
        int rc = onEvent(nowMs, t, d, out);
        if (rc == A2aCoreException.NONE) {
            return Optional.empty();
        }
        A2aCoreException.check("a2a_stream_tracker_on_event", rc);
        java.nio.ByteBuffer b = out.read();
        ItemKind kind = ItemKind.of(b.getInt(ItemLayout.KIND));
        Pointer outcome = Scratch.pointer(b, ItemLayout.OUTCOME);
        int code = Outcome.channelCode(lib, outcome);
        Channel channel = Channel.fromCode(code)
            .orElseThrow(() -> new IllegalStateException("outcome with an invalid channel"));
        boolean answer = (channel == Channel.TASK || channel == Channel.MESSAGE)
            && kind != ItemKind.ERROR && kind != ItemKind.MALFORMED;
        Optional<Outcome> failure = answer ? Optional.empty() : Optional.of(Outcome.copy(lib, outcome));
        return Optional.of(new Route(kind, channel, failure));
    }

    /** {@code a2a_stream_tracker_on_event} into {@code out}. */
    private int onEvent(long nowMs, byte[] t, byte[] d, Scratch out) {
        int typeLen = t == null ? 0 : t.length;
        return Direct.ON ? Direct.a2a_stream_tracker_on_event(h(), nowMs, t, typeLen, d, d.length, out.cleared())
            : lib.a2a_stream_tracker_on_event(h(), nowMs, t, new SizeT(typeLen), d, new SizeT(d.length), out.cleared());
    }

    /** Offsets of {@code a2a_stream_item} (from its JNA mirror, which LayoutTest checks). */
    static final class ItemLayout {
        private static final A2aCoreLibrary.StreamItem M = new A2aCoreLibrary.StreamItem();
        static final int SIZE = M.size();
        static final int KIND = M.offsetOf("kind");
        static final int OUTCOME = M.offsetOf("outcome");
        static final int HAS_FINAL = M.offsetOf("has_final");
        static final int FINAL_FLAG = M.offsetOf("final_flag");
        static final int ARTIFACT_ID = M.offsetOf("artifact_id");
        static final int APPEND = M.offsetOf("append");
        static final int LAST_CHUNK = M.offsetOf("last_chunk");
        static final int ENDS_STREAM = M.offsetOf("ends_stream");
        static final ThreadLocal<Scratch> SCRATCH = Scratch.perThread(SIZE);

        private ItemLayout() {}
    }

    /**
     * Copies a filled {@code a2a_stream_item} at {@code at} of {@code b} (a struct read back
     * from native memory; its outcome is borrowed) into an {@link Item}.
     */
    static Item itemOf(A2aCoreLibrary lib, java.nio.ByteBuffer b, int at) {
        int kind = b.getInt(at + ItemLayout.KIND);
        Pointer outcome = Scratch.pointer(b, at + ItemLayout.OUTCOME);
        boolean hasFinal = b.get(at + ItemLayout.HAS_FINAL) != 0;
        boolean finalFlag = b.get(at + ItemLayout.FINAL_FLAG) != 0;
        String artifact = Scratch.string(b, at + ItemLayout.ARTIFACT_ID);
        boolean append = b.get(at + ItemLayout.APPEND) != 0;
        boolean lastChunk = b.get(at + ItemLayout.LAST_CHUNK) != 0;
        boolean endsStream = b.get(at + ItemLayout.ENDS_STREAM) != 0;
        return new Item(ItemKind.of(kind), Outcome.copy(lib, outcome),
            hasFinal ? Optional.of(finalFlag) : Optional.empty(), Optional.ofNullable(artifact),
            append, lastChunk, endsStream);
    }

    /** When {@link #onTimeout} must be called at the latest; empty without idle timeout or after the end. */
    public synchronized OptionalLong nextDeadline() {
        Memory m = new Memory(8);
        return lib.a2a_stream_tracker_next_deadline(h(), m) != 0 ? OptionalLong.of(m.getLong(0)) : OptionalLong.empty();
    }

    /** The idle deadline may have passed: the transport outcome when it has. */
    public synchronized Optional<Outcome> onTimeout(long nowMs) {
        Memory out = new Memory(Native.POINTER_SIZE);
        int rc = lib.a2a_stream_tracker_on_timeout(h(), nowMs, out);
        if (rc == A2aCoreException.NONE) {
            return Optional.empty();
        }
        A2aCoreException.check("a2a_stream_tracker_on_timeout", rc);
        return Optional.of(Outcome.consume(lib, out.getPointer(0)));
    }

    /** The response was not an event stream: classifies it as a whole response and ends the tracker. */
    public synchronized Outcome onNonSseBody(int status, String contentType, String retryAfter, byte[] body) {
        NativeArgs args = new NativeArgs();
        A2aCoreLibrary.Response r = new A2aCoreLibrary.Response();
        args.response(r, status, contentType, retryAfter, body);
        Memory out = new Memory(Native.POINTER_SIZE);
        int rc = lib.a2a_stream_tracker_on_non_sse_body(h(), r, out);
        args.release();
        A2aCoreException.check("a2a_stream_tracker_on_non_sse_body", rc);
        return Outcome.consume(lib, out.getPointer(0));
    }

    /** The body ended: how the stream ended and the call's outcome (the same on every call). */
    public synchronized End finish() {
        Memory kind = new Memory(4);
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_stream_tracker_finish", lib.a2a_stream_tracker_finish(h(), kind, out));
        return new End(EndKind.of(kind.getInt(0)), Outcome.consume(lib, out.getPointer(0)));
    }

    /** Whether the interaction is over (stop reading and close). */
    public synchronized boolean isOver() {
        return lib.a2a_stream_tracker_is_over(h()) != 0;
    }

    /** The task id seen so far. */
    public synchronized Optional<String> taskId() {
        return Optional.ofNullable(lib.a2a_stream_tracker_task_id(h()).string());
    }

    /** The last task state seen so far. */
    public synchronized Optional<TaskState> lastState() {
        Memory m = new Memory(4);
        return lib.a2a_stream_tracker_last_state(h(), m) != 0 ? TaskState.fromCode(m.getInt(0)) : Optional.empty();
    }

    /** Events that produced an item so far. */
    public synchronized long events() {
        return lib.a2a_stream_tracker_events(h());
    }

    /** Frees the tracker; idempotent. */
    @Override
    public synchronized void close() {
        handle.close();
    }
}
