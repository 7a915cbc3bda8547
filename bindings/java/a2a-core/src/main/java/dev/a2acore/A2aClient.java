package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Direct;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The project's A2A client on the core's client machine ({@code a2a_client_state},
 * {@code a2a_call}): card resolution and validation, connect/call/idle timeouts, no
 * redirects, pooled connections, stream tracking with resubscribe after a cut, header
 * hooks. Every failure (connect refused, timeout, HTTP status, JSON-RPC error, FAILED task)
 * is an {@link Outcome}, not an exception.
 *
 * <pre>{@code
 * try (A2aClient c = A2aClient.builder("https://agent.example").headerHook(
 *         (method, h) -> h.set("Authorization", "Bearer " + vault.token())).build()) {
 *     Outcome o = c.send("echo hi");
 *     try (ClientStream s = c.stream("stream 3")) {
 *         s.forEachRemaining(System.out::println);     // items, then one End
 *     }
 * }
 * }</pre>
 *
 * <p><b>Asynchronous calls</b> ({@link #sendAsync}, {@link #getAsync}, {@link #cancelAsync},
 * {@link #listTasksAsync}, the push-config and extended-card calls, {@link #streamAsync}) run the library's sans-IO client machine
 * on a {@link java.net.http.HttpClient}: the caller's ({@link Builder#httpClient}) or one
 * made from the builder's connect timeout (no redirects, HTTP/1.1). {@code cancel(true)} on
 * the future, or {@code cancel()} on the stream's subscription, ends the exchange at once;
 * the future then reports a {@link java.util.concurrent.CancellationException}, never a
 * success. With {@link Builder#httpClient} the blocking methods run on the same machine
 * (they wait for the asynchronous call; an interrupt ends the exchange and returns its
 * Canceled outcome with the thread's interrupt status kept); without it each runs on the
 * calling thread with {@code a2a_call_run} over the reference driver's native transport
 * (native sockets, proxies, CA and client-certificate files, {@code --resolve}), bounded by
 * the machine's timeouts. Both paths share the client's one machine state (card, breaker).
 *
 * <p>Thread-safe: calls and streams may run from several threads at once (the library
 * pools connections); {@link #close()} waits for calls in flight. Hooks are installed by
 * the builder, before any call, so they never race with one. A stream outlives
 * {@code close()} (it keeps the pool and the hooks alive until it is closed).
 */
public final class A2aClient implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Drops the client's reference to its native transport once; never references the A2aClient. */
    private static final class State implements Runnable {
        NativeTransport transport;

        @Override
        public synchronized void run() {
            if (transport != null) {
                transport.release();
                transport = null;
            }
        }
    }

    /**
     * The installed hooks: the JNA callback objects are strongly referenced here (the library
     * keeps their native trampolines for the client's lifetime) and by every stream.
     */
    static final class Hooks {
        final List<A2aCoreLibrary.HeaderHookCallback> callbacks = new ArrayList<>();
        /** What a hook threw on the current thread during the current foreign call. */
        final ThreadLocal<Throwable> failure = new ThreadLocal<>();

        /** Rethrows a hook failure of this thread's last foreign call, with the call's outcome. */
        void check(Outcome outcome) {
            Throwable t = failure.get();
            if (t != null) {
                failure.remove();
                throw new HeaderHookException(t, outcome);
            }
        }
    }

    private final A2aCoreLibrary lib;
    private final State state = new State();
    private final Cleaner.Cleanable cleanable;
    private final Hooks hooks;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** The client machine on java.net.http (asynchronous calls; every call when {@link #onMachine}). */
    private final MachineClient machine;
    /** Whether the blocking methods run on the machine too (a caller's HttpClient was given). */
    private final boolean onMachine;

    private A2aClient(A2aCoreLibrary lib, NativeTransport transport, Hooks hooks, MachineClient machine,
                      boolean onMachine) {
        this.lib = lib;
        this.state.transport = transport;
        this.hooks = hooks;
        this.machine = machine;
        this.onMachine = onMachine;
        this.cleanable = CLEANER.register(this, state);
    }

    // ---------------------------------------------------------------- asynchronous calls

    /** Sends a user text message on the machine; the future completes with the outcome. */
    public CompletableFuture<Outcome> sendAsync(String text) {
        return sendAsync(text, CallOptions.none());
    }

    /** Sends a user text message with per-call options, asynchronously. */
    public CompletableFuture<Outcome> sendAsync(String text, CallOptions options) {
        Objects.requireNonNull(text, "text");
        CallOptions o = options == null ? CallOptions.none() : options;
        if (plainText(o) && !text.isEmpty()) {
            // The library writes the message (a2a_call_new_text), as for a blocking send on the
            // native transport: no JSON tree built and serialized here per send.
            return machine.call(textCall(false, text), o,
                (ev, call, release) -> MachineClient.finishedOutcome(lib, ev, release), null, null);
        }
        return sendAsync(List.of(Answer.Part.text(text)), Map.of(), o);
    }

    /** Sends a user message of any parts with message metadata (may be empty), asynchronously. */
    public CompletableFuture<Outcome> sendAsync(List<Answer.Part> parts, Map<String, Object> metadata,
                                                CallOptions options) {
        CallOptions o = options == null ? CallOptions.none() : options;
        byte[] params = MachineClient.messageParams(parts, metadata, o);
        return unary(METHOD_SEND_MESSAGE, params, o);
    }

    /** Reads a task, asynchronously. */
    public CompletableFuture<Outcome> getAsync(String taskId) {
        return getAsync(taskId, CallOptions.none());
    }

    /** Reads a task with per-call options ({@code historyLength} included), asynchronously. */
    public CompletableFuture<Outcome> getAsync(String taskId, CallOptions options) {
        return unary(METHOD_GET_TASK, MachineClient.taskParams(Objects.requireNonNull(taskId, "taskId"), options),
            options);
    }

    /**
     * Waits for a task to settle (typically one sent with
     * {@link CallOptions#withReturnImmediately}), asynchronously: the library's planner polls
     * it with GetTask (each poll a machine call with {@code options.poll()}), first at once,
     * then at growing, bounded intervals scheduled on a timer (no thread is blocked while
     * waiting), until the task reaches a terminal state or an interrupted one
     * (input-required, auth-required), a poll fails in a way another would not change
     * (TaskNotFound, a 4xx), or {@code options.timeout()} passes. The future completes with
     * the last poll's outcome; at the deadline with a transport {@code Timeout} outcome naming
     * the task and its last state (retry advice {@code poll}). {@code cancel(true)} ends the
     * poll in flight at once.
     */
    public CompletableFuture<Outcome> waitAsync(String taskId, WaitOptions options) {
        return TaskWaiter.start(lib, machine, Objects.requireNonNull(taskId, "taskId"),
            options == null ? WaitOptions.defaults() : options);
    }

    /**
     * Waits for a task to settle, blocking the calling thread; as {@link #waitAsync}. An
     * interrupt ends the wait (the poll in flight at once) and throws a
     * {@link java.util.concurrent.CancellationException}, with the thread's interrupt status
     * set again.
     */
    public Outcome waitFor(String taskId, WaitOptions options) {
        CompletableFuture<Outcome> f = waitAsync(taskId, options);
        try {
            return f.get();
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("interrupted while waiting for task " + taskId);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw r;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(c);
        }
    }

    /** Asks the agent to cancel a task, asynchronously. */
    public CompletableFuture<Outcome> cancelAsync(String taskId) {
        return cancelAsync(taskId, CallOptions.none());
    }

    /** Asks the agent to cancel a task with per-call options, asynchronously. */
    public CompletableFuture<Outcome> cancelAsync(String taskId, CallOptions options) {
        return unary(METHOD_CANCEL_TASK, MachineClient.taskParams(Objects.requireNonNull(taskId, "taskId"), null),
            options);
    }

    /**
     * Lists tasks (A2A 1.0 {@code ListTasks}; one page), asynchronously. {@code params} are
     * the request's fields in A2A 1.0 JSON ({@code contextId}, {@code status},
     * {@code pageSize}, {@code pageToken}, {@code historyLength}; empty for none). A 0.3 agent
     * has no such method: the page's outcome is the transport failure of a call not sent.
     */
    public CompletableFuture<TaskPage> listTasksAsync(Map<String, Object> params, CallOptions options) {
        return machine.call(listCall(params), options, bodyFinisher(MachineClient::page), null, null);
    }

    /** Lists one page of tasks, blocking; as {@link #listTasksAsync}. */
    public TaskPage listTasks(Map<String, Object> params, CallOptions options) {
        return blocking(listCall(params), options, bodyFinisher(MachineClient::page),
            o -> new TaskPage(o, List.of(), java.util.Optional.empty()), TaskPage::outcome);
    }

    /**
     * Every page of ListTasks from {@code params} (its {@code pageToken}, when given, is the
     * first page's), fetched lazily: each page is one blocking {@link #listTasks} call, made when
     * the iterator needs it, with the previous page's {@code nextPageToken}. The pages end after
     * the one without a next token (or with the token just asked for), or after the first page
     * whose call failed (its {@link TaskPage#outcome()} says why; it has no tasks).
     */
    public Iterable<TaskPage> taskPages(Map<String, Object> params, CallOptions options) {
        Map<String, Object> first = params == null ? Map.of() : Map.copyOf(params);
        return () -> new java.util.Iterator<TaskPage>() {
            private Map<String, Object> nextParams = first;

            @Override
            public boolean hasNext() {
                return nextParams != null;
            }

            @Override
            public TaskPage next() {
                if (nextParams == null) {
                    throw new java.util.NoSuchElementException();
                }
                Map<String, Object> asked = nextParams;
                TaskPage page = listTasks(asked, options);
                nextParams = null;
                if (page.outcome().isSuccess() && page.nextPageToken().isPresent()
                        && !page.nextPageToken().get().equals(asked.get("pageToken"))) {
                    Map<String, Object> p = new java.util.HashMap<>(asked);
                    p.put("pageToken", page.nextPageToken().get());
                    nextParams = p;
                }
                return page;
            }
        };
    }

    /**
     * Every task ListTasks finds, page after page (as {@link #taskPages}: lazily, one call per
     * page), as the agent sent them (JSON values as Java maps and lists). A page whose call
     * failed ends the iteration with a {@link TaskListException} carrying its outcome, thrown
     * from {@code hasNext()}; the tasks of the pages before it were already returned. Stop
     * iterating to stop fetching.
     */
    public Iterable<Map<String, Object>> allTasks(Map<String, Object> params, CallOptions options) {
        Iterable<TaskPage> pages = taskPages(params, options);
        return () -> new java.util.Iterator<Map<String, Object>>() {
            private final java.util.Iterator<TaskPage> it = pages.iterator();
            private java.util.Iterator<Map<String, Object>> current = java.util.Collections.emptyIterator();

            @Override
            public boolean hasNext() {
                while (!current.hasNext() && it.hasNext()) {
                    TaskPage page = it.next();
                    if (!page.outcome().isSuccess()) {
                        throw new TaskListException(page.outcome());
                    }
                    current = page.tasks().iterator();
                }
                return current.hasNext();
            }

            @Override
            public Map<String, Object> next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                return current.next();
            }
        };
    }

    /**
     * The result of {@link #extendedCardAsync}: the call's outcome and, when it succeeded, the
     * extended card as JSON.
     *
     * @param outcome the call's outcome
     * @param cardJson the extended card (the JSON-RPC {@code result} or the HTTP+JSON body)
     */
    public record ExtendedCard(Outcome outcome, java.util.Optional<String> cardJson) {}

    /** A finished extended-card call: its result, or the adoption's refusal (null: adopted or not asked). */
    private record Adopted(ExtendedCard card, A2aCoreException refused) {}

    /**
     * Fetches the agent's extended (authenticated) card ({@code GetExtendedAgentCard}; 0.3
     * {@code agent/getAuthenticatedExtendedCard}) on the machine, asynchronously, with the call's
     * credentials (header hooks, the options' headers). When the call succeeds, the extended card
     * replaces the public card for this client (A2A §8.6.2): later calls use its interface,
     * credentials and capabilities. It is checked with the public card's rules against the URL
     * the public card came from: a card that fails (an interface on another host:
     * {@code A2A_CARD_HOST_MISMATCH}, plain http, no usable interface) completes the future
     * exceptionally with that {@link A2aCoreException}, and the public card stays. A client for
     * a known target keeps its target.
     */
    public CompletableFuture<ExtendedCard> extendedCardAsync(CallOptions options) {
        return machine.call(extendedCall(), options, adoptingFinisher(), null, null).thenApply(A2aClient::adopted);
    }

    /**
     * Fetches the agent's extended card, blocking; as {@link #extendedCardAsync} (a card the
     * public card's rules refuse throws that {@link A2aCoreException}).
     */
    public ExtendedCard extendedCard(CallOptions options) {
        return adopted(blocking(extendedCall(), options, adoptingFinisher(),
            o -> new Adopted(new ExtendedCard(o, java.util.Optional.empty()), null), a -> a.card().outcome()));
    }

    private static ExtendedCard adopted(Adopted a) {
        if (a.refused() != null) {
            throw a.refused();
        }
        return a.card();
    }

    private MachineCall.Finisher<Adopted> adoptingFinisher() {
        return (ev, call, release) -> {
            byte[] body = ev.has_response != 0 ? dev.a2acore.internal.Machine.bytes(ev.response_body) : null;
            Outcome outcome = MachineClient.finishedOutcome(lib, ev, release);
            ExtendedCard card = new ExtendedCard(outcome, MachineClient.cardJson(outcome, body));
            if (outcome.isSuccess()) {
                int rc = machine.adoptExtendedCard(call);
                if (rc != 0) {
                    return new Adopted(card, new A2aCoreException("a2a_client_state_adopt_extended_card", rc, null));
                }
            }
            return new Adopted(card, null);
        };
    }

    /**
     * The result of a push-config create or get: the call's outcome and, when it succeeded,
     * the config as the agent stored it.
     *
     * @param outcome the call's outcome (an agent without push notifications: protocol
     *     {@code PushNotificationNotSupported}; a card that declares none: refused unsent)
     * @param config the config the agent answered with
     */
    public record PushConfigResult(Outcome outcome, java.util.Optional<PushConfig> config) {}

    /**
     * The result of {@link #listPushConfigsAsync}: the call's outcome and the task's configs
     * (empty when it failed).
     *
     * @param outcome the call's outcome
     * @param configs the task's push configs
     */
    public record PushConfigList(Outcome outcome, List<PushConfig> configs) {}

    /**
     * Asks the agent to post a task's updates to {@code config.url()} (1.0
     * {@code CreateTaskPushNotificationConfig}, 0.3 {@code tasks/pushNotificationConfig/set}),
     * asynchronously; the result carries the config as the agent stored it (with its id).
     */
    public CompletableFuture<PushConfigResult> createPushConfigAsync(PushConfig config, CallOptions options) {
        return machine.call(paramsCall(METHOD_CREATE_PUSH_CONFIG, MachineClient.pushConfigParams(
            Objects.requireNonNull(config, "config"))), options, bodyFinisher(A2aClient::pushResult), null, null);
    }

    /** Creates a push config, blocking; as {@link #createPushConfigAsync}. */
    public PushConfigResult createPushConfig(PushConfig config, CallOptions options) {
        return blocking(paramsCall(METHOD_CREATE_PUSH_CONFIG, MachineClient.pushConfigParams(
            Objects.requireNonNull(config, "config"))), options, bodyFinisher(A2aClient::pushResult),
            o -> new PushConfigResult(o, java.util.Optional.empty()), PushConfigResult::outcome);
    }

    /** Reads one of a task's push configs (1.0 {@code GetTaskPushNotificationConfig}), asynchronously. */
    public CompletableFuture<PushConfigResult> getPushConfigAsync(String taskId, String configId, CallOptions options) {
        return machine.call(paramsCall(METHOD_GET_PUSH_CONFIG, pushRef(taskId, configId)), options,
            bodyFinisher(A2aClient::pushResult), null, null);
    }

    /** Reads one of a task's push configs, blocking; as {@link #getPushConfigAsync}. */
    public PushConfigResult getPushConfig(String taskId, String configId, CallOptions options) {
        return blocking(paramsCall(METHOD_GET_PUSH_CONFIG, pushRef(taskId, configId)), options,
            bodyFinisher(A2aClient::pushResult), o -> new PushConfigResult(o, java.util.Optional.empty()),
            PushConfigResult::outcome);
    }

    /** Lists a task's push configs (1.0 {@code ListTaskPushNotificationConfigs}), asynchronously. */
    public CompletableFuture<PushConfigList> listPushConfigsAsync(String taskId, CallOptions options) {
        return machine.call(paramsCall(METHOD_LIST_PUSH_CONFIGS, pushRef(taskId, null)), options,
            bodyFinisher(A2aClient::pushList), null, null);
    }

    /** Lists a task's push configs, blocking; as {@link #listPushConfigsAsync}. */
    public PushConfigList listPushConfigs(String taskId, CallOptions options) {
        return blocking(paramsCall(METHOD_LIST_PUSH_CONFIGS, pushRef(taskId, null)), options,
            bodyFinisher(A2aClient::pushList), o -> new PushConfigList(o, List.of()), PushConfigList::outcome);
    }

    /**
     * Deletes one of a task's push configs (1.0 {@code DeleteTaskPushNotificationConfig}),
     * asynchronously; the outcome says whether the agent did.
     */
    public CompletableFuture<Outcome> deletePushConfigAsync(String taskId, String configId, CallOptions options) {
        return unary(METHOD_DELETE_PUSH_CONFIG, pushRef(taskId, configId), options);
    }

    /** Deletes one of a task's push configs, blocking; as {@link #deletePushConfigAsync}. */
    public Outcome deletePushConfig(String taskId, String configId, CallOptions options) {
        return unaryBlocking(METHOD_DELETE_PUSH_CONFIG, pushRef(taskId, configId), options);
    }

    private static byte[] pushRef(String taskId, String configId) {
        return MachineClient.pushRefParams(Objects.requireNonNull(taskId, "taskId"), configId);
    }

    private static PushConfigResult pushResult(Outcome outcome, byte[] body) {
        return new PushConfigResult(outcome, MachineClient.pushConfig(outcome, body));
    }

    private static PushConfigList pushList(Outcome outcome, byte[] body) {
        return new PushConfigList(outcome, MachineClient.pushConfigs(outcome, body));
    }

    /** What a finished call becomes from its outcome and response body (null: none). */
    @FunctionalInterface
    private interface BodyReader<T> {
        T read(Outcome outcome, byte[] body);
    }

    private <T> MachineCall.Finisher<T> bodyFinisher(BodyReader<T> reader) {
        return (ev, call, release) -> {
            byte[] body = ev.has_response != 0 ? dev.a2acore.internal.Machine.bytes(ev.response_body) : null;
            return reader.read(MachineClient.finishedOutcome(lib, ev, release), body);
        };
    }

    private MachineClient.NewCall listCall(Map<String, Object> params) {
        return paramsCall(METHOD_LIST_TASKS, MachineClient.json(params == null ? Map.of() : params));
    }

    private MachineClient.NewCall extendedCall() {
        return (st, settings, now, out) -> lib.a2a_call_new(st, METHOD_GET_EXTENDED_AGENT_CARD, null, new SizeT(0),
            settings, now, out);
    }

    /**
     * A streaming send on the machine: each subscriber starts its own call and receives the
     * items as they arrive, then one {@link ClientStreamEvent.End}, then {@code onComplete}.
     */
    public Flow.Publisher<ClientStreamEvent> streamAsync(String text) {
        return streamAsync(text, CallOptions.none());
    }

    /** A streaming send with per-call options; see {@link #streamAsync(String)}. */
    public Flow.Publisher<ClientStreamEvent> streamAsync(String text, CallOptions options) {
        Objects.requireNonNull(text, "text");
        CallOptions o = options == null ? CallOptions.none() : options;
        if (plainText(o) && !text.isEmpty()) {
            // The library writes the message, as sendAsync(String, CallOptions) does.
            return new StreamPublisher((items, started) -> machine.call(textCall(true, text), o, streamEnd(), items,
                started));
        }
        return streamAsync(List.of(Answer.Part.text(text)), Map.of(), o);
    }

    /** A streaming send of a message of any parts; see {@link #streamAsync(String)}. */
    public Flow.Publisher<ClientStreamEvent> streamAsync(List<Answer.Part> parts, Map<String, Object> metadata,
                                                         CallOptions options) {
        CallOptions o = options == null ? CallOptions.none() : options;
        return new StreamPublisher((items, started) -> machineStream(METHOD_SEND_STREAMING_MESSAGE,
            MachineClient.messageParams(parts, metadata, o), o, items, started));
    }

    /** Resubscribes to a running task's events on the machine; see {@link #streamAsync(String)}. */
    public Flow.Publisher<ClientStreamEvent> resubscribeAsync(String taskId, CallOptions options) {
        byte[] p = MachineClient.taskParams(Objects.requireNonNull(taskId, "taskId"), null);
        return new StreamPublisher((items, started) -> machineStream(METHOD_SUBSCRIBE_TO_TASK, p, options, items,
            started));
    }

    private static final int METHOD_SEND_MESSAGE = 1;
    private static final int METHOD_SEND_STREAMING_MESSAGE = 2;
    private static final int METHOD_GET_TASK = 3;
    private static final int METHOD_LIST_TASKS = 4;
    private static final int METHOD_CANCEL_TASK = 5;
    private static final int METHOD_SUBSCRIBE_TO_TASK = 6;
    private static final int METHOD_CREATE_PUSH_CONFIG = 7;
    private static final int METHOD_GET_PUSH_CONFIG = 8;
    private static final int METHOD_LIST_PUSH_CONFIGS = 9;
    private static final int METHOD_DELETE_PUSH_CONFIG = 10;
    private static final int METHOD_GET_EXTENDED_AGENT_CARD = 11;

    private MachineClient.CallFuture<Outcome> unary(int method, byte[] params, CallOptions options) {
        return machine.call(paramsCall(method, params), options,
            (ev, call, release) -> MachineClient.finishedOutcome(lib, ev, release), null, null);
    }

    private MachineClient.CallFuture<ClientStreamEvent.End> machineStream(int method, byte[] params,
            CallOptions options, java.util.function.Consumer<ClientStreamEvent> items,
            java.util.function.Consumer<MachineCall<ClientStreamEvent.End>> started) {
        return machine.call(paramsCall(method, params), options, streamEnd(), items, started);
    }

    /** What a finished stream call becomes: its {@link ClientStreamEvent.End}. */
    private MachineCall.Finisher<ClientStreamEvent.End> streamEnd() {
        return (ev, call, release) -> {
            java.util.Optional<StreamEndKind> kind = ev.has_end_kind != 0
                ? java.util.Optional.of(StreamEndKind.of(ev.end_kind)) : java.util.Optional.empty();
            int resubscribes = ev.resubscribes;
            int dropped = ev.dropped_events;
            int unreadable = ev.unreadable_events;
            return new ClientStreamEvent.End(kind, MachineClient.finishedOutcome(lib, ev, release), resubscribes,
                dropped, unreadable);
        };
    }

    /** A blocking stream on the machine (events queued as they arrive). */
    private ClientStream blockingStream(int method, byte[] params, CallOptions options) {
        ClientStream.MachineSource src = new ClientStream.MachineSource();
        src.started(machineStream(method, params, options, src.queue::add, mc -> src.call = mc));
        return new ClientStream(src);
    }

    /**
     * Waits for a machine call; an interrupt ends the exchange and returns its Canceled
     * outcome, with the thread's interrupt status set again.
     */
    private static <T> T await(MachineClient.CallFuture<T> f) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                    f.abandon();
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof RuntimeException r) {
                        throw r;
                    }
                    if (c instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(c);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A builder for an agent given by base URL or card URL (the card is fetched and validated). */
    public static Builder builder(String url) {
        return new Builder(url);
    }

    /** Sends a user text message and waits for the answer (bounded by the call timeout). */
    public Outcome send(String text) {
        return send(text, CallOptions.none());
    }

    /** Sends a user text message with per-call options. */
    public Outcome send(String text, CallOptions options) {
        return call(Call.SEND, text, options);
    }

    /**
     * Sends a user message of any parts (text, data, file bytes, file URI) with message
     * metadata (may be empty) and waits for the answer ({@link Outcome#result()}).
     */
    public Outcome send(List<Answer.Part> parts, Map<String, Object> metadata, CallOptions options) {
        requireParts(parts);
        CallOptions o = options == null ? CallOptions.none() : options;
        return unaryBlocking(METHOD_SEND_MESSAGE, MachineClient.messageParams(parts, metadata, o), o);
    }

    /** Starts a streaming send of a message of any parts; as {@link #stream(String, CallOptions)}. */
    public ClientStream stream(List<Answer.Part> parts, Map<String, Object> metadata, CallOptions options) {
        requireParts(parts);
        CallOptions o = options == null ? CallOptions.none() : options;
        return streamBlocking(METHOD_SEND_STREAMING_MESSAGE, MachineClient.messageParams(parts, metadata, o), o);
    }

    /** On the native transport (as on the driver before it) a message needs a part. */
    private void requireParts(List<Answer.Part> parts) {
        if (!onMachine && parts.isEmpty()) {
            throw new IllegalArgumentException("nothing to send: give at least one part");
        }
    }

    /** Reads a task. */
    public Outcome get(String taskId) {
        return get(taskId, CallOptions.none());
    }

    /** Reads a task with per-call options. */
    public Outcome get(String taskId, CallOptions options) {
        return call(Call.GET, taskId, options);
    }

    /** Cancels a task. */
    public Outcome cancel(String taskId) {
        return cancel(taskId, CallOptions.none());
    }

    /** Cancels a task with per-call options. */
    public Outcome cancel(String taskId, CallOptions options) {
        return call(Call.CANCEL, taskId, options);
    }

    /** Starts a streaming send (the request goes out on the first {@code hasNext}/{@code next}). */
    public ClientStream stream(String text) {
        return stream(text, CallOptions.none());
    }

    /** Starts a streaming send with per-call options. */
    public ClientStream stream(String text, CallOptions options) {
        return openStream(Open.TEXT, text, options);
    }

    /** Resubscribes to a running task's events. */
    public ClientStream resubscribe(String taskId) {
        return resubscribe(taskId, CallOptions.none());
    }

    /** Resubscribes with per-call options. */
    public ClientStream resubscribe(String taskId, CallOptions options) {
        return openStream(Open.RESUBSCRIBE, taskId, options);
    }

    private enum Call { SEND, GET, CANCEL }

    private enum Open { TEXT, RESUBSCRIBE }

    private Outcome call(Call which, String text, CallOptions options) {
        Objects.requireNonNull(text, "text");
        CallOptions o = options == null ? CallOptions.none() : options;
        if (which == Call.SEND && !onMachine && plainText(o)) {
            return runNative(textCall(false, text), o);
        }
        return unaryBlocking(switch (which) {
            case SEND -> METHOD_SEND_MESSAGE;
            case GET -> METHOD_GET_TASK;
            case CANCEL -> METHOD_CANCEL_TASK;
        }, switch (which) {
            case SEND -> MachineClient.messageParams(List.of(Answer.Part.text(text)), Map.of(), o);
            case GET -> MachineClient.taskParams(text, o);
            case CANCEL -> MachineClient.taskParams(text, null);
        }, o);
    }

    /** A blocking unary call: on the HttpClient ({@link #onMachine}) or the native transport. */
    private Outcome unaryBlocking(int method, byte[] params, CallOptions o) {
        return onMachine ? await(unary(method, params, o)) : runNative(method, params, o);
    }

    /** A blocking stream: on the HttpClient ({@link #onMachine}) or the native transport. */
    private ClientStream streamBlocking(int method, byte[] params, CallOptions o) {
        return onMachine ? blockingStream(method, params, o) : nativeStream(method, params, o);
    }

    private ClientStream openStream(Open which, String text, CallOptions options) {
        Objects.requireNonNull(text, "text");
        CallOptions o = options == null ? CallOptions.none() : options;
        return switch (which) {
            case TEXT -> !onMachine && plainText(o) ? nativeStream(textCall(true, text), o)
                : streamBlocking(METHOD_SEND_STREAMING_MESSAGE, MachineClient.messageParams(
                    List.of(Answer.Part.text(text)), Map.of(), o), o);
            case RESUBSCRIBE -> streamBlocking(METHOD_SUBSCRIBE_TO_TASK, MachineClient.taskParams(text, null), o);
        };
    }

    /**
     * A unary call on the machine run on the reference driver's native transport on this
     * thread (BLOCKS, bounded by the machine's timeouts). A card a deferred resolution cannot
     * fetch or validate is the call's outcome (transport {@code CardResolution}); a hook that
     * threw is rethrown after the call with its outcome.
     */
    private Outcome runNative(int method, byte[] params, CallOptions options) {
        return runNative(paramsCall(method, params), options);
    }

    /** Whether a text message needs no params of its own (the library writes the message). */
    private static boolean plainText(CallOptions o) {
        return o.contextId().isEmpty() && o.taskId().isEmpty() && o.historyLength().isEmpty();
    }

    /** A call of {@code method} with JSON params. */
    private MachineClient.NewCall paramsCall(int method, byte[] params) {
        return (st, settings, now, out) -> Direct.ON
            ? Direct.a2a_call_new(st, method, params, params.length, settings, now, out)
            : lib.a2a_call_new(st, method, params, new SizeT(params.length), settings, now, out);
    }

    /** A (streaming) send of one user text message the library writes ({@code a2a_call_new_text}). */
    private MachineClient.NewCall textCall(boolean streaming, String text) {
        byte[] t = text.getBytes(StandardCharsets.UTF_8);
        return (st, settings, now, out) -> Direct.ON
            ? Direct.a2a_call_new_text(st, (byte) (streaming ? 1 : 0), t, t.length, settings, now, out)
            : lib.a2a_call_new_text(st, streaming, t, new SizeT(t.length), settings, now, out);
    }

    private Outcome runNative(MachineClient.NewCall make, CallOptions options) {
        return runNative(make, options, (ev, call, release) -> MachineClient.finishedOutcome(lib, ev, release),
            o -> o, o -> o);
    }

    /**
     * A blocking call of any result: on the HttpClient ({@link #onMachine}) or the native
     * transport. {@code failed} makes the result of a card a deferred resolution cannot fetch;
     * {@code outcomeOf} reads the outcome a hook failure is rethrown with.
     */
    private <T> T blocking(MachineClient.NewCall make, CallOptions options, MachineCall.Finisher<T> finisher,
                           java.util.function.Function<Outcome, T> failed,
                           java.util.function.Function<T, Outcome> outcomeOf) {
        return onMachine ? await(machine.call(make, options, finisher, null, null))
            : runNative(make, options, finisher, failed, outcomeOf);
    }

    private <T> T runNative(MachineClient.NewCall make, CallOptions options, MachineCall.Finisher<T> finisher,
                            java.util.function.Function<Outcome, T> failed,
                            java.util.function.Function<T, Outcome> outcomeOf) {
        T result;
        lock.readLock().lock();
        try {
            Pointer t = transport();
            Pointer st;
            try {
                st = machine.nativeState(t);
            } catch (CardResolutionException e) {
                return failed.apply(e.outcome());
            }
            try {
                result = machine.onTransport(st, make, options, finisher, null).runToEnd(t);
            } catch (RuntimeException | Error e) {
                hooks.failure.remove();
                throw e;
            }
        } finally {
            lock.readLock().unlock();
        }
        hooks.check(outcomeOf.apply(result));
        return result;
    }

    /** The native transport (while the client is open). */
    private Pointer transport() {
        NativeTransport t = state.transport;
        if (t == null) {
            throw new IllegalStateException("A2aClient is closed");
        }
        Pointer p = t.acquire();
        t.release();
        return p;
    }

    /**
     * A stream on the machine run on the native transport by the thread that reads it (the
     * request goes out on the first {@code hasNext}/{@code next}). The stream holds a
     * reference to the transport and the hooks, so it outlives {@link #close()}. A card a
     * deferred resolution cannot fetch or validate ends it at once with that outcome.
     */
    private ClientStream nativeStream(int method, byte[] params, CallOptions options) {
        return nativeStream(paramsCall(method, params), options);
    }

    private ClientStream nativeStream(MachineClient.NewCall make, CallOptions options) {
        lock.readLock().lock();
        try {
            NativeTransport nt = state.transport;
            if (nt == null) {
                throw new IllegalStateException("A2aClient is closed");
            }
            Pointer t = nt.acquire();
            try {
                Pointer st;
                try {
                    st = machine.nativeState(t);
                } catch (CardResolutionException e) {
                    nt.release();
                    return new ClientStream(new ClientStream.Ended(
                        new ClientStreamEvent.End(java.util.Optional.empty(), e.outcome(), 0, 0, 0)));
                }
                ClientStream.NativeSource src = new ClientStream.NativeSource(nt, t, hooks);
                src.call = machine.onTransport(st, make, options, streamEnd(), src.queue::add);
                return new ClientStream(src);
            } catch (RuntimeException | Error e) {
                nt.release();
                throw e;
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    /** A positive duration in ms (at least 1: 0 means "none" in the C ABI). */
    static long millis(Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("duration must be positive: " + d);
        }
        return Math.max(1, d.toMillis());
    }

    /** Frees the client after the calls in flight; idempotent. Open streams stay usable. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            cleanable.clean();
            machine.close();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Builds an {@link A2aClient}; unset fields keep the library's defaults. */
    public static final class Builder {
        private final String url;
        private Duration connectTimeout;
        private Duration callTimeout;
        private Duration streamIdleTimeout;
        private Long maxResponseBytes;
        private Duration poolIdleTimeout;
        private boolean allowHttp;
        private boolean ignoreCapabilities;
        private ProtocolVersion minProtocol;
        private boolean cardCache = true;
        private final List<String> allowHosts = new ArrayList<>();
        private ProtocolVersion protocol;
        private Binding binding;
        private boolean deferCardResolution;
        private Integer streamResubscribeAttempts;
        private Integer sendRetries;
        private boolean preferClientOrder;
        private BreakerConfig breaker;
        private String caFile;
        private String clientCertFile;
        private String clientKeyFile;
        private String proxy;
        private boolean proxyDisabled;
        private String noProxy;
        private final List<String> resolve = new ArrayList<>();
        private Duration maxTime;
        private final List<HeaderHook> hooks = new ArrayList<>();
        private boolean knownTarget;
        private HttpClient httpClient;
        private MachineClient.CardCheck cardCheck;
        private ClientCredentials credentials;

        private Builder(String url) {
            this.url = Objects.requireNonNull(url, "url");
        }

        /** TCP (and TLS) connect timeout (default 3 s). */
        public Builder connectTimeout(Duration d) {
            connectTimeout = d;
            return this;
        }

        /** Whole-call timeout of non-streaming calls (default 45 s). */
        public Builder callTimeout(Duration d) {
            callTimeout = d;
            return this;
        }

        /** Stream idle timeout: no bytes, events or comments for that long (default 60 s). */
        public Builder streamIdleTimeout(Duration d) {
            streamIdleTimeout = d;
            return this;
        }

        /** Largest response body read (default 32 MiB). */
        public Builder maxResponseBytes(long n) {
            if (n <= 0) {
                throw new IllegalArgumentException("maxResponseBytes must be positive: " + n);
            }
            maxResponseBytes = n;
            return this;
        }

        /** Pooled connections are retired after this idle time. */
        public Builder poolIdleTimeout(Duration d) {
            poolIdleTimeout = d;
            return this;
        }

        /** Allows plain {@code http://} (local development; default https only). */
        public Builder allowHttp(boolean allow) {
            allowHttp = allow;
            return this;
        }

        /**
         * Sends calls the agent card does not declare (for a card that under-declares). Off (the
         * default), a client made from a card refuses them before anything is sent, as a transport
         * outcome {@link ErrorName#CAPABILITY_NOT_DECLARED}: streams and resubscribes without
         * {@code capabilities.streaming}, push configs without {@code pushNotifications}, the
         * extended card without its capability. A client for a known target checks nothing.
         */
        public Builder ignoreCapabilities(boolean ignore) {
            ignoreCapabilities = ignore;
            return this;
        }

        /**
         * Never goes below {@code v} (A2A §3.6.3, no silent downgrade): a card offering only
         * older interfaces fails {@link #build()} (or the first call, when deferred) with a
         * {@link CardResolutionException} naming what it offers, nothing sent to the agent; a
         * {@link #knownTarget} or {@link #protocol} older than it is an
         * {@link A2aCoreException} (invalid argument). Default: none.
         */
        public Builder minProtocol(ProtocolVersion v) {
            minProtocol = v;
            return this;
        }

        /**
         * Caches agent cards per HTTP (RFC 9111) in one cache every client of the process
         * shares (true, the default, as the reference driver does): a card still fresh
         * ({@code Cache-Control: max-age}) is not fetched again, a stale one is revalidated with
         * {@code If-None-Match} and a 304 reuses it, {@code no-store} is never kept. false
         * fetches the card every time.
         */
        public Builder cardCache(boolean on) {
            cardCache = on;
            return this;
        }

        /**
         * A host the native transport's DNS rule does not check (its internal addresses are
         * allowed). The machine's configuration has no allowed-origins option, so a card
         * whose interface is on another origin is still refused.
         */
        public Builder allowHost(String origin) {
            allowHosts.add(Objects.requireNonNull(origin));
            return this;
        }

        /** Insists on a protocol version (default: the card's best). */
        public Builder protocol(ProtocolVersion v) {
            protocol = v;
            return this;
        }

        /** Insists on a binding (default: the card's best). */
        public Builder binding(Binding b) {
            binding = b;
            return this;
        }

        /**
         * No card: {@code url} is the interface itself, spoken in {@code version} over
         * {@code binding} (no I/O in {@link #build()}).
         */
        public Builder knownTarget(ProtocolVersion version, Binding binding) {
            this.protocol = Objects.requireNonNull(version);
            this.binding = Objects.requireNonNull(binding);
            this.knownTarget = true;
            return this;
        }

        /** Resolves the card on the first call instead of in {@link #build()}. */
        public Builder deferCardResolution(boolean defer) {
            deferCardResolution = defer;
            return this;
        }

        /** Resubscribes after a cut stream (0: none). */
        public Builder streamResubscribeAttempts(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("streamResubscribeAttempts must not be negative: " + n);
            }
            streamResubscribeAttempts = n;
            return this;
        }

        /**
         * Resends of a send the driver may make itself, always with the same messageId and
         * idempotency key: without a key only when the request provably did not reach the agent
         * (connect failure, 429, 503 with {@code Retry-After}); after a 502, 504, other 5xx, a
         * timeout or a dropped connection (the outcome is unknown) only with a key.
         */
        public Builder sendRetries(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("sendRetries must not be negative: " + n);
            }
            sendRetries = n;
            return this;
        }

        /**
         * Picks the interface in the library's order (1.0 then 0.3, JSON-RPC then HTTP+JSON)
         * instead of the card's (its preferredTransport first, the default); {@link #protocol}
         * and {@link #binding} win over both.
         */
        public Builder preferClientOrder(boolean on) {
            preferClientOrder = on;
            return this;
        }

        /**
         * A PEM file of CA certificates replacing the system trust store (curl's
         * {@code --cacert}); default: the system store, honouring {@code SSL_CERT_FILE} and
         * {@code SSL_CERT_DIR}.
         */
        public Builder caFile(String path) {
            caFile = path;
            return this;
        }

        /**
         * Turns on the client's circuit breaker: one per client (per agent), shared by every
         * thread using it; while open, calls fail at once with a transport CircuitOpen outcome,
         * not sent. An invalid configuration fails {@link #build()}.
         */
        public Builder breaker(BreakerConfig config) {
            breaker = java.util.Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * A PEM client certificate chain and its PEM private key for mutual TLS (they also
         * satisfy a card's {@code mutualTLS} scheme).
         */
        public Builder clientCertificate(String certFile, String keyFile) {
            clientCertFile = Objects.requireNonNull(certFile, "certFile");
            clientKeyFile = Objects.requireNonNull(keyFile, "keyFile");
            return this;
        }

        /**
         * The proxy for every URL ({@code http://[user:password@]host:port}, curl's
         * {@code --proxy}); {@code ""} for none. Default: the environment with curl's rules
         * ({@code https_proxy}, {@code HTTPS_PROXY}, {@code http_proxy}, {@code all_proxy}).
         */
        public Builder proxy(String url) {
            Objects.requireNonNull(url, "url");
            proxyDisabled = url.isEmpty();
            proxy = url.isEmpty() ? null : url;
            return this;
        }

        /** Hosts reached without the proxy (curl's {@code --noproxy} list; default: {@code no_proxy}). */
        public Builder noProxy(String list) {
            noProxy = list;
            return this;
        }

        /** A fixed resolution {@code HOST:PORT:ADDR[,ADDR...]} (curl's {@code --resolve}). */
        public Builder resolve(String entry) {
            resolve.add(Objects.requireNonNull(entry));
            return this;
        }

        /**
         * A total deadline per call: card fetch, retries, resubscribes and a whole stream
         * (curl's {@code --max-time}). Default: none (streams have no total limit).
         */
        public Builder maxTime(Duration d) {
            maxTime = d;
            return this;
        }

        /**
         * Runs every call, blocking and asynchronous, on the library's client machine over
         * {@code client} (its proxies, SSL context, executor, HTTP version): the card is
         * fetched and every request sent with it. It should not follow redirects (the card
         * fetch must see them). Without it, the blocking methods use the reference driver and
         * the asynchronous ones an HttpClient made from {@link #connectTimeout} (HTTP/1.1, no
         * redirects). The driver-only options ({@link #caFile}, {@link #clientCertificate}'s
         * files, {@link #proxy}, {@link #noProxy}, {@link #resolve}, {@link #poolIdleTimeout},
         * {@link #allowHost}) then belong to the HttpClient's own configuration.
         */
        public Builder httpClient(HttpClient client) {
            httpClient = Objects.requireNonNull(client, "client");
            return this;
        }

        /**
         * Verifies the agent card's signatures (A2A spec 8.4) before anything is sent: at least
         * one must verify against {@code keys} (a JWKS document, one JWK, or PEM public keys),
         * else the card is refused with a {@link CardSignatureException} ({@link #build()}
         * throws it, or the first call's future fails with it when resolution is deferred).
         * The client then runs every call on {@code java.net.http} (as with {@link #httpClient}).
         */
        public Builder verifyCard(byte[] keys) {
            cardCheck = new MachineClient.CardCheck(Objects.requireNonNull(keys, "keys").clone(), List.of());
            return this;
        }

        /**
         * Verifies the agent card's signatures against the key set its {@code jku} names,
         * fetched over this client's HttpClient only when {@link Trust#cardKeyUrl} allows it:
         * HTTPS, on the card's own host or one of {@code extraHosts}. A card without a
         * {@code jku}, or with a refused one, is refused ({@link CardSignatureException}).
         */
        public Builder verifyCardFromJku(String... extraHosts) {
            cardCheck = new MachineClient.CardCheck(null, List.of(extraHosts == null ? new String[0] : extraHosts));
            return this;
        }

        /**
         * OAuth 2.0 client credentials: the access token is fetched from the token endpoint
         * (the credentials' {@code tokenUrl}, else the card's {@code clientCredentials} flow's)
         * on this client's HttpClient, asynchronously, once for all threads (one fetch in
         * flight, shared), kept until shortly before it expires, and sent as
         * {@code Authorization: Bearer} on each call to the card's validated interface only
         * (never to the card fetch, the token endpoint or another host). A 401 answer forgets
         * the token and the call is made once more with a fresh one. A refused token request
         * fails the call's future with {@link OAuth2Exception}. The client then runs every call
         * on {@code java.net.http} (as with {@link #httpClient}).
         */
        public Builder oauth2(ClientCredentials credentials) {
            this.credentials = Objects.requireNonNull(credentials, "credentials");
            return this;
        }

        /** Adds a header hook (run for every A2A request, in the order added). */
        public Builder headerHook(HeaderHook hook) {
            hooks.add(Objects.requireNonNull(hook));
            return this;
        }

        /**
         * Makes the client: fetches and validates the card now (BLOCKS) unless
         * {@link #deferCardResolution} or {@link #knownTarget}.
         *
         * @throws CardResolutionException when the card cannot be fetched or validated
         * @throws A2aCoreException for an invalid configuration or URL
         */
        public A2aClient build() {
            A2aCoreLibrary lib = A2aCore.lib();
            Hooks installed = new Hooks();
            for (HeaderHook hook : hooks) {
                installed.callbacks.add(callback(lib, hook, installed));
            }
            if (cardCheck != null && knownTarget) {
                throw new IllegalStateException("verifyCard needs a card: not with knownTarget");
            }
            MachineClient machine = machine(lib, installed);
            if (httpClient != null || cardCheck != null || credentials != null) {
                A2aClient c = new A2aClient(lib, null, installed, machine, true);
                if (!deferCardResolution && !knownTarget) {
                    try {
                        machine.state().join();
                    } catch (java.util.concurrent.CompletionException e) {
                        machine.close();
                        if (e.getCause() instanceof RuntimeException r) {
                            throw r;
                        }
                        throw e;
                    }
                }
                return c;
            }
            NativeTransport transport;
            try {
                transport = new NativeTransport(lib, transport(lib, machine));
            } catch (RuntimeException | Error e) {
                machine.close();
                throw e;
            }
            A2aClient c = new A2aClient(lib, transport, installed, machine, false);
            if (!deferCardResolution) {
                try {
                    c.lock.readLock().lock();
                    try {
                        machine.nativeState(c.transport());
                    } finally {
                        c.lock.readLock().unlock();
                    }
                } catch (RuntimeException | Error e) {
                    c.close();
                    throw e;
                }
            }
            return c;
        }

        /** The machine's configuration from the same options, and the HttpClient it runs on. */
        private MachineClient machine(A2aCoreLibrary lib, Hooks installed) {
            Pointer b = lib.a2a_client_config_builder_new();
            if (b == null) {
                throw new IllegalStateException("a2a_client_config_builder_new failed");
            }
            try {
                if (connectTimeout != null) {
                    set(lib, b, "CONNECT_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_CONNECT_TIMEOUT_MS, millis(connectTimeout));
                }
                if (callTimeout != null) {
                    set(lib, b, "CALL_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_CALL_TIMEOUT_MS, millis(callTimeout));
                }
                if (streamIdleTimeout != null) {
                    set(lib, b, "STREAM_IDLE_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_STREAM_IDLE_TIMEOUT_MS,
                        millis(streamIdleTimeout));
                }
                if (maxResponseBytes != null) {
                    set(lib, b, "MAX_RESPONSE_BYTES", AbiEnums.A2A_CLIENT_OPTION_MAX_RESPONSE_BYTES, maxResponseBytes);
                }
                if (maxTime != null) {
                    set(lib, b, "MAX_TIME_MS", AbiEnums.A2A_CLIENT_OPTION_MAX_TIME_MS, millis(maxTime));
                }
                if (sendRetries != null) {
                    set(lib, b, "SEND_RETRIES", AbiEnums.A2A_CLIENT_OPTION_SEND_RETRIES, sendRetries);
                }
                if (streamResubscribeAttempts != null) {
                    set(lib, b, "STREAM_RESUBSCRIBES", AbiEnums.A2A_CLIENT_OPTION_STREAM_RESUBSCRIBES,
                        streamResubscribeAttempts);
                }
                set(lib, b, "ALLOW_HTTP", AbiEnums.A2A_CLIENT_OPTION_ALLOW_HTTP, flag(allowHttp));
                set(lib, b, "IGNORE_CAPABILITIES", AbiEnums.A2A_CLIENT_OPTION_IGNORE_CAPABILITIES, flag(ignoreCapabilities));
                // The driver's default is the card's order; the machine's the client's: keep them equal.
                set(lib, b, "PREFER_CARD_ORDER", AbiEnums.A2A_CLIENT_OPTION_PREFER_CARD_ORDER, flag(!preferClientOrder));
                if (!knownTarget && (protocol != null || binding != null)) {
                    // As the driver's protocol and binding: insist on such an interface of the card.
                    set(lib, b, "INTERFACE_VERSION", AbiEnums.A2A_CLIENT_OPTION_INTERFACE_VERSION,
                        protocol == null ? 0 : protocol.code());
                    set(lib, b, "INTERFACE_BINDING", AbiEnums.A2A_CLIENT_OPTION_INTERFACE_BINDING,
                        binding == null ? 0 : binding.code());
                }
                if (minProtocol != null) {
                    set(lib, b, "MIN_PROTOCOL", AbiEnums.A2A_CLIENT_OPTION_MIN_PROTOCOL, minProtocol.code());
                }
                if (cardCache) {
                    check("card_cache", lib.a2a_client_config_builder_set_card_cache(b, 1, SharedCards.config(lib)));
                }
                set(lib, b, "CLIENT_CERTIFICATE", AbiEnums.A2A_CLIENT_OPTION_CLIENT_CERTIFICATE,
                    flag(clientCertFile != null));
                transportOptions(lib, b);
                if (breaker != null) {
                    A2aCoreLibrary.BreakerConfig bc = new A2aCoreLibrary.BreakerConfig();
                    A2aCoreException.check("a2a_breaker_config_default", lib.a2a_breaker_config_default(bc));
                    bc.read();
                    breaker.fill(bc);
                    bc.write();
                    check("breaker", lib.a2a_client_config_builder_set_breaker(b, bc));
                }
                Memory out = new Memory(Native.POINTER_SIZE);
                A2aCoreException.check("a2a_client_config_builder_build", lib.a2a_client_config_builder_build(b, out));
                HttpClient http = httpClient != null ? httpClient : HttpClient.newBuilder()
                    .connectTimeout(connectTimeout != null ? connectTimeout : Duration.ofSeconds(3))
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .version(HttpClient.Version.HTTP_1_1)
                    .build();
                return new MachineClient(lib, http, out.getPointer(0), url, knownTarget ? protocol : null,
                    knownTarget ? binding : null, installed.callbacks, installed, cardCheck, credentials);
            } finally {
                lib.a2a_client_config_builder_free(b);
            }
        }

        private static void check(String setter, int rc) {
            A2aCoreException.check("a2a_client_config_builder_set_" + setter, rc);
        }

        /** Sets one integer or flag option ({@code a2a_client_option} {@code number}, named {@code name}). */
        private static void set(A2aCoreLibrary lib, Pointer b, String name, int number, long value) {
            A2aCoreException.check("a2a_client_config_builder_set(A2A_CLIENT_OPTION_" + name + ")",
                lib.a2a_client_config_builder_set(b, number, value));
        }

        /** A flag as the builder's flag options take it: 0 or 1. */
        private static long flag(boolean on) {
            return on ? 1 : 0;
        }

        /**
         * What the reference driver's transport reads from the same config (TLS files, proxy,
         * fixed resolutions, pool idle time), and the hosts a card's interface may point to
         * besides its own (the machine's card rule and the transport's address check).
         */
        private void transportOptions(A2aCoreLibrary lib, Pointer b) {
            text(lib, b, "CA_FILE", AbiEnums.A2A_CLIENT_TEXT_OPTION_CA_FILE, caFile);
            text(lib, b, "CLIENT_CERT_FILE", AbiEnums.A2A_CLIENT_TEXT_OPTION_CLIENT_CERT_FILE, clientCertFile);
            text(lib, b, "CLIENT_KEY_FILE", AbiEnums.A2A_CLIENT_TEXT_OPTION_CLIENT_KEY_FILE, clientKeyFile);
            text(lib, b, "PROXY", AbiEnums.A2A_CLIENT_TEXT_OPTION_PROXY, proxy);
            text(lib, b, "NO_PROXY", AbiEnums.A2A_CLIENT_TEXT_OPTION_NO_PROXY, noProxy);
            for (String r : resolve) {
                text(lib, b, "RESOLVE", AbiEnums.A2A_CLIENT_TEXT_OPTION_RESOLVE, r);
            }
            for (String h : allowHosts) {
                text(lib, b, "ALLOW_HOST", AbiEnums.A2A_CLIENT_TEXT_OPTION_ALLOW_HOST, h);
            }
            set(lib, b, "PROXY_DISABLED", AbiEnums.A2A_CLIENT_OPTION_PROXY_DISABLED, flag(proxyDisabled));
            if (poolIdleTimeout != null) {
                set(lib, b, "POOL_IDLE_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_POOL_IDLE_TIMEOUT_MS,
                    millis(poolIdleTimeout));
            }
        }

        /** Sets one text option ({@code a2a_client_text_option} {@code number}); null is unset. */
        private static void text(A2aCoreLibrary lib, Pointer b, String name, int number, String value) {
            if (value == null || value.isEmpty()) {
                return;
            }
            byte[] utf8 = value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            A2aCoreException.check("a2a_client_config_builder_set_text(A2A_CLIENT_TEXT_OPTION_" + name + ")",
                lib.a2a_client_config_builder_set_text(b, number, utf8, new SizeT(utf8.length)));
        }

        /**
         * The reference driver's native transport ({@code a2a_transport_new}) made from the
         * machine's own config: its connect timeout, body limit and https rule, and the
         * transport options set by {@link #transportOptions}. The machine's deadlines bound
         * every run.
         */
        private static Pointer transport(A2aCoreLibrary lib, MachineClient machine) {
            Memory out = new Memory(Native.POINTER_SIZE);
            A2aCoreException.check("a2a_transport_new", lib.a2a_transport_new(machine.config(), out));
            return out.getPointer(0);
        }
    }

    /** The setter handed to a hook; dead once the hook returned (the native setter is gone). */
    private static final class SetterView implements HeaderHook.Headers {
        private final A2aCoreLibrary lib;
        Pointer setter;

        SetterView(A2aCoreLibrary lib, Pointer setter) {
            this.lib = lib;
            this.setter = setter;
        }

        @Override
        public void set(String name, String value) {
            Pointer s = setter;
            if (s == null) {
                throw new IllegalStateException("Headers used after the hook returned");
            }
            byte[] nb = name.getBytes(StandardCharsets.UTF_8);
            byte[] vb = value.getBytes(StandardCharsets.UTF_8);
            int rc = lib.a2a_header_setter_set(s, nb, new SizeT(nb.length), vb, new SizeT(vb.length));
            if (rc != 0) {
                throw new IllegalArgumentException("header " + name + " refused: " + A2aCore.describe(rc));
            }
        }
    }

    /**
     * The config owning the card cache every machine client of the process shares (made
     * once, never freed: it lives as long as the process). Its times are
     * {@code MachineCall.nowMs()}, the clock every call of the process passes.
     */
    private static final class SharedCards {
        private static Pointer config;

        static synchronized Pointer config(A2aCoreLibrary lib) {
            if (config == null) {
                Pointer b = lib.a2a_client_config_builder_new();
                if (b == null) {
                    throw new IllegalStateException("a2a_client_config_builder_new failed");
                }
                try {
                    A2aCoreException.check("a2a_client_config_builder_set_card_cache",
                        lib.a2a_client_config_builder_set_card_cache(b, 64, null));
                    Memory out = new Memory(Native.POINTER_SIZE);
                    A2aCoreException.check("a2a_client_config_builder_build", lib.a2a_client_config_builder_build(b, out));
                    config = out.getPointer(0);
                } finally {
                    lib.a2a_client_config_builder_free(b);
                }
            }
            return config;
        }
    }

    /** The native trampoline of one hook: never lets an exception reach native code. */
    private static A2aCoreLibrary.HeaderHookCallback callback(A2aCoreLibrary lib, HeaderHook hook, Hooks hooks) {
        return (userdata, method, methodLen, setter) -> {
            try {
                long n = methodLen.longValue();
                String m = n == 0 || method == null ? ""
                    : new String(method.getByteArray(0, Math.toIntExact(n)), StandardCharsets.UTF_8);
                SetterView headers = new SetterView(lib, setter);
                try {
                    hook.addHeaders(m, headers);
                } finally {
                    headers.setter = null;
                }
            } catch (Throwable t) {
                Throwable prev = hooks.failure.get();
                if (prev == null) {
                    hooks.failure.set(t);
                } else if (prev != t) {
                    prev.addSuppressed(t);
                }
            }
        };
    }
}
