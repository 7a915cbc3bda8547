package dev.a2acore.a2ajava;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.a2acore.A2aCoreException;
import dev.a2acore.Asked;
import dev.a2acore.Binding;
import dev.a2acore.Channel;
import dev.a2acore.ErrorName;
import dev.a2acore.MachineTarget;
import dev.a2acore.Outcomes;
import dev.a2acore.RequestSent;
import dev.a2acore.SseConfig;
import dev.a2acore.Outcome;
import dev.a2acore.ProtocolVersion;
import io.a2a.client.http.A2AHttpClient;
import io.a2a.client.http.A2AHttpResponse;
import io.a2a.spec.JSONRPCError;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A drop-in {@link A2AHttpClient} for a2a-java 0.3.x (the version ADK-Java pins), to pass to
 * {@code new JSONRPCTransportConfig(client)} or {@code new A2ACardResolver(client, url)}.
 *
 * <p>What it does differently from the SDK's {@code JdkA2AHttpClient}:
 * <ul>
 *   <li>a connect timeout, and a call timeout on every request (for a plain call the whole
 *       exchange, body included; for a stream, until the response headers);</li>
 *   <li>never follows redirects: a 3xx fails the call with an {@link A2aCallException}
 *       ({@link ErrorName#REDIRECT}) carrying the status and {@code Location};</li>
 *   <li>SSE through a2a-core's decoder: {@code data:} lines of one event are joined, CR, LF
 *       and CRLF line ends, comments, {@code id:} and {@code retry:} handled, one message per
 *       event; a non-SSE 2xx body other than a JSON-RPC error is delivered as one message;</li>
 *   <li>an idle watchdog on streams: no bytes (not even a keep-alive comment) for the idle
 *       timeout fails the stream with {@link ErrorName#TIMEOUT};</li>
 *   <li>exactly one terminal signal per stream, also as the application sees it through
 *       a2a-java's {@code Client}: {@code completeRunnable} on a clean end (or when the caller
 *       cancels the returned future after its final event), else {@code errorConsumer} once;
 *       a JSON-RPC error in or instead of the stream ends it through {@code errorConsumer}
 *       with the typed {@code JSONRPCError} a2a-java would make (a2a-java's listener, handed
 *       the error as a message, would report it and then the clean end as a second signal);</li>
 *   <li>every failure classified by a2a-core as an {@link A2aCallException} in the cause
 *       chain of what a2a-java throws or hands the error handler, plain calls included: a
 *       non-2xx answer to a JSON-RPC call throws it from {@code post()} (a2a-java's transport
 *       would keep only the status), a JSON-RPC error answer throws the
 *       {@code A2AClientException} the transport would, with it as the root cause;</li>
 *   <li>401/403 give the stock client's {@link IOException} and messages, the classified
 *       failure (advice {@code reauthenticate}) as its cause;</li>
 *   <li>optional {@link HeaderHook}s that set headers (credentials, {@code traceparent}) on
 *       every request;</li>
 *   <li>no blind resend: a request is sent once; a 502/504, a timeout or a dropped connection
 *       is reported (its outcome says {@code unknown_outcome} for a send), never replayed, so a
 *       gateway error cannot book twice (a2a-java decides about retries, with the messageId);</li>
 *   <li>an optional circuit breaker ({@link Builder#breaker}): the core client machine's,
 *       one per agent (per JSON-RPC interface URL and protocol version; a REST stream's per
 *       origin, {@code scheme://host:port}), shared
 *       by every thread and transport using this client; while open, A2A calls (JSON-RPC
 *       POSTs) fail at once with an {@link A2aCallException} ({@link ErrorName#CIRCUIT_OPEN},
 *       request not sent) instead of costing a timeout.</li>
 *   <li>the JVM's network settings: its trust store ({@code javax.net.ssl.trustStore} or the
 *       default {@code cacerts}), its key store for client certificates
 *       ({@code javax.net.ssl.keyStore}) and its proxy choice ({@code ProxySelector.getDefault()},
 *       {@code http.nonProxyHosts}), read when the client is built ({@link Builder#network}
 *       to set them instead).</li>
 * </ul>
 * Transport: a plain JSON-RPC call (a2a-java's {@code post()}) is a call of the core's client
 * machine run on the reference driver's native transport ({@code a2a_call_run}): the machine
 * builds the request from a2a-java's method, params and id (a2a-java's headers, its
 * interceptors' and the hooks' passed on), sends it under its connect and call deadlines and
 * the breaker, never follows a redirect, bounds the body, and judges the answer; a2a-java
 * gets the response body as it came. Streams and every other request (the card's GET, REST
 * calls) go out on the JDK's {@code java.net.http.HttpClient} (as the stock client's do),
 * with a2a-java's own bytes,
 * the body bytes of a stream to a2a-core's SSE decoder; each JSON-RPC or REST stream is
 * also a call of the client machine ({@link MachineTarget}, see {@code MachineRun}), handed
 * the response to classify each event, follow the task and keep the breaker. A plain call blocks the calling
 * thread (a2a-java's synchronous API); a stream is read on one daemon thread per stream,
 * and cancelling its future aborts the connection at once.
 */
public final class A2aCoreHttpClient implements A2AHttpClient {
    /** Default connect timeout (the project's driver's). */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(3);
    /**
     * Default call timeout (a whole plain exchange; a stream's response headers): 30 s, so
     * that a hung agent is given up well inside what a caller above a2a-java waits (a
     * tool call of ADK, the conformance kit's 90 s including the JVM's start).
     */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);
    /**
     * Default stream idle timeout: 30 s, twice the keep-alive interval of the Python A2A
     * server (15 s), so a silent stream is given up while a live one never is.
     */
    public static final Duration DEFAULT_STREAM_IDLE_TIMEOUT = Duration.ofSeconds(30);
    /** Default limit on a plain response body. */
    public static final long DEFAULT_MAX_RESPONSE_BYTES = 16L * 1024 * 1024;

    private static final Cleaner CLEANER = Cleaner.create();

    /** The JDK HttpClient streams, the card's GET and REST calls go out on. */
    final JdkHttp http;
    /** The native transport the client machine performs A2A calls on ({@code a2a_call_run}). */
    final MachineTarget.Transport transport;
    final Duration connectTimeout;
    final Duration callTimeout;
    final Duration streamIdleTimeout;
    final Duration streamTimeout;
    final long maxResponseBytes;
    final SseConfig sseConfig;
    private final List<HeaderHook> hooks;
    /** The core's client machine options (timeouts, body limit, breaker) of every target. */
    private final MachineTarget.Config machine;
    /**
     * One machine target per agent (its JSON-RPC interface URL; for REST streams, its origin)
     * and protocol version: its breaker is the agent's.
     */
    private final java.util.concurrent.ConcurrentHashMap<String, MachineTarget> targets =
        new java.util.concurrent.ConcurrentHashMap<>();

    /** A client with the default timeouts and no header hooks. */
    public A2aCoreHttpClient() {
        this(builder());
    }

    private A2aCoreHttpClient(Builder b) {
        this.connectTimeout = b.connectTimeout;
        this.callTimeout = b.callTimeout;
        this.streamIdleTimeout = b.streamIdleTimeout;
        this.streamTimeout = b.streamTimeout;
        this.maxResponseBytes = b.maxResponseBytes;
        this.sseConfig = b.sseConfig;
        this.hooks = List.copyOf(b.hooks);
        // Load liba2a_core now: a missing or mismatched library fails here, on the caller's
        // thread, not later inside an HTTP callback.
        dev.a2acore.A2aCore.checkLoaded();
        // An invalid breaker configuration fails here, not on the first request.
        MachineTarget.Builder mb = MachineTarget.builder().connectTimeout(connectTimeout).callTimeout(callTimeout)
            .streamIdleTimeout(streamIdleTimeout).maxResponseBytes(maxResponseBytes);
        if (b.breaker != null) {
            mb.breaker(b.breaker);
        }
        this.machine = mb.build();
        if (b.network != null) {
            this.http = new JdkHttp(connectTimeout, JvmNetwork.pemSsl(b.network), JvmNetwork.proxyOf(b.network));
            this.transport = new MachineTarget.Transport(connectTimeout, maxResponseBytes, b.network);
        } else {
            // The JVM's trust store, key store and proxy choice, read now (see JvmNetwork); the
            // temporary PEM files are deleted once the native transport has read them.
            try (JvmNetwork jvm = JvmNetwork.current()) {
                this.transport = new MachineTarget.Transport(connectTimeout, maxResponseBytes, jvm.network);
            }
            this.http = new JdkHttp(connectTimeout, JvmNetwork.jvmSsl(), java.net.ProxySelector.getDefault());
        }
        // The native transport (its connection pool) is freed once this client and every
        // call using it are unreachable: A2AHttpClient has no close().
        MachineTarget.Transport machineTransport = this.transport;
        CLEANER.register(this, machineTransport::close);
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Settings of an {@link A2aCoreHttpClient}. */
    public static final class Builder {
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
        private Duration streamIdleTimeout = DEFAULT_STREAM_IDLE_TIMEOUT;
        private Duration streamTimeout;
        private long maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
        private SseConfig sseConfig = SseConfig.defaults();
        private final List<HeaderHook> hooks = new ArrayList<>();
        private dev.a2acore.BreakerConfig breaker;
        private MachineTarget.Network network;

        private Builder() {}

        /**
         * Network settings instead of the JVM's (default: the JVM's trust store, key store
         * and default proxy selector, read when the client is built).
         */
        public Builder network(MachineTarget.Network settings) {
            network = Objects.requireNonNull(settings);
            return this;
        }

        /** TCP connect timeout (default 3 s). */
        public Builder connectTimeout(Duration d) {
            connectTimeout = positive(d, "connectTimeout");
            return this;
        }

        /** Whole plain exchange, body included; for a stream, until the headers (default 30 s). */
        public Builder callTimeout(Duration d) {
            callTimeout = positive(d, "callTimeout");
            return this;
        }

        /** Longest silence on a stream, keep-alive comments counting as activity (default 30 s). */
        public Builder streamIdleTimeout(Duration d) {
            streamIdleTimeout = positive(d, "streamIdleTimeout");
            return this;
        }

        /** Longest total duration of a stream (default: none). */
        public Builder streamTimeout(Duration d) {
            streamTimeout = positive(d, "streamTimeout");
            return this;
        }

        /** Largest plain response body, in bytes (default 16 MiB). */
        public Builder maxResponseBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxResponseBytes must be positive");
            }
            maxResponseBytes = bytes;
            return this;
        }

        /** SSE decoder limits (default 16 MiB lines and events). */
        public Builder sseConfig(SseConfig config) {
            sseConfig = Objects.requireNonNull(config).withDispatchAtEof(false);
            return this;
        }

        /** Adds a hook run on every request, in the order added. */
        public Builder headerHook(HeaderHook hook) {
            hooks.add(Objects.requireNonNull(hook));
            return this;
        }

        /**
         * Turns on a circuit breaker per agent (per JSON-RPC interface URL and protocol
         * version, the client machine's; a REST stream's per origin): while open, A2A calls to that agent fail at once with
         * {@link ErrorName#CIRCUIT_OPEN} (request not sent); the card's GET and REST calls
         * are not judged by it.
         */
        public Builder breaker(dev.a2acore.BreakerConfig config) {
            breaker = Objects.requireNonNull(config, "config");
            return this;
        }

        /** The client. */
        public A2aCoreHttpClient build() {
            return new A2aCoreHttpClient(this);
        }

        private static Duration positive(Duration d, String what) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + d);
            }
            return d;
        }
    }

    @Override
    public GetBuilder createGet() {
        return new Get();
    }

    @Override
    public PostBuilder createPost() {
        return new Post();
    }

    @Override
    public DeleteBuilder createDelete() {
        return new Delete();
    }

    /** A plain response: status, body as UTF-8. */
    record Response(int status, String body) implements A2AHttpResponse {
        @Override
        public boolean success() {
            return status >= 200 && status < 300;
        }
    }

    private abstract class Base<T extends A2AHttpClient.Builder<T>> {
        String url = "";
        final Map<String, String> headers = new LinkedHashMap<>();

        public T url(String s) {
            url = s;
            return self();
        }

        public T addHeaders(Map<String, String> h) {
            if (h != null) {
                h.forEach(this::addHeader);
            }
            return self();
        }

        public T addHeader(String name, String value) {
            headers.put(name, value);
            return self();
        }

        @SuppressWarnings("unchecked")
        T self() {
            return (T) this;
        }

        /** The request as sent: the URL checked, hooks run, headers in order. */
        Req build(String method, String body, boolean sse) throws IOException {
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException e) {
                throw new IOException("invalid URL " + url + ": " + e.getMessage(), e);
            }
            if (uri.getScheme() == null || uri.getHost() == null) {
                throw new IOException("invalid URL " + url + ": not absolute");
            }
            Map<String, String> h = new LinkedHashMap<>(headers);
            if (sse && h.keySet().stream().noneMatch("Accept"::equalsIgnoreCase)) {
                h.put("Accept", "text/event-stream");
            }
            for (HeaderHook hook : hooks) {
                hook.apply(method, uri, h);
            }
            return new Req(method, url, List.copyOf(h.entrySet().stream().map(e -> Map.entry(e.getKey(), e.getValue()))
                .toList()), body == null ? null : body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** One request for the driver. */
    record Req(String method, String url, List<Map.Entry<String, String>> headers, byte[] body) {}

    private final class Get extends Base<GetBuilder> implements GetBuilder {
        @Override
        public A2AHttpResponse get() throws IOException, InterruptedException {
            return exchange(build("GET", null, false), null);
        }

        @Override
        public CompletableFuture<Void> getAsyncSSE(Consumer<String> messageConsumer, Consumer<Throwable> errorConsumer,
                                                   Runnable completeRunnable) throws IOException {
            return SseCall.start(A2aCoreHttpClient.this, build("GET", null, true), Asked.unknown(), messageConsumer,
                errorConsumer, completeRunnable);
        }
    }

    private final class Post extends Base<PostBuilder> implements PostBuilder {
        private String body = "";

        @Override
        public PostBuilder body(String b) {
            body = b == null ? "" : b;
            return this;
        }

        @Override
        public A2AHttpResponse post() throws IOException, InterruptedException {
            Req r = build("POST", body, false);
            Optional<MachineRun.Rpc> rpc = MachineRun.Rpc.of(r.body());
            return rpc.isPresent() ? call(r, rpc.get()) : exchange(r, asked(body));
        }

        @Override
        public CompletableFuture<Void> postAsyncSSE(Consumer<String> messageConsumer, Consumer<Throwable> errorConsumer,
                                                    Runnable completeRunnable) throws IOException {
            return SseCall.start(A2aCoreHttpClient.this, build("POST", body, true), asked(body), messageConsumer,
                errorConsumer, completeRunnable);
        }
    }

    private final class Delete extends Base<DeleteBuilder> implements DeleteBuilder {
        @Override
        public A2AHttpResponse delete() throws IOException, InterruptedException {
            return exchange(build("DELETE", null, false), null);
        }
    }

    /**
     * The client machine's call judging request {@code r}, on the target of the agent at its
     * URL (its origin) in the request's protocol version and binding: a JSON-RPC POST of a
     * method the core knows, or a REST stream (a streaming send, a subscribe); null for any
     * other request (the card's GET, REST calls with a whole body), which goes out unjudged.
     */
    MachineRun judge(Req r) {
        URI u = URI.create(r.url());
        String origin = u.getScheme() + "://" + u.getRawAuthority();
        Optional<MachineRun.Rpc> rpc = "POST".equals(r.method()) ? MachineRun.Rpc.of(r.body()) : Optional.empty();
        if (rpc.isPresent()) {
            return MachineRun.start(jsonRpcTarget(r.url(), rpc.get().version()), rpc.get());
        }
        Optional<MachineRun.Rest> rest = MachineRun.Rest.of(r.method(), u.getPath());
        if (rest.isEmpty()) {
            return null;
        }
        MachineTarget target = targets.computeIfAbsent(origin + " " + rest.get().version() + " rest",
            k -> machine.target(origin + "/", rest.get().version(), Binding.HTTP_JSON));
        return MachineRun.startRest(target, rest.get());
    }

    /**
     * The machine target of the agent whose JSON-RPC interface is {@code url}, in
     * {@code version}: the machine sends its requests there, and its breaker is that agent's.
     */
    MachineTarget jsonRpcTarget(String url, ProtocolVersion version) {
        return targets.computeIfAbsent(url + " " + version, k -> machine.target(url, version, Binding.JSON_RPC));
    }

    /**
     * One JSON-RPC call of a2a-java made by the core's client machine ({@code a2a_call_run}):
     * the machine builds the request from a2a-java's method, params and id (with a2a-java's
     * headers, see {@link MachineRun#forwarded}), sends it on the native transport under its
     * deadlines and breaker, and judges the answer; a2a-java gets the response body as it
     * came, with the same signals as {@link #exchange} gives.
     */
    private A2AHttpResponse call(Req r, MachineRun.Rpc rpc) throws IOException, InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Asked posted = rpc.asked();
        MachineTarget.Finished f;
        MachineTarget.Call call;
        try {
            call = jsonRpcTarget(r.url(), rpc.version()).start(rpc.method(), rpc.params(), rpc.id(),
                MachineRun.forwarded(r.headers()));
        } catch (A2aCoreException e) {
            throw MachineRun.unreadableParams(r.method(), r.url(), rpc, e);
        }
        try (call) {
            f = MachineRun.runToEnd(call, transport);
        } finally {
            // Keeps this client (whose Cleaner frees the native transport) alive during the call.
            java.lang.ref.Reference.reachabilityFence(this);
        }
        Outcome o = f.outcome();
        if (f.responseStatus().isEmpty()) {
            throw noResponse(r.method(), r.url(), o);
        }
        int status = f.responseStatus().getAsInt();
        byte[] body = f.responseBody() == null ? new byte[0] : f.responseBody();
        if (isRedirect(status)) {
            throw A2aCallException.redirect(r.method(), r.url(), status, o);
        }
        String text = new String(body, StandardCharsets.UTF_8);
        boolean success = status >= 200 && status < 300;
        if (!success) {
            A2aCallException e = A2aCallException.httpStatus("Request failed " + status, r.method(), r.url(), status,
                o, SseCall.excerpt(body));
            throw A2aJavaSignals.isAuthStatus(status) ? A2aJavaSignals.authFailure(status, e) : e;
        }
        // MALFORMED too: an error with a wrong id is still an error to a2a-java's transport.
        if (o.channel() == Channel.PROTOCOL || o.channel() == Channel.MALFORMED) {
            A2aCallException cause = A2aCallException.protocol(r.method(), r.url(), status, o, SseCall.excerpt(body));
            Optional<JSONRPCError> error = A2aJavaSignals.jsonRpcError(text, cause);
            if (error.isPresent()) {
                throw A2aJavaSignals.asTransportThrows(error.get());
            }
        }
        return new Response(status, text);
    }

    /**
     * A machine call that ended without a response: the breaker refused it, a request the
     * machine would not send (a reserved header), or a transport failure (the outcome says
     * which deadline fired and whether the request went out).
     */
    A2aCallException noResponse(String method, String url, Outcome o) {
        ErrorName name = o.errorName().orElse(null);
        if (name == ErrorName.CIRCUIT_OPEN) {
            return A2aCallException.transport(o, null, null, method + " " + url + ": circuit breaker open; request not sent");
        }
        A2aCallException.Deadline which = null;
        if (name == ErrorName.TIMEOUT) {
            String m = o.message().orElse("");
            which = m.contains("connect timeout") ? A2aCallException.Deadline.CONNECT
                : m.contains("idle") ? A2aCallException.Deadline.STREAM_IDLE : A2aCallException.Deadline.CALL;
        }
        return A2aCallException.transport(o, which, null, method + " " + url + ": " + o.message().orElse("transport failure"));
    }

    /** Asks the machine (the agent's breaker) whether {@code run}'s request may go out; throws the refusal. */
    static void admit(MachineRun run, String method, String url) throws A2aCallException {
        if (run == null) {
            return;
        }
        Optional<Outcome> refused = run.admit();
        if (refused.isPresent()) {
            Outcome o = refused.get();
            String why = o.errorName().orElse(null) == ErrorName.CIRCUIT_OPEN ? "circuit breaker open"
                : o.message().orElse("refused by the client machine");
            throw A2aCallException.transport(o, null, null, method + " " + url + ": " + why + "; request not sent");
        }
    }

    /**
     * One plain exchange under the call deadline (headers and body), never following a 3xx.
     * {@code posted} is what a POST's body asks (null for GET and DELETE). What a2a-java gets:
     * <ul>
     *   <li>a POST answered 401/403: the stock client's {@link IOException} (same message),
     *       the classified failure ({@code reauthenticate}) as its cause;</li>
     *   <li>a JSON-RPC POST answered non-2xx: {@link A2aCallException} ("Request failed 502:
     *       ..."): {@code JSONRPCTransport} would keep only the status and drop the body;</li>
     *   <li>a JSON-RPC POST answered 2xx with a JSON-RPC error: the {@code A2AClientException}
     *       {@code JSONRPCTransport} would throw for it (same message, same typed
     *       {@code JSONRPCError} cause), the classified failure as that error's cause;</li>
     *   <li>anything else (a success, the card's GET, a REST call, whose callers read status
     *       and body themselves): the response as it came.</li>
     * </ul>
     */
    private A2AHttpResponse exchange(Req r, Asked posted) throws IOException, InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        JdkHttp.Response response;
        Outcome judged = null;
        try (MachineRun run = judge(r)) {
            admit(run, r.method(), r.url());
            try {
                response = http.exchange(r.method(), r.url(), r.headers(), r.body(), callTimeout, maxResponseBytes);
            } catch (JdkHttp.TransportException e) {
                if (run != null) {
                    run.failure(e.outcome());
                }
                throw map(r.method(), r.url(), e);
            }
            if (run != null) {
                // The machine classifies the answer (and records it on the agent's breaker).
                run.head(response);
                run.body(response.body());
                run.end();
                judged = run.finished().map(MachineTarget.Finished::outcome).orElse(null);
            }
        }
        int status = response.status();
        if (isRedirect(status)) {
            throw A2aCallException.redirect(r.method(), r.url(), status, response.header("location").orElse(null));
        }
        byte[] body = response.body();
        String text = new String(body, StandardCharsets.UTF_8);
        if (posted == null) {
            return new Response(status, text);
        }
        boolean jsonRpc = posted.binding().filter(bd -> bd == Binding.JSON_RPC).isPresent();
        boolean success = status >= 200 && status < 300;
        if (A2aJavaSignals.isAuthStatus(status) || (jsonRpc && !success)) {
            A2aCallException e = A2aCallException.httpStatus("Request failed " + status, r.method(), r.url(), status,
                response.header("content-type").orElse(null), response.header("retry-after").orElse(null), body,
                SseCall.excerpt(body), posted);
            throw A2aJavaSignals.isAuthStatus(status) ? A2aJavaSignals.authFailure(status, e) : e;
        }
        if (jsonRpc) {
            Outcome o = judged != null ? judged : Outcomes.classify(status, response.header("content-type").orElse(null),
                response.header("retry-after").orElse(null), body, posted);
            // MALFORMED too: an error with a wrong id is still an error to a2a-java's transport.
            if (o.channel() == Channel.PROTOCOL || o.channel() == Channel.MALFORMED) {
                A2aCallException cause = A2aCallException.protocol(r.method(), r.url(), status, o, SseCall.excerpt(body));
                Optional<JSONRPCError> error = A2aJavaSignals.jsonRpcError(text, cause);
                if (error.isPresent()) {
                    throw A2aJavaSignals.asTransportThrows(error.get());
                }
            }
        }
        return new Response(status, text);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a JSON-RPC request body asks (method and id), for a2a-core's classifier. */
    static Asked asked(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            if (n == null || !n.isObject() || !n.path("jsonrpc").isTextual()) {
                return Asked.unknown();
            }
            JsonNode id = n.get("id");
            return Asked.jsonRpc(null, n.path("method").isTextual() ? n.get("method").asText() : null,
                id == null || id.isNull() || id.isContainerNode() ? null : id.asText());
        } catch (IOException e) {
            return Asked.unknown();
        }
    }

    static boolean isRedirect(int status) {
        return status >= 300 && status < 400 && status != 304;
    }

    A2aCallException timeout(A2aCallException.Deadline which, String message, Throwable cause) {
        RequestSent sent = which == A2aCallException.Deadline.CONNECT ? RequestSent.NO : RequestSent.UNKNOWN;
        return A2aCallException.transport(Outcomes.transport(ErrorName.TIMEOUT, sent, message), which, cause);
    }

    /**
     * Maps the driver's transport outcome to a typed failure: which deadline fired is read
     * from the outcome (a connect timeout never sent the request).
     */
    A2aCallException map(String method, String url, JdkHttp.TransportException e) {
        Outcome o = e.outcome();
        A2aCallException.Deadline which = null;
        if (o.errorName().orElse(null) == ErrorName.TIMEOUT) {
            String m = o.message().orElse("");
            which = m.contains("connect timeout") ? A2aCallException.Deadline.CONNECT
                : m.contains("idle") ? A2aCallException.Deadline.STREAM_IDLE : A2aCallException.Deadline.CALL;
        }
        return A2aCallException.transport(o, which, e, method + " " + url + ": " + o.message().orElse("transport failure"));
    }
}
