package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One A2A request read by a server, through the core's server side: the plain
 * request/response API a servlet (or any HTTP stack) calls. Parse it with
 * {@link #parseJsonRpc} or {@link #parseRest}; a refused request is answered with
 * {@link #refusal()}; otherwise read {@link #info()} and {@link #params()} and answer with
 * {@link #result}, {@link #error}, or, for a streaming method, {@link #streamHeaders()} then
 * {@link #eventFrame} per event. Every answer is written in the request's version and binding.
 * Not thread-safe; close it when answered.
 */
public final class ServerRequest implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * A complete response to write.
     *
     * @param status the HTTP status
     * @param headers the header fields
     * @param body the body
     * @param channel what a client classifying it will see (for the tally)
     * @param code the tally code (error name, task state or {@code message})
     * @param method the method's 1.0 name, or {@code unknown}
     */
    public record Response(int status, List<Map.Entry<String, String>> headers, byte[] body, Channel channel,
        String code, String method) {}

    /**
     * What a parsed request asks.
     *
     * @param version the version it is spoken in (answers are written in it)
     * @param binding the binding it arrived on
     * @param method the A2A method
     * @param streaming whether it is answered with an event stream
     * @param extensions extension URIs the client asked for
     * @param traceparent the caller's W3C traceparent, when valid
     * @param idempotencyKey the caller's Idempotency-Key, when sent
     */
    public record Info(ProtocolVersion version, Binding binding, A2aMethod method, boolean streaming,
        List<String> extensions, Optional<String> traceparent, Optional<String> idempotencyKey) {}

    /**
     * Which versions are served and which {@code Host} is answered for.
     *
     * @param v0_3 serve 0.3
     * @param v1_0 serve 1.0
     * @param boundAddr the listener's address ({@code 127.0.0.1:8080}), or null for no Host check;
     *     a loopback address turns on the DNS-rebinding defence (421 for another Host)
     * @param hostNames extra names answered for
     */
    public record Options(boolean v0_3, boolean v1_0, String boundAddr, List<String> hostNames) {
        /** Both versions, no Host check. */
        public static Options both() {
            return new Options(true, true, null, List.of());
        }
    }

    private final A2aCoreLibrary lib = A2aCore.lib();
    private Pointer handle;
    private boolean refused;

    private ServerRequest() {
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_server_request_new", lib.a2a_server_request_new(out));
        handle = out.getPointer(0);
    }

    private static A2aCoreLibrary.ServerOptions options(NativeArgs args, Options o) {
        A2aCoreLibrary.ServerOptions c = new A2aCoreLibrary.ServerOptions();
        c.v0_3 = (byte) (o.v0_3() ? 1 : 0);
        c.v1_0 = (byte) (o.v1_0() ? 1 : 0);
        if (o.boundAddr() != null) {
            c.bound_addr = args.utf8(o.boundAddr());
            c.bound_addr_len = NativeArgs.len(o.boundAddr());
        }
        c.host_names = args.strArray(o.hostNames());
        c.host_names_len = new SizeT(o.hostNames() == null ? 0 : o.hostNames().size());
        return c;
    }

    private static SizeT size(byte[] b) {
        return new SizeT(b == null ? 0 : b.length);
    }

    /** Reads a JSON-RPC request (a POST body) with its header fields (include {@code Host}). */
    public static ServerRequest parseJsonRpc(List<Map.Entry<String, String>> headers, byte[] body, Options options) {
        ServerRequest r = new ServerRequest();
        NativeArgs args = new NativeArgs();
        try {
            int rc = r.lib.a2a_server_parse_jsonrpc(r.handle, args.headerArray(headers),
                new SizeT(headers == null ? 0 : headers.size()), args.bytes(body), size(body),
                options(args, options));
            return r.parsed("a2a_server_parse_jsonrpc", rc);
        } finally {
            args.release();
        }
    }

    /**
     * Reads an HTTP+JSON request: verb, target relative to the interface URL (path and query,
     * e.g. {@code /tasks/t-1?historyLength=5}), header fields and body.
     */
    public static ServerRequest parseRest(String verb, String target, List<Map.Entry<String, String>> headers,
        byte[] body, Options options) {
        ServerRequest r = new ServerRequest();
        NativeArgs args = new NativeArgs();
        try {
            int rc = r.lib.a2a_server_parse_rest(r.handle, args.utf8(verb), NativeArgs.len(verb),
                args.utf8(target), NativeArgs.len(target), args.headerArray(headers),
                new SizeT(headers == null ? 0 : headers.size()), args.bytes(body), size(body),
                options(args, options));
            return r.parsed("a2a_server_parse_rest", rc);
        } finally {
            args.release();
        }
    }

    private ServerRequest parsed(String fn, int rc) {
        if (rc == 800) { // A2A_SERVER_REFUSED
            refused = true;
            return this;
        }
        if (rc != 0) {
            String why = lib.a2a_server_request_last_error(handle).string();
            close();
            throw new A2aCoreException(fn, rc, why);
        }
        return this;
    }

    /** Whether the request was refused: answer it with {@link #refusal()}. */
    public boolean isRefused() {
        return refused;
    }

    private Pointer h() {
        if (handle == null) {
            throw new IllegalStateException("the server request is closed");
        }
        return handle;
    }

    /** The bytes a view shows (null for an absent view). */
    static byte[] bytes(Layout.BytesView v) {
        if (v.ptr == null) {
            return null;
        }
        long n = v.len.longValue();
        return n == 0 ? new byte[0] : v.ptr.getByteArray(0, Math.toIntExact(n));
    }

    static String str(Layout.BytesView v) {
        if (v.ptr == null) {
            return null;
        }
        long n = v.len.longValue();
        return n == 0 ? "" : new String(v.ptr.getByteArray(0, Math.toIntExact(n)), StandardCharsets.UTF_8);
    }

    /** What the request asks (throws when it was refused). */
    public Info info() {
        A2aCoreLibrary.ServerRequestInfo i = new A2aCoreLibrary.ServerRequestInfo();
        A2aCoreException.check("a2a_server_request_get_info", lib.a2a_server_request_get_info(h(), i));
        List<String> ext = new ArrayList<>();
        for (long k = 0; k < i.extension_count.longValue(); k++) {
            Layout.BytesView v = new Layout.BytesView();
            if (lib.a2a_server_request_extension(h(), new SizeT(k), v) == 0) {
                ext.add(str(v));
            }
        }
        return new Info(ProtocolVersion.fromCode(i.version).orElseThrow(),
            Binding.fromCode(i.binding).orElseThrow(), A2aMethod.fromCode(i.method).orElseThrow(),
            i.streaming != 0, ext, Optional.ofNullable(lib.a2a_server_request_traceparent(h()).string()),
            Optional.ofNullable(lib.a2a_server_request_idempotency_key(h()).string()));
    }

    /** The call's params, A2A 1.0 ProtoJSON whatever version the client spoke. */
    public JsonNode params() {
        byte[] b = lib.a2a_server_request_params(h()).bytes();
        try {
            return JSON.readTree(b == null ? "{}".getBytes(StandardCharsets.UTF_8) : b);
        } catch (IOException e) {
            throw new IllegalStateException("the library wrote params that are not JSON", e);
        }
    }

    private Response respond(String fn, Function<Pointer, Integer> call) {
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_server_response_new", lib.a2a_server_response_new(out));
        Pointer r = out.getPointer(0);
        try {
            int rc = call.apply(r);
            if (rc != 0) {
                String why = lib.a2a_server_request_last_error(h()).string();
                throw new A2aCoreException(fn, rc, why);
            }
            List<Map.Entry<String, String>> hs = new ArrayList<>();
            A2aCoreLibrary.ServerResponseInfo info = new A2aCoreLibrary.ServerResponseInfo();
            A2aCoreException.check("a2a_server_response_get_info", lib.a2a_server_response_get_info(r, info));
            long n = info.header_count.longValue();
            for (long k = 0; k < n; k++) {
                Layout.BytesView name = new Layout.BytesView();
                Layout.BytesView value = new Layout.BytesView();
                A2aCoreException.check("a2a_server_response_header",
                    lib.a2a_server_response_header(r, new SizeT(k), name, value));
                hs.add(Map.entry(str(name), str(value)));
            }
            A2aCoreLibrary.Served s = info.served;
            byte[] body = bytes(info.body);
            return new Response(Short.toUnsignedInt(info.status), hs,
                body == null ? new byte[0] : body, Channel.fromCode(s.channel).orElseThrow(), str(s.code),
                str(s.method));
        } finally {
            lib.a2a_server_response_free(r);
        }
    }

    /** The error response to a refused request. */
    public Response refusal() {
        return respond("a2a_server_refusal_response", r -> lib.a2a_server_refusal_response(h(), r));
    }

    /** The success response: {@code replyJson} is the method's result in A2A 1.0 ProtoJSON. */
    public Response result(byte[] replyJson) {
        NativeArgs args = new NativeArgs();
        try {
            return respond("a2a_server_result_response",
                r -> lib.a2a_server_result_response(h(), args.bytes(replyJson), size(replyJson), r));
        } finally {
            args.release();
        }
    }

    /** The error response of a request the handler could not serve ({@code message} "" for the standard). */
    public Response error(ErrorName name, String message) {
        NativeArgs args = new NativeArgs();
        try {
            return respond("a2a_server_error_response", r -> lib.a2a_server_error_response(h(), name.code(),
                args.utf8(message), NativeArgs.len(message), r));
        } finally {
            args.release();
        }
    }

    private byte[] buffer(String fn, Function<Pointer, Integer> call) {
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_buffer_new", lib.a2a_buffer_new(out));
        Pointer b = out.getPointer(0);
        try {
            int rc = call.apply(b);
            if (rc != 0) {
                String why = lib.a2a_buffer_last_error(b).string();
                throw new A2aCoreException(fn, rc, why);
            }
            byte[] bytes = lib.a2a_buffer_bytes(b).bytes();
            return bytes == null ? new byte[0] : bytes;
        } finally {
            lib.a2a_buffer_free(b);
        }
    }

    /** The SSE frame of one event (a StreamResponse in 1.0 ProtoJSON), in the request's form. */
    public byte[] eventFrame(byte[] eventJson) {
        NativeArgs args = new NativeArgs();
        try {
            return buffer("a2a_server_event_frame",
                b -> lib.a2a_server_event_frame(h(), args.bytes(eventJson), size(eventJson), b));
        } finally {
            args.release();
        }
    }

    /** The frame of an error after the stream started. */
    public byte[] errorFrame(ErrorName name, String message) {
        NativeArgs args = new NativeArgs();
        try {
            return buffer("a2a_server_error_frame", b -> lib.a2a_server_error_frame(h(), name.code(),
                args.utf8(message), NativeArgs.len(message), b));
        } finally {
            args.release();
        }
    }

    /** The headers a streaming response starts with (event stream, no caching, no proxy buffering). */
    public static List<Map.Entry<String, String>> streamHeaders() {
        A2aCoreLibrary lib = A2aCore.lib();
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (long i = 0;; i++) {
            Layout.BytesView n = new Layout.BytesView();
            Layout.BytesView v = new Layout.BytesView();
            if (lib.a2a_server_stream_header(new SizeT(i), n, v) != 0) {
                return out;
            }
            out.add(Map.entry(str(n), str(v)));
        }
    }

    /** The comment written on a quiet stream. */
    public static byte[] keepAliveComment() {
        // A 1 ms interval a whole millisecond after the last write: always due, so the core
        // hands out its comment.
        Layout.BytesView comment = new Layout.BytesView();
        A2aCore.lib().a2a_server_keepalive_due(1, 1, 0, null, comment);
        return bytes(comment);
    }

    /**
     * How long a stream may stay quiet from {@code nowMs} given its last write (both on the
     * caller's monotonic clock): 0 when a keep-alive comment is due now.
     *
     * @param intervalMs the allowed silence (0: the core's default, 15 s)
     */
    public static long keepAliveWaitMs(long intervalMs, long nowMs, long lastWriteMs) {
        Memory wait = new Memory(8);
        boolean due = A2aCore.lib().a2a_server_keepalive_due(intervalMs, nowMs, lastWriteMs, wait, null) != 0;
        return due ? 0 : Math.max(1, wait.getLong(0));
    }

    /** A fresh ADK-style error id (12 lowercase hex digits). */
    public static String newErrorId() {
        byte[] random = new byte[6];
        RANDOM.nextBytes(random);
        Memory in = new Memory(6);
        in.write(0, random, 0, 6);
        Memory out = new Memory(12);
        A2aCoreException.check("a2a_server_error_id_from_random", A2aCore.lib().a2a_server_error_id_from_random(in, out));
        return new String(out.getByteArray(0, 12), StandardCharsets.US_ASCII);
    }

    private static byte[] staticBuffer(String fn, Function<Pointer, Integer> call) {
        A2aCoreLibrary lib = A2aCore.lib();
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_buffer_new", lib.a2a_buffer_new(out));
        Pointer b = out.getPointer(0);
        try {
            int rc = call.apply(b);
            if (rc != 0) {
                String why = lib.a2a_buffer_last_error(b).string();
                throw new A2aCoreException(fn, rc, why);
            }
            byte[] bytes = lib.a2a_buffer_bytes(b).bytes();
            return bytes == null ? new byte[0] : bytes;
        } finally {
            lib.a2a_buffer_free(b);
        }
    }

    /**
     * {@code Agent execution failed. (error_id: <id>)}, then {@code : <debugDetail>} when not
     * null (debug deployments only), then the hint's text when not null.
     */
    public static String failureText(String errorId, String debugDetail, String hintText) {
        NativeArgs args = new NativeArgs();
        try {
            String t = new String(staticBuffer("a2a_server_failure_text", b -> A2aCore.lib().a2a_server_failure_text(
                args.utf8(errorId), NativeArgs.len(errorId), args.utf8(debugDetail), NativeArgs.len(debugDetail), b)),
                StandardCharsets.UTF_8);
            return hintText == null ? t : t + " " + hintText;
        } finally {
            args.release();
        }
    }

    /** The stable hint {@code [retryable=...; key=value]} in the core's grammar ({@code retryable} null: none). */
    public static String hintText(Boolean retryable, Map<String, String> pairs) {
        NativeArgs args = new NativeArgs();
        try {
            Memory r = null;
            if (retryable != null) {
                r = new Memory(1);
                r.setByte(0, (byte) (retryable ? 1 : 0));
            }
            Memory flag = r;
            List<Map.Entry<String, String>> list = new ArrayList<>(pairs.entrySet());
            return new String(staticBuffer("a2a_server_hint_text", b -> A2aCore.lib().a2a_server_hint_text(flag,
                args.headerArray(list), new SizeT(list.size()), b)), StandardCharsets.UTF_8);
        } finally {
            args.release();
        }
    }

    /** The CANCELED TaskStatus (1.0 ProtoJSON) of a request refused before it ran, marked {@code admission}. */
    public static byte[] admissionStatus(String taskId, String contextId, String messageId, String reason) {
        NativeArgs args = new NativeArgs();
        try {
            return staticBuffer("a2a_server_admission_status", b -> A2aCore.lib().a2a_server_admission_status(
                args.utf8(taskId), NativeArgs.len(taskId), args.utf8(contextId), NativeArgs.len(contextId),
                args.utf8(messageId), NativeArgs.len(messageId), args.utf8(reason), NativeArgs.len(reason), b));
        } finally {
            args.release();
        }
    }

    @Override
    public void close() {
        if (handle != null) {
            lib.a2a_server_request_free(handle);
            handle = null;
        }
    }
}
