package dev.a2acore;

import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Direct;
import dev.a2acore.internal.Scratch;
import java.nio.ByteBuffer;
import java.lang.ref.Cleaner;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A streaming call of an {@link A2aClient}: an iterator of typed events that always ends
 * with exactly one {@link ClientStreamEvent.End} (the call's outcome: completed,
 * interrupted, failed, timed out, connect refused...). {@code hasNext}/{@code next} BLOCK,
 * bounded by the idle timeout; the request goes out on the first of them. Every event is
 * copied out before the next call. One consumer; {@link #close()} from another thread waits
 * for a {@code next} in progress (at most the idle timeout: the C ABI cannot interrupt a
 * blocked read, nor free a stream during one). A {@link Cleaner} frees it if dropped.
 */
public final class ClientStream implements AutoCloseable, Iterator<ClientStreamEvent> {
    private static final Cleaner CLEANER = Cleaner.create();

    private static final class State implements Runnable {
        Pointer handle;

        @Override
        public void run() {
            if (handle != null) {
                A2aCore.lib().a2a_client_stream_free(handle);
                handle = null;
            }
        }
    }

    private final A2aCoreLibrary lib;
    private final State state = new State();
    private final Cleaner.Cleanable cleanable;
    /** Keeps the hooks' JNA callbacks alive while the stream may resubscribe. */
    private final A2aClient.Hooks hooks;
    private ClientStreamEvent pending;
    private boolean ended;
    /** Set when the stream runs on the client machine over a java.net.http client. */
    private final MachineSource source;

    ClientStream(A2aCoreLibrary lib, Pointer handle, A2aClient.Hooks hooks) {
        this.lib = lib;
        this.state.handle = handle;
        this.hooks = hooks;
        this.source = null;
        this.cleanable = CLEANER.register(this, state);
    }

    /** A stream on the client machine: events arrive in {@code source}'s queue. */
    ClientStream(MachineSource source) {
        this.lib = null;
        this.hooks = null;
        this.source = source;
        this.cleanable = CLEANER.register(this, state);
    }

    /**
     * The events of a machine call, queued as they arrive; {@link #take} blocks for the next.
     * An interrupt while waiting cancels the call (the End then says Canceled) and keeps the
     * thread's interrupt status.
     */
    static final class MachineSource {
        final java.util.concurrent.LinkedBlockingQueue<Object> queue = new java.util.concurrent.LinkedBlockingQueue<>();
        volatile MachineCall<ClientStreamEvent.End> call;
        volatile java.util.concurrent.CompletableFuture<ClientStreamEvent.End> future;

        /** Wires a started call's future: its End (or failure) goes last into the queue. */
        void started(java.util.concurrent.CompletableFuture<ClientStreamEvent.End> f) {
            future = f;
            f.whenComplete((end, err) -> queue.add(err != null ? err : end));
        }

        ClientStreamEvent take() {
            boolean interrupted = false;
            try {
                while (true) {
                    Object o;
                    try {
                        o = queue.take();
                    } catch (InterruptedException e) {
                        interrupted = true;
                        MachineCall<ClientStreamEvent.End> c = call;
                        if (c != null) {
                            c.cancel();
                        } else if (future != null) {
                            future.cancel(true);
                        }
                        continue;
                    }
                    MachineCall<ClientStreamEvent.End> c = call;
                    if (c != null && !(o instanceof ClientStreamEvent.End)) {
                        c.taken();
                    }
                    if (o instanceof Throwable t) {
                        if (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
                            t = t.getCause();
                        }
                        if (t instanceof RuntimeException r) {
                            throw r;
                        }
                        throw new IllegalStateException(t);
                    }
                    return (ClientStreamEvent) o;
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        void close() {
            MachineCall<ClientStreamEvent.End> c = call;
            if (c != null) {
                c.cancel();
            }
        }
    }

    /** Whether another event follows (BLOCKS for it). */
    @Override
    public synchronized boolean hasNext() {
        if (pending != null) {
            return true;
        }
        if (ended) {
            return false;
        }
        pending = poll();
        return pending != null;
    }

    /** The next event (BLOCKS for it). */
    @Override
    public synchronized ClientStreamEvent next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the stream ended");
        }
        ClientStreamEvent e = pending;
        pending = null;
        return e;
    }

    /** The events as a sequential {@link Stream}; closing it closes this stream. */
    public Stream<ClientStreamEvent> stream() {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(this, Spliterator.ORDERED | Spliterator.NONNULL),
            false).onClose(this::close);
    }

    /** Reads to the end and returns the {@link ClientStreamEvent.End}. */
    public synchronized ClientStreamEvent.End drain() {
        ClientStreamEvent last = null;
        while (hasNext()) {
            last = next();
        }
        if (last instanceof ClientStreamEvent.End end) {
            return end;
        }
        throw new IllegalStateException("the stream's End was already consumed");
    }

    /** Offsets of {@code a2a_client_stream_event} (from its JNA mirror, which LayoutTest checks). */
    private static final class EventLayout {
        private static final A2aCoreLibrary.ClientStreamEvent M = new A2aCoreLibrary.ClientStreamEvent();
        static final int SIZE = M.size();
        static final int KIND = M.offsetOf("kind");
        static final int ITEM = M.offsetOf("item");
        static final int TASK_ID = M.offsetOf("task_id");
        static final int ATTEMPT = M.offsetOf("attempt");
        static final int HAS_END_KIND = M.offsetOf("has_end_kind");
        static final int END_KIND = M.offsetOf("end_kind");
        static final int OUTCOME = M.offsetOf("outcome");
        static final int RESUBSCRIBES = M.offsetOf("resubscribes");
        static final int DROPPED_EVENTS = M.offsetOf("dropped_events");
        static final int UNREADABLE_EVENTS = M.offsetOf("unreadable_events");
        /** Per thread: {@link #poll} reads the event out before anything else uses it. */
        static final ThreadLocal<Scratch> SCRATCH = Scratch.perThread(SIZE);
    }

    private ClientStreamEvent poll() {
        if (source != null) {
            ClientStreamEvent e = source.take();
            if (e instanceof ClientStreamEvent.End) {
                ended = true;
            }
            return e;
        }
        if (state.handle == null) {
            throw new IllegalStateException("ClientStream is closed");
        }
        Scratch out = EventLayout.SCRATCH.get();
        int rc = Direct.ON ? Direct.a2a_client_stream_next(state.handle, out.cleared())
            : lib.a2a_client_stream_next(state.handle, out.cleared());
        Throwable hookFailure = hooks.failure.get();
        if (hookFailure != null) {
            hooks.failure.remove();
            ended = true;
            close();
            throw new HeaderHookException(hookFailure, null);
        }
        if (rc == A2aCoreException.NONE) {
            ended = true;
            return null;
        }
        A2aCoreException.check("a2a_client_stream_next", rc);
        ByteBuffer ev = out.read();
        int kind = ev.getInt(EventLayout.KIND);
        switch (kind) {
            case 1:
                return new ClientStreamEvent.Item(StreamTracker.itemOf(lib, ev, EventLayout.ITEM));
            case 2:
                return new ClientStreamEvent.Resubscribing(Scratch.string(ev, EventLayout.TASK_ID),
                    ev.getInt(EventLayout.ATTEMPT));
            case 3:
                ended = true;
                Optional<StreamTracker.EndKind> endKind = ev.get(EventLayout.HAS_END_KIND) != 0
                    ? Optional.of(StreamTracker.EndKind.of(ev.getInt(EventLayout.END_KIND))) : Optional.empty();
                int resubscribes = ev.getInt(EventLayout.RESUBSCRIBES);
                int dropped = ev.getInt(EventLayout.DROPPED_EVENTS);
                int unreadable = ev.getInt(EventLayout.UNREADABLE_EVENTS);
                return new ClientStreamEvent.End(endKind, Outcome.copy(lib, Scratch.pointer(ev, EventLayout.OUTCOME)),
                    resubscribes, dropped, unreadable);
            default:
                throw new IllegalStateException("unknown client stream event kind " + kind);
        }
    }

    /** Frees the stream and closes its connection; idempotent. */
    @Override
    public void close() {
        if (source != null) {
            source.close(); // not under the lock: ends a take() blocked in another thread
        }
        closeHandle();
    }

    private synchronized void closeHandle() {
        cleanable.clean();
    }
}
