package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.a2acore.Channel;
import dev.a2acore.ErrorName;
import dev.a2acore.RequestSent;
import dev.a2acore.RetryAdvice;
import io.a2a.client.http.A2AHttpResponse;
import io.a2a.common.A2AErrorMessages;
import io.a2a.spec.A2AClientException;
import io.a2a.spec.InvalidRequestError;
import io.a2a.spec.TaskNotFoundError;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link A2aCoreHttpClient} on its own (no a2a-java client): every failure mode and signal. */
class A2aCoreHttpClientTest {
    private HttpServer server;
    private final CountDownLatch release = new CountDownLatch(1);
    private final Map<String, String> seenHeaders = new ConcurrentHashMap<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "test-server");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.stop(0);
    }

    private String route(String path, HttpHandler h) {
        server.createContext(path, h);
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    private static void send(HttpExchange ex, int status, String contentType, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        if (contentType != null) {
            ex.getResponseHeaders().add("Content-Type", contentType);
        }
        ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        if (b.length > 0) {
            ex.getResponseBody().write(b);
        }
        ex.close();
    }

    private void hold() {
        try {
            release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A route whose stream sends one event, then nothing until the test ends. */
    private String heldStream(String path) {
        return route(path, ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            ex.getResponseBody().write("data: first\n\n".getBytes(StandardCharsets.UTF_8));
            ex.getResponseBody().flush();
            hold();
            ex.close();
        });
    }

    private static A2aCoreHttpClient client() {
        return A2aCoreHttpClient.builder().connectTimeout(Duration.ofSeconds(2)).callTimeout(Duration.ofMillis(700))
            .streamIdleTimeout(Duration.ofMillis(700)).maxResponseBytes(1024).build();
    }

    /** Records one stream: messages, errors, completions. */
    private static final class Sink {
        final List<String> messages = Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        final List<Boolean> completions = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Void> ended = new CompletableFuture<>();

        CompletableFuture<Void> post(A2aCoreHttpClient c, String url, String body) throws Exception {
            return c.createPost().url(url).body(body).postAsyncSSE(messages::add, t -> {
                errors.add(t);
                ended.complete(null);
            }, () -> {
                completions.add(true);
                ended.complete(null);
            });
        }

        void await() throws Exception {
            ended.get(10, TimeUnit.SECONDS);
            Thread.sleep(100);
            assertEquals(1, errors.size() + completions.size(), "exactly one terminal signal: " + errors + completions);
        }

        A2aCallException error() {
            assertEquals(1, errors.size(), "errors: " + errors);
            return A2aCallException.find(errors.get(0)).orElseThrow(() -> new AssertionError(errors.get(0)));
        }
    }

    @Test
    void connectRefusedFailsFastNotSent() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        A2aCallException e = assertThrows(A2aCallException.class,
            () -> client().createPost().url("http://127.0.0.1:" + port + "/").body("{}").post());
        assertEquals(ErrorName.CONNECT_FAILED, e.errorName());
        assertEquals(Optional.of(RequestSent.NO), e.requestSent());
        assertEquals(RetryAdvice.BACKOFF, e.retry());
        assertEquals(Channel.TRANSPORT, e.outcome().channel());
    }

    @Test
    void bodyThatNeverFinishesHitsTheCallTimeout() throws Exception {
        // Headers arrive at once (HttpRequest.timeout stops there); the body never completes.
        String url = route("/slow-body", ex -> {
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 100);
            ex.getResponseBody().write("{\"jsonrpc\"".getBytes(StandardCharsets.UTF_8));
            ex.getResponseBody().flush();
            hold();
            ex.close();
        });
        long t0 = System.nanoTime();
        A2aCallException e = assertThrows(A2aCallException.class, () -> client().createPost().url(url).body("{}").post());
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms >= 650 && ms < 3_000, "took " + ms + " ms");
        assertEquals(ErrorName.TIMEOUT, e.errorName());
        assertEquals(Optional.of(A2aCallException.Deadline.CALL), e.deadline());
        assertEquals(RetryAdvice.UNKNOWN_OUTCOME, e.retry());
    }

    @Test
    void responseOverTheLimitFails() throws Exception {
        String url = route("/big", ex -> send(ex, 200, "application/json", "x".repeat(5000)));
        A2aCallException e = assertThrows(A2aCallException.class, () -> client().createGet().url(url).get());
        assertEquals(ErrorName.RESPONSE_TOO_LARGE, e.errorName());
    }

    /** A JSON-RPC call the client machine makes itself (a2a_call_run), unlike the "{}" bodies above. */
    private static final String RPC = "{\"jsonrpc\":\"2.0\",\"id\":\"9\",\"method\":\"tasks/get\",\"params\":{\"id\":\"t\"}}";

    @Test
    void aMachineCallsTransportFailuresAreTheSame() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        A2aCallException refused = assertThrows(A2aCallException.class,
            () -> client().createPost().url("http://127.0.0.1:" + port + "/").body(RPC).post());
        assertEquals(ErrorName.CONNECT_FAILED, refused.errorName());
        assertEquals(Optional.of(RequestSent.NO), refused.requestSent());
        assertEquals(RetryAdvice.BACKOFF, refused.retry());

        String slow = route("/rpc-slow-body", ex -> {
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 100);
            ex.getResponseBody().write("{\"jsonrpc\"".getBytes(StandardCharsets.UTF_8));
            ex.getResponseBody().flush();
            hold();
            ex.close();
        });
        long t0 = System.nanoTime();
        A2aCallException timedOut = assertThrows(A2aCallException.class, () -> client().createPost().url(slow).body(RPC).post());
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms >= 650 && ms < 3_000, "took " + ms + " ms");
        assertEquals(ErrorName.TIMEOUT, timedOut.errorName());
        assertEquals(Optional.of(A2aCallException.Deadline.CALL), timedOut.deadline());
        assertEquals(RetryAdvice.UNKNOWN_OUTCOME, timedOut.retry());

        String big = route("/rpc-big", ex -> send(ex, 200, "application/json", "x".repeat(5000)));
        A2aCallException tooLarge = assertThrows(A2aCallException.class, () -> client().createPost().url(big).body(RPC).post());
        assertEquals(ErrorName.RESPONSE_TOO_LARGE, tooLarge.errorName());
    }

    @Test
    void aMachineCallCarriesTheHeadersOfA2aJavaAndTheHooks() throws Exception {
        String answer = "{\"jsonrpc\":\"2.0\",\"id\":\"9\",\"result\":{\"kind\":\"task\",\"id\":\"t\",\"contextId\":\"c\","
            + "\"status\":{\"state\":\"completed\"}}}";
        Map<String, String> seen = new ConcurrentHashMap<>();
        String[] body = new String[1];
        String url = route("/rpc-hdr", ex -> {
            ex.getRequestHeaders().forEach((k, v) -> seen.put(k.toLowerCase(), v.get(0)));
            body[0] = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            send(ex, 200, "application/json", answer);
        });
        A2aCoreHttpClient c = A2aCoreHttpClient.builder()
            .headerHook((m, u, h) -> h.put("Authorization", "Bearer t0ken"))
            .headerHook((m, u, h) -> h.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
            .build();
        A2AHttpResponse r = c.createPost().url(url).addHeader("X-A", "1").addHeader("Content-Type", "text/plain")
            .body(RPC).post();
        assertEquals(200, r.status());
        assertEquals(answer, r.body(), "the response body as it came");
        assertEquals("Bearer t0ken", seen.get("authorization"));
        assertEquals("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", seen.get("traceparent"));
        assertEquals("1", seen.get("x-a"));
        assertEquals("application/json", seen.get("content-type"), "the machine writes the protocol's own");
        assertTrue(body[0].contains("\"method\":\"tasks/get\"") && body[0].contains("\"id\":\"9\""), body[0]);
    }

    @Test
    void plainNon2xxIsReturnedAsIs() throws Exception {
        String url = route("/500", ex -> send(ex, 500, "text/plain", "oops"));
        A2AHttpResponse r = client().createDelete().url(url).delete();
        assertEquals(500, r.status());
        assertEquals("oops", r.body());
        assertTrue(!r.success());
    }

    @Test
    void redirectOnGetIsRefusedWithLocation() throws Exception {
        String url = route("/card", ex -> {
            ex.getResponseHeaders().add("Location", "http://127.0.0.1:1/elsewhere");
            send(ex, 302, null, "");
        });
        A2aCallException e = assertThrows(A2aCallException.class, () -> client().createGet().url(url).get());
        assertEquals(ErrorName.REDIRECT, e.errorName());
        assertEquals(302, e.httpStatus().getAsInt());
        assertEquals(Optional.of("http://127.0.0.1:1/elsewhere"), e.location());
        assertEquals(Channel.HTTP, e.outcome().channel());
        assertEquals(RetryAdvice.NEVER, e.retry());
    }

    @Test
    void headerHooksSetHeadersOnEveryRequest() throws Exception {
        String url = route("/hdr", ex -> {
            ex.getRequestHeaders().forEach((k, v) -> seenHeaders.put(k.toLowerCase(), v.get(0)));
            send(ex, 200, "application/json", "{}");
        });
        A2aCoreHttpClient c = A2aCoreHttpClient.builder()
            .headerHook((m, u, h) -> h.put("Authorization", "Bearer t0ken"))
            .headerHook((m, u, h) -> h.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
            .build();
        c.createPost().url(url).addHeader("X-A", "1").body("{}").post();
        assertEquals("Bearer t0ken", seenHeaders.get("authorization"));
        assertEquals("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", seenHeaders.get("traceparent"));
        assertEquals("1", seenHeaders.get("x-a"));
    }

    @Test
    void streamNon2xxIsOneErrorClassifiedWithRetryAfter() throws Exception {
        String url = route("/busy", ex -> {
            ex.getResponseHeaders().add("Retry-After", "7");
            send(ex, 503, "text/html", "<html>busy</html>");
        });
        Sink s = new Sink();
        s.post(client(), url, "{}");
        s.await();
        A2aCallException e = s.error();
        assertEquals(503, e.httpStatus().getAsInt());
        assertEquals(ErrorName.UNAVAILABLE, e.errorName());
        assertEquals(RetryAdvice.BACKOFF, e.retry());
        assertEquals(7, e.outcome().retryAfterSecs().getAsLong());
        assertEquals(Optional.of("<html>busy</html>"), e.bodyExcerpt());
        assertTrue(s.messages.isEmpty());
    }

    @Test
    void streamAnsweredWithPlainJsonErrorIsOneTypedErrorNoCompletion() throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"error\":{\"code\":-32001,\"message\":\"Task not found\"}}";
        String url = route("/json", ex -> send(ex, 200, "application/json", body));
        Sink s = new Sink();
        s.post(client(), url, "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"tasks/resubscribe\",\"params\":{\"id\":\"t\"}}");
        s.await();
        assertTrue(s.messages.isEmpty(), "messages: " + s.messages);
        assertTrue(s.completions.isEmpty(), "a completion after the error");
        // The typed error a2a-java's listener would make, the classified failure as its cause.
        TaskNotFoundError typed = assertInstanceOf(TaskNotFoundError.class, s.errors.get(0));
        assertEquals("Task not found", typed.getMessage());
        A2aCallException e = s.error();
        assertEquals(Channel.PROTOCOL, e.outcome().channel());
        assertEquals(ErrorName.TASK_NOT_FOUND, e.errorName());
        assertEquals(-32001L, e.outcome().code().getAsLong());
        assertEquals(200, e.httpStatus().getAsInt());
        assertEquals(Optional.of(body), e.bodyExcerpt());
    }

    @Test
    void streamAnsweredWithPlainJsonResultIsOneMessageThenComplete() throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"message\",\"messageId\":\"m\","
            + "\"role\":\"agent\",\"parts\":[{\"kind\":\"text\",\"text\":\"hi\"}]}}";
        String url = route("/json-result", ex -> send(ex, 200, "application/json", body));
        Sink s = new Sink();
        s.post(client(), url, "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"message/stream\",\"params\":{}}");
        s.await();
        assertEquals(List.of(body), s.messages);
        assertEquals(1, s.completions.size());
    }

    @Test
    void streamErrorEventEndsTheStreamWithOneTypedError() throws Exception {
        String url = route("/sse-error", ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(("data: {\"jsonrpc\":\"2.0\",\"id\":\"3\",\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
                    + "\"contextId\":\"c\",\"status\":{\"state\":\"working\"}}}\n\n"
                    + "data: {\"jsonrpc\":\"2.0\",\"id\":\"3\",\"error\":{\"code\":-32603,\"message\":\"boom\"}}\n\n"
                    + "data: {\"jsonrpc\":\"2.0\",\"id\":\"3\",\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
                    + "\"contextId\":\"c\",\"status\":{\"state\":\"working\"}}}\n\n").getBytes(StandardCharsets.UTF_8));
            }
        });
        Sink s = new Sink();
        s.post(client(), url, "{\"jsonrpc\":\"2.0\",\"id\":\"3\",\"method\":\"message/stream\",\"params\":{}}");
        s.await();
        assertEquals(1, s.messages.size(), "nothing after the error event: " + s.messages);
        io.a2a.spec.InternalError typed = assertInstanceOf(io.a2a.spec.InternalError.class, s.errors.get(0));
        assertEquals("boom", typed.getMessage());
        A2aCallException e = s.error();
        assertEquals(ErrorName.INTERNAL, e.errorName());
        assertEquals(-32603L, e.outcome().code().getAsLong());
    }

    @Test
    void errorsWithAWrongIdAreStillOneTypedErrorJudgedMalformed() throws Exception {
        // a2a-core judges an error answering another id malformed; a2a-java takes it for an
        // error all the same: one signal on a stream, the transport's exception on a plain call.
        String error = "{\"jsonrpc\":\"2.0\",\"id\":\"99\",\"error\":{\"code\":-32001,\"message\":\"Task not found\"}}";
        String sse = route("/wrong-id-sse", ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(("data: " + error + "\n\n").getBytes(StandardCharsets.UTF_8));
            }
        });
        Sink s = new Sink();
        s.post(client(), sse, "{\"jsonrpc\":\"2.0\",\"id\":\"4\",\"method\":\"tasks/resubscribe\",\"params\":{\"id\":\"t\"}}");
        s.await();
        assertInstanceOf(TaskNotFoundError.class, s.errors.get(0));
        assertEquals(Channel.MALFORMED, s.error().outcome().channel());
        assertTrue(s.messages.isEmpty());

        String plain = route("/wrong-id", ex -> send(ex, 200, "application/json", error));
        A2AClientException e = assertThrows(A2AClientException.class, () -> client().createPost().url(plain)
            .body("{\"jsonrpc\":\"2.0\",\"id\":\"4\",\"method\":\"tasks/get\",\"params\":{\"id\":\"t\"}}").post());
        assertEquals("Task not found", e.getMessage());
        assertInstanceOf(TaskNotFoundError.class, e.getCause());
        assertEquals(Channel.MALFORMED, A2aCallException.find(e).orElseThrow().outcome().channel());
    }

    @Test
    void streamUnauthorizedKeepsTheStockMessageWithTheOutcomeAsCause() throws Exception {
        String url = route("/401", ex -> {
            ex.getResponseHeaders().add("WWW-Authenticate", "Bearer");
            send(ex, 401, "text/plain", "token expired");
        });
        Sink s = new Sink();
        s.post(client(), url, "{}");
        s.await();
        Throwable t = s.errors.get(0);
        assertEquals(IOException.class, t.getClass());
        assertEquals(A2AErrorMessages.AUTHENTICATION_FAILED, t.getMessage());
        A2aCallException e = s.error();
        assertEquals(ErrorName.UNAUTHENTICATED, e.errorName());
        assertEquals(RetryAdvice.REAUTHENTICATE, e.retry());
        assertEquals(Optional.of("token expired"), e.bodyExcerpt());
    }

    @Test
    void plainJsonRpcNon2xxThrowsClassifiedWithTheBody() throws Exception {
        String url = route("/502", ex -> {
            ex.getResponseHeaders().add("Retry-After", "3");
            send(ex, 503, "text/html", "<html>busy</html>");
        });
        A2aCallException e = assertThrows(A2aCallException.class, () -> client().createPost().url(url)
            .body("{\"jsonrpc\":\"2.0\",\"id\":\"5\",\"method\":\"tasks/get\",\"params\":{\"id\":\"t\"}}").post());
        assertTrue(e.getMessage().startsWith("Request failed 503: POST " + url), e.getMessage());
        assertEquals(503, e.httpStatus().getAsInt());
        assertEquals(ErrorName.UNAVAILABLE, e.errorName());
        assertEquals(RetryAdvice.BACKOFF, e.retry());
        assertEquals(3, e.outcome().retryAfterSecs().getAsLong());
        assertEquals(Optional.of("<html>busy</html>"), e.bodyExcerpt());
    }

    @Test
    void plainJsonRpcErrorThrowsWhatTheTransportWouldWithTheOutcome() throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":\"6\",\"error\":{\"code\":-32600,\"message\":\"Invalid Request\","
            + "\"data\":\"params.message missing\"}}";
        String url = route("/rpc-error", ex -> send(ex, 200, "application/json", body));
        A2AClientException e = assertThrows(A2AClientException.class, () -> client().createPost().url(url)
            .body("{\"jsonrpc\":\"2.0\",\"id\":\"6\",\"method\":\"tasks/get\",\"params\":{\"id\":\"t\"}}").post());
        // JSONRPCTransport.unmarshalResponse's message and cause type.
        assertEquals("Invalid Request: params.message missing", e.getMessage());
        assertInstanceOf(InvalidRequestError.class, e.getCause());
        A2aCallException c = A2aCallException.find(e).orElseThrow(() -> new AssertionError(e));
        assertEquals(Channel.PROTOCOL, c.outcome().channel());
        assertEquals(ErrorName.INVALID_REQUEST, c.errorName());
        assertEquals(RetryAdvice.NEVER, c.retry());
    }

    @Test
    void paramsTheMachineCannotReadAreInvalidParamsNotSent() throws Exception {
        AtomicIntegerHolder hits = new AtomicIntegerHolder();
        String url = route("/unread", ex -> {
            hits.n.incrementAndGet();
            send(ex, 200, "application/json", "{}");
        });
        // message/send without a message: no version's params; the machine builds no request.
        A2AClientException e = assertThrows(A2AClientException.class, () -> client().createPost().url(url)
            .body("{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"method\":\"message/send\",\"params\":{}}").post());
        assertInstanceOf(io.a2a.spec.InvalidParamsError.class, e.getCause());
        assertTrue(e.getMessage().startsWith("Invalid params: "), e.getMessage());
        A2aCallException c = A2aCallException.find(e).orElseThrow(() -> new AssertionError(e));
        assertEquals(ErrorName.INVALID_PARAMS, c.errorName());
        assertEquals(RetryAdvice.NEVER, c.retry());
        assertEquals(0, hits.n.get(), "nothing was sent");
    }

    private static final class AtomicIntegerHolder {
        final java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    }

    @Test
    void plainPostForbiddenKeepsTheStockException() throws Exception {
        String url = route("/403", ex -> send(ex, 403, "text/plain", "Forbidden"));
        IOException e = assertThrows(IOException.class, () -> client().createPost().url(url).body("{}").post());
        assertEquals(IOException.class, e.getClass());
        assertEquals(A2AErrorMessages.AUTHORIZATION_FAILED, e.getMessage());
        A2aCallException c = A2aCallException.find(e).orElseThrow(() -> new AssertionError(e));
        assertEquals(ErrorName.FORBIDDEN, c.errorName());
        assertEquals(RetryAdvice.REAUTHENTICATE, c.retry());
    }

    @Test
    void plainNonJsonRpcPostNon2xxIsReturnedAsIs() throws Exception {
        // A REST call (RestTransport reads status and body itself): untouched.
        String url = route("/rest404", ex -> send(ex, 404, "application/json", "{\"error\":{\"code\":404}}"));
        A2AHttpResponse r = client().createPost().url(url).body("{\"message\":{}}").post();
        assertEquals(404, r.status());
        assertEquals("{\"error\":{\"code\":404}}", r.body());
    }

    @Test
    void streamWithCrOnlyEndingsAndFieldsIsDecoded() throws Exception {
        String url = route("/cr", ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(("retry: 1000\rid: 1\revent: status\rdata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\rdata: "
                    + "\"result\":{\"kind\":\"status-update\",\"taskId\":\"t\",\"contextId\":\"c\",\r: c\r"
                    + "data: \"status\":{\"state\":\"completed\"},\"final\":true}}\r\r").getBytes(StandardCharsets.UTF_8));
            }
        });
        Sink s = new Sink();
        s.post(client(), url, "{}");
        s.await();
        assertEquals(List.of("{\"jsonrpc\":\"2.0\",\"id\":\"1\",\n\"result\":{\"kind\":\"status-update\",\"taskId\":\"t\","
            + "\"contextId\":\"c\",\n\"status\":{\"state\":\"completed\"},\"final\":true}}"), s.messages);
        assertEquals(1, s.completions.size());
    }

    @Test
    void streamEndingInsideAnEventIsAnError() throws Exception {
        String url = route("/cut", ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                out.write("data: one\n\ndata: {\"half\":".getBytes(StandardCharsets.UTF_8));
            }
        });
        Sink s = new Sink();
        s.post(client(), url, "{}");
        s.await();
        assertEquals(List.of("one"), s.messages);
        A2aCallException e = s.error();
        assertEquals(ErrorName.RESET, e.errorName());
        assertEquals(Optional.of(RequestSent.UNKNOWN), e.requestSent());
    }

    @Test
    void streamClosedBeforeATerminalStateIsTruncatedNotCompleted() throws Exception {
        String url = route("/trunc", ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(("data: {\"jsonrpc\":\"2.0\",\"id\":\"9\",\"result\":{\"kind\":\"task\",\"id\":\"t-7\","
                    + "\"contextId\":\"c-7\",\"status\":{\"state\":\"working\"}}}\n\n").getBytes(StandardCharsets.UTF_8));
            }
        });
        Sink s = new Sink();
        s.post(client(), url, "{\"jsonrpc\":\"2.0\",\"id\":\"9\",\"method\":\"message/stream\",\"params\":{}}");
        s.await();
        assertEquals(1, s.messages.size());
        A2aCallException e = s.error();
        assertEquals(ErrorName.RESET, e.errorName());
        assertEquals(RetryAdvice.RESUBSCRIBE, e.retry());
        assertEquals(Optional.of("t-7"), e.outcome().taskId());
        assertEquals(Optional.of(dev.a2acore.TaskState.WORKING), e.outcome().state());
    }

    /** A REST (HTTP+JSON) stream: its body names no method, the path does. */
    private String restStream(String path, String... events) {
        return route(path, ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                for (String e : events) {
                    out.write(("data: " + e + "\n\n").getBytes(StandardCharsets.UTF_8));
                }
            }
        });
    }

    private static final String REST_BODY =
        "{\"message\":{\"messageId\":\"m-1\",\"role\":\"ROLE_USER\",\"content\":[{\"text\":\"hi\"}]}}";

    @Test
    void restStreamClosedBeforeATerminalStateIsTruncatedNotCompleted() throws Exception {
        String url = restStream("/v1/message:stream",
            "{\"task\":{\"id\":\"t-8\",\"contextId\":\"c-8\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}");
        Sink s = new Sink();
        s.post(client(), url, REST_BODY);
        s.await();
        assertEquals(1, s.messages.size());
        A2aCallException e = s.error();
        assertEquals(ErrorName.RESET, e.errorName());
        assertEquals(RetryAdvice.RESUBSCRIBE, e.retry());
        assertEquals(Optional.of("t-8"), e.outcome().taskId());
        assertEquals(Optional.of(dev.a2acore.TaskState.WORKING), e.outcome().state());
    }

    @Test
    void restStreamReachingATerminalStateCompletes() throws Exception {
        String url = restStream("/v1/message:stream",
            "{\"task\":{\"id\":\"t-9\",\"contextId\":\"c-9\",\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}",
            "{\"statusUpdate\":{\"taskId\":\"t-9\",\"contextId\":\"c-9\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"},"
                + "\"final\":true}}");
        Sink s = new Sink();
        s.post(client(), url, REST_BODY);
        s.await();
        assertEquals(2, s.messages.size());
        assertEquals(List.of(true), s.completions);
    }

    @Test
    void cancellingAfterTheFinalEventCompletesOnceAndCloses() throws Exception {
        CountDownLatch closed = new CountDownLatch(1);
        String url = route("/final", ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            try {
                out.write("data: final\n\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                // Keep writing keep-alives until the client closes the connection.
                for (int i = 0; i < 200; i++) {
                    Thread.sleep(50);
                    out.write(": ka\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            } catch (IOException | InterruptedException gone) {
                closed.countDown();
            } finally {
                ex.close();
            }
        });
        A2aCoreHttpClient c = client();
        List<String> msgs = Collections.synchronizedList(new ArrayList<>());
        List<Object> signals = Collections.synchronizedList(new ArrayList<>());
        @SuppressWarnings("unchecked")
        CompletableFuture<Void>[] ref = new CompletableFuture[1];
        CountDownLatch got = new CountDownLatch(1);
        ref[0] = c.createPost().url(url).body("{}").postAsyncSSE(m -> {
            msgs.add(m);
            got.countDown();
        }, signals::add, () -> signals.add("complete"));
        assertTrue(got.await(5, TimeUnit.SECONDS));
        ref[0].cancel(true);
        assertTrue(closed.await(5, TimeUnit.SECONDS), "connection not closed after cancel");
        Thread.sleep(1_000);
        assertEquals(List.of("final"), msgs);
        assertEquals(List.of("complete"), signals, "exactly one clean completion, no error");
    }

    /**
     * The threads inside a stream call's code now (SseCall or JdkHttp): a stream that waits
     * for its server, or for its head, holds none (its reader and open are woken by the
     * next chunk, the head, a deadline or an abort).
     */
    private static List<String> threadsInStreams() {
        List<String> out = new ArrayList<>();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            for (StackTraceElement f : e.getValue()) {
                if (f.getClassName().startsWith("dev.a2acore.a2ajava.SseCall")
                    || f.getClassName().startsWith("dev.a2acore.a2ajava.JdkHttp")) {
                    out.add(e.getKey().getName() + " in " + f);
                    break;
                }
            }
        }
        return out;
    }

    @Test
    void cancellingAStalledStreamEndsItAtOnce() throws Exception {
        String url = heldStream("/stalled");
        // Idle timeout far beyond the test's bounds: only the abort can end the stream.
        A2aCoreHttpClient c = A2aCoreHttpClient.builder().streamIdleTimeout(Duration.ofSeconds(60)).build();
        List<Object> signals = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch ended = new CountDownLatch(1);
        CompletableFuture<Void> f = c.createPost().url(url).body("{}").postAsyncSSE(m -> first.countDown(), e -> {
            signals.add(e);
            ended.countDown();
        }, () -> {
            signals.add("complete");
            ended.countDown();
        });
        assertTrue(first.await(5, TimeUnit.SECONDS));
        Thread.sleep(200); // the stream now waits for its server
        assertEquals(List.of(), threadsInStreams(), "a stalled stream holds no thread");
        long t0 = System.nanoTime();
        f.cancel(true);
        assertTrue(ended.await(1, TimeUnit.SECONDS), "the stream ended at once");
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < 1_000, "ended " + ms + " ms after cancel");
        Thread.sleep(200);
        assertEquals(List.of("complete"), signals, "exactly one clean completion, no error");
        assertEquals(List.of(), threadsInStreams(), "nothing left running");
    }

    @Test
    void cancellingBeforeTheResponseHeadAbortsTheOpen() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        String url = route("/no-head", ex -> {
            arrived.countDown();
            hold();
            ex.close();
        });
        A2aCoreHttpClient c = A2aCoreHttpClient.builder().callTimeout(Duration.ofSeconds(30)).build();
        List<Object> signals = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Void> f = c.createPost().url(url).body("{}").postAsyncSSE(signals::add, signals::add,
            () -> signals.add("complete"));
        assertTrue(arrived.await(5, TimeUnit.SECONDS));
        Thread.sleep(200);
        assertEquals(List.of(), threadsInStreams(), "an open waiting for its head holds no thread");
        f.cancel(true);
        Thread.sleep(300); // the aborted open's head future fails: its reader runs and frees the call
        assertEquals(List.of(), threadsInStreams(), "the aborted open left nothing running");
        assertEquals(List.of("complete"), signals);
    }

    /**
     * Opening many streams starts far fewer threads than streams: each is sent from the
     * caller's thread, its head handed to a reader by the HttpClient's bounded executor (not
     * through sendAsync's future, which the JDK completes on a new thread per task wherever
     * the common pool has fewer than two threads), and a stream that waits holds no thread.
     * Before, a burst started a thread per stream on one or two CPUs, plus readers for the
     * overlapping sends.
     */
    @Test
    void aBurstOfStreamsStartsFewThreads() throws Exception {
        String url = heldStream("/held");
        A2aCoreHttpClient c = A2aCoreHttpClient.builder().streamIdleTimeout(Duration.ofSeconds(60)).build();
        // Warm up: the pools' first threads and the classes of a stream.
        CountDownLatch warm = new CountDownLatch(1);
        CompletableFuture<Void> w = c.createPost().url(url).body("{}").postAsyncSSE(m -> warm.countDown(), e -> { },
            () -> { });
        assertTrue(warm.await(10, TimeUnit.SECONDS));
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        java.util.Set<Long> before = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            before.add(t.getId());
        }
        long started = mx.getTotalStartedThreadCount();
        int n = 32;
        CountDownLatch first = new CountDownLatch(n);
        List<CompletableFuture<Void>> streams = new ArrayList<>();
        List<Object> failures = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < n; i++) {
            AtomicBoolean seen = new AtomicBoolean();
            streams.add(c.createPost().url(url).body("{}").postAsyncSSE(m -> {
                if (seen.compareAndSet(false, true)) {
                    first.countDown();
                }
            }, failures::add, () -> { }));
        }
        assertTrue(first.await(20, TimeUnit.SECONDS), first.getCount() + " streams without a first event");
        long ours = mx.getTotalStartedThreadCount() - started;
        List<String> serverThreads = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!before.contains(t.getId()) && t.getName().equals("test-server")) {
                serverThreads.add(t.getName());
            }
        }
        ours -= serverThreads.size(); // the test server holds a thread per open stream
        assertEquals(List.of(), failures);
        assertTrue(ours <= n / 2, ours + " threads started for " + n + " streams");
        for (CompletableFuture<Void> f : streams) {
            f.cancel(true);
        }
        w.cancel(true);
    }
}
