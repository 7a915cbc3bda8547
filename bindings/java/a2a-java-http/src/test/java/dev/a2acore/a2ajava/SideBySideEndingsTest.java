package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.a2acore.Channel;
import dev.a2acore.ErrorName;
import dev.a2acore.RetryAdvice;
import io.a2a.A2A;
import io.a2a.client.Client;
import io.a2a.client.ClientEvent;
import io.a2a.client.MessageEvent;
import io.a2a.client.TaskEvent;
import io.a2a.client.TaskUpdateEvent;
import io.a2a.client.http.A2ACardResolver;
import io.a2a.client.http.A2AHttpClient;
import io.a2a.client.http.JdkA2AHttpClient;
import io.a2a.common.A2AErrorMessages;
import io.a2a.spec.A2AClientException;
import io.a2a.spec.AgentCard;
import io.a2a.spec.InternalError;
import io.a2a.spec.TaskIdParams;
import io.a2a.spec.TaskNotFoundError;
import io.a2a.spec.TaskQueryParams;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatusUpdateEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.TreeMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every way a call can end, run through a2a-java 0.3.2's own {@link Client} and
 * {@code JSONRPCTransport} twice, once over the stock {@link JdkA2AHttpClient} and once over
 * {@link A2aCoreHttpClient}, recording what the application sees: its event consumer and
 * its error handler, in order ({@code null} to the handler is a2a-java's "the stream
 * completed normally"), or what a plain call throws (type, message, cause chain). Peers: the
 * real Python a2a-sdk server ({@code tests/peers}), the project's {@code a2a-testkit fault-server}
 * and the fault server in the test code; 127.0.0.1 only, every wait bounded.
 *
 * <p>The run also writes both sides of every row to
 * {@code target/side-by-side-endings.md}: the README's table is copied from it.
 */
class SideBySideEndingsTest {
    private static final Duration IDLE = Duration.ofMillis(800);
    /** After the first terminal signal, how long a second one is waited for. */
    private static final long SETTLE_MS = 500;
    /** How long the stock client is watched on a stalled stream. */
    private static final long STOCK_WATCH_MS = 2_500;

    private static Peer python;
    private static AgentCard pyCard;
    private static ProjectFaultServer faults;
    private static FaultServer local;
    /** Row number → ending, stock, ours. */
    private static final Map<Integer, String[]> TABLE = Collections.synchronizedMap(new TreeMap<>());

    @BeforeAll
    static void start() throws Exception {
        python = Peer.python("--ping", "1", "--cancel-wait", "20");
        pyCard = new A2ACardResolver(ours(), python.url).getAgentCard();
        faults = ProjectFaultServer.start();
        local = new FaultServer();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            writeTable();
        } finally {
            if (local != null) {
                local.close();
            }
            if (faults != null) {
                faults.close();
            }
            if (python != null) {
                python.close();
            }
        }
    }

    private static A2aCoreHttpClient ours() {
        return A2aCoreHttpClient.builder().connectTimeout(Duration.ofSeconds(2)).callTimeout(Duration.ofSeconds(20))
            .streamIdleTimeout(IDLE).build();
    }

    // --- what the application sees ---------------------------------------------------------

    /** One stream's consumer and error-handler calls, in order. */
    static final class Seen {
        final List<String> log = Collections.synchronizedList(new ArrayList<>());
        final List<ClientEvent> events = Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> signals = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch first = new CountDownLatch(1);

        void event(ClientEvent e) {
            events.add(e);
            log.add(describe(e));
        }

        void signal(Throwable t) {
            signals.add(t);
            log.add(t == null ? "handler(null)" : "handler(" + describe(t) + ")");
            first.countDown();
        }

        /** Waits for the first terminal signal (at most {@code ms}), then {@link #SETTLE_MS} for a second. */
        Seen settle(long ms) throws InterruptedException {
            if (first.await(ms, TimeUnit.MILLISECONDS)) {
                Thread.sleep(SETTLE_MS);
            }
            return this;
        }

        Throwable only() {
            assertEquals(1, signals.size(), "terminal signals: " + log);
            return signals.get(0);
        }

        boolean sawState(TaskState s) {
            synchronized (events) {
                return events.stream().anyMatch(e -> state(e) == s);
            }
        }

        /** The log as one table cell: consecutive events counted, signals spelled out. */
        String cell() {
            List<String> parts = new ArrayList<>();
            synchronized (log) {
                int i = 0;
                while (i < log.size()) {
                    String s = log.get(i);
                    if (s.startsWith("handler(")) {
                        parts.add(s);
                        i++;
                        continue;
                    }
                    int j = i;
                    while (j < log.size() && !log.get(j).startsWith("handler(")) {
                        j++;
                    }
                    parts.add(j - i == 1 ? log.get(i) : (j - i) + " events, last " + log.get(j - 1));
                    i = j;
                }
            }
            return parts.isEmpty() ? "nothing" : String.join(" → ", parts);
        }
    }

    static TaskState state(ClientEvent e) {
        if (e instanceof TaskUpdateEvent u && u.getUpdateEvent() instanceof TaskStatusUpdateEvent s) {
            return s.getStatus().state();
        }
        if (e instanceof TaskEvent t) {
            return t.getTask().getStatus().state();
        }
        return null;
    }

    static String describe(ClientEvent e) {
        if (e instanceof MessageEvent) {
            return "message";
        }
        if (e instanceof TaskUpdateEvent u && u.getUpdateEvent() instanceof TaskStatusUpdateEvent s) {
            return s.getStatus().state().asString() + (s.isFinal() ? " (final)" : "");
        }
        if (e instanceof TaskUpdateEvent) {
            return "artifact";
        }
        return "task " + state(e).asString();
    }

    /** Type and message of a throwable, then its cause chain; our classification in brackets. */
    static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; t != null && i < 6; i++, t = t.getCause()) {
            if (i > 0) {
                sb.append(" ← ");
            }
            sb.append(t.getClass().getSimpleName()).append(" \"").append(clip(t.getMessage())).append('"');
            if (t instanceof A2aCallException c) {
                sb.append(" [").append(c.errorName().wireName()).append(", ").append(c.retry().wireName())
                    .append(c.httpStatus().isPresent() ? ", HTTP " + c.httpStatus().getAsInt() : "")
                    .append(c.outcome().code().isPresent() ? ", code " + c.outcome().code().getAsLong() : "")
                    .append(c.outcome().retryAfterSecs().isPresent()
                        ? ", retry after " + c.outcome().retryAfterSecs().getAsLong() + " s" : "")
                    .append(c.outcome().taskId().isPresent() ? ", task id" : "")
                    .append(']');
            }
        }
        return sb.toString();
    }

    private static String clip(String s) {
        if (s == null) {
            return "null";
        }
        // Ports change from run to run: the table shows PORT.
        String one = s.replace("\r", "").replace("\n", "\\n").replace("|", "\\|")
            .replaceAll("127\\.0\\.0\\.1:\\d+", "127.0.0.1:PORT");
        return one.length() > 160 ? one.substring(0, 160) + "…" : one;
    }

    private static Client client(A2AHttpClient http, AgentCard card, boolean streaming) throws Exception {
        return Recorder.client(http, card, streaming);
    }

    private static Client client(A2AHttpClient http, String url, boolean streaming) throws Exception {
        return Recorder.client(http, url, streaming);
    }

    private static Seen stream(Client c, String text) throws Exception {
        Seen s = new Seen();
        c.sendMessage(A2A.toUserMessage(text), List.of((e, card) -> s.event(e)), s::signal, null);
        return s;
    }

    /** What a plain call did: its events, or what it threw. */
    record Plain(List<ClientEvent> events, Throwable thrown) {
        String cell() {
            if (thrown != null) {
                return "throws " + describe(thrown);
            }
            List<String> d = new ArrayList<>();
            for (ClientEvent e : events) {
                d.add(SideBySideEndingsTest.describe(e));
            }
            return "returns " + String.join(", ", d);
        }
    }

    private static Plain send(Client c, String text) {
        List<ClientEvent> events = new ArrayList<>();
        try {
            c.sendMessage(A2A.toUserMessage(text), List.of((e, card) -> events.add(e)), null, null);
            return new Plain(events, null);
        } catch (Throwable t) {
            return new Plain(events, t);
        }
    }

    private static void row(int n, String ending, String stock, String ours) {
        TABLE.put(n, new String[] {ending, stock, ours});
    }

    private static void writeTable() throws IOException {
        Path dir = Paths.get("target");
        Files.createDirectories(dir);
        StringBuilder sb = new StringBuilder("| ending | stock `JdkA2AHttpClient` | `A2aCoreHttpClient` |\n| --- | --- | --- |\n");
        synchronized (TABLE) {
            for (String[] r : TABLE.values()) {
                sb.append("| ").append(r[0]).append(" | ").append(r[1]).append(" | ").append(r[2]).append(" |\n");
            }
        }
        Files.writeString(dir.resolve("side-by-side-endings.md"), sb.toString(), StandardCharsets.UTF_8);
    }

    private static A2aCallException ourCause(Throwable t) {
        return A2aCallException.find(t).orElseThrow(() -> new AssertionError("no A2aCallException in " + describe(t), t));
    }

    /**
     * The stock client after a final event: a2a-java's listener cancels the stream's future,
     * and the JDK client then aborts the body; when the abort wins the race against the end
     * of the body, the handler gets {@code IOException: chunked transfer encoding ...}
     * instead of {@code null}. Either way, one signal.
     */
    private static void stockEndsAfterFinal(Seen stock) {
        Throwable t = stock.only();
        assertTrue(t == null || t instanceof IOException, "stock end: " + stock.log);
    }

    // --- streams ---------------------------------------------------------------------------

    @Test
    void streamCompleted() throws Exception {
        Seen stock = stream(client(new JdkA2AHttpClient(), pyCard, true), "stream 2").settle(20_000);
        Seen ours = stream(client(ours(), pyCard, true), "stream 2").settle(20_000);
        row(1, "stream: completed (Python `stream 2`)", stock.cell(), ours.cell());
        stockEndsAfterFinal(stock);
        assertNull(ours.only(), ours.log.toString());
        for (Seen s : List.of(stock, ours)) {
            assertTrue(s.sawState(TaskState.COMPLETED), s.log.toString());
            assertEquals(5, s.events.size(), s.log.toString());
        }
        assertEquals(stock.log.subList(0, 5), ours.log.subList(0, 5));
    }

    @Test
    void streamFailed() throws Exception {
        Seen stock = stream(client(new JdkA2AHttpClient(), pyCard, true), "fail").settle(20_000);
        Seen ours = stream(client(ours(), pyCard, true), "fail").settle(20_000);
        row(2, "stream: task FAILED (Python `fail`)", stock.cell(), ours.cell());
        stockEndsAfterFinal(stock);
        assertNull(ours.only(), ours.log.toString());
        for (Seen s : List.of(stock, ours)) {
            assertTrue(s.sawState(TaskState.FAILED), s.log.toString());
        }
        assertEquals(stock.events.size(), ours.events.size());
    }

    @Test
    void streamCanceled() throws Exception {
        Seen[] both = new Seen[2];
        A2AHttpClient[] https = {new JdkA2AHttpClient(), ours()};
        for (int i = 0; i < 2; i++) {
            Seen s = stream(client(https[i], pyCard, true), "cancel-me");
            assertTrue(Recorder.eventually(10_000, () -> s.sawState(TaskState.WORKING)), "no WORKING: " + s.log);
            String taskId = ((TaskEvent) s.events.get(0)).getTask().getId();
            client(ours(), pyCard, false).cancelTask(new TaskIdParams(taskId));
            both[i] = s.settle(10_000);
            assertTrue(s.sawState(TaskState.CANCELED), s.log.toString());
        }
        row(3, "stream: task CANCELED (Python `cancel-me`, then `tasks/cancel`)", both[0].cell(), both[1].cell());
        stockEndsAfterFinal(both[0]);
        assertNull(both[1].only(), both[1].log.toString());
        assertEquals(both[0].events.size(), both[1].events.size());
    }

    @Test
    void streamJsonRpcErrorEvent() throws Exception {
        // The Python SDK answers an executor crash on a stream with an SSE error event.
        Seen stock = stream(client(new JdkA2AHttpClient(), pyCard, true), "crash").settle(20_000);
        Seen ours = stream(client(ours(), pyCard, true), "crash").settle(20_000);
        row(4, "stream: JSON-RPC error event after the task (Python `crash`)", stock.cell(), ours.cell());
        // Stock: the typed error, then null (the listener does not close the stream on an
        // error message; the clean end that follows is reported as success).
        assertEquals(2, stock.signals.size(), stock.log.toString());
        assertInstanceOf(InternalError.class, stock.signals.get(0));
        assertNull(stock.signals.get(1));
        // Ours: the same typed error, once; the classification is its cause.
        InternalError err = assertInstanceOf(InternalError.class, ours.only());
        assertEquals(stock.signals.get(0).getMessage(), err.getMessage());
        A2aCallException c = ourCause(err);
        assertEquals(Channel.PROTOCOL, c.outcome().channel());
        assertEquals(ErrorName.INTERNAL, c.errorName());
        assertEquals(-32603L, c.outcome().code().getAsLong());
    }

    @Test
    void streamJsonRpcErrorFirstEvent() throws Exception {
        // tasks/resubscribe to a task the Python server does not know: an event stream whose
        // one event is a JSON-RPC error.
        Seen[] both = resubscribe(pyCard);
        row(5, "stream: JSON-RPC error as the only event (Python, `tasks/resubscribe` of an unknown task)",
            both[0].cell(), both[1].cell());
        assertEquals(2, both[0].signals.size(), both[0].log.toString());
        assertInstanceOf(TaskNotFoundError.class, both[0].signals.get(0));
        assertNull(both[0].signals.get(1));
        TaskNotFoundError err = assertInstanceOf(TaskNotFoundError.class, both[1].only());
        A2aCallException c = ourCause(err);
        assertEquals(ErrorName.TASK_NOT_FOUND, c.errorName());
        assertEquals(RetryAdvice.NEVER, c.retry());
        assertTrue(both[1].events.isEmpty());
    }

    @Test
    void streamJsonRpcErrorInsteadOfAStream() throws Exception {
        // `stream-finished` answers tasks/resubscribe with a plain application/json JSON-RPC
        // error (-32001) instead of an event stream, as the Python and Java servers do for
        // errors found before the stream starts.
        Seen[] both = resubscribe(cardOf(faults.rpc("stream-finished")));
        row(6, "stream: JSON-RPC error as `application/json` instead of a stream (`stream-finished`, "
            + "`tasks/resubscribe`)", both[0].cell(), both[1].cell());
        // Stock: the body's line does not start with `data:` and is dropped; the application
        // is told the stream completed normally.
        assertNull(both[0].only(), both[0].log.toString());
        TaskNotFoundError err = assertInstanceOf(TaskNotFoundError.class, both[1].only());
        assertEquals(ErrorName.TASK_NOT_FOUND, ourCause(err).errorName());
    }

    private static AgentCard cardOf(String url) {
        return new AgentCard.Builder().name("agent").description("test agent").url(url).version("1.0.0")
            .capabilities(new io.a2a.spec.AgentCapabilities.Builder().streaming(true).build())
            .defaultInputModes(List.of("text")).defaultOutputModes(List.of("text")).skills(List.of())
            .preferredTransport("JSONRPC").protocolVersion("0.3.0").build();
    }

    /** tasks/resubscribe of an unknown task, stock then ours. */
    private static Seen[] resubscribe(AgentCard card) throws Exception {
        Seen[] both = new Seen[2];
        A2AHttpClient[] https = {new JdkA2AHttpClient(), ours()};
        for (int i = 0; i < 2; i++) {
            Seen s = new Seen();
            client(https[i], card, true).resubscribe(new TaskIdParams("no-such-task"),
                List.of((e, c) -> s.event(e)), s::signal, null);
            both[i] = s.settle(20_000);
        }
        return both;
    }

    @Test
    void streamHttpError() throws Exception {
        String url = faults.rpc("html502");
        Seen stock = stream(client(new JdkA2AHttpClient(), url, true), "hi").settle(10_000);
        Seen ours = stream(client(ours(), url, true), "hi").settle(10_000);
        row(7, "stream: HTTP 502 with an HTML page (`html502`)", stock.cell(), ours.cell());
        // Stock: a clean end first (the HTML lines are not `data:`), then the status error.
        assertEquals(2, stock.signals.size(), stock.log.toString());
        assertNull(stock.signals.get(0));
        assertTrue(stock.signals.get(1).getMessage().startsWith("Request failed with status 502"), stock.log.toString());
        Throwable t = ours.only();
        A2aCallException c = assertInstanceOf(A2aCallException.class, t);
        assertTrue(c.getMessage().startsWith("Request failed with status 502: POST " + url), c.getMessage());
        assertEquals(ErrorName.BAD_GATEWAY, c.errorName());
        // A 502 on a send: a gateway may have forwarded it, so the outcome is unknown (never
        // resent without an idempotency key; docs/outcomes.md section 6).
        assertEquals(RetryAdvice.UNKNOWN_OUTCOME, c.retry());
        assertTrue(c.bodyExcerpt().orElse("").contains("502 Bad Gateway"), c.bodyExcerpt().toString());
    }

    @Test
    void streamUnauthenticated() throws Exception {
        String url = faults.rpc("secured");
        Seen stock = stream(client(new JdkA2AHttpClient(), url, true), "hi").settle(10_000);
        Seen ours = stream(client(ours(), url, true), "hi").settle(10_000);
        row(8, "stream: HTTP 401 (`secured`, no token)", stock.cell(), ours.cell());
        authAsStock(stock.only(), ours.only(), A2AErrorMessages.AUTHENTICATION_FAILED, ErrorName.UNAUTHENTICATED);
    }

    @Test
    void streamForbidden() throws Exception {
        String url = faults.rpc("status-403");
        Seen stock = stream(client(new JdkA2AHttpClient(), url, true), "hi").settle(10_000);
        Seen ours = stream(client(ours(), url, true), "hi").settle(10_000);
        row(9, "stream: HTTP 403 (`status-403`)", stock.cell(), ours.cell());
        authAsStock(stock.only(), ours.only(), A2AErrorMessages.AUTHORIZATION_FAILED, ErrorName.FORBIDDEN);
    }

    /** Same type and message as the stock client's; ours also carries the outcome. */
    private static void authAsStock(Throwable stock, Throwable ours, String message, ErrorName name) {
        assertEquals(IOException.class, stock.getClass());
        assertEquals(message, stock.getMessage());
        assertEquals(IOException.class, ours.getClass());
        assertEquals(message, ours.getMessage());
        A2aCallException c = ourCause(ours);
        assertEquals(name, c.errorName());
        assertEquals(RetryAdvice.REAUTHENTICATE, c.retry());
    }

    @Test
    void streamTruncated() throws Exception {
        String url = local.url() + "/truncated";
        Seen stock = stream(client(new JdkA2AHttpClient(), url, true), "go").settle(10_000);
        Seen ours = stream(client(ours(), url, true), "go").settle(10_000);
        row(10, "stream: body ends cleanly after WORKING (test server `/truncated`)", stock.cell(), ours.cell());
        assertNull(stock.only(), stock.log.toString());
        A2aCallException c = assertInstanceOf(A2aCallException.class, ours.only());
        assertEquals(ErrorName.RESET, c.errorName());
        assertEquals(RetryAdvice.RESUBSCRIBE, c.retry());
        assertEquals(stock.log.subList(0, 2), ours.log.subList(0, 2));
    }

    @Test
    void streamIdle() throws Exception {
        String url = faults.rpc("stall");
        Seen stock = stream(client(new JdkA2AHttpClient(), url, true), "hi");
        assertTrue(Recorder.eventually(5_000, () -> stock.events.size() == 2), stock.log.toString());
        assertFalse(stock.first.await(STOCK_WATCH_MS, TimeUnit.MILLISECONDS), "stock ended: " + stock.log);
        Seen ours = stream(client(ours(), url, true), "hi").settle(IDLE.toMillis() + 5_000);
        row(11, "stream: silence after WORKING (`stall`)", stock.cell() + " (after " + STOCK_WATCH_MS + " ms)",
            ours.cell());
        A2aCallException c = assertInstanceOf(A2aCallException.class, ours.only());
        assertEquals(ErrorName.TIMEOUT, c.errorName());
        assertEquals(Optional.of(A2aCallException.Deadline.STREAM_IDLE), c.deadline());
        assertEquals(RetryAdvice.RESUBSCRIBE, c.retry());
        assertTrue(stock.signals.isEmpty(), stock.log.toString());
    }

    @Test
    void streamConnectionCut() throws Exception {
        String url = faults.rpc("stream-drop");
        Seen stock = stream(client(new JdkA2AHttpClient(), url, true), "hi").settle(10_000);
        Seen ours = stream(client(ours(), url, true), "hi").settle(10_000);
        row(12, "stream: connection cut mid-stream (`stream-drop`)", stock.cell(), ours.cell());
        assertNotNull(stock.only(), stock.log.toString());
        A2aCallException c = assertInstanceOf(A2aCallException.class, ours.only());
        assertEquals(Channel.TRANSPORT, c.outcome().channel());
        assertEquals(ErrorName.RESET, c.errorName());
        // The task id was seen: resubscribe, never send the message again.
        assertEquals(RetryAdvice.RESUBSCRIBE, c.retry());
        assertTrue(c.outcome().taskId().isPresent(), c.outcome().toString());
        assertEquals(3, ours.events.size(), ours.log.toString());
    }

    // --- plain calls -----------------------------------------------------------------------

    @Test
    void plainCompleted() throws Exception {
        Plain stock = send(client(new JdkA2AHttpClient(), pyCard, false), "echo hi");
        Plain ours = send(client(ours(), pyCard, false), "echo hi");
        row(13, "plain: completed (Python `echo hi`)", stock.cell(), ours.cell());
        assertNull(stock.thrown());
        assertNull(ours.thrown());
        assertEquals(TaskState.COMPLETED, state(ours.events().get(0)));
        assertEquals(stock.cell(), ours.cell());
    }

    @Test
    void plainJsonRpcError() throws Exception {
        Throwable[] thrown = new Throwable[2];
        A2AHttpClient[] https = {new JdkA2AHttpClient(), ours()};
        for (int i = 0; i < 2; i++) {
            try {
                client(https[i], pyCard, false).getTask(new TaskQueryParams("no-such-task"));
            } catch (A2AClientException e) {
                thrown[i] = e;
            }
        }
        row(14, "plain: JSON-RPC error (Python `tasks/get` of an unknown task)", "throws " + describe(thrown[0]),
            "throws " + describe(thrown[1]));
        for (Throwable t : thrown) {
            assertInstanceOf(A2AClientException.class, t);
            assertEquals("Task not found", t.getMessage());
            assertInstanceOf(TaskNotFoundError.class, t.getCause());
        }
        A2aCallException c = ourCause(thrown[1]);
        assertEquals(ErrorName.TASK_NOT_FOUND, c.errorName());
        assertEquals(RetryAdvice.NEVER, c.retry());
        assertEquals(200, c.httpStatus().getAsInt());
    }

    @Test
    void plainJsonRpcErrorOnSend() throws Exception {
        Plain stock = send(client(new JdkA2AHttpClient(), pyCard, false), "crash");
        Plain ours = send(client(ours(), pyCard, false), "crash");
        row(15, "plain: JSON-RPC error -32603 (Python `crash`)", stock.cell(), ours.cell());
        assertInstanceOf(A2AClientException.class, stock.thrown());
        assertInstanceOf(A2AClientException.class, ours.thrown());
        assertEquals(stock.thrown().getMessage(), ours.thrown().getMessage());
        assertInstanceOf(InternalError.class, stock.thrown().getCause());
        assertInstanceOf(InternalError.class, ours.thrown().getCause());
        A2aCallException c = ourCause(ours.thrown());
        assertEquals(ErrorName.INTERNAL, c.errorName());
        assertEquals(RetryAdvice.UNKNOWN_OUTCOME, c.retry());
    }

    @Test
    void plainHttpError() throws Exception {
        String url = faults.rpc("html502");
        Plain stock = send(client(new JdkA2AHttpClient(), url, false), "hi");
        Plain ours = send(client(ours(), url, false), "hi");
        row(16, "plain: HTTP 502 with an HTML page (`html502`)", stock.cell(), ours.cell());
        assertEquals("Failed to send message: java.io.IOException: Request failed 502", stock.thrown().getMessage());
        assertInstanceOf(A2AClientException.class, ours.thrown());
        assertTrue(ours.thrown().getMessage().contains("Request failed 502"), ours.thrown().getMessage());
        A2aCallException c = assertInstanceOf(A2aCallException.class, ours.thrown().getCause());
        assertEquals(ErrorName.BAD_GATEWAY, c.errorName());
        // A 502 on a send: a gateway may have forwarded it, so the outcome is unknown (never
        // resent without an idempotency key; docs/outcomes.md section 6).
        assertEquals(RetryAdvice.UNKNOWN_OUTCOME, c.retry());
        assertEquals(502, c.httpStatus().getAsInt());
        assertTrue(c.bodyExcerpt().orElse("").contains("<h1>502 Bad Gateway</h1>"), c.bodyExcerpt().toString());
    }

    @Test
    void plainUnavailableWithRetryAfter() throws Exception {
        String url = faults.rpc("status-503");
        Plain stock = send(client(new JdkA2AHttpClient(), url, false), "hi");
        Plain ours = send(client(ours(), url, false), "hi");
        row(17, "plain: HTTP 503 with `Retry-After: 1` (`status-503`)", stock.cell(), ours.cell());
        assertEquals("Failed to send message: java.io.IOException: Request failed 503", stock.thrown().getMessage());
        A2aCallException c = ourCause(ours.thrown());
        assertEquals(ErrorName.UNAVAILABLE, c.errorName());
        assertEquals(1, c.outcome().retryAfterSecs().getAsLong());
        // A message/send that got a 503: it may not have been processed, but the advice says
        // what a2a-core says for it.
        assertEquals(c.outcome().retry(), c.retry());
    }

    @Test
    void plainUnauthenticated() throws Exception {
        String url = faults.rpc("secured");
        Plain stock = send(client(new JdkA2AHttpClient(), url, false), "hi");
        Plain ours = send(client(ours(), url, false), "hi");
        row(18, "plain: HTTP 401 (`secured`, no token)", stock.cell(), ours.cell());
        plainAuthAsStock(stock, ours, A2AErrorMessages.AUTHENTICATION_FAILED, ErrorName.UNAUTHENTICATED);
    }

    @Test
    void plainForbidden() throws Exception {
        String url = faults.rpc("status-403");
        Plain stock = send(client(new JdkA2AHttpClient(), url, false), "hi");
        Plain ours = send(client(ours(), url, false), "hi");
        row(19, "plain: HTTP 403 (`status-403`)", stock.cell(), ours.cell());
        plainAuthAsStock(stock, ours, A2AErrorMessages.AUTHORIZATION_FAILED, ErrorName.FORBIDDEN);
    }

    private static void plainAuthAsStock(Plain stock, Plain ours, String message, ErrorName name) {
        assertEquals("Failed to send message: java.io.IOException: " + message, stock.thrown().getMessage());
        // Byte for byte what the stock client gives: same wrapper, same message, same cause type.
        assertEquals(stock.thrown().getClass(), ours.thrown().getClass());
        assertEquals(stock.thrown().getMessage(), ours.thrown().getMessage());
        assertEquals(IOException.class, ours.thrown().getCause().getClass());
        assertEquals(message, ours.thrown().getCause().getMessage());
        A2aCallException c = ourCause(ours.thrown());
        assertEquals(name, c.errorName());
        assertEquals(RetryAdvice.REAUTHENTICATE, c.retry());
    }
}
