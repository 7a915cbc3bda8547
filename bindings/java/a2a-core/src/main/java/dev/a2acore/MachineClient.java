package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Machine;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The client machine's state for one agent ({@code a2a_client_state}, card resolved over the
 * {@link HttpClient}) and the calls made on it. Thread-safe: the state is locked inside the
 * library, every call has its own lock.
 */
final class MachineClient {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final SecureRandom SEEDS = new SecureRandom();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Frees the config and the state; never references the MachineClient. */
    private static final class Handles implements Runnable {
        Pointer config;
        volatile Pointer state;

        @Override
        public synchronized void run() {
            A2aCoreLibrary lib = A2aCore.lib();
            if (state != null) {
                lib.a2a_client_state_free(state);
                state = null;
            }
            if (config != null) {
                lib.a2a_machine_config_free(config);
                config = null;
            }
        }
    }

    final A2aCoreLibrary lib;
    final HttpClient http;
    private final Handles handles = new Handles();
    private final Cleaner.Cleanable cleanable;
    private final List<A2aCoreLibrary.HeaderHookCallback> hooks;
    private final A2aClient.Hooks hookState;
    private final String url;
    private final ProtocolVersion knownVersion;
    private final Binding knownBinding;
    private CompletableFuture<Pointer> resolving;
    /** What the card must pass before the state is made (null: nothing). */
    private final CardCheck cardCheck;
    /** OAuth2 client credentials (null: none); their token source once the card is known. */
    private final ClientCredentials credentials;
    private volatile OAuth2Tokens tokens;

    /**
     * The card verification a client asks for: {@code keys} (JWKS, JWK or PEM), or, when
     * null, the keys fetched from the signatures' {@code jku} (HTTPS, the card's host or one
     * of {@code jkuHosts}).
     */
    record CardCheck(byte[] keys, List<String> jkuHosts) {}

    /** A finished card fetch: the state made from it, the card and where it was read. */
    private record Fetched(Pointer state, byte[] card, String cardUrl) {}

    MachineClient(A2aCoreLibrary lib, HttpClient http, Pointer config, String url, ProtocolVersion knownVersion,
                  Binding knownBinding, List<A2aCoreLibrary.HeaderHookCallback> hooks, A2aClient.Hooks hookState,
                  CardCheck cardCheck, ClientCredentials credentials) {
        this.lib = lib;
        this.cardCheck = cardCheck;
        this.credentials = credentials;
        this.http = http;
        this.handles.config = config;
        this.url = url;
        this.knownVersion = knownVersion;
        this.knownBinding = knownBinding;
        this.hooks = hooks;
        this.hookState = hookState;
        this.cleanable = CLEANER.register(this, handles);
    }

    /** The machine's config (null once closed); valid until {@link #close}. */
    Pointer config() {
        return handles.config;
    }

