package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An A2A agent served over the core's server side: a {@link HttpHandler} for the JDK's
 * {@code com.sun.net.httpserver} (mount it at {@code /}), and {@link #serve(Exchange)} for any
 * other HTTP stack (a servlet implements {@link Exchange} in a few lines).
 *
 * <p>One route set: the card at {@code /.well-known/agent-card.json} (written by the core's
 * card builder for 1.0 and 0.3 clients), JSON-RPC on {@code POST /}, HTTP+JSON under
 * {@code /rest} (0.3 under {@code /rest/v1}), both protocol versions; streams carry the
 * proxy-safe headers and keep-alive comments on the core's schedule.
 *
 * <p>The agent is a {@link Handler}: it answers with {@link Context#reply} (a message), or
 * reports a task with {@link Context#status} and {@link Context#artifact} (the task ends
 * COMPLETED unless its last status says otherwise). A {@link ProtocolError} thrown before the
 * handler reported anything answers the request with that A2A error instead (no task is kept);
 * any other exception becomes the ADK-style
 * FAILED status with a fresh error_id, logged with the exception on the
 * {@code dev.a2acore.server} logger and never sent unless debug detail is on. A
 * {@code beforeExecute} hook refuses work by throwing {@link Refused} (an admission cancel);
 * an {@code afterExecute} hook may return a {@link Hint} appended to a FAILED text. Every
 * answer is counted in {@link #tally()}.
 */
public final class A2aServer implements HttpHandler, AutoCloseable {
    private static final Logger LOG = Logger.getLogger("dev.a2acore.server");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> TERMINAL = Set.of("TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
        "TASK_STATE_CANCELED", "TASK_STATE_REJECTED");
    private static final Set<String> INTERRUPTED = Set.of("TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED");
    private static final String CARD_PATH = "/.well-known/agent-card.json";

    /** The agent. */
    @FunctionalInterface
    public interface Handler {
        /** Serves one SendMessage / SendStreamingMessage (throw to fail the task). */
        void handle(Context ctx) throws Exception;
    }

    /** Refuses a request before it runs (throw it from {@code beforeExecute}). */
    public static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** A refusal with its reason (sent in the CANCELED status text). */
        public Refused(String reason) {
            super(reason);
        }
    }

    /**
     * An A2A protocol error answered instead of a result (TaskNotFound, InvalidParams,
     * UnsupportedOperation, ...). A handler throws it before it reports anything to refuse the
     * message with it (also as the cause of another exception); the core writes it in the
     * request's version and binding: a JSON-RPC error object (1.0 with its ErrorInfo in
     * {@code data}), or on HTTP+JSON the status the spec maps it to with a google.rpc.Status
     * body. A streaming JSON-RPC request gets it as the one event of an event stream (what the
     * SDK clients read). Thrown after the handler reported, it fails the task like any other
     * exception.
     */
    public static final class ProtocolError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final ErrorName name;

        /**
         * An error of a protocol-channel name (others are sent as Internal) with its message
         * ({@code null} or empty: the standard one).
         */
        public ProtocolError(ErrorName name, String message) {
            super(message == null ? "" : message);
            this.name = name;
        }

        /** The error's name. */
        public ErrorName name() {
            return name;
        }
    }

    /**
     * A stable hint appended to a FAILED text, e.g. {@code [retryable=false; reason=quota]}.
     *
     * @param retryable {@code retryable=}, or null for none
     * @param pairs other key/value pairs, in order
     */
    public record Hint(Boolean retryable, Map<String, String> pairs) {}

    /** One HTTP exchange, for stacks other than com.sun.net.httpserver (a servlet). */
    public interface Exchange {
        /** The verb. */
        String method();

        /** The path relative to where the server is mounted ({@code /}, {@code /rest/tasks/t-1}). */
        String path();

        /** The raw query string, or null. */
        String query();

        /** Every header field, {@code Host} included. */
        List<Map.Entry<String, String>> headers();

        /** The body. */
        byte[] body() throws IOException;

        /** The listener's address ({@code 127.0.0.1:8080}) for the Host check, or null for none. */
        String boundAddr();

        /** The URL the server is mounted at ({@code http://127.0.0.1:8080}), for the card. */
        String baseUrl();

        /** Writes a whole response. */
        void respond(int status, List<Map.Entry<String, String>> headers, byte[] body) throws IOException;

        /** Starts a streamed response; write frames to the stream and flush each. */
        OutputStream startStream(int status, List<Map.Entry<String, String>> headers) throws IOException;
    }

    /** What the handler sees of one request, and how it reports. */
    public final class Context {
        private final Run run;
        private final ServerRequest.Info info;
        private final JsonNode params;

        Context(Run run, ServerRequest.Info info, JsonNode params) {
            this.run = run;
            this.info = info;
            this.params = params;
        }

        /** The request as the core read it (version, binding, method, extensions, trace). */
        public ServerRequest.Info info() {
            return info;
        }

        /** The params in A2A 1.0 ProtoJSON. */
        public JsonNode params() {
            return params;
        }

        /** The user's message text (text parts joined with newlines). */
        public String text() {
            List<String> parts = new ArrayList<>();
            params.path("message").path("parts").forEach(p -> {
                if (p.has("text")) {
                    parts.add(p.get("text").asText());
                }
            });
            return String.join("\n", parts);
        }

        /** This request's task id. */
        public String taskId() {
            return run.taskId;
        }

        /** This request's context id. */
        public String contextId() {
            return run.contextId;
        }

        /** Whether this message continues a task (multi-turn). */
        public boolean continuesTask() {
            return run.continued;
        }

        /** Answers with an agent message (no task); ends the request. */
        public void reply(String text) {
            ObjectNode m = agentMessage(text, false);
            ObjectNode ev = JSON.createObjectNode();
            ev.set("message", m);
            run.publish(ev);
        }

        /** Reports a status of the task ({@code working}, {@code input-required}, ... or TASK_STATE_*). */
        public void status(String state, String text) {
            run.publish(run.statusUpdate(stateName(state), text == null ? null : agentMessage(text, true)));
        }

        /** Reports an artifact chunk ({@code append}: extends {@code artifactId}). */
        public void artifact(String artifactId, String text, boolean append, boolean lastChunk) {
            ObjectNode a = JSON.createObjectNode();
            a.put("artifactId", artifactId == null ? UUID.randomUUID().toString() : artifactId);
            a.putArray("parts").addObject().put("text", text);
            ObjectNode u = JSON.createObjectNode();
            u.put("taskId", run.taskId).put("contextId", run.contextId);
            u.set("artifact", a);
            u.put("append", append).put("lastChunk", lastChunk);
            ObjectNode ev = JSON.createObjectNode();
            ev.set("artifactUpdate", u);
            run.publish(ev);
        }

        /** Whether the task was canceled (a long handler should stop). */
        public boolean isCanceled() {
            return "TASK_STATE_CANCELED".equals(run.state());
        }

        ObjectNode agentMessage(String text, boolean inTask) {
            ObjectNode m = JSON.createObjectNode();
            m.put("messageId", UUID.randomUUID().toString()).put("role", "ROLE_AGENT");
            m.putArray("parts").addObject().put("text", text);
            m.put("contextId", run.contextId);
            if (inTask) {
                m.put("taskId", run.taskId);
            }
            return m;
        }
    }

    static String stateName(String state) {
        if (state.startsWith("TASK_STATE_")) {
            return state;
        }
        return "TASK_STATE_" + state.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
    }

    /** A task the server keeps, with its live subscribers. */
    final class Run {
        final String taskId;
        final String contextId;
        final boolean continued;
        ObjectNode task;
        ObjectNode message;
        boolean started;
        volatile boolean done;
        /** Orders runs by their last status change (ListTasks: newest first; its page token). */
        long seq;
        /** When the status last changed, ms since the epoch. */
        long statusAtMs;
        /** The protocol error the handler answered with instead of a task. */
        ProtocolError refusal;
        /** The run this message continues (restored when the handler refuses it). */
        Run prev;
        final Set<BlockingQueue<ObjectNode>> subscribers = new CopyOnWriteArraySet<>();

        Run(String taskId, String contextId, ObjectNode existing, JsonNode userMessage) {
            this.taskId = taskId;
            this.contextId = contextId;
            this.continued = existing != null;
            task = existing != null ? existing : JSON.createObjectNode();
            task.put("id", taskId).put("contextId", contextId);
            stamp(task.putObject("status").put("state", "TASK_STATE_SUBMITTED"));
            ArrayNode history = task.has("history") ? (ArrayNode) task.get("history") : task.putArray("history");
            ObjectNode um = userMessage.deepCopy();
            um.put("taskId", taskId).put("contextId", contextId);
            history.add(um);
            if (!task.has("artifacts")) {
                task.putArray("artifacts");
            }
        }

        /** Records a status change and dates the status when it is not. */
        void stamp(ObjectNode status) {
            seq = STATUS_SEQ.incrementAndGet();
            statusAtMs = System.currentTimeMillis();
            if (!status.has("timestamp")) {
                status.put("timestamp", java.time.Instant.ofEpochMilli(statusAtMs).toString());
            }
        }

        /**
         * Sets the task CANCELED and ends the run, also when its handler already returned (a task
         * waiting in INPUT_REQUIRED or AUTH_REQUIRED).
         */
        synchronized void cancelNow() {
            done = false;
            publish(statusUpdate("TASK_STATE_CANCELED", null));
            finish();
        }

        /** Ends a run that reported nothing with the handler's protocol error. */
        synchronized boolean refuse(ProtocolError e) {
            if (done || started || message != null) {
                return false;
            }
            refusal = e;
            finish();
            return true;
        }

        synchronized String state() {
            return task.path("status").path("state").asText();
        }

        ObjectNode statusUpdate(String state, ObjectNode message) {
            ObjectNode status = JSON.createObjectNode().put("state", state);
            if (message != null) {
                status.set("message", message);
            }
            ObjectNode u = JSON.createObjectNode().put("taskId", taskId).put("contextId", contextId);
            u.set("status", status);
            u.put("final", TERMINAL.contains(state) || INTERRUPTED.contains(state));
            ObjectNode ev = JSON.createObjectNode();
            ev.set("statusUpdate", u);
            return ev;
        }

        synchronized void publish(ObjectNode ev) {
            if (done) {
                return;
            }
            if (ev.has("message")) {
                message = ev;
                broadcast(ev);
                finish();
                return;
            }
            if (!started) {
                started = true;
                ObjectNode first = JSON.createObjectNode();
                first.set("task", task.deepCopy());
                broadcast(first);
            }
            if (ev.has("statusUpdate")) {
                JsonNode status = ev.get("statusUpdate").get("status");
                if (status instanceof ObjectNode o) {
                    stamp(o);
                }
                task.set("status", status.deepCopy());
                if (status.has("message")) {
                    ((ArrayNode) task.get("history")).add(status.get("message").deepCopy());
                }
            } else if (ev.has("artifactUpdate")) {
                JsonNode u = ev.get("artifactUpdate");
                JsonNode a = u.get("artifact");
                ArrayNode arts = (ArrayNode) task.get("artifacts");
                boolean merged = false;
                if (u.path("append").asBoolean()) {
                    for (JsonNode old : arts) {
                        if (old.path("artifactId").equals(a.path("artifactId"))) {
                            ((ArrayNode) old.get("parts")).addAll((ArrayNode) a.get("parts").deepCopy());
                            merged = true;
                        }
                    }
                }
                if (!merged) {
                    arts.add(a.deepCopy());
                }
            }
            broadcast(ev);
        }

        private void broadcast(ObjectNode ev) {
            for (BlockingQueue<ObjectNode> q : subscribers) {
                q.add(ev);
            }
        }

        synchronized void finish() {
            done = true;
            for (BlockingQueue<ObjectNode> q : subscribers) {
                q.add(END);
            }
        }

        /** A subscriber queue that starts with the task as it is now. */
        synchronized BlockingQueue<ObjectNode> subscribe(boolean withSnapshot) {
            BlockingQueue<ObjectNode> q = new LinkedBlockingQueue<>();
            if (withSnapshot) {
                ObjectNode first = JSON.createObjectNode();
                first.set("task", task.deepCopy());
                q.add(first);
            }
            if (done) {
                q.add(END);
            } else {
                subscribers.add(q);
            }
            return q;
        }
    }

    private static final ObjectNode END = JSON.createObjectNode();
    /** Numbers status changes across the process (ListTasks' order and page token). */
    private static final java.util.concurrent.atomic.AtomicLong STATUS_SEQ = new java.util.concurrent.atomic.AtomicLong();

    /** Server settings (card texts, versions, hooks, keep-alive). */
    public static final class Builder {
        private final Handler handler;
        private String name = "a2a-core agent";
        private String description = "An A2A agent served by a2a-core";
        private String version = "1.0.0";
        private final List<String[]> skills = new ArrayList<>();
        private boolean streaming = true;
        private boolean debugDetail;
        private long keepAliveMs;
        private java.util.function.Consumer<Context> beforeExecute;
        private BiFunction<Context, Throwable, Hint> afterExecute;

        Builder(Handler handler) {
            this.handler = handler;
        }

        /** The card's name, description and the agent's own version. */
        public Builder card(String name, String description, String version) {
            this.name = name;
            this.description = description;
            this.version = version;
            return this;
        }

        /** Adds a skill to the card. */
        public Builder skill(String id, String name, String description, String tag) {
            skills.add(new String[] {id, name, description, tag});
            return this;
        }

        /** Whether the card declares streaming (default true). */
        public Builder streaming(boolean on) {
            streaming = on;
            return this;
        }

        /** Sends the exception's class and message after the error id (debug deployments only). */
        public Builder debugDetail(boolean on) {
            debugDetail = on;
            return this;
        }

        /** The keep-alive comment interval (0: the core's default, 15 s). */
        public Builder keepAlive(java.time.Duration d) {
            keepAliveMs = d.toMillis();
            return this;
        }

        /** Runs before the handler; throw {@link Refused} to refuse the request. */
        public Builder beforeExecute(java.util.function.Consumer<Context> hook) {
            beforeExecute = hook;
            return this;
        }

        /** Runs after the handler (the error, or null); a returned hint is appended to a FAILED text. */
        public Builder afterExecute(BiFunction<Context, Throwable, Hint> hook) {
            afterExecute = hook;
            return this;
        }

        /** The server. */
        public A2aServer build() {
            return new A2aServer(this);
        }
    }

    private final Builder cfg;
    private final Tally tally = new Tally();
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    private final Map<String, byte[]> cards = new ConcurrentHashMap<>();
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "a2a-agent");
        t.setDaemon(true);
        return t;
    });

    private A2aServer(Builder b) {
        this.cfg = b;
    }

    /** A server for {@code handler}; configure, then {@link Builder#build()}. */
    public static Builder builder(Handler handler) {
        return new Builder(handler);
    }

    /** What the server answered, per (agent, method, channel, code). */
    public Tally tally() {
        return tally;
    }

    /** The card for interfaces under {@code baseUrl} (cached). */
    public byte[] card(String baseUrl) {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        return cards.computeIfAbsent(base, k -> {
            try (CardBuilder b = new CardBuilder(cfg.name, cfg.description, cfg.version)) {
                for (ProtocolVersion v : List.of(ProtocolVersion.V1_0, ProtocolVersion.V0_3)) {
                    b.addInterface(k + "/", v, Binding.JSON_RPC);
                    b.addInterface(k + "/rest", v, Binding.HTTP_JSON);
                }
                b.capabilities(cfg.streaming, false);
                for (String[] s : cfg.skills) {
                    b.addSkill(s[0], s[1], s[2], List.of(s[3]), List.of());
                }
                return b.build();
            }
        });
    }

    // --- com.sun.net.httpserver ----------------------------------------------------------------

    @Override
    public void handle(HttpExchange x) throws IOException {
        try {
            serve(new JdkExchange(x));
        } finally {
            x.close();
        }
    }

    private static final class JdkExchange implements Exchange {
        private final HttpExchange x;

        JdkExchange(HttpExchange x) {
            this.x = x;
        }

        @Override
        public String method() {
            return x.getRequestMethod();
        }

        @Override
        public String path() {
            String ctx = x.getHttpContext().getPath();
            String p = x.getRequestURI().getRawPath();
            if (!"/".equals(ctx) && p.startsWith(ctx)) {
                p = p.substring(ctx.length());
            }
            return p.isEmpty() ? "/" : p;
        }

        @Override
        public String query() {
            return x.getRequestURI().getRawQuery();
        }

        @Override
        public List<Map.Entry<String, String>> headers() {
            List<Map.Entry<String, String>> out = new ArrayList<>();
            x.getRequestHeaders().forEach((k, vs) -> vs.forEach(v -> out.add(Map.entry(k, v))));
            return out;
        }

        @Override
        public byte[] body() throws IOException {
            try (InputStream in = x.getRequestBody()) {
                return in.readNBytes(16 * 1024 * 1024);
            }
        }

        @Override
        public String boundAddr() {
            InetSocketAddress a = x.getLocalAddress();
            String host = a.getAddress().getHostAddress();
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
        }

        @Override
        public String baseUrl() {
            String host = x.getRequestHeaders().getFirst("Host");
            String ctx = x.getHttpContext().getPath();
            return "http://" + (host != null ? host : boundAddr()) + ("/".equals(ctx) ? "" : ctx);
        }

        @Override
        public void respond(int status, List<Map.Entry<String, String>> headers, byte[] body) throws IOException {
            headers.forEach(h -> {
                if (!h.getKey().equalsIgnoreCase("content-length")) {
                    x.getResponseHeaders().add(h.getKey(), h.getValue());
                }
            });
            x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                try (OutputStream out = x.getResponseBody()) {
                    out.write(body);
                }
            }
        }

        @Override
        public OutputStream startStream(int status, List<Map.Entry<String, String>> headers) throws IOException {
            headers.forEach(h -> x.getResponseHeaders().add(h.getKey(), h.getValue()));
            x.sendResponseHeaders(status, 0);
            return x.getResponseBody();
        }
    }

    // --- any stack ------------------------------------------------------------------------------

    /** Serves one exchange (the route set above). */
    public void serve(Exchange x) throws IOException {
        String path = x.path();
        String verb = x.method();
        if (CARD_PATH.equals(path) && ("GET".equals(verb) || "HEAD".equals(verb))) {
            x.respond(200, List.of(Map.entry("Content-Type", "application/json")), card(x.baseUrl()));
            return;
        }
        boolean rest = path.equals("/rest") || path.startsWith("/rest/");
        if (!rest && !("/".equals(path) && "POST".equals(verb))) {
            x.respond(404, List.of(Map.entry("Content-Type", "text/plain")), "not found\n".getBytes());
            return;
        }
        byte[] body = x.body();
        String bound = x.boundAddr();
        ServerRequest.Options opts = new ServerRequest.Options(true, true, bound, List.of());
        ServerRequest req;
        if (rest) {
            String target = path.substring(5);
            target = (target.isEmpty() ? "/" : target) + (x.query() == null ? "" : "?" + x.query());
            req = ServerRequest.parseRest(verb, target, x.headers(), body, opts);
        } else {
            req = ServerRequest.parseJsonRpc(x.headers(), body, opts);
        }
        try (ServerRequest r = req) {
            if (r.isRefused()) {
                answer(x, r.refusal());
                return;
            }
            dispatch(x, r);
        }
    }

    private void answer(Exchange x, ServerRequest.Response resp) throws IOException {
        tally.add(cfg.name, resp.method(), resp.channel(), resp.code(), 1);
        x.respond(resp.status(), resp.headers(), resp.body());
    }

    private static byte[] bytes(JsonNode n) {
        try {
            return JSON.writeValueAsBytes(n);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void dispatch(Exchange x, ServerRequest r) throws IOException {
        ServerRequest.Info info = r.info();
        JsonNode params = r.params();
        try {
            switch (info.method()) {
                case SEND_MESSAGE, SEND_STREAMING_MESSAGE -> send(x, r, info, params);
                case GET_TASK -> {
                    Run run = find(params.path("id").asText(null));
                    ObjectNode t;
                    synchronized (run) {
                        t = run.task.deepCopy();
                    }
                    trimHistory(t, params);
                    answer(x, r.result(bytes(t)));
                }
                case CANCEL_TASK -> {
                    Run run = find(params.path("id").asText(null));
                    if (TERMINAL.contains(run.state())) {
                        throw new ProtocolError(ErrorName.TASK_NOT_CANCELABLE, "task " + run.taskId + " already ended");
                    }
                    run.cancelNow();
                    ObjectNode t;
                    synchronized (run) {
                        t = run.task.deepCopy();
                    }
                    answer(x, r.result(bytes(t)));
                }
                case SUBSCRIBE_TO_TASK -> {
                    Run run = find(params.path("id").asText(null));
                    if (TERMINAL.contains(run.state())) {
                        throw new ProtocolError(ErrorName.UNSUPPORTED_OPERATION, "task " + run.taskId + " already ended");
                    }
                    stream(x, r, run, run.subscribe(true));
                }
                // The card declares no extendedAgentCard: UnsupportedOperation, as docs/serving.md §5 says.
                case GET_EXTENDED_AGENT_CARD -> throw new ProtocolError(ErrorName.UNSUPPORTED_OPERATION,
                    "this agent declares no extended agent card");
                case LIST_TASKS -> answer(x, r.result(bytes(list(params))));
                default -> throw new ProtocolError(ErrorName.PUSH_NOTIFICATION_NOT_SUPPORTED, "");
            }
        } catch (ProtocolError e) {
            answerError(x, r, e);
        }
    }

    /**
     * Answers with a protocol error: on a streaming JSON-RPC request (SendStreamingMessage,
     * SubscribeToTask) as an event stream of that one error, as the reference agent and the
     * Python SDK do (the SDK clients read a stream there); otherwise the core's error response.
     */
    private void answerError(Exchange x, ServerRequest r, ProtocolError e) throws IOException {
        ServerRequest.Response resp = r.error(e.name(), e.getMessage());
        ServerRequest.Info info = r.info();
        if (!info.streaming() || info.binding() != Binding.JSON_RPC) {
            answer(x, resp);
            return;
        }
        byte[] frame = r.errorFrame(e.name(), e.getMessage());
        tally.add(cfg.name, resp.method(), resp.channel(), resp.code(), 1);
        try (OutputStream out = x.startStream(200, ServerRequest.streamHeaders())) {
            out.write(frame);
            out.flush();
        }
    }

    /** ListTasks' page size when the request names none (the spec's default). */
    private static final int DEFAULT_PAGE_SIZE = 50;

    /** Keeps the last {@code historyLength} messages of {@code t} (all when unset; the core refused a negative one). */
    private static void trimHistory(ObjectNode t, JsonNode params) {
        if (!params.hasNonNull("historyLength") || !(t.get("history") instanceof ArrayNode h)) {
            return;
        }
        int keep = Math.max(params.get("historyLength").asInt(), 0);
        while (h.size() > keep) {
            h.remove(0);
        }
    }

    /**
     * ListTasks as the reference agent answers it: the filters (contextId, status,
     * statusTimestampAfter: status changed at or after it), newest status change first, pages of
     * pageSize (default 50; the core checked 1 to 100) whose nextPageToken is the position of
     * the page's last task ("" on the last page; a token this server did not write is
     * InvalidParams), historyLength on every task, artifacts only with includeArtifacts.
     */
    private ObjectNode list(JsonNode params) {
        long before = Long.MAX_VALUE;
        String token = params.path("pageToken").asText("");
        if (!token.isEmpty()) {
            try {
                before = Long.parseLong(token);
            } catch (NumberFormatException e) {
                before = 0;
            }
            if (before <= 0) {
                throw new ProtocolError(ErrorName.INVALID_PARAMS, "Invalid params: pageToken is not a page token this agent wrote");
            }
        }
        long afterMs = Long.MIN_VALUE;
        String ts = params.path("statusTimestampAfter").asText("");
        if (!ts.isEmpty()) {
            try {
                afterMs = java.time.OffsetDateTime.parse(ts).toInstant().toEpochMilli();
            } catch (java.time.format.DateTimeParseException e) {
                // The core validated it; a form the JDK does not read is refused the same way.
                throw new ProtocolError(ErrorName.INVALID_PARAMS, "Invalid params: statusTimestampAfter is not an RFC 3339 timestamp");
            }
        }
        String ctxId = params.path("contextId").asText("");
        String status = params.path("status").asText("");
        if (!status.isEmpty()) {
            status = stateName(status);
        }
        int size = params.path("pageSize").asInt(0) >= 1 ? params.get("pageSize").asInt() : DEFAULT_PAGE_SIZE;
        boolean withArtifacts = params.path("includeArtifacts").asBoolean(false);
        record Hit(long seq, ObjectNode task) {}
        List<Hit> hits = new ArrayList<>();
        for (Run run : runs.values()) {
            synchronized (run) {
                if ((ctxId.isEmpty() || ctxId.equals(run.contextId)) && (status.isEmpty() || status.equals(run.state()))
                    && run.statusAtMs >= afterMs && run.message == null) {
                    hits.add(new Hit(run.seq, run.task.deepCopy()));
                }
            }
        }
        hits.sort((p, q) -> Long.compare(q.seq(), p.seq()));
        ObjectNode out = JSON.createObjectNode();
        ArrayNode tasks = out.putArray("tasks");
        String next = "";
        long lastSeq = 0;
        for (Hit h : hits) {
            if (h.seq() >= before) {
                continue;
            }
            if (tasks.size() == size) {
                next = Long.toString(lastSeq);
                break;
            }
            trimHistory(h.task(), params);
            if (!withArtifacts) {
                h.task().remove("artifacts");
            }
            tasks.add(h.task());
            lastSeq = h.seq();
        }
        out.put("nextPageToken", next).put("pageSize", tasks.size()).put("totalSize", hits.size());
        return out;
    }

    /** Tasks kept in memory at most: past it, finished tasks are dropped before a new one is kept. */
    private static final int MAX_KEPT_TASKS = 10_000;

    private void keep(Run run) {
        if (runs.size() >= MAX_KEPT_TASKS) {
            runs.values().removeIf(r -> r.done && runs.size() >= MAX_KEPT_TASKS);
        }
        runs.put(run.taskId, run);
    }

    private Run find(String id) {
        Run run = id == null ? null : runs.get(id);
        if (run == null) {
            throw new ProtocolError(ErrorName.TASK_NOT_FOUND, "no task " + id);
        }
        return run;
    }

    private void send(Exchange x, ServerRequest r, ServerRequest.Info info, JsonNode params) throws IOException {
        JsonNode msg = params.path("message");
        String taskId = msg.path("taskId").asText("");
        ObjectNode existing = null;
        Run prev = null;
        if (!taskId.isEmpty()) {
            prev = find(taskId);
            if (TERMINAL.contains(prev.state())) {
                throw new ProtocolError(ErrorName.UNSUPPORTED_OPERATION, "task " + taskId + " already ended");
            }
            synchronized (prev) {
                existing = prev.task.deepCopy();
            }
        } else {
            taskId = UUID.randomUUID().toString();
        }
        String contextId = msg.path("contextId").asText("");
        if (contextId.isEmpty()) {
            contextId = existing != null ? existing.path("contextId").asText() : UUID.randomUUID().toString();
        }
        Run run = new Run(taskId, contextId, existing, msg);
        run.prev = prev;
        Context ctx = new Context(run, info, params);
        BlockingQueue<ObjectNode> mine = run.subscribe(false);
        workers.execute(() -> execute(ctx, run));
        if (info.streaming()) {
            stream(x, r, run, mine);
            return;
        }
        // Blocking: wait for a message, or until the task ends or needs input.
        while (true) {
            ObjectNode ev;
            try {
                ev = mine.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (ev == END || ev.has("message") || INTERRUPTED.contains(run.state()) || TERMINAL.contains(run.state())) {
                break;
            }
        }
        run.subscribers.remove(mine);
        ProtocolError refusal;
        synchronized (run) {
            refusal = run.refusal;
        }
        if (refusal != null) {
            answerError(x, r, refusal);
            return;
        }
        if (run.message != null) {
            answer(x, r.result(bytes(run.message)));
            return;
        }
        ObjectNode reply = JSON.createObjectNode();
        synchronized (run) {
            reply.set("task", run.task.deepCopy());
        }
        answer(x, r.result(bytes(reply)));
    }

    private void execute(Context ctx, Run run) {
        Throwable error = null;
        try {
            if (cfg.beforeExecute != null) {
                try {
                    cfg.beforeExecute.accept(ctx);
                } catch (Refused refused) {
                    keep(run);
                    ObjectNode status = (ObjectNode) JSON.readTree(ServerRequest.admissionStatus(run.taskId,
                        run.contextId, UUID.randomUUID().toString(), refused.getMessage()));
                    ObjectNode ev = run.statusUpdate("TASK_STATE_CANCELED", null);
                    ((ObjectNode) ev.get("statusUpdate")).set("status", status);
                    run.publish(ev);
                    return;
                }
            }
            keep(run);
            cfg.handler.handle(ctx);
        } catch (Throwable e) {
            error = e;
        } finally {
            ProtocolError refusal = protocolError(error);
            if (refusal != null && run.refuse(refusal)) {
                // Answered with the error: no task is kept (a continued task stays as it was).
                if (run.prev != null) {
                    runs.replace(run.taskId, run, run.prev);
                } else {
                    runs.remove(run.taskId, run);
                }
                return;
            }
            try {
                if (error != null) {
                    fail(ctx, run, error);
                } else if (run.message == null && !TERMINAL.contains(run.state())
                    && !INTERRUPTED.contains(run.state())) {
                    run.publish(run.statusUpdate("TASK_STATE_COMPLETED", null));
                }
                if (error == null && cfg.afterExecute != null) {
                    cfg.afterExecute.apply(ctx, null);
                }
            } catch (Throwable e) {
                LOG.log(Level.SEVERE, "after the handler of task " + run.taskId, e);
            } finally {
                if (run.message != null) {
                    runs.remove(run.taskId);
                }
                run.finish();
            }
        }
    }

    /** The protocol error {@code error} is or was caused by, or null. */
    private static ProtocolError protocolError(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ProtocolError e) {
                return e;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private void fail(Context ctx, Run run, Throwable error) {
        String id = ServerRequest.newErrorId();
        LOG.log(Level.SEVERE, "agent execution failed (error_id: " + id + ", task " + run.taskId + ")", error);
        Hint hint = null;
        if (cfg.afterExecute != null) {
            try {
                hint = cfg.afterExecute.apply(ctx, error);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "afterExecute failed for task " + run.taskId, e);
            }
        }
        String detail = cfg.debugDetail ? error.getClass().getSimpleName() + ": " + error.getMessage() : null;
        String text = ServerRequest.failureText(id, detail,
            hint == null ? null : ServerRequest.hintText(hint.retryable(), hint.pairs() == null ? Map.of() : hint.pairs()));
        run.publish(run.statusUpdate("TASK_STATE_FAILED", ctx.agentMessage(text, true)));
    }

    private void stream(Exchange x, ServerRequest r, Run run, BlockingQueue<ObjectNode> q) throws IOException {
        // The headers go out with the first event or keep-alive, so that a handler's protocol
        // error before any event is still answered as an error.
        OutputStream out = null;
        boolean answered = false;
        long last = System.nanoTime() / 1_000_000;
        byte[] comment = ServerRequest.keepAliveComment();
        ObjectNode lastEvent = null;
        try {
            while (true) {
                long now = System.nanoTime() / 1_000_000;
                long wait = ServerRequest.keepAliveWaitMs(cfg.keepAliveMs, now, last);
                if (wait == 0) {
                    if (out == null) {
                        out = x.startStream(200, ServerRequest.streamHeaders());
                    }
                    out.write(comment);
                    out.flush();
                    last = now;
                    continue;
                }
                ObjectNode ev = q.poll(wait, TimeUnit.MILLISECONDS);
                if (ev == null) {
                    continue;
                }
                if (ev == END) {
                    ProtocolError refusal;
                    synchronized (run) {
                        refusal = run.refusal;
                    }
                    if (refusal != null) {
                        if (out == null) {
                            answered = true;
                            answerError(x, r, refusal);
                        } else {
                            ServerRequest.Response resp = r.error(refusal.name(), refusal.getMessage());
                            tally.add(cfg.name, resp.method(), resp.channel(), resp.code(), 1);
                            out.write(r.errorFrame(refusal.name(), refusal.getMessage()));
                        }
                        return;
                    }
                    break;
                }
                lastEvent = ev;
                if (out == null) {
                    out = x.startStream(200, ServerRequest.streamHeaders());
                }
                out.write(r.eventFrame(bytes(ev)));
                out.flush();
                last = System.nanoTime() / 1_000_000;
                if (ev.has("message") || INTERRUPTED.contains(run.state()) && ev.has("statusUpdate")) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            run.subscribers.remove(q);
            if (out == null && !answered) {
                out = x.startStream(200, ServerRequest.streamHeaders());
            }
            if (out != null) {
                out.close();
            }
        }
        String method = r.info().method().jsonRpcName(ProtocolVersion.V1_0).orElse("unknown");
        if (lastEvent != null && lastEvent.has("message")) {
            tally.add(cfg.name, method, Channel.MESSAGE, "message", 1);
        } else {
            String s = run.state().replace("TASK_STATE_", "").toLowerCase(java.util.Locale.ROOT).replace('_', '-');
            tally.add(cfg.name, method, Channel.TASK, s, 1);
        }
    }

    /** Stops the handler threads (running handlers are interrupted). */
    @Override
    public void close() {
        workers.shutdownNow();
    }
}
