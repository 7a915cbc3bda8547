package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds A2A requests (sans-IO: method, path, headers, body) for any version and binding,
 * reading params in any version's shape. One native handle, reused for every build;
 * every result is copied out. {@link #close()} frees it; a {@link Cleaner} frees it if
 * dropped. Every method is synchronized.
 */
public final class RequestBuilder implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /**
     * The interface a request is for.
     *
     * @param version the protocol version
     * @param binding the binding
     * @param tenant the 1.0 tenant (empty: none)
     */
    public record Target(ProtocolVersion version, Binding binding, Optional<String> tenant) {
        /** Checks. */
        public Target {
            Objects.requireNonNull(version, "version");
            Objects.requireNonNull(binding, "binding");
            Objects.requireNonNull(tenant, "tenant");
        }

        /** Without a tenant. */
        public static Target of(ProtocolVersion version, Binding binding) {
            return new Target(version, binding, Optional.empty());
        }
    }

    /**
     * Per-request options.
     *
     * @param id the JSON-RPC id: a {@link Long}, a {@link String}, or null for none (HTTP+JSON)
     * @param extensions extension URIs to activate
     * @param headers caller headers appended as given (credentials, traceparent, Idempotency-Key)
     */
    public record Options(Object id, List<String> extensions, List<Map.Entry<String, String>> headers) {
        /** Checks and copies. */
        public Options {
            if (id != null && !(id instanceof Long) && !(id instanceof String)) {
                throw new IllegalArgumentException("JSON-RPC id must be a Long or a String: " + id.getClass());
            }
            extensions = List.copyOf(extensions);
            headers = List.copyOf(headers);
        }

        /** Only a JSON-RPC id. */
        public static Options id(Object id) {
            return new Options(id, List.of(), List.of());
        }

        /** Nothing (HTTP+JSON). */
        public static Options none() {
            return new Options(null, List.of(), List.of());
        }
    }

    /** A build the library refused; {@link #code()} is the {@code A2A_REQUEST_*} result. */
    public static final class BuildException extends A2aCoreException {
        private static final long serialVersionUID = 1L;

        BuildException(String function, int code, String detail) {
            super(function, code, detail);
        }
    }

    private static final class State implements Runnable {
        Pointer handle;

        @Override
        public void run() {
            if (handle != null) {
                A2aCore.lib().a2a_request_free(handle);
                handle = null;
            }
        }
    }

    private final A2aCoreLibrary lib;
    private final State state = new State();
    private final Cleaner.Cleanable cleanable;

    /** A new builder. */
    public RequestBuilder() {
        lib = A2aCore.lib();
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_request_new", lib.a2a_request_new(out));
        state.handle = out.getPointer(0);
        cleanable = CLEANER.register(this, state);
    }

    /**
     * Builds {@code method} with {@code paramsJson} (a JSON object in any version's shape;
     * null for none) for {@code target}.
     *
     * @throws BuildException with the library's reason (params of the wrong shape, method not
     *     in the version, JSON-RPC without an id, a refused header, ...)
     */
    public synchronized Request build(Target target, A2aMethod method, String paramsJson, Options options) {
        byte[] p = paramsJson == null ? null : paramsJson.getBytes(StandardCharsets.UTF_8);
        NativeArgs args = new NativeArgs();
        A2aCoreLibrary.Interface iface = iface(args, target);
        A2aCoreLibrary.CallOptions o = options(args, options);
        int rc = lib.a2a_request_build(h(), iface, method.code(), p, new SizeT(p == null ? 0 : p.length), o);
        args.release();
        return result("a2a_request_build", rc);
    }

    /** Builds a {@code SendMessage} with one user text part and {@code messageId} (reuse it when retrying). */
    public synchronized Request buildText(Target target, String messageId, String text, Options options) {
        byte[] id = messageId.getBytes(StandardCharsets.UTF_8);
        byte[] t = text.getBytes(StandardCharsets.UTF_8);
        NativeArgs args = new NativeArgs();
        A2aCoreLibrary.Interface iface = iface(args, target);
        A2aCoreLibrary.CallOptions o = options(args, options);
        int rc = lib.a2a_request_build_text(h(), iface, id, new SizeT(id.length), t, new SizeT(t.length), o);
        args.release();
        return result("a2a_request_build_text", rc);
    }

    /**
     * The last built request as HTTP/1.1 bytes: the target is {@code basePath} (the
     * interface URL's path) joined with the request's path, {@code host} the Host value.
     *
     * @throws IllegalStateException when nothing was built
     */
    public synchronized byte[] writeHttp1(String basePath, String host) {
        if (lib.a2a_request_path(h()).string() == null) {
            throw new IllegalStateException("no request was built");
        }
        Request r = read(h());
        byte[] b = basePath.getBytes(StandardCharsets.UTF_8);
        byte[] hb = host.getBytes(StandardCharsets.UTF_8);
        byte[] m = r.httpMethod().getBytes(StandardCharsets.UTF_8);
        byte[] p = r.path().getBytes(StandardCharsets.UTF_8);
        byte[] target = buffer(buf -> A2aCoreException.check("a2a_http1_join_target",
            lib.a2a_http1_join_target(buf, b, new SizeT(b.length), p, new SizeT(p.length))));
        NativeArgs args = new NativeArgs();
        try {
            return buffer(buf -> {
                Memory written = new Memory(Native.SIZE_T_SIZE);
                int rc = lib.a2a_http1_write_request(buf, m, new SizeT(m.length), target, new SizeT(target.length), hb,
                    new SizeT(hb.length), args.headerArray(r.headers()), new SizeT(r.headers().size()), r.body(),
                    new SizeT(r.body().length), written);
                if (rc != 0) {
                    throw new A2aCoreException("a2a_http1_write_request", rc, lib.a2a_buffer_last_error(buf).string());
                }
            });
        } finally {
            args.release();
        }
    }

    /** Runs {@code write} on a new library buffer and returns what it holds then. */
    private byte[] buffer(java.util.function.Consumer<Pointer> write) {
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_buffer_new", lib.a2a_buffer_new(out));
        Pointer buf = out.getPointer(0);
        try {
            write.accept(buf);
            byte[] bytes = lib.a2a_buffer_bytes(buf).bytes();
            return bytes == null ? new byte[0] : bytes;
        } finally {
            lib.a2a_buffer_free(buf);
        }
    }

    private static A2aCoreLibrary.Interface iface(NativeArgs args, Target target) {
        A2aCoreLibrary.Interface i = new A2aCoreLibrary.Interface();
        i.version = target.version().code();
        i.binding = target.binding().code();
        String tenant = target.tenant().orElse(null);
        i.tenant = args.utf8(tenant);
        i.tenant_len = NativeArgs.len(tenant);
        return i;
    }

    private static A2aCoreLibrary.CallOptions options(NativeArgs args, Options options) {
        if (options == null) {
            return null;
        }
        A2aCoreLibrary.CallOptions o = new A2aCoreLibrary.CallOptions();
        if (options.id() instanceof Long n) {
            o.id_kind = 1;
            o.id_number = n;
        } else if (options.id() instanceof String s) {
            o.id_kind = 2;
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            o.id_string = b.length == 0 ? new Memory(1) : args.bytes(b);
            o.id_string_len = new SizeT(b.length);
        }
        if (o.id_string_len == null) {
            o.id_string_len = new SizeT(0);
        }
        o.extensions = args.strArray(options.extensions());
        o.extensions_len = new SizeT(options.extensions().size());
        o.headers = args.headerArray(options.headers());
        o.headers_len = new SizeT(options.headers().size());
        return o;
    }

    private Request result(String function, int rc) {
        Pointer h = h();
        if (rc != 0) {
            throw new BuildException(function, rc, lib.a2a_request_last_error(h).string());
        }
        return read(h);
    }

    /** The request the handle holds, copied out. */
    private Request read(Pointer h) {
        String httpMethod = lib.a2a_request_http_method(h).string();
        String path = lib.a2a_request_path(h).string();
        long n = lib.a2a_request_header_count(h).longValue();
        int view = Layout.VIEW_SIZE;
        Memory kv = new Memory(2L * view);
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            A2aCoreException.check("a2a_request_header", lib.a2a_request_header(h, new SizeT(i), kv, kv.share(view)));
            headers.add(new AbstractMap.SimpleImmutableEntry<>(utf8(Layout.viewBytes(kv, 0)),
                utf8(Layout.viewBytes(kv, view))));
        }
        byte[] body = lib.a2a_request_body(h).bytes();
        Memory m = new Memory(4);
        if (lib.a2a_request_a2a_method(h, m) == 0) {
            throw new IllegalStateException("built request without a method");
        }
        A2aMethod method = A2aMethod.fromCode(m.getInt(0))
            .orElseThrow(() -> new IllegalStateException("unknown method " + m.getInt(0)));
        String rpcId = lib.a2a_request_rpc_id(h).string();
        return new Request(httpMethod, path == null ? "" : path, List.copyOf(headers), body == null ? new byte[0] : body,
            method, Optional.ofNullable(rpcId));
    }

    private static String utf8(byte[] b) {
        return b == null ? "" : new String(b, StandardCharsets.UTF_8);
    }

    private Pointer h() {
        if (state.handle == null) {
            throw new IllegalStateException("RequestBuilder is closed");
        }
        return state.handle;
    }

    /** Frees the builder; idempotent. */
    @Override
    public synchronized void close() {
        cleanable.clean();
    }
}
