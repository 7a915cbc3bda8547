package dev.a2acore.a2ajava;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.a2acore.Asked;
import dev.a2acore.A2aCoreException;
import dev.a2acore.A2aMethod;
import dev.a2acore.ErrorName;
import dev.a2acore.MachineTarget;
import dev.a2acore.Outcome;
import dev.a2acore.ProtocolVersion;
import dev.a2acore.RequestSent;
import dev.a2acore.StreamEndKind;
import dev.a2acore.StreamItem;
import dev.a2acore.StreamItemKind;
import io.a2a.spec.A2AClientException;
import io.a2a.spec.InvalidParamsError;
import io.a2a.spec.JSONRPCError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One JSON-RPC request of a2a-java judged by the core's client machine: a call of the same
 * method, params and JSON-RPC id on the agent's {@link MachineTarget} (its breaker, shared by
 * every call to that origin), whose one transmit the drop-in performs with a2a-java's own
 * bytes (URL, headers, body: a2a-java's transport is the request's author), and which is
 * handed the response (head, chunks, end, transport failure, idle deadline) to classify it,
 * follow the stream and record the breaker. No retries, no resubscribes: a2a-java decides.
 * Reader thread (or the calling thread) only; {@link #close()} frees the call.
 */
final class MachineRun implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What a JSON-RPC request body asks: the method (named in {@code version}, {@code name}
     * as sent), params (the bytes of a2a-java's {@code params} value, as they came) and id.
     */
    record Rpc(A2aMethod method, ProtocolVersion version, String name, byte[] params, Object id) {
        /** The method names seen, each looked up in the core's vocabulary once. */
        private static final ConcurrentHashMap<String, Optional<Map.Entry<A2aMethod, ProtocolVersion>>> NAMES =
            new ConcurrentHashMap<>();

        /**
         * Reads a2a-java's request body in one pass, without building a tree: the params
         * value's bytes are cut out of the body, not re-serialized. Empty when it is not a
         * JSON-RPC call of a method the core knows, or its id is not a string or an integer.
         */
        static Optional<Rpc> of(byte[] body) {
            if (body == null || body.length == 0) {
                return Optional.empty();
            }
            String jsonrpc = null;
            String name = null;
            Object rpcId = null;
            boolean badId = false;
            byte[] params = null;
            try (JsonParser p = JSON.getFactory().createParser(body)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    return Optional.empty();
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken t = p.nextToken();
                    switch (field) {
                        case "jsonrpc" -> jsonrpc = t == JsonToken.VALUE_STRING ? p.getText() : null;
                        case "method" -> name = t == JsonToken.VALUE_STRING ? p.getText() : null;
                        case "id" -> {
                            rpcId = t == JsonToken.VALUE_STRING ? p.getText()
                                : t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER
                                ? (Object) p.getLongValue() : null;
                            badId = rpcId == null && t != JsonToken.VALUE_NULL;
                            p.skipChildren();
                        }
                        case "params" -> {
                            if (t == JsonToken.VALUE_NULL) {
                                params = null;
                            } else {
                                long from = p.currentTokenLocation().getByteOffset();
                                p.skipChildren();
                                long to = p.currentLocation().getByteOffset();
                                params = Arrays.copyOfRange(body, Math.toIntExact(from), Math.toIntExact(to));
                            }
                        }
                        default -> p.skipChildren();
                    }
                }
                if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                    return Optional.empty();
                }
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
            if (jsonrpc == null || name == null || badId) {
                return Optional.empty(); // not JSON-RPC, or an id the machine cannot carry: not the machine's
            }
            Optional<Map.Entry<A2aMethod, ProtocolVersion>> m = NAMES.computeIfAbsent(name, Rpc::lookUp);
            if (m.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Rpc(m.get().getKey(), m.get().getValue(), name, params, rpcId));
        }

        private static Optional<Map.Entry<A2aMethod, ProtocolVersion>> lookUp(String name) {
            Optional<A2aMethod> m = A2aMethod.fromJsonRpcName(name);
            if (m.isEmpty()) {
                return Optional.empty();
            }
            ProtocolVersion v = m.get().jsonRpcName(ProtocolVersion.V0_3).filter(name::equals).isPresent()
                ? ProtocolVersion.V0_3 : ProtocolVersion.V1_0;
            return Optional.of(Map.entry(m.get(), v));
        }

        /** What the request asks, for a2a-core's classifier. */
        Asked asked() {
            return Asked.jsonRpc(null, name, id == null ? null : id.toString());
        }
    }

    /**
     * Headers the machine writes itself on every request (framing and the protocol's
     * {@code Content-Type}, {@code Accept}, {@code A2A-Version}): a2a-java's values for them
     * are left out, the machine's go on the wire. Every other header a2a-java, its
     * interceptors or a {@link HeaderHook} set is passed on (a reserved one the machine
     * refuses ends the call unsent, naming it).
     */
    private static final Set<String> MACHINE_WRITES = Set.of("content-type", "accept", "a2a-version", "host",
        "content-length");

    /** {@code headers} without the ones the machine writes itself. */
    static List<Map.Entry<String, String>> forwarded(List<Map.Entry<String, String>> headers) {
        List<Map.Entry<String, String>> out = new ArrayList<>(headers.size());
        for (Map.Entry<String, String> h : headers) {
            if (!MACHINE_WRITES.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                out.add(h);
            }
        }
        return out;
    }

    /**
     * a2a-java's params of a shape the core does not read ({@code a2a_call_new} refused them:
     * {@code A2A_REQUEST_PARAMS}). The core reads every version's keys tolerantly, so such
     * params are not the method's params in any version (a missing {@code message} or task
     * {@code id}, a value of the wrong type): an agent would answer them with JSON-RPC
     * {@code -32602 Invalid params}. Nothing is sent; a2a-java's transport throws what it
     * throws for that answer (an {@code A2AClientException} whose cause is the typed
     * {@code InvalidParamsError}), with the machine's refusal, {@code request_sent = no}, as
     * that error's cause.
     */
    static A2AClientException unreadableParams(String verb, String url, Rpc rpc, A2aCoreException refused) {
        Map<String, Object> error = new java.util.LinkedHashMap<>();
        error.put("code", -32602);
        error.put("message", "Invalid params");
        error.put("data", "the client machine cannot read the params of " + rpc.name() + " (" + refused.getMessage()
            + "); request not sent");
        Map<String, Object> answer = new java.util.LinkedHashMap<>();
        answer.put("jsonrpc", "2.0");
        answer.put("id", rpc.id());
        answer.put("error", error);
        byte[] body;
        try {
            body = JSON.writeValueAsBytes(answer);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Outcome o = dev.a2acore.Outcomes.classify(200, "application/json", null, body, rpc.asked());
        A2aCallException cause = A2aCallException.protocol(verb, url, 0, o, null);
        JSONRPCError typed = A2aJavaSignals.jsonRpcError(new String(body, StandardCharsets.UTF_8), cause)
            .orElseGet(() -> {
                InvalidParamsError e = new InvalidParamsError();
                e.initCause(cause);
                return e;
            });
        return A2aJavaSignals.asTransportThrows(typed);
    }

    /** Runs {@code call} on {@code transport} to its end (a plain call: one run). */
    static MachineTarget.Finished runToEnd(MachineTarget.Call call, MachineTarget.Transport transport) {
        while (true) {
            for (MachineTarget.Event ev : call.run(transport, null, false)) {
                if (ev instanceof MachineTarget.Finished f) {
                    return f;
                }
            }
            if (call.isOver()) {
                throw new IllegalStateException("the client machine ended the call without a result");
            }
        }
    }

    /**
     * A stream a2a-java's REST (HTTP+JSON) transport opens: a streaming send
     * ({@code POST .../message:stream}) or a subscribe to a task
     * ({@code .../tasks/{id}:subscribe}). REST bodies carry no method name and no JSON-RPC
     * id, so the path says what the stream is; the machine judges its events and its end
     * (a stream closed before a terminal state is truncated, never a clean completion).
     */
    record Rest(ProtocolVersion version, String subscribeTaskId) {
        private static final Pattern SUBSCRIBE = Pattern.compile(".*/tasks/([^/]+):subscribe");

        /**
         * The stream {@code verb} on {@code path} (decoded) opens; empty for any other
         * request. Paths under {@code /v1/} are protocol 0.3's, others 1.0's.
         */
        static Optional<Rest> of(String verb, String path) {
            if (path == null) {
                return Optional.empty();
            }
            ProtocolVersion v = path.contains("/v1/") ? ProtocolVersion.V0_3 : ProtocolVersion.V1_0;
            if ("POST".equals(verb) && path.endsWith("/message:stream")) {
                return Optional.of(new Rest(v, null));
            }
            Matcher m = SUBSCRIBE.matcher(path);
            return m.matches() ? Optional.of(new Rest(v, m.group(1))) : Optional.empty();
        }
    }

    final MachineTarget.Call call;
    private int requestId;
    /** Stream items handed out and not yet matched with a decoded event. */
    private final ArrayDeque<StreamItem> items = new ArrayDeque<>();
    private MachineTarget.Finished finished;

    private MachineRun(MachineTarget.Call call) {
        this.call = call;
    }

    /**
     * The machine's call for {@code rpc} on {@code target}, or null when the core refuses
     * to start it (task params of a shape it does not read: the request then goes out
     * unjudged).
     */
    static MachineRun start(MachineTarget target, Rpc rpc) {
        try {
            return new MachineRun(target.start(rpc.method(), rpc.params(), rpc.id(), List.of()));
        } catch (A2aCoreException e) {
            if (rpc.method() != A2aMethod.SEND_MESSAGE && rpc.method() != A2aMethod.SEND_STREAMING_MESSAGE) {
                return null;
            }
        }
        // A message the core's request builder does not read (a2a-java's params go out as they
        // are): the machine judges the answer of a text message of the same method and id.
        try {
            return new MachineRun(target.startText(rpc.method() == A2aMethod.SEND_STREAMING_MESSAGE, "", rpc.id(),
                List.of()));
        } catch (A2aCoreException e) {
            return null;
        }
    }

    /**
     * The machine's call judging the REST stream {@code rest} on {@code target} (an
     * HTTP+JSON state): a streaming text message (a2a-java's own body goes out), or a
     * subscribe to the task; null when the core refuses to start it.
     */
    static MachineRun startRest(MachineTarget target, Rest rest) {
        try {
            return new MachineRun(rest.subscribeTaskId() == null
                ? target.startText(true, "", null, List.of())
                : target.start(A2aMethod.SUBSCRIBE_TO_TASK,
                    JSON.writeValueAsBytes(Map.of("id", rest.subscribeTaskId())), null, List.of()));
        } catch (A2aCoreException | IOException e) {
            return null;
        }
    }

    /**
     * Asks the machine for its request (the breaker's admission): empty when it may go out
     * now, else the outcome that ended the call unsent (the breaker open: {@code CircuitOpen},
     * request not sent).
     */
    Optional<Outcome> admit() {
        Optional<MachineTarget.Transmit> t = call.pollTransmit();
        if (t.isPresent()) {
            requestId = t.get().requestId();
            return Optional.empty();
        }
        drain();
        if (finished != null) {
            return Optional.of(finished.outcome());
        }
        // Nothing to send and no end: cannot happen for a fresh call; refuse rather than hang.
        call.cancel();
        drain();
        return Optional.of(finished != null ? finished.outcome()
            : dev.a2acore.Outcomes.transport(ErrorName.RESET, RequestSent.NO, "the client machine made no request"));
    }

    /** The response head (status and headers as received). */
    void head(JdkHttp.Response head) {
        call.head(requestId, head.status(), head.headers());
        drain();
    }

    /** A chunk of the body. */
    void body(byte[] b) {
        call.body(requestId, b, 0, b.length);
        drain();
    }

    /** The body ended cleanly. */
    void end() {
        call.end(requestId);
        drain();
        settle();
    }

    /** The transport failed: the driver's outcome says what and whether the request went out. */
    void failure(Outcome transport) {
        ErrorName name = transport.errorName().filter(n -> n.code() >= 201 && n.code() < 300).orElse(ErrorName.RESET);
        boolean written = transport.requestSent().orElse(RequestSent.UNKNOWN) != RequestSent.NO;
        call.failure(requestId, name, written, transport.message().orElse("transport failure"));
        drain();
        settle();
    }

    /** The stream was silent past its idle deadline (the driver's read timed out). */
    void idle() {
        call.timeout();
        drain();
        settle();
    }

    /**
     * After the response is over the call must be finished; a call that would go on (a
     * retry, a resubscribe, a get-task fallback: none is configured) is cancelled so the
     * drop-in never sends anything a2a-java did not ask for.
     */
    private void settle() {
        if (finished == null && !call.isOver()) {
            call.cancel();
            drain();
        }
    }

    /** The machine's verdict on the next decoded event (in order), or null when it gave none. */
    StreamItem nextItem() {
        return items.poll();
    }

    /** The call's end, once the machine finished it. */
    Optional<MachineTarget.Finished> finished() {
        return Optional.ofNullable(finished);
    }

    private void drain() {
        // Only a failing item's outcome is copied out: the drop-in passes the others on as they came.
        for (MachineTarget.Event ev : call.events(false)) {
            if (ev instanceof MachineTarget.ItemEvent i) {
                items.add(i.item());
            } else if (ev instanceof MachineTarget.Finished f) {
                finished = f;
            }
        }
    }

    /** Frees the call; one abandoned before its end is cancelled first (the breaker permit returned). */
    @Override
    public void close() {
        if (!call.isOver()) {
            call.cancel();
        }
        call.close();
    }
}
