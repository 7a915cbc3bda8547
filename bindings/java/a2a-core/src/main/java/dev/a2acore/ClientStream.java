package dev.a2acore;

import com.sun.jna.Pointer;
import java.lang.ref.Cleaner;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A streaming call of an {@link A2aClient}: an iterator of typed events that always ends
 * with exactly one {@link ClientStreamEvent.End} (the call's outcome: completed,
 * interrupted, failed, timed out, connect refused...). {@code hasNext}/{@code next} BLOCK,
 * bounded by the idle timeout; the request goes out on the first of them. Every event is
 * copied out before the next call. One consumer; {@link #close()} from another thread ends
 * a {@code next} in progress (it returns the call's Canceled End). A {@link Cleaner} frees
 * it if dropped.
 */
public final class ClientStream implements AutoCloseable, Iterator<ClientStreamEvent> {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Cleaner.Cleanable cleanable;
    private ClientStreamEvent pending;
    private boolean ended;
    /** Where the events come from. */
    private final Source source;

    /** A stream's events: {@link #take} BLOCKS for the next; {@link #close} may come from any thread. */
    interface Source {
        /** The next event (the last is the End). */
        ClientStreamEvent take();

        /** Ends the call; idempotent. */
        void close();
    }

    ClientStream(Source source) {
        this.source = source;
        this.cleanable = CLEANER.register(this, source::close);
    }

    /** A stream that ended before it started (a deferred card that could not be resolved). */
    static final class Ended implements Source {
        private final ClientStreamEvent.End end;

        Ended(ClientStreamEvent.End end) {
            this.end = end;
        }

        @Override
        public ClientStreamEvent take() {
            return end;
        }

        @Override
        public void close() {}
    }

    /**
     * A machine call run on the reference driver's native transport by the reading thread:
     * each {@link #take} with nothing queued steps the call ({@code a2a_call_run}), whose
     * events the call's handler queues. Holds a reference to the transport (released once the
     * call is over or closed) and the client's hooks (their callbacks run during the steps);
     * a hook that threw ends the stream with a {@link HeaderHookException}.
     */
    static final class NativeSource implements Source {
        final java.util.ArrayDeque<Object> queue = new java.util.ArrayDeque<>();
        private final NativeTransport transport;
        private final Pointer handle;
        private final A2aClient.Hooks hooks;
        MachineCall<ClientStreamEvent.End> call;
        private boolean released;

        NativeSource(NativeTransport transport, Pointer handle, A2aClient.Hooks hooks) {
            this.transport = transport;
            this.handle = handle;
            this.hooks = hooks;
        }

        @Override
        public ClientStreamEvent take() {
            while (true) {
                Object o = queue.poll();
                if (o != null) {
                    return (ClientStreamEvent) o;
                }
                MachineCall<ClientStreamEvent.End> c = call;
                boolean more;
                try {
                    more = c.step(handle);
                } finally {
                    Throwable t = hooks.failure.get();
                    if (t != null) {
                        hooks.failure.remove();
                        close();
                        throw new HeaderHookException(t, null);
                    }
                }
                if (!more && queue.isEmpty()) {
                    release();
                    java.util.concurrent.CompletableFuture<ClientStreamEvent.End> r = c.result;
                    if (!r.isDone()) {
                        throw new IllegalStateException("ClientStream is closed");
                    }
                    try {
                        return r.join();
                    } catch (java.util.concurrent.CompletionException e) {
                        Throwable t = e.getCause();
                        if (t instanceof RuntimeException x) {
                            throw x;
                        }
                        throw e;
                    }
                }
            }
        }

        private synchronized void release() {
            if (!released) {
                released = true;
                transport.release();
            }
        }

        @Override
        public void close() {
            MachineCall<ClientStreamEvent.End> c = call;
            if (c != null) {
                c.close();
            }
            release();
        }
    }

    /**
     * The events of a machine call, queued as they arrive; {@link #take} blocks for the next.
     * An interrupt while waiting cancels the call (the End then says Canceled) and keeps the
     * thread's interrupt status.
     */
    static final class MachineSource implements Source {
        final java.util.concurrent.LinkedBlockingQueue<Object> queue = new java.util.concurrent.LinkedBlockingQueue<>();
        volatile MachineCall<ClientStreamEvent.End> call;
        volatile java.util.concurrent.CompletableFuture<ClientStreamEvent.End> future;

        /** Wires a started call's future: its End (or failure) goes last into the queue. */
        void started(java.util.concurrent.CompletableFuture<ClientStreamEvent.End> f) {
            future = f;
            f.whenComplete((end, err) -> queue.add(err != null ? err : end));
        }

        @Override
        public ClientStreamEvent take() {
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

        @Override
        public void close() {
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

    private ClientStreamEvent poll() {
        ClientStreamEvent e = source.take();
        if (e instanceof ClientStreamEvent.End) {
            ended = true;
        }
        return e;
    }

    /** Ends the call and closes its connection (from any thread: a read in progress returns); idempotent. */
    @Override
    public void close() {
        cleanable.clean(); // not under the lock: ends a take() blocked in another thread
    }
}