    /** The state, resolving the card over the HttpClient on first use (once; a failure is retried next time). */
    synchronized CompletableFuture<Pointer> state() {
        if (handles.config == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("A2aClient is closed"));
        }
        if (resolving != null && !resolving.isCompletedExceptionally()) {
            return resolving;
        }
        if (knownVersion != null) {
            Memory out = new Memory(Native.POINTER_SIZE);
            byte[] u = url.getBytes(StandardCharsets.UTF_8);
            int rc = lib.a2a_client_state_new(handles.config, u, new SizeT(u.length), knownVersion.code(),
                knownBinding.code(), SEEDS.nextLong(), out);
            A2aCoreException.check("a2a_client_state_new", rc);
            Pointer made = out.getPointer(0);
            try {
                if (credentials != null) {
                    tokens = new OAuth2Tokens(lib, http, credentials, null);
                }
            } catch (RuntimeException e) {
                lib.a2a_client_state_free(made);
                throw e;
            }
            resolving = CompletableFuture.completedFuture(install(made));
            return resolving;
        }
        Memory out = new Memory(Native.POINTER_SIZE);
        byte[] u = url.getBytes(StandardCharsets.UTF_8);
        A2aCoreException.check("a2a_call_new_card_fetch",
            lib.a2a_call_new_card_fetch(handles.config, u, new SizeT(u.length), out));
        MachineCall<Object> card = new MachineCall<>(lib, http, out.getPointer(0), cardFinisher(), null, null);
        CompletableFuture<Pointer> f = card.start().result.thenCompose(v -> {
            if (v instanceof RuntimeException e) {
                throw e;
            }
            Fetched fetched = (Fetched) v;
            return checkCard(fetched).handle((ok, err) -> {
                if (err != null) {
                    lib.a2a_client_state_free(fetched.state());
                    throw err instanceof java.util.concurrent.CompletionException c ? c
                        : new java.util.concurrent.CompletionException(err);
                }
                try {
                    if (credentials != null) {
                        try (AgentCard parsed = AgentCard.parse(fetched.card() == null ? new byte[0] : fetched.card())) {
                            tokens = new OAuth2Tokens(lib, http, credentials, parsed);
                        }
                    }
                } catch (RuntimeException e) {
                    lib.a2a_client_state_free(fetched.state());
                    throw e;
                }
                return installSync(fetched.state());
            });
        });
        resolving = f;
        return f;
    }

    /**
     * The state for a call run on the reference driver's native transport (BLOCKS): when the
     * card is not resolved yet, this thread fetches it over {@code transport} (one fetch at a
     * time: other threads wait for it, asynchronous callers get its future). Such a client has
     * no card check and no OAuth2 (those run every call on the HttpClient).
     *
     * @throws CardResolutionException when the card cannot be fetched or validated
     */
    Pointer nativeState(Pointer transport) {
        CompletableFuture<Pointer> f;
        boolean mine = false;
        synchronized (this) {
            if (handles.config == null) {
                throw new IllegalStateException("A2aClient is closed");
            }
            if (knownVersion != null || resolving != null && !resolving.isCompletedExceptionally()) {
                f = state();
            } else {
                f = new CompletableFuture<>();
                resolving = f;
                mine = true;
            }
        }
        if (mine) {
            try {
                f.complete(fetchNatively(transport));
            } catch (RuntimeException | Error e) {
                f.completeExceptionally(e);
            }
        }
        try {
            return f.join();
        } catch (java.util.concurrent.CompletionException e) {
            Throwable t = unwrap(e);
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /** Fetches the card on the native transport on this thread and makes the state from it. */
    private Pointer fetchNatively(Pointer transport) {
        Memory out = new Memory(Native.POINTER_SIZE);
        byte[] u = url.getBytes(StandardCharsets.UTF_8);
        synchronized (handles) {
            if (handles.config == null) {
                throw new IllegalStateException("A2aClient is closed");
            }
            A2aCoreException.check("a2a_call_new_card_fetch",
                lib.a2a_call_new_card_fetch(handles.config, u, new SizeT(u.length), out));
        }
        Object v = MachineCall.onTransport(lib, out.getPointer(0), cardFinisher(), null).runToEnd(transport);
        if (v instanceof RuntimeException e) {
            throw e;
        }
        return installSync(((Fetched) v).state());
    }

    /**
     * A call on {@code state} run on the native transport by {@link MachineCall#step} (not
     * started; no OAuth2 token: such a client has none).
     */
    <T> MachineCall<T> onTransport(Pointer state, NewCall make, CallOptions options, MachineCall.Finisher<T> finisher,
                                   Consumer<ClientStreamEvent> listener) {
        // No settings handle for no options (NULL: none).
        Pointer settings = options == null || options.equals(CallOptions.none()) ? null : settings(options, null);
        try {
            Memory o = CALL_OUT.get();
            A2aCoreException.check("a2a_call_new", make.create(state, settings, MachineCall.nowMs(), o));
            return MachineCall.onTransport(lib, o.getPointer(0), finisher, listener);
        } finally {
            if (settings != null) {
                lib.a2a_call_settings_free(settings);
            }
        }
    }

    /** Per thread: where {@code a2a_call_new} writes the call (read at once). */
    private static final ThreadLocal<Memory> CALL_OUT = ThreadLocal.withInitial(() -> new Memory(Native.POINTER_SIZE));

    /** What a finished card fetch becomes: a {@link Fetched} state, or the failure to throw. */
    private MachineCall.Finisher<Object> cardFinisher() {
        return (ev, call, release) -> {
            try {
                if (ev.outcome != null) {
                    return new CardResolutionException(Outcome.copy(lib, ev.outcome));
                }
                byte[] cardJson = dev.a2acore.internal.Machine.bytes(ev.card_json);
                String cardUrl = dev.a2acore.internal.Machine.string(ev.card_url);
                Memory st = new Memory(Native.POINTER_SIZE);
                // Under the handles' lock: close() frees the config, and a card fetch that
                // finishes after it must not pass the freed handle to the library.
                synchronized (handles) {
                    if (handles.config == null) {
                        return new IllegalStateException("A2aClient is closed");
                    }
                    A2aCoreException.check("a2a_client_state_from_card",
                        lib.a2a_client_state_from_card(handles.config, call, SEEDS.nextLong(), st));
                }
                return new Fetched(st.getPointer(0), cardJson, cardUrl);
            } finally {
                release.run();
            }
        };
    }

    /**
     * Verifies the fetched card as the client asked (nothing when it did not): with the keys
     * given, or with the key set its {@code jku} names once {@link Trust#cardKeyUrl} allowed
     * it, fetched over the same HttpClient. Fails with {@link CardSignatureException}.
     */
    private CompletableFuture<Void> checkCard(Fetched fetched) {
        if (cardCheck == null) {
            return CompletableFuture.completedFuture(null);
        }
        byte[] card = fetched.card() == null ? new byte[0] : fetched.card();
        try {
            if (cardCheck.keys() != null) {
                Trust.verifyCard(card, cardCheck.keys());
                return CompletableFuture.completedFuture(null);
            }
            String jku = Trust.cardKeyUrl(card, fetched.cardUrl() == null ? url : fetched.cardUrl(),
                cardCheck.jkuHosts().toArray(new String[0])).orElseThrow(() -> TrustException.of(
                    "a2a_card_signature_key_url", TrustException.CARD_SIGNATURE,
                    "{\"reason\":\"no_jku\",\"detail\":\"no signature of the card names a jku to fetch its keys from\"}"
                        .getBytes(StandardCharsets.UTF_8)));
            java.net.http.HttpRequest req = java.net.http.HttpRequest.newBuilder(java.net.URI.create(jku))
                .timeout(java.time.Duration.ofSeconds(30)).header("Accept", "application/json").GET().build();
            return http.sendAsync(req, java.net.http.HttpResponse.BodyHandlers.ofByteArray()).thenAccept(resp -> {
                if (resp.statusCode() != 200) {
                    throw TrustException.of("jku " + jku, TrustException.CARD_SIGNATURE,
                        ("{\"reason\":\"jku_fetch\",\"detail\":\"HTTP " + resp.statusCode() + "\"}")
                            .getBytes(StandardCharsets.UTF_8));
                }
                Trust.verifyCard(card, resp.body());
            });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Makes the extended card the finished {@code call} fetched replace the public card of this
     * client's state ({@code a2a_client_state_adopt_extended_card}); 0 or the library's code.
     * A client for a known target (no card) keeps its target: 0.
     */
    int adoptExtendedCard(Pointer call) {
        Pointer st = handles.state;
        if (st == null || knownVersion != null) {
            return 0;
        }
        return lib.a2a_client_state_adopt_extended_card(st, call);
    }

    private synchronized Pointer installSync(Pointer state) {
        return install(state);
    }

    /** Adds the header hooks (before the state's first call) and keeps the state. */
    private Pointer install(Pointer state) {
        if (handles.config == null) {
            lib.a2a_client_state_free(state);
            throw new IllegalStateException("A2aClient is closed");
        }
        for (A2aCoreLibrary.HeaderHookCallback cb : hooks) {
            int rc = lib.a2a_client_state_add_header_hook(state, cb, null);
            if (rc != 0) {
                lib.a2a_client_state_free(state);
                throw new A2aCoreException("a2a_client_state_add_header_hook", rc, null);
            }
        }
        handles.state = state;
        return state;
    }

    /** Runs on the transmitting thread after each poll_transmit: a hook that threw fails the call. */
    Runnable hookCheck(MachineCall<?>[] self) {
        if (hooks.isEmpty()) {
            return null;
        }
        return () -> {
            Throwable t = hookState.failure.get();
            if (t != null) {
                hookState.failure.remove();
                MachineCall<?> c = self[0];
                if (c != null) {
                    c.result.completeExceptionally(new HeaderHookException(t, null));
                    MachineCall.TIMER.execute(c::cancel);
                }
            }
        };
    }

    /**
     * The future of a call: {@code cancel} cancels it and ends the exchange at once;
     * {@link #abandon} ends the exchange and lets the future complete with the call's
     * Canceled outcome (what a blocking call returns when its thread is interrupted).
     */
    static final class CallFuture<T> extends CompletableFuture<T> {
        private final CompletableFuture<Pointer> state;
        private MachineCall<T> call;
        private boolean abandoned;

        CallFuture(CompletableFuture<Pointer> state) {
            this.state = state;
        }

        synchronized void attach(MachineCall<T> c) {
            call = c;
        }

        synchronized boolean abandoned() {
            return abandoned || isCancelled();
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean c = super.cancel(mayInterruptIfRunning);
            abandon();
            return c;
        }

        /** Ends the exchange; the future completes with the machine's Canceled outcome. */
        void abandon() {
            MachineCall<T> c;
            synchronized (this) {
                abandoned = true;
                c = call;
            }
            if (c != null) {
                c.cancel();
            } else {
                state.cancel(false);
            }
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CompletableFuture<>();
        }
    }

    /**
     * Starts a call once the state (and, with OAuth2, a token) is there. {@code make} creates
     * the native call on the state. With OAuth2 the token goes in the call's own
     * {@code Authorization} header (to the card's validated interface only); a 401 answer
     * forgets it and the call is made once more with a fresh one.
     */
    <T> CallFuture<T> call(NewCall make, CallOptions options, MachineCall.Finisher<T> finisher,
                           Consumer<ClientStreamEvent> listener, Consumer<MachineCall<T>> started) {
        CompletableFuture<Pointer> st = state();
        CallFuture<T> out = new CallFuture<>(st);
        st.whenComplete((state, err) -> {
            if (err != null) {
                out.completeExceptionally(unwrap(err));
                return;
            }
            attempt(out, state, make, options, finisher, listener, started, true);
        });
        return out;
    }

    private static Throwable unwrap(Throwable err) {
        return err instanceof java.util.concurrent.CompletionException && err.getCause() != null ? err.getCause() : err;
    }

    /** One attempt of a call: with a token first when OAuth2 is on. */
    private <T> void attempt(CallFuture<T> out, Pointer state, NewCall make, CallOptions options,
                             MachineCall.Finisher<T> finisher, Consumer<ClientStreamEvent> listener,
                             Consumer<MachineCall<T>> started, boolean first) {
        OAuth2Tokens t = tokens;
        if (t == null) {
            start(out, state, make, options, finisher, listener, started, null, false);
            return;
        }
        CompletableFuture<String> token;
        try {
            token = t.token();
        } catch (RuntimeException e) {
            out.completeExceptionally(e);
            return;
        }
        token.whenComplete((tok, terr) -> {
            if (terr != null) {
                out.completeExceptionally(unwrap(terr));
            } else if (out.abandoned()) {
                out.completeExceptionally(new java.util.concurrent.CancellationException("canceled"));
            } else {
                start(out, state, make, options, finisher, listener, started, tok, first);
            }
        });
    }

    private <T> void start(CallFuture<T> out, Pointer state, NewCall make, CallOptions options,
                           MachineCall.Finisher<T> finisher, Consumer<ClientStreamEvent> listener,
                           Consumer<MachineCall<T>> started, String bearer, boolean retryOn401) {
        try {
            // No settings handle when there is nothing to set (NULL: none).
            Pointer settings = bearer == null && (options == null || options.equals(CallOptions.none())) ? null
                : settings(options, bearer);
            Pointer callHandle;
            try {
                Memory o = CALL_OUT.get();
                int rc = make.create(state, settings, MachineCall.nowMs(), o);
                A2aCoreException.check("a2a_call_new", rc);
                callHandle = o.getPointer(0);
            } finally {
                if (settings != null) {
                    lib.a2a_call_settings_free(settings);
                }
            }
            MachineCall<?>[] self = new MachineCall<?>[1];
            MachineCall<T> mc = new MachineCall<>(lib, http, callHandle, finisher, listener, hookCheck(self));
            self[0] = mc;
            mc.result.whenComplete((v, e) -> {
                if (e != null) {
                    out.completeExceptionally(e);
                } else if (retryOn401 && unauthorized(v) && !out.abandoned()) {
                    tokens.invalidate(bearer);
                    attempt(out, state, make, options, finisher, listener, started, false);
                } else {
                    out.complete(v);
                }
            });
            if (started != null) {
                started.accept(mc);
            }
            out.attach(mc);
            if (out.abandoned()) {
                mc.cancel();
            } else {
                mc.start();
            }
        } catch (RuntimeException e) {
            out.completeExceptionally(e);
        }
    }

    /** Whether calls carry an OAuth2 token (a 401 is then retried once with a fresh one). */
    boolean hasOAuth2() {
        return tokens != null;
    }

    /**
     * Whether a finished call's answer is an HTTP 401 (a unary outcome, a stream's end, or a
     * wait's poll the waiter left unread for the retry).
     */
    private static boolean unauthorized(Object v) {
        Outcome o = v instanceof Outcome x ? x
            : v instanceof ClientStreamEvent.End end ? end.outcome()
            : v instanceof TaskWaiter.Polled p && p.kind() == 0 ? p.outcome() : null;
        return o != null && o.httpStatus().isPresent() && o.httpStatus().getAsInt() == 401;
    }

    /** Creates the native call on a state. */
    interface NewCall {
        /** Returns an {@code a2a_result}; writes the call to {@code out}. */
        int create(Pointer state, Pointer settings, long nowMs, Pointer out);
    }

    /** The per-call settings (NULL-free: always a settings handle the caller frees). */
    private Pointer settings(CallOptions c, String bearer) {
        Pointer s = lib.a2a_call_settings_new();
        if (s == null) {
            throw new IllegalStateException("a2a_call_settings_new failed");
        }
        try {
            if (bearer != null) {
                byte[] n = "Authorization".getBytes(StandardCharsets.UTF_8);
                byte[] v = ("Bearer " + bearer).getBytes(StandardCharsets.UTF_8);
                A2aCoreException.check("a2a_call_settings_add_header",
                    lib.a2a_call_settings_add_header(s, n, new SizeT(n.length), v, new SizeT(v.length)));
                Arrays.fill(v, (byte) 0);
            }
        } catch (RuntimeException e) {
            lib.a2a_call_settings_free(s);
            throw e;
        }
        if (c == null) {
            return s;
        }
        try {
            c.timeout().ifPresent(d -> A2aCoreException.check("a2a_call_settings_set(A2A_CALL_OPTION_BUDGET_MS)",
                lib.a2a_call_settings_set(s, AbiEnums.A2A_CALL_OPTION_BUDGET_MS, A2aClient.millis(d))));
            c.idleTimeout().ifPresent(d -> A2aCoreException.check(
                "a2a_call_settings_set(A2A_CALL_OPTION_STREAM_IDLE_TIMEOUT_MS)",
                lib.a2a_call_settings_set(s, AbiEnums.A2A_CALL_OPTION_STREAM_IDLE_TIMEOUT_MS, A2aClient.millis(d))));
            c.traceparent().ifPresent(t -> setText(s, "TRACEPARENT", AbiEnums.A2A_CALL_TEXT_OPTION_TRACEPARENT, t));
            c.idempotencyKey().ifPresent(t ->
                setText(s, "IDEMPOTENCY_KEY", AbiEnums.A2A_CALL_TEXT_OPTION_IDEMPOTENCY_KEY, t));
            c.messageId().ifPresent(t -> setText(s, "MESSAGE_ID", AbiEnums.A2A_CALL_TEXT_OPTION_MESSAGE_ID, t));
            if (c.returnImmediately()) {
                A2aCoreException.check("a2a_call_settings_set(A2A_CALL_OPTION_RETURN_IMMEDIATELY)",
                    lib.a2a_call_settings_set(s, AbiEnums.A2A_CALL_OPTION_RETURN_IMMEDIATELY, 1));
            }
            for (Map.Entry<String, String> h : c.headers()) {
                byte[] n = h.getKey().getBytes(StandardCharsets.UTF_8);
                byte[] v = h.getValue().getBytes(StandardCharsets.UTF_8);
                A2aCoreException.check("a2a_call_settings_add_header",
                    lib.a2a_call_settings_add_header(s, n, new SizeT(n.length), v, new SizeT(v.length)));
            }
        } catch (RuntimeException e) {
            lib.a2a_call_settings_free(s);
            throw e;
        }
        return s;
    }

    /** Sets one text option ({@code a2a_call_text_option} {@code number}, named {@code name}). */
    private void setText(Pointer s, String name, int number, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        A2aCoreException.check("a2a_call_settings_set_text(A2A_CALL_TEXT_OPTION_" + name + ")",
            lib.a2a_call_settings_set_text(s, number, b, new SizeT(b.length)));
    }

    // ------------------------------------------------------------------ params (1.0 ProtoJSON)

    /** {@code SendMessage} params of a user message (the library writes each peer's own form). */
    static byte[] messageParams(List<Answer.Part> parts, Map<String, Object> metadata, CallOptions o) {
        ObjectNode m = MAPPER.createObjectNode();
        m.put("role", "ROLE_USER");
        m.put("messageId", o.messageId().orElseGet(() -> java.util.UUID.randomUUID().toString()));
        ArrayNode ps = m.putArray("parts");
        for (Answer.Part p : parts) {
            ObjectNode n = ps.addObject();
            switch (p.kind()) {
                case TEXT -> n.put("text", p.text());
                case DATA -> n.set("data", MAPPER.valueToTree(p.data()));
                case FILE -> {
                    if (p.bytes() != null) {
                        n.put("raw", Base64.getEncoder().encodeToString(p.bytes()));
                    } else {
                        n.put("url", p.uri());
                    }
                }
            }
            p.mediaType().ifPresent(v -> n.put("mediaType", v));
            p.name().ifPresent(v -> n.put("filename", v));
            if (!p.metadata().isEmpty()) {
                n.set("metadata", MAPPER.valueToTree(p.metadata()));
            }
        }
        o.contextId().ifPresent(v -> m.put("contextId", v));
        o.taskId().ifPresent(v -> m.put("taskId", v));
        if (metadata != null && !metadata.isEmpty()) {
            m.set("metadata", MAPPER.valueToTree(metadata));
        }
        ObjectNode params = MAPPER.createObjectNode();
        params.set("message", m);
        o.historyLength().ifPresent(h -> params.putObject("configuration").put("historyLength", h));
        return params.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Any params map as JSON. */
    static byte[] json(Map<String, Object> params) {
        return MAPPER.valueToTree(params).toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Params of a call about one task ({@code id}, and {@code historyLength} when asked). */
    static byte[] taskParams(String taskId, CallOptions o) {
        ObjectNode params = MAPPER.createObjectNode();
        params.put("id", taskId);
        if (o != null) {
            o.historyLength().ifPresent(h -> params.put("historyLength", h));
        }
        return params.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * CreateTaskPushNotificationConfig params in the 1.0 flat form ({@code taskId}, {@code url},
     * {@code id}, {@code token}, {@code authentication}); the machine writes each version's envelope.
     */
    static byte[] pushConfigParams(PushConfig c) {
        ObjectNode params = MAPPER.createObjectNode();
        params.put("taskId", c.taskId());
        params.put("url", c.url());
        if (!c.id().isEmpty()) {
            params.put("id", c.id());
        }
        c.token().ifPresent(t -> params.put("token", t));
        c.authentication().ifPresent(a -> {
            ObjectNode auth = params.putObject("authentication");
            ArrayNode schemes = auth.putArray("schemes");
            a.schemes().forEach(schemes::add);
            if (!a.credentials().isEmpty()) {
                auth.put("credentials", a.credentials());
            }
        });
        return params.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Params naming a task's push config ({@code taskId}, and {@code id} when not null). */
    static byte[] pushRefParams(String taskId, String configId) {
        ObjectNode params = MAPPER.createObjectNode();
        params.put("taskId", taskId);
        if (configId != null) {
            params.put("id", configId);
        }
        return params.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The answer of a response body that succeeded: the JSON-RPC {@code result}, or the body; null if none. */
    private static JsonNode answer(Outcome outcome, byte[] body) {
        return body == null || !outcome.isSuccess() ? null : resultOf(body);
    }

    /** The answer in a response body: the JSON-RPC {@code result}, or the body itself; null when it does not read. */
    private static JsonNode resultOf(byte[] body) {
        try {
            JsonNode n = MAPPER.readTree(body);
            return n != null && n.has("jsonrpc") ? n.path("result") : n;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    /** The push config of a create/get answer, when the call succeeded and the answer reads. */
    static Optional<PushConfig> pushConfig(Outcome outcome, byte[] body) {
        JsonNode n = answer(outcome, body);
        return n != null && n.isObject() ? Optional.of(pushConfigOf(n)) : Optional.empty();
    }

    /** The push configs of a list answer: 0.3 an array, 1.0 {@code {configs, nextPageToken}}. */
    static List<PushConfig> pushConfigs(Outcome outcome, byte[] body) {
        JsonNode n = answer(outcome, body);
        if (n == null) {
            return List.of();
        }
        JsonNode list = n.isArray() ? n : n.path("configs");
        List<PushConfig> out = new ArrayList<>();
        for (JsonNode c : list) {
            if (c.isObject()) {
                out.add(pushConfigOf(c));
            }
        }
        return List.copyOf(out);
    }

    /**
     * One push config in any shape an agent answers: 1.0 flat ({@code id, taskId, url, ...}),
     * nested ({@code taskId, pushNotificationConfig}), 0.3 REST ({@code name:
     * tasks/{task}/pushNotificationConfigs/{id}}).
     */
    private static PushConfig pushConfigOf(JsonNode j) {
        JsonNode src = j.path("pushNotificationConfig").isObject() ? j.path("pushNotificationConfig") : j;
        String taskId = j.path("taskId").asText("");
        String id = src.path("id").asText("");
        String name = j.path("name").asText("");
        if (taskId.isEmpty() && name.startsWith("tasks/")) {
            String rest = name.substring("tasks/".length());
            int slash = rest.indexOf('/');
            taskId = slash < 0 ? rest : rest.substring(0, slash);
            if (id.isEmpty() && rest.lastIndexOf('/') >= 0) {
                id = rest.substring(rest.lastIndexOf('/') + 1);
            }
        }
        Optional<String> token = src.hasNonNull("token") && !src.get("token").asText().isEmpty()
            ? Optional.of(src.get("token").asText()) : Optional.empty();
        Optional<PushConfig.Authentication> auth = Optional.empty();
        JsonNode a = src.path("authentication");
        if (a.isObject()) {
            List<String> schemes = new ArrayList<>();
            for (JsonNode s : a.path("schemes")) {
                schemes.add(s.asText());
            }
            if (schemes.isEmpty() && a.hasNonNull("scheme")) {
                schemes.add(a.get("scheme").asText()); // 1.0 writes one scheme
            }
            auth = Optional.of(new PushConfig.Authentication(schemes, a.path("credentials").asText("")));
        }
        return new PushConfig(taskId, id, src.path("url").asText(""), token, auth);
    }

    /** Reads {@code {tasks, nextPageToken}} from a ListTasks body (JSON-RPC envelope or REST). */
    static TaskPage page(Outcome outcome, byte[] body) {
        if (body == null || !outcome.isSuccess() && outcome.channel() != Channel.TASK) {
            return new TaskPage(outcome, List.of(), Optional.empty());
        }
        JsonNode n = resultOf(body);
        if (n == null) {
            return new TaskPage(outcome, List.of(), Optional.empty());
        }
        List<Map<String, Object>> tasks = new ArrayList<>();
        for (JsonNode t : n.path("tasks")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = MAPPER.convertValue(t, Map.class);
            tasks.add(m);
        }
        JsonNode tok = n.get("nextPageToken");
        Optional<String> next = tok == null || tok.isNull() || tok.asText().isEmpty() ? Optional.empty()
            : Optional.of(tok.asText());
        return new TaskPage(outcome, List.copyOf(tasks), next);
    }

    /** The card in an extended-card response body (the JSON-RPC {@code result}, or the body). */
    static Optional<String> cardJson(Outcome outcome, byte[] body) {
        if (body == null || !outcome.isSuccess()) {
            return Optional.empty();
        }
        JsonNode n = resultOf(body);
        return n != null && n.isObject() ? Optional.of(n.toString()) : Optional.empty();
    }

    /** The outcome of a finished call, kept readable (model text) until it is unreachable. */
    static Outcome finishedOutcome(A2aCoreLibrary lib, Machine.Event ev, Runnable release) {
        if (ev.outcome == null) {
            release.run();
            throw new IllegalStateException("a finished call without an outcome");
        }
        return Outcome.keepingOwner(lib, ev.outcome, release);
    }

    /** Frees the state and config; calls in flight keep their own reference. Idempotent. */
    void close() {
        synchronized (this) {
            cleanable.clean();
            OAuth2Tokens t = tokens;
            if (t != null) {
                t.close();
            }
        }
    }
}
