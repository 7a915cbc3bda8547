package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.ChunkMemory;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.Machine;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;

/**
 * One {@code a2a_call} driven on a {@link HttpClient}: the machine says which request to
 * make ({@code poll_transmit}), {@code sendAsync} performs it with a body subscriber that
 * hands the head and every chunk in as they arrive, a shared scheduler calls
 * {@code handle_timeout} at the machine's deadlines, and the events come out of
 * {@code poll_event} ({@code ABORT} cancels the exchange, items go to the listener,
 * {@code FINISHED} completes {@link #result}). Every native call on the call is made under
 * this object's lock (the handle is gated: one function at a time). Body chunks are copied
 * into native memory this call owns, never handed over as Java heap memory.
 *
 * @param <T> what the call finishes with
 */
final class MachineCall<T> {
    /** What the {@code FINISHED} event becomes, read while the event's views are valid. */
    interface Finisher<T> {
        /**
         * {@code call} is finished and is freed by the returned value's owner ({@code release})
         * or right after; {@code event}'s fields read are {@link #FINISHED_FIELDS}.
         */
        T finished(Machine.Event event, Pointer call, Runnable release);
    }

    /** Host clock origin: the machine's {@code now_ms} is monotonic ms from here, at least 1. */
    private static final long EPOCH = System.nanoTime();

    /**
     * One daemon thread for the calls' other timed work (a task wait's next poll, a hook
     * failure's cancel); their deadlines are on {@link Deadlines#SHARED}.
     */
    static final ScheduledExecutorService TIMER;

