package dev.a2acore.a2ajava;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tiny fault-injecting A2A 0.3 JSON-RPC server on 127.0.0.1 for the side-by-side tests
 * (the project's fault server, now {@code a2a-testkit fault-server}, had not landed when these were written):
 * <ul>
 *   <li>{@code /split}: a {@code message/stream} answer whose events are pretty-printed JSON
 *       (one object over several {@code data:} lines, as sse-starlette writes data holding
 *       newlines), CRLF line ends, keep-alive comments; the last event is the final
 *       {@code completed} status update; then the connection closes;</li>
 *   <li>{@code /hang}: reads the request and never answers (until released);</li>
 *   <li>{@code /stall}: starts a stream, sends one event, then nothing (until released);</li>
 *   <li>{@code /truncated}: a stream of one-line events (task, WORKING) whose body then ends
 *       cleanly, before any terminal state;</li>
 *   <li>{@code /redirect}: 307 to {@code /elsewhere}, which answers {@code message/send} with a
 *       completed task and counts its hits.</li>
 * </ul>
 * Every wait is bounded; {@link #close()} releases held requests.
 */
final class FaultServer implements AutoCloseable {
    static final String TASK_ID = "task-1";
    static final String CONTEXT_ID = "ctx-1";
    /** How long a held request waits at most for its release. */
    private static final long HOLD_MS = 30_000;

    private final HttpServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fault-server");
        t.setDaemon(true);
        return t;
    });
    private final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger elsewhereHits = new AtomicInteger();
    final AtomicInteger hangHits = new AtomicInteger();

    FaultServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(pool);
        server.createContext("/split", this::split);
        server.createContext("/hang", this::hang);
        server.createContext("/stall", this::stall);
        server.createContext("/truncated", this::truncated);
        server.createContext("/redirect", this::redirect);
        server.createContext("/elsewhere", this::elsewhere);
        server.start();
    }

    /** Base URL, e.g. {@code http://127.0.0.1:12345}. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Lets held requests finish. */
    void releaseHeld() {
        release.countDown();
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
        pool.shutdownNow();
    }

    private static String requestId(HttpExchange ex) throws IOException {
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"id\"\\s*:\\s*(\"[^\"]*\"|-?\\d+)").matcher(body);
        return m.find() ? m.group(1) : "null";
    }

    /** The four events of the split stream, as JSON-RPC responses (0.3 shapes). */
    static String[] splitEvents(String id) {
        String task = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"kind\":\"task\",\"id\":\"" + TASK_ID
            + "\",\"contextId\":\"" + CONTEXT_ID + "\",\"status\":{\"state\":\"submitted\"}}}";
        String working = "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": " + id + ",\n  \"result\": {\n    \"kind\": \"status-update\",\n"
            + "    \"taskId\": \"" + TASK_ID + "\",\n    \"contextId\": \"" + CONTEXT_ID + "\",\n"
            + "    \"status\": {\"state\": \"working\"},\n    \"final\": false\n  }\n}";
        String artifact = "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": " + id + ",\n  \"result\": {\n    \"kind\": \"artifact-update\",\n"
            + "    \"taskId\": \"" + TASK_ID + "\",\n    \"contextId\": \"" + CONTEXT_ID + "\",\n"
            + "    \"artifact\": {\"artifactId\": \"a1\", \"name\": \"answer\",\n      \"parts\": [{\"kind\": \"text\", \"text\": \"forty-two\"}]},\n"
            + "    \"lastChunk\": true\n  }\n}";
        String done = "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": " + id + ",\n  \"result\": {\n    \"kind\": \"status-update\",\n"
            + "    \"taskId\": \"" + TASK_ID + "\",\n    \"contextId\": \"" + CONTEXT_ID + "\",\n"
            + "    \"status\": {\"state\": \"completed\"},\n    \"final\": true\n  }\n}";
        return new String[] {task, working, artifact, done};
    }

    /** SSE framing of one event: every line of the data as its own data: line, CRLF. */
    static String sse(String data) {
        StringBuilder sb = new StringBuilder();
        for (String line : data.split("\n", -1)) {
            sb.append("data: ").append(line).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    private void split(HttpExchange ex) throws IOException {
        String id = requestId(ex);
        ex.getResponseHeaders().add("Content-Type", "text/event-stream; charset=utf-8");
        ex.sendResponseHeaders(200, 0);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(": ping - keep-alive\r\n\r\n".getBytes(StandardCharsets.UTF_8));
            for (String e : splitEvents(id)) {
                out.write(sse(e).getBytes(StandardCharsets.UTF_8));
                out.write(": ping\r\n\r\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        }
    }

    private void truncated(HttpExchange ex) throws IOException {
        String id = requestId(ex);
        String[] events = splitEvents(id);
        ex.getResponseHeaders().add("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(sse(events[0]).getBytes(StandardCharsets.UTF_8));
            out.write(sse(events[1].replace("\n", "")).getBytes(StandardCharsets.UTF_8));
        }
    }

    private void hang(HttpExchange ex) throws IOException {
        String id = requestId(ex);
        hangHits.incrementAndGet();
        hold();
        byte[] body = ("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-32603,\"message\":\"released\"}}")
            .getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        try {
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
        } catch (IOException gone) {
            // the client gave up and closed the connection: expected for our client
        } finally {
            ex.close();
        }
    }

    private void stall(HttpExchange ex) throws IOException {
        String id = requestId(ex);
        ex.getResponseHeaders().add("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        OutputStream out = ex.getResponseBody();
        try {
            out.write(sse(splitEvents(id)[0]).getBytes(StandardCharsets.UTF_8));
            out.flush();
            hold();
        } catch (IOException gone) {
            // the client closed the stream: expected for our client
        } finally {
            ex.close();
        }
    }

    private void redirect(HttpExchange ex) throws IOException {
        ex.getRequestBody().readAllBytes();
        ex.getResponseHeaders().add("Location", url() + "/elsewhere");
        ex.sendResponseHeaders(307, -1);
        ex.close();
    }

    private void elsewhere(HttpExchange ex) throws IOException {
        String id = requestId(ex);
        elsewhereHits.incrementAndGet();
        byte[] body = ("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"kind\":\"task\",\"id\":\"" + TASK_ID
            + "\",\"contextId\":\"" + CONTEXT_ID + "\",\"status\":{\"state\":\"completed\"}}}").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
        ex.close();
    }

    private void hold() {
        try {
            release.await(HOLD_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
