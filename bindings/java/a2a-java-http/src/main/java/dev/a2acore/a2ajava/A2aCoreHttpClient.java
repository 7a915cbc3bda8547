package dev.a2acore.a2ajava;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.a2acore.Asked;
import dev.a2acore.ErrorName;
import dev.a2acore.Outcomes;
import dev.a2acore.RequestSent;
import dev.a2acore.SseConfig;
import io.a2a.client.http.A2AHttpClient;
import io.a2a.client.http.A2AHttpResponse;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

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
 *       event; a non-SSE 2xx body (an up-front JSON-RPC error) is delivered as one message;</li>
 *   <li>an idle watchdog on streams: no bytes (not even a keep-alive comment) for the idle
 *       timeout fails the stream with {@link ErrorName#TIMEOUT};</li>
 *   <li>exactly one terminal signal per stream: {@code completeRunnable} on a clean end (or
 *       when the caller cancels the returned future after its final event), or
 *       {@code errorConsumer} with an {@link A2aCallException} saying what went wrong;</li>
 *   <li>optional {@link HeaderHook}s that set headers (credentials, {@code traceparent}) on
 *       every request.</li>
 * </ul>
 * Transport: {@link java.net.http.HttpClient} (HTTP/1.1, {@code Redirect.NEVER}); the body
 * bytes of a stream go to a2a-core's SSE decoder through JNA.
 */
public final class A2aCoreHttpClient implements A2AHttpClient {
    /** Default connect timeout. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Default call timeout (a whole plain exchange; a stream's response headers). */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(60);
    /** Default stream idle timeout: the Python A2A server sends a keep-alive every 15 s. */
    public static final Duration DEFAULT_STREAM_IDLE_TIMEOUT = Duration.ofSeconds(60);
    /** Default limit on a plain response body. */
    public static final long DEFAULT_MAX_RESPONSE_BYTES = 16L * 1024 * 1024;

    static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "a2a-core-stream-watchdog");
        t.setDaemon(true);
        return t;
    });

    final HttpClient http;
    final Duration connectTimeout;
    final Duration callTimeout;
    final Duration streamIdleTimeout;
    final Duration streamTimeout;
    final long maxResponseBytes;
    final SseConfig sseConfig;
    private final List<HeaderHook> hooks;

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
        this.http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(connectTimeout)
            .build();
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

        private Builder() {}

        /** TCP connect timeout (default 10 s). */
        public Builder connectTimeout(Duration d) {
            connectTimeout = positive(d, "connectTimeout");
            return this;
        }

        /** Whole plain exchange, body included; for a stream, until the headers (default 60 s). */
        public Builder callTimeout(Duration d) {
            callTimeout = positive(d, "callTimeout");
            return this;
        }

        /** Longest silence on a stream, keep-alive comments counting as activity (default 60 s). */
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

        HttpRequest build(String method, HttpRequest.BodyPublisher body, boolean sse) throws IOException {
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException e) {
                throw new IOException("invalid URL " + url + ": " + e.getMessage(), e);
            }
            Map<String, String> h = new LinkedHashMap<>(headers);
            if (sse && h.keySet().stream().noneMatch("Accept"::equalsIgnoreCase)) {
                h.put("Accept", "text/event-stream");
            }
            for (HeaderHook hook : hooks) {
                hook.apply(method, uri, h);
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(callTimeout).method(method, body);
            h.forEach(b::header);
            return b.build();
        }
    }

    private final class Get extends Base<GetBuilder> implements GetBuilder {
        @Override
        public A2AHttpResponse get() throws IOException, InterruptedException {
            return exchange("GET", url, build("GET", HttpRequest.BodyPublishers.noBody(), false));
        }

        @Override
        public CompletableFuture<Void> getAsyncSSE(Consumer<String> messageConsumer, Consumer<Throwable> errorConsumer,
                                                   Runnable completeRunnable) throws IOException {
            return SseCall.start(A2aCoreHttpClient.this, "GET", url,
                build("GET", HttpRequest.BodyPublishers.noBody(), true), Asked.unknown(), messageConsumer, errorConsumer,
                completeRunnable);
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
            return exchange("POST", url, build("POST", HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8), false));
        }

        @Override
        public CompletableFuture<Void> postAsyncSSE(Consumer<String> messageConsumer, Consumer<Throwable> errorConsumer,
                                                    Runnable completeRunnable) throws IOException {
            return SseCall.start(A2aCoreHttpClient.this, "POST", url,
                build("POST", HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8), true),
                asked(body), messageConsumer, errorConsumer, completeRunnable);
        }
    }

    private final class Delete extends Base<DeleteBuilder> implements DeleteBuilder {
        @Override
        public A2AHttpResponse delete() throws IOException, InterruptedException {
            return exchange("DELETE", url, build("DELETE", HttpRequest.BodyPublishers.noBody(), false));
        }
    }

    /** One plain exchange under the call deadline (headers and body), never following a 3xx. */
    private A2AHttpResponse exchange(String method, String url, HttpRequest request)
        throws IOException, InterruptedException {
        long deadline = System.nanoTime() + callTimeout.toNanos();
        AtomicReference<BodyCollector> collector = new AtomicReference<>();
        CompletableFuture<HttpResponse<byte[]>> f = http.sendAsync(request, info -> {
            BodyCollector c = new BodyCollector(isRedirect(info.statusCode()) ? -1 : maxResponseBytes, () -> {});
            collector.set(c);
            return c;
        });
        HttpResponse<byte[]> response;
        try {
            response = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            BodyCollector c = collector.get();
            if (c != null) {
                c.cancel();
            }
            f.cancel(true);
            throw timeout(A2aCallException.Deadline.CALL, method + " " + url + ": no complete response within "
                + callTimeout.toMillis() + " ms (call timeout)", e);
        } catch (InterruptedException e) {
            BodyCollector c = collector.get();
            if (c != null) {
                c.cancel();
            }
            f.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            throw map(method, url, e.getCause());
        }
        int status = response.statusCode();
        if (isRedirect(status)) {
            throw A2aCallException.redirect(method, url, status, response.headers().firstValue("Location").orElse(null));
        }
        return new Response(status, new String(response.body(), StandardCharsets.UTF_8));
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a JSON-RPC request body asks (method and id), for a2a-core's stream tracker. */
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

    /** Maps a failure of the JDK client to a typed transport failure. */
    A2aCallException map(String method, String url, Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof A2aCallException e) {
            return e;
        }
        String what = method + " " + url + ": ";
        if (t instanceof HttpConnectTimeoutException) {
            return timeout(A2aCallException.Deadline.CONNECT, what + "not connected within "
                + connectTimeout.toMillis() + " ms (connect timeout)", t);
        }
        if (t instanceof HttpTimeoutException) {
            return timeout(A2aCallException.Deadline.CALL, what + "no response within "
                + callTimeout.toMillis() + " ms (call timeout)", t);
        }
        if (t instanceof BodyCollector.TooLarge) {
            return A2aCallException.transport(Outcomes.transport(ErrorName.RESPONSE_TOO_LARGE, RequestSent.UNKNOWN,
                what + t.getMessage()), null, t);
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ConnectException) {
                return A2aCallException.transport(Outcomes.transport(ErrorName.CONNECT_FAILED, RequestSent.NO,
                    what + "connection failed" + (c.getMessage() == null ? "" : ": " + c.getMessage())), null, t);
            }
            if (c instanceof UnknownHostException || c instanceof UnresolvedAddressException) {
                return A2aCallException.transport(Outcomes.transport(ErrorName.DNS, RequestSent.NO,
                    what + "host did not resolve"), null, t);
            }
            if (c instanceof SSLHandshakeException) {
                return A2aCallException.transport(Outcomes.transport(ErrorName.TLS, RequestSent.NO,
                    what + "TLS handshake failed: " + c.getMessage()), null, t);
            }
            if (c instanceof SSLException) {
                return A2aCallException.transport(Outcomes.transport(ErrorName.TLS, RequestSent.UNKNOWN,
                    what + "TLS failed: " + c.getMessage()), null, t);
            }
        }
        if (t instanceof CancellationException) {
            return A2aCallException.transport(Outcomes.transport(ErrorName.RESET, RequestSent.UNKNOWN,
                what + "cancelled"), null, t);
        }
        return A2aCallException.transport(Outcomes.transport(ErrorName.RESET, RequestSent.UNKNOWN,
            what + "connection closed before a complete response"
                + (t.getMessage() == null ? "" : " (" + t.getClass().getSimpleName() + ": " + t.getMessage() + ")")),
            null, t);
    }
}