    static {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, "a2a-core-machine-timer");
            th.setDaemon(true);
            return th;
        });
        t.setRemoveOnCancelPolicy(true);
        TIMER = t;
    }

    /** Headers the JDK client sets itself and refuses from callers. */
    private static final Set<String> RESTRICTED = Set.of("host", "content-length", "connection", "expect",
        "upgrade", "transfer-encoding");

    /** Body chunks a stream subscriber may hold before the body is read further. */
    private static final int MAX_BUFFERED_ITEMS = 64;

    /**
     * The short wait (ms) a deadline that passed while the consumer was away (its onNext, or
     * the body paused for it) gets once it comes back: bytes the server sent meanwhile wait
     * unread, and they show it was not idle (the machine takes an open stream's input as late
     * only at its total deadline). Longer than the other bindings' 1 ms: the JDK client delivers the requested
     * bytes on another thread, a hop a loaded machine stretches; it only delays the end of a
     * stream whose server did fall silent while the consumer was away.
     */
    private static final long LATE_READ_MS = 50;

    static long nowMs() {
        return (System.nanoTime() - EPOCH) / 1_000_000L + 1;
    }

    private final A2aCoreLibrary lib;
    private final HttpClient http;
    private final Finisher<T> finisher;
    private final Consumer<ClientStreamEvent> listener;
    private final Runnable onHookCheck;
    /** Completes with the finisher's value; never completes as a success after a cancel. */
    final Result<T> result = new Result<>(this);
    private Pointer call;
    private Exchange inflight;
    /** The call's next deadline, armed on {@link Deadlines#SHARED}. */
    private Deadlines.Entry timer;
    /** The deadline {@link #timer} fires at (host clock, ms); re-armed only when it moves. */
    private long timerAt;
    /** Items the listener has not taken yet (streams): past the limit the body is not read further. */
    private int buffered;
    /** No deadline is armed before this (host clock, ms): the late-read wait after a pause; 0 for none. */
    private long notBefore;
    /** When the consumer last came back from an item (host clock, ms; see {@link #taken}). */
    private long backAt;
    /** A subscriber's onNext has an item ({@link #leave} to {@link #taken}). */
    private boolean away;

    /** A future whose {@code cancel} ends the exchange at once. */
    static final class Result<T> extends CompletableFuture<T> {
        private final MachineCall<T> owner;

        Result(MachineCall<T> owner) {
            this.owner = owner;
        }

        /** Cancels this future (a {@link java.util.concurrent.CancellationException}), then the call. */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            owner.cancel();
            return cancelled;
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CompletableFuture<>();
        }
    }

    /** One request in flight. */
    private final class Exchange {
        final int id;
        volatile Flow.Subscription subscription;
        CompletableFuture<HttpResponse<Void>> future;
        /** The blocking {@code send} running the exchange on a {@link #SENDERS} thread (unary calls). */
        java.util.concurrent.Future<?> task;
        boolean aborted;
        boolean reported;
        boolean headSeen;
        boolean paused;
        /** The call's deadline passed while the consumer was away (paused body, or in onNext): settled when it comes back. */
        boolean lapsed;
        /**
         * The whole body arrived ({@code onComplete}): the JDK client has the connection back
         * in its pool, and a cancel now would close it under the next request.
         */
        volatile boolean complete;

        Exchange(int id) {
            this.id = id;
        }

        /** The response's Content-Length, or -1 (none, or chunked). */
        long contentLength = -1;
        /** Body bytes handed in so far. */
        volatile long received;
        /** The body subscriber's {@code getBody}: completed by an abort, so a blocked send returns. */
        volatile CompletableFuture<Void> done;

        void abort() {
            aborted = true;
            if (complete) {
                return;
            }
            Flow.Subscription s = subscription;
            if (s != null) {
                // Once the body is subscribed, the future is left alone: its cancel (and the
                // interrupt that makes HttpClient.send cancel it) closes the connection the
                // exchange used even after the JDK client put it back in its pool, under
                // whichever request took it next ("HTTP/1.1 header parser received no
                // bytes"). The JDK returns the connection to its pool before it calls
                // onComplete; the subscription's cancel closes the connection only while the
                // exchange's receiver still owns it, and JDK 17.0.15 (and 25) clear that
                // owner before the pool return, so a cancel from another thread in between
                // leaves the pooled connection alone (AsyncPooledConnectionTest aborts a
                // chunked stream there, by cancel and by timeout). A body whose
                // Content-Length arrived whole is still not cancelled (the JDK ends it
                // itself); any other is cut with the subscription's cancel.
                if (contentLength < 0 || received < contentLength) {
                    s.cancel();
                }
                CompletableFuture<Void> d = done;
                if (d != null) {
                    d.complete(null);
                }
                return;
            }
            if (future != null) {
                future.cancel(true);
            }
            if (task != null) {
                task.cancel(true); // the interrupt makes HttpClient.send cancel the exchange
            }
        }
    }

    MachineCall(A2aCoreLibrary lib, HttpClient http, Pointer call, Finisher<T> finisher,
                Consumer<ClientStreamEvent> listener, Runnable onHookCheck) {
        this.lib = lib;
        this.http = http;
        this.call = call;
        this.finisher = finisher;
        this.listener = listener;
        this.onHookCheck = onHookCheck;
    }

    /**
     * A call run on the reference driver's native transport by {@link #step} (no
     * {@link HttpClient}): the thread that steps it performs its requests.
     */
    static <T> MachineCall<T> onTransport(A2aCoreLibrary lib, Pointer call, Finisher<T> finisher,
                                          Consumer<ClientStreamEvent> listener) {
        return new MachineCall<>(lib, null, call, finisher, listener, null);
    }

    // ------------------------------------------------ on the reference driver (a2a_call_run)

    /** The abort switch of the native runs (made by the first step, freed once the call is done). */
    private Pointer abort;
    /** Guards {@link #abort}: a trigger from another thread never races its free. */
    private final Object abortLock = new Object();
    /** {@link #cancel} was asked for: the next (or the current) run cancels the call. */
    private boolean canceled;
    /** A thread is inside {@code a2a_call_run} on {@link #call} (not under this object's lock). */
    private boolean running;
    /** {@link #close} came while a run was in progress: the runner frees the call. */
    private boolean closing;
    /** The machine's clock as the last run returned it (runs continue it). */
    private long runNow;

    /**
     * Runs the call on {@code transport} on this thread (BLOCKS): one {@code a2a_call_run} (it
     * performs the machine's requests, reads a stream as it arrives and sleeps until the
     * machine's deadlines, returning once an event is queued), then the events drained
     * through the same handler as on the HttpClient. False once the call finished (its
     * {@link #result} is complete) or was closed. One thread steps a call at a time.
     */
    boolean step(Pointer transport) {
        return step(transport, true);
    }

    /**
     * {@link #step}; {@code abortable} false runs without an abort switch (a call no other
     * thread ends: a blocking unary call, bounded by the machine's deadlines).
     */
    private boolean step(Pointer transport, boolean abortable) {
        Pointer c;
        Pointer sw;
        synchronized (this) {
            if (call == null) {
                return false;
            }
            c = call;
            running = true;
        }
        int rc = -1;
        try {
            synchronized (abortLock) {
                if (abort == null && abortable) {
                    Memory made = new Memory(com.sun.jna.Native.POINTER_SIZE);
                    A2aCoreException.check("a2a_abort_new", lib.a2a_abort_new(made));
                    abort = made.getPointer(0);
                    if (canceled) {
                        lib.a2a_abort_trigger(abort);
                    }
                }
                sw = abort;
            }
            long now = Math.max(runNow, nowMs());
            Memory out = RUN_NOW.get();
            rc = dev.a2acore.internal.Direct.ON ? dev.a2acore.internal.Direct.a2a_call_run(c, transport, sw, now, out)
                : lib.a2a_call_run(c, transport, sw, now, out);
            if (rc == 0) {
                runNow = Math.max(runNow, out.getLong(0));
            }
        } finally {
            synchronized (this) {
                running = false;
                if (rc == 0) {
                    drain(); // after a close: the events queued before it, or the Canceled end
                }
                if (call != null && (closing || rc != 0)) {
                    Pointer left = call;
                    call = null;
                    new Release(lib, left).run();
                    if (!closing) {
                        result.completeExceptionally(new A2aCoreException("a2a_call_run", rc, null));
                    }
                }
                if (call == null) {
                    freeAbort();
                }
            }
        }
        synchronized (this) {
            return call != null;
        }
    }

    /**
     * Steps the call to its end on {@code transport} (BLOCKS) and returns its {@link #result};
     * no other thread can end it (no abort switch).
     */
    T runToEnd(Pointer transport) {
        while (step(transport, false)) {
            // each step drains its events
        }
        try {
            return result.join();
        } catch (CompletionException e) {
            Throwable t = e.getCause();
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /** Per thread: where a run writes the time it returned at. */
    private static final ThreadLocal<Memory> RUN_NOW = ThreadLocal.withInitial(() -> new Memory(8));

    /** Triggers the native runs' abort switch: a run in progress returns at once, canceled. */
    private void abortRuns() {
        synchronized (abortLock) {
            canceled = true;
            if (abort != null) {
                lib.a2a_abort_trigger(abort);
            }
        }
    }

    private void freeAbort() {
        synchronized (abortLock) {
            if (abort != null) {
                lib.a2a_abort_free(abort);
                abort = null;
            }
        }
    }

    /**
     * Ends a native call from any thread: a run in progress returns at once (its stepper then
     * frees the call), otherwise the call (and its open response) is freed now. Idempotent.
     */
    void close() {
        abortRuns();
        synchronized (this) {
            if (call == null) {
                return;
            }
            if (running) {
                closing = true;
                return;
            }
            Pointer c = call;
            call = null;
            new Release(lib, c).run();
            freeAbort();
        }
    }

    /** Sends the first request. */
    synchronized MachineCall<T> start() {
        pump();
        return this;
    }

    /** Abandons the call now (the request in flight is dropped, {@code FINISHED} reports Canceled). */
    void cancel() {
        if (http == null) {
            abortRuns();
            return;
        }
        cancelExchange();
    }

    private synchronized void cancelExchange() {
        if (call != null) {
            lib.a2a_call_cancel(call, nowMs());
            pump();
        }
    }

    /** The stream's consumer took an item: reads on when the body was paused for it. */
    synchronized void taken() {
        buffered--;
        backAt = nowMs();
        away = false;
        Exchange ex = inflight;
        if (ex == null) {
            return;
        }
        boolean resume = ex.paused && buffered < MAX_BUFFERED_ITEMS && ex.subscription != null;
        if (resume) {
            ex.paused = false;
        }
        if (ex.lapsed && !ex.paused) {
            // The deadline passed while the consumer was away: the bytes that waited first.
            ex.lapsed = false;
            graceFromNow();
        }
        if (resume) {
            ex.subscription.request(1);
        }
    }

    /** A subscriber's onNext is about to have an item (see {@link #taken}). */
    synchronized void leave() {
        away = true;
    }

    /** Arms the passed deadline again at the late-read wait from now. */
    private void graceFromNow() {
        notBefore = nowMs() + LATE_READ_MS;
        if (timer != null) {
            Deadlines.SHARED.cancel(timer);
        }
        timerAt = notBefore;
        timer = Deadlines.SHARED.schedule(this::onTimer, notBefore);
    }

    /** Transmits what is due, drains the events, and arms the timer at the next deadline. */
    private void pump() {
        while (call != null) {
            Pointer t = pollTransmit(call);
            if (onHookCheck != null) {
                onHookCheck.run();
            }
            if (t != null) {
                transmit(t);
            }
            drain();
            if (t == null) {
                break;
            }
        }
        long at = -1;
        if (call != null) {
            Memory m = SCRATCH_U64.get();
            if ((MachineDirect.ON ? MachineDirect.a2a_call_poll_timeout(call, m) : lib.a2a_call_poll_timeout(call, m))
                != 0) {
                at = m.getLong(0);
            }
        }
        if (at >= 0 && at < notBefore) {
            at = notBefore;
        }
        // The deadline seldom moves within a call (a unary call's stays its budget's end): the
        // armed deadline is kept then, instead of a cancel and a schedule on every input.
        if (timer != null && at == timerAt) {
            return;
        }
        if (timer != null) {
            Deadlines.SHARED.cancel(timer);
            timer = null;
        }
        if (at >= 0) {
            timerAt = at;
            timer = Deadlines.SHARED.schedule(this::onTimer, at);
        }
    }

    private synchronized void onTimer(Deadlines.Entry fired) {
        boolean armed = timer == fired;
        if (!armed && timer != null) {
            return; // a timer replaced before it could run: the armed one settles the deadline
        }
        long due = timerAt;
        boolean graced = notBefore != 0;
        timer = null; // it fired: the next pump arms the next deadline
        notBefore = 0;
        if (call != null) {
            Exchange ex = inflight;
            if (ex != null && (ex.paused || away)) {
                // The body is not read while the consumer holds its items (paused), nor
                // while a subscriber's onNext has one (it holds up the JDK client's
                // delivery), so the server's silence cannot be told from the consumer's: the
                // deadline is settled when the consumer comes back (taken), after the bytes
                // that waited had their chance.
                ex.lapsed = true;
                return;
            }
            if (armed && ex != null && !graced && backAt >= due) {
                // The same, when the consumer came back before this timer could run (its
                // onNext ran under this call's lock).
                graceFromNow();
                return;
            }
            lib.a2a_call_handle_timeout(call, nowMs());
            pump();
        }
    }

    /** Per thread: where {@code a2a_call_poll_timeout} writes the deadline (read at once). */
    private static final ThreadLocal<Memory> SCRATCH_U64 = ThreadLocal.withInitial(() -> new Memory(8));

    /**
     * {@code a2a_call_poll_transmit}: the filled {@code a2a_transmit} (per-thread memory whose
     * views die at the next poll), or null when there is nothing to send.
     */
    private Pointer pollTransmit(Pointer c) {
        if (MachineDirect.ON) {
            Memory out = MachineDirect.TRANSMIT_MEMORY.get();
            return MachineDirect.a2a_call_poll_transmit(c, nowMs(), out) == 0 ? out : null;
        }
        Machine.Transmit t = new Machine.Transmit();
        return lib.a2a_call_poll_transmit(c, nowMs(), t) == 0 ? t.getPointer() : null;
    }

    /** Reads the call's events until none is left (or the call finished and was freed). */
    private void drain() {
        Machine.Event ev = EVENT.get();
        Pointer m = ev.getPointer();
        while (call != null && pollEvent(call, ev) == 0) {
            // The event's memory as the poll left it (its whole-struct sync is off), read at the C offsets.
            switch (m.getInt(MachineDirect.KIND)) {
                case 1 -> { // ABORT
                    int id = m.getInt(MachineDirect.REQUEST_ID);
                    if (inflight != null && inflight.id == id) {
                        inflight.abort();
                        inflight = null;
                    }
                }
                case 3 -> { // RESUBSCRIBING
                    if (listener != null) {
                        ev.readField("task_id");
                        ev.readField("attempt");
                        buffered++;
                        listener.accept(new ClientStreamEvent.Resubscribing(Machine.string(ev.task_id), ev.attempt));
                    }
                }
                case 4 -> { // ITEM
                    if (listener != null) {
                        StreamItem it;
                        if (MachineDirect.ON) {
                            it = item(m);
                        } else {
                            ev.readField("item");
                            it = item(ev.item);
                        }
                        buffered++;
                        listener.accept(new ClientStreamEvent.Item(it));
                    }
                }
                case 5 -> {
                    for (String f : FINISHED_FIELDS) {
                        ev.readField(f);
                    }
                    finish(ev);
                }
                default -> { } // RETRYING: the machine schedules the next attempt itself
            }
        }
    }

    /**
     * The fields of a {@code FINISHED} event a {@link Finisher} reads (a finisher reads no
     * other: the nested item and correlation are left unread).
     */
    private static final String[] FINISHED_FIELDS = {"outcome", "has_response", "response_status", "response_body",
        "has_end_kind", "end_kind", "resubscribes", "dropped_events", "unreadable_events", "card_url", "card_json"};

    /**
     * Per thread: the event struct {@link #drain} polls into, read field by field (making a
     * JNA Structure costs far more than a call; its whole-struct sync is off). Its views die
     * at the next poll; a drain nested in a listener or finisher on the same thread polls
     * into it afresh, and the outer drain reads nothing of it afterwards before polling again.
     */
    private static final ThreadLocal<Machine.Event> EVENT = ThreadLocal.withInitial(() -> {
        Machine.Event ev = new Machine.Event();
        ev.setAutoSynch(false);
        return ev;
    });

    /** {@code a2a_call_poll_event} into {@code ev}'s memory (read back by the caller). */
    private int pollEvent(Pointer c, Machine.Event ev) {
        return dev.a2acore.internal.Direct.ON ? dev.a2acore.internal.Direct.a2a_call_poll_event(c, ev.getPointer())
            : lib.a2a_call_poll_event(c, ev);
    }

    /** The item of the ITEM event at {@code m}, read at the C offsets ({@link MachineDirect}). */
    private StreamItem item(Pointer m) {
        Outcome o = Outcome.copy(lib, m.getPointer(MachineDirect.ITEM_OUTCOME));
        Pointer ap = m.getPointer(MachineDirect.ITEM_ARTIFACT_PTR);
        long al = m.getLong(MachineDirect.ITEM_ARTIFACT_LEN);
        String artifactId = ap == null ? null
            : al == 0 ? "" : new String(ap.getByteArray(0, Math.toIntExact(al)), StandardCharsets.UTF_8);
        return new StreamItem(StreamItemKind.of(m.getInt(MachineDirect.ITEM_KIND)), o,
            m.getByte(MachineDirect.ITEM_HAS_FINAL) != 0 ? Optional.of(m.getByte(MachineDirect.ITEM_FINAL) != 0)
                : Optional.empty(),
            Optional.ofNullable(artifactId), m.getByte(MachineDirect.ITEM_APPEND) != 0,
            m.getByte(MachineDirect.ITEM_LAST_CHUNK) != 0, m.getByte(MachineDirect.ITEM_ENDS_STREAM) != 0);
    }

    private StreamItem item(A2aCoreLibrary.StreamItem i) {
        Outcome o = Outcome.copy(lib, i.outcome);
        String artifactId = Machine.string(i.artifact_id);
        return new StreamItem(StreamItemKind.of(i.kind), o,
            i.has_final != 0 ? Optional.of(i.final_flag != 0) : Optional.empty(), Optional.ofNullable(artifactId),
            i.append != 0, i.last_chunk != 0, i.ends_stream != 0);
    }

    private void finish(Machine.Event ev) {
        Pointer c = call;
        call = null;
        if (inflight != null) {
            inflight.abort();
            inflight = null;
        }
        if (timer != null) {
            Deadlines.SHARED.cancel(timer);
            timer = null;
        }
        Runnable release = new Release(lib, c);
        T value;
        try {
            value = finisher.finished(ev, c, release);
        } catch (RuntimeException | Error e) {
            release.run();
            result.completeExceptionally(e);
            return;
        }
        result.complete(value);
    }

    /** Frees a finished call once; never references the MachineCall. */
    private static final class Release implements Runnable {
        private final A2aCoreLibrary lib;
        private Pointer call;

        Release(A2aCoreLibrary lib, Pointer call) {
            this.lib = lib;
            this.call = call;
        }

        @Override
        public synchronized void run() {
            if (call != null) {
                lib.a2a_call_free(call);
                call = null;
            }
        }
    }

    // --------------------------------------------------------------------- one request

    private void transmit(Pointer t) {
        Exchange ex = new Exchange(t.getInt(T_REQUEST_ID));
        if (inflight != null) {
            inflight.abort();
        }
        inflight = ex;
        HttpRequest request;
        try {
            request = request(t);
        } catch (RuntimeException e) {
            failed(ex, 204, false, "the request could not be made: " + e.getMessage());
            return;
        }
        if (listener == null) {
            // A unary exchange (its body is short-lived): the blocking send on a pooled thread.
            // HttpClient.sendAsync hands every completion to CompletableFuture's default async
            // executor, which is one new thread per task wherever the common pool has fewer
            // than two threads (any machine of one or two CPUs): a thread start per request.
            // Streams, and unary exchanges beyond the pool's threads, take sendAsync.
            try {
                ex.task = SENDERS.submit(() -> sendBlocking(ex, request));
                return;
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // every sender busy: asynchronously below
            }
        }
        CompletableFuture<HttpResponse<Void>> f = http.sendAsync(request, info -> subscriber(ex, info));
        ex.future = f;
        f.whenComplete((r, err) -> {
            if (err != null) {
                onError(ex, err);
            }
        });
    }

    /** Unary exchanges in flight at once on {@link #SENDERS}; more take {@code sendAsync}. */
    private static final int SENDER_THREADS = 16;

    /**
     * Threads that run unary exchanges with the blocking {@code HttpClient.send} (the response
     * is read by the same body subscriber, on the HttpClient's own threads, as with
     * {@code sendAsync}): daemon threads, made on demand, kept 30 s idle.
     */
    private static final java.util.concurrent.ThreadPoolExecutor SENDERS = new java.util.concurrent.ThreadPoolExecutor(
        0, SENDER_THREADS, 30, TimeUnit.SECONDS, new java.util.concurrent.SynchronousQueue<>(), r -> {
            Thread th = new Thread(r, "a2a-core-http-send");
            th.setDaemon(true);
            return th;
        });

    /** Runs one exchange with the blocking send; a failure goes where sendAsync's would. */
    private void sendBlocking(Exchange ex, HttpRequest request) {
        try {
            http.send(request, info -> subscriber(ex, info));
        } catch (InterruptedException e) {
            // The exchange was aborted (Exchange.abort interrupts this thread): nothing to report.
        } catch (Throwable t) {
            onError(ex, t);
        }
    }

    /** Offsets of the {@code a2a_transmit} fields (from its JNA mirror, which LayoutTest checks). */
    private static final int T_REQUEST_ID = MachineDirect.TRANSMIT_REQUEST_ID;
    private static final int T_METHOD = MachineDirect.TRANSMIT_METHOD;
    private static final int T_URL = MachineDirect.TRANSMIT_URL;
    private static final int T_HEADERS = MachineDirect.TRANSMIT_HEADERS;
    private static final int T_HEADERS_LEN = MachineDirect.TRANSMIT_HEADERS_LEN;
    private static final int T_BODY = MachineDirect.TRANSMIT_BODY;

    /** Copies a transmit (its views die at the next poll_transmit) into a request. */
    private static HttpRequest request(Pointer t) {
        String method = view(t, T_METHOD, Layout.VIEW_LEN);
        long bodyLen = Layout.sizeT(t, T_BODY + Layout.VIEW_LEN);
        Pointer bodyPtr = t.getPointer(T_BODY);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(view(t, T_URL, Layout.VIEW_LEN)));
        Pointer headers = t.getPointer(T_HEADERS);
        long n = Layout.sizeT(t, T_HEADERS_LEN);
        for (long i = 0; i < n; i++) {
            long at = i * Layout.HEADER_SIZE;
            String name = view(headers, at, Layout.HEADER_NAME_LEN);
            String value = view(headers, at + Layout.HEADER_VALUE, Layout.HEADER_VALUE_LEN - Layout.HEADER_VALUE);
            if (!restricted(name)) {
                b.header(name, value);
            }
        }
        boolean hasBody = bodyPtr != null && bodyLen > 0;
        b.method(method, hasBody ? HttpRequest.BodyPublishers.ofByteArray(bodyPtr.getByteArray(0,
            Math.toIntExact(bodyLen))) : HttpRequest.BodyPublishers.noBody());
        return b.build();
    }

    /** Whether the JDK client refuses {@code name} from callers (it sets the header itself). */
    private static boolean restricted(String name) {
        // equalsIgnoreCase compares lengths first: the machine's own headers (content-type,
        // accept, a2a-version, ...) are told apart without lowering a copy of each name.
        for (String r : RESTRICTED) {
            if (r.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** The last URI parsed, by its text: a client's calls go to one URL. */
    private static volatile URI lastUri;

    private static URI uri(String url) {
        URI u = lastUri;
        if (u != null && u.toString().equals(url)) {
            return u;
        }
        u = URI.create(url);
        lastUri = u;
        return u;
    }

    private static String view(Pointer base, long at, long lenOffset) {
        Pointer p = base.getPointer(at);
        long len = Layout.sizeT(base, at + lenOffset);
        return p == null || len == 0 ? "" : new String(p.getByteArray(0, Math.toIntExact(len)), StandardCharsets.UTF_8);
    }

    private HttpResponse.BodySubscriber<Void> subscriber(Exchange ex, HttpResponse.ResponseInfo info) {
        synchronized (this) {
            if (call != null && inflight == ex && !ex.aborted) {
                ex.headSeen = true;
                ex.contentLength = info.headers().firstValueAsLong("content-length").orElse(-1L);
                List<Map.Entry<String, String>> headers = new ArrayList<>();
                info.headers().map().forEach((k, vs) -> {
                    if (!k.startsWith(":")) {
                        vs.forEach(v -> headers.add(new AbstractMap.SimpleEntry<>(k, v)));
                    }
                });
                NativeArgs args = new NativeArgs();
                try {
                    Pointer arr = args.headerArray(headers);
                    if (MachineDirect.ON) {
                        MachineDirect.a2a_call_handle_head(call, ex.id, (short) info.statusCode(), arr, headers.size(),
                            nowMs());
                    } else {
                        lib.a2a_call_handle_head(call, ex.id, (short) info.statusCode(), arr,
                            new SizeT(headers.size()), nowMs());
                    }
                } finally {
                    args.release();
                }
                pump();
            }
        }
        return new Body(ex);
    }

    /** Per thread: the array a non-array body buffer is copied through. */
    private static final ThreadLocal<byte[][]> COPY = ThreadLocal.withInitial(() -> new byte[1][]);

    /** This thread's copy array, at least {@code size} bytes (grown, never shrunk below 16 KiB). */
    private static byte[] copyArray(int size) {
        byte[][] slot = COPY.get();
        byte[] a = slot[0];
        if (a == null || a.length < size) {
            a = new byte[Math.max(size, 16 * 1024)];
            slot[0] = a;
        }
        return a;
    }

    /** Hands the body in as it arrives, one chunk list at a time. */
    private final class Body implements HttpResponse.BodySubscriber<Void> {
        private final Exchange ex;
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        Body(Exchange ex) {
            this.ex = ex;
            ex.done = done;
        }

        @Override
        public CompletionStage<Void> getBody() {
            return done;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            ex.subscription = s;
            synchronized (MachineCall.this) {
                if (ex.aborted || inflight != ex) {
                    s.cancel();
                    done.complete(null);
                    return;
                }
            }
            s.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            boolean more;
            synchronized (MachineCall.this) {
                if (call == null || inflight != ex || ex.aborted) {
                    ex.subscription.cancel();
                    done.complete(null); // the exchange is over for us: let its future end
                    return;
                }
                long total = 0;
                for (ByteBuffer b : item) {
                    total += b.remaining();
                }
                ex.received += total;
                if (total > 0) {
                    Memory chunk = ChunkMemory.borrow(total);
                    long at = 0;
                    for (ByteBuffer b : item) {
                        int r = b.remaining();
                        if (b.hasArray()) {
                            chunk.write(at, b.array(), b.arrayOffset() + b.position(), r);
                            b.position(b.position() + r);
                        } else {
                            // A read-only or direct buffer (the JDK client's): through a per-thread
                            // array (a JNA ByteBuffer view of the memory costs a JNI call and a
                            // weak-map entry per chunk).
                            byte[] a = copyArray(r);
                            b.get(a, 0, r);
                            chunk.write(at, a, 0, r);
                        }
                        at += r;
                    }
                    try {
                        if (MachineDirect.ON) {
                            MachineDirect.a2a_call_handle_body(call, ex.id, chunk, total, nowMs());
                        } else {
                            lib.a2a_call_handle_body(call, ex.id, chunk, new SizeT(total), nowMs());
                        }
                    } finally {
                        ChunkMemory.release(chunk);
                    }
                    pump();
                }
                more = inflight == ex && buffered < MAX_BUFFERED_ITEMS;
                if (!more && inflight == ex) {
                    ex.paused = true;
                }
            }
            if (more) {
                ex.subscription.request(1);
            }
        }

        @Override
        public void onError(Throwable t) {
            done.completeExceptionally(t);
            MachineCall.this.onError(ex, t);
        }

        @Override
        public void onComplete() {
            ex.complete = true;
            done.complete(null);
            synchronized (MachineCall.this) {
                if (call != null && inflight == ex && !ex.reported) {
                    ex.reported = true;
                    if (MachineDirect.ON) {
                        MachineDirect.a2a_call_handle_end(call, ex.id, nowMs());
                    } else {
                        lib.a2a_call_handle_end(call, ex.id, nowMs());
                    }
                    pump();
                }
            }
        }
    }

    private synchronized void onError(Exchange ex, Throwable err) {
        if (call == null || inflight != ex || ex.reported || ex.aborted) {
            return;
        }
        Throwable t = err;
        while ((t instanceof CompletionException || t instanceof java.util.concurrent.ExecutionException)
            && t.getCause() != null) {
            t = t.getCause();
        }
        int name;
        boolean written;
        if (has(t, HttpConnectTimeoutException.class)) {
            name = 203;
            written = false;
        } else if (has(t, UnresolvedAddressException.class) || has(t, UnknownHostException.class)) {
            name = 202;
            written = false;
        } else if (has(t, ConnectException.class)) {
            name = 201;
            written = false;
        } else if (has(t, SSLException.class) && !ex.headSeen) {
            name = 208;
            written = false;
        } else if (has(t, HttpTimeoutException.class)) {
            name = 203;
            written = true;
        } else {
            name = 204;
            written = true;
        }
        failed(ex, name, written, t.getClass().getSimpleName() + ": " + t.getMessage());
    }

    private void failed(Exchange ex, int name, boolean written, String message) {
        ex.reported = true;
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        lib.a2a_call_handle_failure(call, ex.id, name, written, m, new SizeT(m.length), nowMs());
        pump();
    }

    private static boolean has(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }
}
