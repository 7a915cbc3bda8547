package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.ChunkMemory;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.Machine;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The core's client machine ({@code a2a_client_state}, {@code a2a_call_*}) for a host that
 * performs the requests itself, on any transport: one target is the state of a client of one
 * agent interface (its breaker included, shared by every call made on it), and each
 * {@link Call} says which request to make ({@link Call#pollTransmit}), takes the response
 * back (head, body chunks, end or transport failure, timeouts on the host's clock from
 * {@link #nowMs()}) and hands out events: stream items, retry and resubscribe notices, and
 * one {@link Finished} with the call's outcome. {@link A2aClient}'s asynchronous methods
 * drive the same machine on {@code java.net.http}; the a2a-java drop-in runs it on a
 * {@link Transport} ({@link Call#run}) or drives it over {@code java.net.http}. Thread-safe: the state is locked inside the library, each call under its
 * own lock.
 */
public final class MachineTarget {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final SecureRandom SEEDS = new SecureRandom();
    /** Host clock origin: {@link #nowMs()} counts from here, at least 1. */
    private static final long EPOCH = System.nanoTime();

    /** The host's monotonic clock, in ms, as every call of this class reads it. */
    public static long nowMs() {
        return (System.nanoTime() - EPOCH) / 1_000_000L + 1;
    }

    /** Frees a native handle once, from {@code close} or the cleaner; never references its owner. */
    private static final class Free implements Runnable {
        private final java.util.function.Consumer<Pointer> free;
        private Pointer handle;

        Free(Pointer handle, java.util.function.Consumer<Pointer> free) {
            this.handle = handle;
            this.free = free;
        }

        synchronized Pointer get() {
            if (handle == null) {
                throw new IllegalStateException("closed");
            }
            return handle;
        }

        @Override
        public synchronized void run() {
            if (handle != null) {
                free.accept(handle);
                handle = null;
            }
        }
    }

    /** The immutable options of client machines ({@code a2a_machine_config}), freed when unreachable. */
    public static final class Config {
        private final A2aCoreLibrary lib;
        private final Free config;

        private Config(A2aCoreLibrary lib, Pointer config) {
            this.lib = lib;
            this.config = new Free(config, p -> A2aCore.lib().a2a_machine_config_free(p));
            CLEANER.register(this, this.config);
        }

        /**
         * A target: the state of a client of the interface at {@code url} (requests go there),
         * in {@code version} and {@code binding}, with no card (nothing is checked).
         */
        public MachineTarget target(String url, ProtocolVersion version, Binding binding) {
            byte[] u = url.getBytes(StandardCharsets.UTF_8);
            Memory out = new Memory(Native.POINTER_SIZE);
            int rc = lib.a2a_client_state_new(config.get(), u, new SizeT(u.length), version.code(), binding.code(),
                SEEDS.nextLong(), out);
            java.lang.ref.Reference.reachabilityFence(this);
            A2aCoreException.check("a2a_client_state_new", rc);
            return new MachineTarget(lib, out.getPointer(0));
        }
    }

    /** Options of a {@link Config}; unset ones keep the library's defaults. */
    public static final class Builder {
        private Duration connectTimeout;
        private Duration callTimeout;
        private Duration streamIdleTimeout;
        private Long maxResponseBytes;
        private BreakerConfig breaker;
        private boolean allowHttp = true;

        private Builder() {}

        /** Connect timeout (the transmit's {@code connect_by}). */
        public Builder connectTimeout(Duration d) {
            connectTimeout = d;
            return this;
        }

        /** Whole call (a stream: until its head). */
        public Builder callTimeout(Duration d) {
            callTimeout = d;
            return this;
        }

        /** Longest silence on a stream. */
        public Builder streamIdleTimeout(Duration d) {
            streamIdleTimeout = d;
            return this;
        }

        /** Largest response body. */
        public Builder maxResponseBytes(long bytes) {
            maxResponseBytes = bytes;
            return this;
        }

        /** The circuit breaker of each target (none by default); an invalid one fails {@link #build}. */
        public Builder breaker(BreakerConfig config) {
            breaker = config;
            return this;
        }

        /** Whether plain {@code http://} interfaces are accepted (default true: the host chose the URL). */
        public Builder allowHttp(boolean allow) {
            allowHttp = allow;
            return this;
        }

        /** The config: no send retries and no resubscribes (the host's caller decides those). */
        public Config build() {
            A2aCoreLibrary lib = A2aCore.lib();
            Pointer b = lib.a2a_client_config_builder_new();
            if (b == null) {
                throw new IllegalStateException("a2a_client_config_builder_new failed");
            }
            try {
                if (connectTimeout != null) {
                    set(lib, b, "CONNECT_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_CONNECT_TIMEOUT_MS,
                        A2aClient.millis(connectTimeout));
                }
                if (callTimeout != null) {
                    set(lib, b, "CALL_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_CALL_TIMEOUT_MS, A2aClient.millis(callTimeout));
                }
                if (streamIdleTimeout != null) {
                    set(lib, b, "STREAM_IDLE_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_STREAM_IDLE_TIMEOUT_MS,
                        A2aClient.millis(streamIdleTimeout));
                }
                if (maxResponseBytes != null) {
                    set(lib, b, "MAX_RESPONSE_BYTES", AbiEnums.A2A_CLIENT_OPTION_MAX_RESPONSE_BYTES, maxResponseBytes);
                }
                set(lib, b, "ALLOW_HTTP", AbiEnums.A2A_CLIENT_OPTION_ALLOW_HTTP, allowHttp ? 1 : 0);
                if (breaker != null) {
                    A2aCoreLibrary.BreakerConfig bc = new A2aCoreLibrary.BreakerConfig();
                    A2aCoreException.check("a2a_breaker_config_default", lib.a2a_breaker_config_default(bc));
                    bc.read();
                    breaker.fill(bc);
                    bc.write();
                    A2aCoreException.check("a2a_client_config_builder_set_breaker",
                        lib.a2a_client_config_builder_set_breaker(b, bc));
                }
                Memory out = new Memory(Native.POINTER_SIZE);
                A2aCoreException.check("a2a_client_config_builder_build", lib.a2a_client_config_builder_build(b, out));
                return new Config(lib, out.getPointer(0));
            } finally {
                lib.a2a_client_config_builder_free(b);
            }
        }

        private static void set(A2aCoreLibrary lib, Pointer b, String name, int number, long value) {
            A2aCoreException.check("a2a_client_config_builder_set(A2A_CLIENT_OPTION_" + name + ")",
                lib.a2a_client_config_builder_set(b, number, value));
        }
    }

    /** A builder with the library's defaults (and {@code allowHttp}). */
    public static Builder builder() {
        return new Builder();
    }

    private final A2aCoreLibrary lib;
    private final Free state;

    private MachineTarget(A2aCoreLibrary lib, Pointer state) {
        this.lib = lib;
        this.state = new Free(state, p -> A2aCore.lib().a2a_client_state_free(p));
        CLEANER.register(this, this.state);
    }

    /**
     * Starts a call of {@code method} with its parameters ({@code params}: a JSON object, any
     * version's keys; null for none), its first request carrying the JSON-RPC id
     * {@code rpcId} (a {@link Long}, a {@link String}, or null for a fresh one) and the extra
     * {@code headers} on every request (a {@code traceparent} among them replaces the one the
     * machine would draw). Close the call when done with it.
     *
     * @throws A2aCoreException when the library refuses the call (e.g. params of the wrong shape)
     */
    public Call start(A2aMethod method, byte[] params, Object rpcId, List<Map.Entry<String, String>> headers) {
        return start(method, params, null, rpcId, headers);
    }

    /**
     * Starts sending one user text message: a {@code SendStreamingMessage} when
     * {@code streaming}, else a {@code SendMessage}; otherwise as
     * {@link #start(A2aMethod, byte[], Object, List)}.
     */
    public Call startText(boolean streaming, String text, Object rpcId, List<Map.Entry<String, String>> headers) {
        return start(streaming ? A2aMethod.SEND_STREAMING_MESSAGE : A2aMethod.SEND_MESSAGE, null,
            Objects.requireNonNull(text, "text"), rpcId, headers);
    }

    private Call start(A2aMethod method, byte[] params, String text, Object rpcId,
                       List<Map.Entry<String, String>> headers) {
        Pointer s = lib.a2a_call_settings_new();
        if (s == null) {
            throw new IllegalStateException("a2a_call_settings_new failed");
        }
        try {
            if (rpcId instanceof Number n) {
                A2aCoreException.check("a2a_call_settings_set(A2A_CALL_OPTION_RPC_ID_NUMBER)",
                    lib.a2a_call_settings_set(s, AbiEnums.A2A_CALL_OPTION_RPC_ID_NUMBER, n.longValue()));
            } else if (rpcId != null) {
                byte[] t = rpcId.toString().getBytes(StandardCharsets.UTF_8);
                A2aCoreException.check("a2a_call_settings_set_text(A2A_CALL_TEXT_OPTION_RPC_ID)",
                    lib.a2a_call_settings_set_text(s, AbiEnums.A2A_CALL_TEXT_OPTION_RPC_ID, t, new SizeT(t.length)));
            }
            for (Map.Entry<String, String> h : headers) {
                byte[] n = h.getKey().getBytes(StandardCharsets.UTF_8);
                byte[] v = h.getValue().getBytes(StandardCharsets.UTF_8);
                if ("traceparent".equalsIgnoreCase(h.getKey())) {
                    // The call's traceparent replaces the one the machine would draw.
                    A2aCoreException.check("a2a_call_settings_set_text(A2A_CALL_TEXT_OPTION_TRACEPARENT)",
                        lib.a2a_call_settings_set_text(s, AbiEnums.A2A_CALL_TEXT_OPTION_TRACEPARENT, v,
                            new SizeT(v.length)));
                    continue;
                }
                A2aCoreException.check("a2a_call_settings_add_header",
                    lib.a2a_call_settings_add_header(s, n, new SizeT(n.length), v, new SizeT(v.length)));
            }
            Memory out = new Memory(Native.POINTER_SIZE);
            int rc;
            if (text != null) {
                byte[] t = text.getBytes(StandardCharsets.UTF_8);
                rc = lib.a2a_call_new_text(state.get(), method == A2aMethod.SEND_STREAMING_MESSAGE, t,
                    new SizeT(t.length), s, nowMs(), out);
            } else {
                rc = lib.a2a_call_new(state.get(), method.code(), params, new SizeT(params == null ? 0 : params.length),
                    s, nowMs(), out);
            }
            java.lang.ref.Reference.reachabilityFence(this);
            A2aCoreException.check("a2a_call_new", rc);
            return new Call(lib, out.getPointer(0));
        } finally {
            lib.a2a_call_settings_free(s);
        }
    }

    /** One request to perform (copied out of the machine). */
    public record Transmit(int requestId, String method, String url, List<Map.Entry<String, String>> headers,
                           byte[] body, long connectByMs, long deadlineMs) {}

    /** An event of a call. */
    public sealed interface Event permits Abort, Retrying, Resubscribing, ItemEvent, Finished {}

    /** Drop request {@code requestId} now (deadline passed, body too large, stream over, call canceled). */
    public record Abort(int requestId) implements Event {}

    /** An attempt failed (its {@code outcome}) and the machine sends the call again. */
    public record Retrying(int attempt, long delayMs, Outcome outcome) implements Event {}

    /** The stream was cut or went idle with its task running: the machine resubscribes. */
    public record Resubscribing(String taskId, int attempt) implements Event {}

    /** One stream event, classified. */
    public record ItemEvent(StreamItem item) implements Event {}

    /**
     * The call is over: its {@code outcome}, how the last stream ended ({@code endKind}, empty
     * for a plain call or a stream never opened) and the last response's status, when one
     * arrived. The last event of a call.
     */
    public record Finished(Outcome outcome, Optional<StreamEndKind> endKind, OptionalInt responseStatus,
                           byte[] responseBody) implements Event {
        /** The call's end without the last response's body. */
        public Finished(Outcome outcome, Optional<StreamEndKind> endKind, OptionalInt responseStatus) {
            this(outcome, endKind, responseStatus, null);
        }
    }

    /**
     * Network settings of a {@link Transport}. Files are PEM and read when the transport is
     * built.
     *
     * @param caFile CA certificates replacing the system trust store, or null for the system store
     * @param clientCertFile client certificate chain for mutual TLS, or null
     * @param clientKeyFile its private key, or null
     * @param proxy proxy URL for every request; null: from the environment (curl's rules); "": none
     * @param noProxy hosts reached directly (curl's list), or null for the environment's
     */
    public record Network(String caFile, String clientCertFile, String clientKeyFile, String proxy, String noProxy) {
        /** The library's defaults: the system trust store, proxies from the environment. */
        public static final Network DEFAULTS = new Network(null, null, null, null, null);
    }

    /**
     * A thread-safe abort switch for one {@link Call#run} ({@code a2a_abort}): {@link #trigger}
     * from any thread ends a blocked run at once, the call canceled.
     */
    public static final class AbortSwitch implements AutoCloseable {
        private final A2aCoreLibrary lib;
        private Pointer handle;

        /** A new, untriggered switch. */
        public AbortSwitch() {
            lib = A2aCore.lib();
            Memory out = new Memory(Native.POINTER_SIZE);
            A2aCoreException.check("a2a_abort_new", lib.a2a_abort_new(out));
            handle = out.getPointer(0);
        }

        /** Aborts the run (no-op once closed). Any thread. */
        public synchronized void trigger() {
            if (handle != null) {
                lib.a2a_abort_trigger(handle);
            }
        }

        synchronized Pointer pointer() {
            if (handle == null) {
                throw new IllegalStateException("abort switch closed");
            }
            return handle;
        }

        /** Frees the switch (a run given it keeps its own reference). */
        @Override
        public synchronized void close() {
            if (handle != null) {
                lib.a2a_abort_free(handle);
                handle = null;
            }
        }
    }

    /**
     * The reference driver's native transport ({@code a2a_transport_new}) that
     * {@link Call#run} performs a call's requests on: its connection pool, TLS roots, client
     * certificate and proxy rules; the machine's deadlines bound each request. Thread-safe:
     * several calls may run on it at once. Freed by {@link #close} or once unreachable.
     */
    public static final class Transport implements AutoCloseable {
        /** The backstop call and idle timeouts: the machine's deadlines apply first. */
        private static final long BACKSTOP_MS = 24L * 3600 * 1000;
        private final Free transport;

        /**
         * A transport connecting within {@code connectTimeout}, reading at most
         * {@code maxResponseBytes} of a body, with the {@code network} settings (files are
         * read during this call).
         */
        public Transport(Duration connectTimeout, long maxResponseBytes, Network network) {
            A2aCoreLibrary lib = A2aCore.lib();
            Pointer b = lib.a2a_client_config_builder_new();
            if (b == null) {
                throw new IllegalStateException("a2a_client_config_builder_new failed");
            }
            Pointer config;
            try {
                Builder.set(lib, b, "CONNECT_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_CONNECT_TIMEOUT_MS,
                    A2aClient.millis(connectTimeout));
                Builder.set(lib, b, "MAX_RESPONSE_BYTES", AbiEnums.A2A_CLIENT_OPTION_MAX_RESPONSE_BYTES,
                    maxResponseBytes);
                // The transport's own call and idle timeouts are only a backstop: the deadlines of
                // the machine whose calls run on it apply first.
                Builder.set(lib, b, "CALL_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_CALL_TIMEOUT_MS, BACKSTOP_MS);
                Builder.set(lib, b, "STREAM_IDLE_TIMEOUT_MS", AbiEnums.A2A_CLIENT_OPTION_STREAM_IDLE_TIMEOUT_MS,
                    BACKSTOP_MS);
                // The machine applies the https rule to the interface it was given.
                Builder.set(lib, b, "ALLOW_HTTP", AbiEnums.A2A_CLIENT_OPTION_ALLOW_HTTP, 1);
                text(lib, b, "CA_FILE", AbiEnums.A2A_CLIENT_TEXT_OPTION_CA_FILE, network.caFile());
                text(lib, b, "CLIENT_CERT_FILE", AbiEnums.A2A_CLIENT_TEXT_OPTION_CLIENT_CERT_FILE,
                    network.clientCertFile());
                text(lib, b, "CLIENT_KEY_FILE", AbiEnums.A2A_CLIENT_TEXT_OPTION_CLIENT_KEY_FILE,
                    network.clientKeyFile());
                if ("".equals(network.proxy())) {
                    Builder.set(lib, b, "PROXY_DISABLED", AbiEnums.A2A_CLIENT_OPTION_PROXY_DISABLED, 1);
                } else {
                    text(lib, b, "PROXY", AbiEnums.A2A_CLIENT_TEXT_OPTION_PROXY, network.proxy());
                }
                text(lib, b, "NO_PROXY", AbiEnums.A2A_CLIENT_TEXT_OPTION_NO_PROXY, network.noProxy());
                Memory out = new Memory(Native.POINTER_SIZE);
                A2aCoreException.check("a2a_client_config_builder_build", lib.a2a_client_config_builder_build(b, out));
                config = out.getPointer(0);
            } finally {
                lib.a2a_client_config_builder_free(b);
            }
            try {
                Memory out = new Memory(Native.POINTER_SIZE);
                A2aCoreException.check("a2a_transport_new", lib.a2a_transport_new(config, out));
                transport = new Free(out.getPointer(0), p -> A2aCore.lib().a2a_transport_free(p));
            } finally {
                lib.a2a_machine_config_free(config);
            }
            CLEANER.register(this, transport);
        }

        private static void text(A2aCoreLibrary lib, Pointer b, String name, int option, String value) {
            if (value == null) {
                return;
            }
            byte[] t = value.getBytes(StandardCharsets.UTF_8);
            A2aCoreException.check("a2a_client_config_builder_set_text(A2A_CLIENT_TEXT_OPTION_" + name + ")",
                lib.a2a_client_config_builder_set_text(b, option, t, new SizeT(t.length)));
        }

        Pointer pointer() {
            return transport.get();
        }

        /** Frees the transport (waiting for the runs in flight). Idempotent. */
        @Override
        public void close() {
            transport.run();
        }
    }

    /** One call of the machine, driven by the host; every method is synchronized. */
    public static final class Call implements AutoCloseable {
        private final A2aCoreLibrary lib;
        /** The native call; null once finished (its outcome then owns it) or closed. */
        private Pointer call;

        private Call(A2aCoreLibrary lib, Pointer call) {
            this.lib = lib;
            this.call = call;
        }

        /** The machine's clock as the last {@link #run} left it (never behind {@link #nowMs()}). */
        private long runNow;

        /**
         * Runs the call on {@code transport} until it has events ({@code a2a_call_run}: the
         * machine's requests performed by the reference driver, responses fed back, its
         * deadlines kept), and returns them as {@link #events(boolean)} does; empty once the
         * call is over. BLOCKS; {@code abort} (null for none), triggered from another thread,
         * ends a blocked run at once with the call canceled. Do not mix with
         * {@link #pollTransmit} and the {@code head}/{@code body}/{@code end} inputs.
         */
        public synchronized List<Event> run(Transport transport, AbortSwitch abort, boolean everyItemOutcome) {
            if (call == null) {
                return List.of();
            }
            if (nowOut == null) {
                nowOut = new Memory(8);
            }
            long now = Math.max(runNow, nowMs());
            Pointer a = abort == null ? null : abort.pointer();
            int rc = MachineDirect.ON ? MachineDirect.a2a_call_run(call, transport.pointer(), a, now, nowOut)
                : lib.a2a_call_run(call, transport.pointer(), a, now, nowOut);
            java.lang.ref.Reference.reachabilityFence(transport);
            A2aCoreException.check("a2a_call_run", rc);
            runNow = Math.max(now, nowOut.getLong(0));
            return events(everyItemOutcome);
        }

        private Memory nowOut;

        /** Whether the call finished or was closed (nothing more to drive). */
        public synchronized boolean isOver() {
            return call == null;
        }

        /** The next request to perform now, or empty (none due, or the call is over). */
        public synchronized Optional<Transmit> pollTransmit() {
            if (call == null) {
                return Optional.empty();
            }
            if (MachineDirect.ON) {
                // Read at the C offsets from per-thread memory (no JNA Structure per request).
                Memory m = MachineDirect.TRANSMIT_MEMORY.get();
                if (MachineDirect.a2a_call_poll_transmit(call, nowMs(), m) != 0) {
                    return Optional.empty();
                }
                Pointer hp = m.getPointer(MachineDirect.TRANSMIT_HEADERS);
                long n = m.getLong(MachineDirect.TRANSMIT_HEADERS_LEN);
                List<Map.Entry<String, String>> headers = new ArrayList<>((int) n);
                for (long i = 0; i < n; i++) {
                    long at = i * Layout.HEADER_SIZE;
                    headers.add(Map.entry(view(hp, at, Layout.HEADER_NAME_LEN),
                        view(hp, at + Layout.HEADER_VALUE, Layout.HEADER_VALUE_LEN - Layout.HEADER_VALUE)));
                }
                byte[] body = viewBytes(m, MachineDirect.TRANSMIT_BODY);
                byte[] method = viewBytes(m, MachineDirect.TRANSMIT_METHOD);
                byte[] url = viewBytes(m, MachineDirect.TRANSMIT_URL);
                return Optional.of(new Transmit(m.getInt(MachineDirect.TRANSMIT_REQUEST_ID),
                    method == null ? null : new String(method, StandardCharsets.UTF_8),
                    url == null ? null : new String(url, StandardCharsets.UTF_8), List.copyOf(headers),
                    body == null ? new byte[0] : body, m.getLong(MachineDirect.TRANSMIT_CONNECT_BY),
                    m.getLong(MachineDirect.TRANSMIT_DEADLINE)));
            }
            Machine.Transmit t = new Machine.Transmit();
            if (lib.a2a_call_poll_transmit(call, nowMs(), t) != 0) {
                return Optional.empty();
            }
            List<Map.Entry<String, String>> headers = new ArrayList<>();
            long n = t.headers_len.longValue();
            for (long i = 0; i < n; i++) {
                long at = i * Layout.HEADER_SIZE;
                headers.add(Map.entry(view(t.headers, at, Layout.HEADER_NAME_LEN),
                    view(t.headers, at + Layout.HEADER_VALUE, Layout.HEADER_VALUE_LEN - Layout.HEADER_VALUE)));
            }
            byte[] body = Machine.bytes(t.body);
            return Optional.of(new Transmit(t.request_id, Machine.string(t.method), Machine.string(t.url),
                List.copyOf(headers), body == null ? new byte[0] : body, t.connect_by_ms, t.deadline_ms));
        }

        private static String view(Pointer base, long at, long lenOffset) {
            Pointer p = base.getPointer(at);
            long len = Layout.sizeT(base, at + lenOffset);
            return p == null || len == 0 ? "" : new String(p.getByteArray(0, Math.toIntExact(len)),
                StandardCharsets.UTF_8);
        }

        /** The response head of request {@code requestId}. */
        public synchronized void head(int requestId, int status, List<Map.Entry<String, String>> headers) {
            if (call == null) {
                return;
            }
            NativeArgs args = new NativeArgs();
            try {
                Pointer arr = headers.isEmpty() ? null : args.headerArray(headers);
                if (MachineDirect.ON) {
                    MachineDirect.a2a_call_handle_head(call, requestId, (short) status, arr, headers.size(), nowMs());
                } else {
                    lib.a2a_call_handle_head(call, requestId, (short) status, arr, new SizeT(headers.size()), nowMs());
                }
            } finally {
                args.release();
            }
        }

        /** A chunk of request {@code requestId}'s body (copied into this thread's chunk memory for the call). */
        public synchronized void body(int requestId, byte[] b, int off, int len) {
            if (call == null || len == 0) {
                return;
            }
            Memory chunk = ChunkMemory.borrow(len);
            try {
                chunk.write(0, b, off, len);
                if (MachineDirect.ON) {
                    MachineDirect.a2a_call_handle_body(call, requestId, chunk, len, nowMs());
                } else {
                    lib.a2a_call_handle_body(call, requestId, chunk, new SizeT(len), nowMs());
                }
            } finally {
                ChunkMemory.release(chunk);
            }
        }

        /** Request {@code requestId}'s body is complete. */
        public synchronized void end(int requestId) {
            if (call != null) {
                if (MachineDirect.ON) {
                    MachineDirect.a2a_call_handle_end(call, requestId, nowMs());
                } else {
                    lib.a2a_call_handle_end(call, requestId, nowMs());
                }
            }
        }

        /**
         * Request {@code requestId} failed in transport: {@code name} (a transport error name),
         * whether request bytes may have been {@code written}, and what happened.
         */
        public synchronized void failure(int requestId, ErrorName name, boolean written, String message) {
            if (call == null) {
                return;
            }
            byte[] m = Objects.requireNonNullElse(message, "").getBytes(StandardCharsets.UTF_8);
            lib.a2a_call_handle_failure(call, requestId, name.code(), written, m, new SizeT(m.length), nowMs());
        }

        /** When the machine wants {@link #timeout} called (host clock, ms); empty for never. */
        public synchronized OptionalLong pollTimeout() {
            if (call == null) {
                return OptionalLong.empty();
            }
            Memory at = new Memory(8);
            return lib.a2a_call_poll_timeout(call, at) != 0 ? OptionalLong.of(at.getLong(0)) : OptionalLong.empty();
        }

        /**
         * Tells the machine its deadline has passed: the time handed in is now, or the
         * deadline when the host's own timer fired a little early.
         */
        public synchronized void timeout() {
            if (call == null) {
                return;
            }
            Memory at = new Memory(8);
            long now = nowMs();
            if (lib.a2a_call_poll_timeout(call, at) != 0) {
                now = Math.max(now, at.getLong(0));
            }
            lib.a2a_call_handle_timeout(call, now);
        }

        /** Abandons the call: the request in flight is dropped, {@link Finished} reports Canceled. */
        public synchronized void cancel() {
            if (call != null) {
                lib.a2a_call_cancel(call, nowMs());
            }
        }

        /** The events since the last poll, in order; after {@link Finished} the call is over. */
        public synchronized List<Event> events() {
            return events(true);
        }

        /**
         * As {@link #events()}; with {@code everyItemOutcome} false, a stream item's outcome is
         * copied out only when the item is a failure ({@code ERROR}, {@code MALFORMED}, or a
         * channel other than task and message) and is null otherwise: for a reader that only
         * passes each event on (one field read instead of the whole outcome per event).
         */
        public synchronized List<Event> events(boolean everyItemOutcome) {
            List<Event> out = new ArrayList<>(4);
            if (MachineDirect.ON && !everyItemOutcome) {
                // A stream's items and aborts read from raw memory at the C offsets; the rare
                // other events through the JNA mirror over the same memory.
                Memory m = EVENT_MEMORY.get();
                while (call != null && MachineDirect.a2a_call_poll_event(call, m) == 0) {
                    int kind = m.getInt(MachineDirect.KIND);
                    if (kind == 4) {
                        out.add(new ItemEvent(item(m)));
                    } else if (kind == 1) {
                        out.add(new Abort(m.getInt(MachineDirect.REQUEST_ID)));
                    } else if (kind == 5) {
                        out.add(finished(m));
                    } else {
                        Machine.Event ev = com.sun.jna.Structure.newInstance(Machine.Event.class, m);
                        ev.read();
                        add(ev, out, false);
                    }
                }
                return out;
            }
            Machine.Event ev = new Machine.Event();
            while (call != null && lib.a2a_call_poll_event(call, ev) == 0) {
                add(ev, out, everyItemOutcome);
            }
            return out;
        }

        /**
         * Per thread: the native event memory of {@link #events(boolean)}'s raw reads, copied
         * out before the method returns (an open call holds none).
         */
        private static final ThreadLocal<Memory> EVENT_MEMORY =
            ThreadLocal.withInitial(() -> new Memory(MachineDirect.EVENT_SIZE));

        /** The item of the ITEM event in {@code m}; its outcome copied only for a failure. */
        private StreamItem item(Memory m) {
            StreamItemKind kind = StreamItemKind.of(m.getInt(MachineDirect.ITEM_KIND));
            Pointer o = m.getPointer(MachineDirect.ITEM_OUTCOME);
            boolean failure = kind == StreamItemKind.ERROR || kind == StreamItemKind.MALFORMED;
            if (!failure && o != null) {
                int channel = Outcome.channelCode(lib, o);
                failure = channel != Channel.TASK.code() && channel != Channel.MESSAGE.code();
            }
            Outcome outcome = failure ? Outcome.copy(lib, o) : null;
            Pointer ap = m.getPointer(MachineDirect.ITEM_ARTIFACT_PTR);
            long al = m.getLong(MachineDirect.ITEM_ARTIFACT_LEN);
            String artifactId = ap == null ? null
                : al == 0 ? "" : new String(ap.getByteArray(0, Math.toIntExact(al)), StandardCharsets.UTF_8);
            return new StreamItem(kind, outcome,
                m.getByte(MachineDirect.ITEM_HAS_FINAL) != 0 ? Optional.of(m.getByte(MachineDirect.ITEM_FINAL) != 0)
                    : Optional.empty(),
                Optional.ofNullable(artifactId), m.getByte(MachineDirect.ITEM_APPEND) != 0,
                m.getByte(MachineDirect.ITEM_LAST_CHUNK) != 0, m.getByte(MachineDirect.ITEM_ENDS_STREAM) != 0);
        }

        /**
         * The {@code FINISHED} event in {@code m}, read at the C offsets (a JNA {@code Structure}
         * read of the whole event, nested item and correlation included, costs far more and its
         * generic reading code deoptimises under a stream's other JNA use); ends the call.
         */
        private Finished finished(Memory m) {
            Optional<StreamEndKind> end = m.getByte(MachineDirect.EVENT_HAS_END_KIND) != 0
                ? Optional.of(StreamEndKind.of(m.getInt(MachineDirect.EVENT_END_KIND))) : Optional.empty();
            boolean has = m.getByte(MachineDirect.EVENT_HAS_RESPONSE) != 0;
            OptionalInt status = has
                ? OptionalInt.of(Short.toUnsignedInt(m.getShort(MachineDirect.EVENT_RESPONSE_STATUS))) : OptionalInt.empty();
            byte[] body = has ? viewBytes(m, MachineDirect.EVENT_RESPONSE_BODY) : null;
            Pointer o = m.getPointer(MachineDirect.EVENT_OUTCOME);
            Pointer c = call;
            call = null;
            Runnable release = () -> A2aCore.lib().a2a_call_free(c);
            if (o == null) {
                release.run();
                throw new IllegalStateException("a finished call without an outcome");
            }
            return new Finished(Outcome.keepingOwner(lib, o, release), end, status, body);
        }

        /** The bytes of the {@code a2a_bytes_view} at {@code at} copied out (null when absent). */
        private static byte[] viewBytes(Pointer m, long at) {
            Pointer p = m.getPointer(at + MachineDirect.VIEW_PTR);
            if (p == null) {
                return null;
            }
            long n = m.getLong(at + MachineDirect.VIEW_LEN);
            return n == 0 ? new byte[0] : p.getByteArray(0, Math.toIntExact(n));
        }

        /** Adds the event {@code ev} (read) to {@code out}; a {@code FINISHED} one ends the call. */
        private void add(Machine.Event ev, List<Event> out, boolean everyItemOutcome) {
            {
                switch (ev.kind) {
                    case 1 -> out.add(new Abort(ev.request_id));
                    case 2 -> out.add(new Retrying(ev.attempt, ev.delay_ms,
                        ev.outcome == null ? null : Outcome.copy(lib, ev.outcome)));
                    case 3 -> out.add(new Resubscribing(Machine.string(ev.task_id), ev.attempt));
                    case 4 -> out.add(new ItemEvent(item(ev.item, everyItemOutcome)));
                    case 5 -> {
                        Optional<StreamEndKind> end = ev.has_end_kind != 0
                            ? Optional.of(StreamEndKind.of(ev.end_kind)) : Optional.empty();
                        OptionalInt status = ev.has_response != 0 ? OptionalInt.of(Short.toUnsignedInt(ev.response_status))
                            : OptionalInt.empty();
                        byte[] body = ev.has_response != 0 ? Machine.bytes(ev.response_body) : null;
                        Pointer c = call;
                        call = null;
                        Outcome o = MachineClient.finishedOutcome(lib, ev, () -> A2aCore.lib().a2a_call_free(c));
                        out.add(new Finished(o, end, status, body));
                    }
                    default -> { }
                }
            }
        }

        private StreamItem item(A2aCoreLibrary.StreamItem i, boolean copy) {
            StreamItemKind kind = StreamItemKind.of(i.kind);
            boolean failure = kind == StreamItemKind.ERROR || kind == StreamItemKind.MALFORMED;
            if (!copy && !failure && i.outcome != null) {
                int channel = Outcome.channelCode(lib, i.outcome);
                failure = channel != Channel.TASK.code() && channel != Channel.MESSAGE.code();
            }
            Outcome o = copy || failure ? Outcome.copy(lib, i.outcome) : null;
            String artifactId = Machine.string(i.artifact_id);
            return new StreamItem(kind, o,
                i.has_final != 0 ? Optional.of(i.final_flag != 0) : Optional.empty(), Optional.ofNullable(artifactId),
                i.append != 0, i.last_chunk != 0, i.ends_stream != 0);
        }

        /** Frees the call unless it finished (then its outcome frees it). Idempotent. */
        @Override
        public synchronized void close() {
            if (call != null) {
                lib.a2a_call_free(call);
                call = null;
            }
        }
    }
}
