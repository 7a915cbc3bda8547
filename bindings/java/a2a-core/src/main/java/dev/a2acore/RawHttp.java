package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Direct;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The driver's raw HTTP layer ({@code a2a_client_exchange}, {@code a2a_client_open_stream},
 * {@code a2a_raw_stream_read}): one HTTP exchange, or a response body read chunk by chunk,
 * on the driver's connection pool, with its connect and call timeouts, redirects never
 * followed (a 3xx is a response), every status a response, bounded bodies and a per-read
 * idle deadline on streams. Header hooks do not run here: the caller sends its headers.
 *
 * <p>Threading: a {@code RawHttp} is thread-safe for its calls; {@link #close} waits for
 * the calls in flight (abort them to make it prompt), and calls after it throw
 * {@link IllegalStateException}. Calls BLOCK the calling thread; {@link Abort#trigger}
 * (from any thread) makes a blocked call return promptly with a {@link TransportException}.
 */
public final class RawHttp implements AutoCloseable {
    /** {@code A2A_CLIENT_TRANSPORT}. */
    private static final int TRANSPORT = 1001;

    private final A2aCoreLibrary lib;
    private Pointer handle;
    /** Calls hold it for reading during their native call; {@link #close} for writing. */
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

    /**
     * A raw client.
     *
     * @param connectTimeout TCP (and TLS) connect timeout
     * @param callTimeout whole exchange; for a stream, until the response head
     * @param streamIdleTimeout default per-read idle deadline of streams
     * @param maxResponseBytes largest body read whole
     * @param allowHttp whether plain {@code http://} is allowed
     */
    public RawHttp(Duration connectTimeout, Duration callTimeout, Duration streamIdleTimeout, long maxResponseBytes,
                   boolean allowHttp) {
        this(connectTimeout, callTimeout, streamIdleTimeout, maxResponseBytes, allowHttp, Network.DEFAULTS);
    }

    /**
     * A raw client with network settings (trust, client certificate, proxy).
     *
     * @param connectTimeout TCP (and TLS) connect timeout
     * @param callTimeout whole exchange; for a stream, until the response head
     * @param streamIdleTimeout default per-read idle deadline of streams
     * @param maxResponseBytes largest body read whole
     * @param allowHttp whether plain {@code http://} is allowed
     * @param network trust, client certificate and proxy (files are read during this call)
     */
    public RawHttp(Duration connectTimeout, Duration callTimeout, Duration streamIdleTimeout, long maxResponseBytes,
                   boolean allowHttp, Network network) {
        lib = A2aCore.lib();
        A2aCoreLibrary.ClientConfig c = new A2aCoreLibrary.ClientConfig();
        A2aCoreException.check("a2a_client_config_default", lib.a2a_client_config_default(c));
        c.read();
        c.connect_timeout_ms = connectTimeout.toMillis();
        c.call_timeout_ms = callTimeout.toMillis();
        c.stream_idle_timeout_ms = streamIdleTimeout.toMillis();
        c.max_response_bytes = maxResponseBytes;
        c.allow_http = (byte) (allowHttp ? 1 : 0);
        NativeArgs args = new NativeArgs();
        try {
            args.view(c.ca_file, network.caFile());
            args.view(c.client_cert_file, network.clientCertFile());
            args.view(c.client_key_file, network.clientKeyFile());
            args.view(c.proxy, network.proxy() == null || network.proxy().isEmpty() ? null : network.proxy());
            c.proxy_disabled = (byte) ("".equals(network.proxy()) ? 1 : 0);
            args.view(c.no_proxy, network.noProxy());
            Memory out = new Memory(Native.POINTER_SIZE);
            A2aCoreException.check("a2a_client_new_raw", lib.a2a_client_new_raw(c, out));
            handle = out.getPointer(0);
        } finally {
            args.release();
        }
    }

    /**
     * Network settings of a raw client. Files are PEM and read when the client is built.
     *
     * @param caFile CA certificates replacing the system trust store, or null for the system store
     * @param clientCertFile client certificate chain for mutual TLS, or null
     * @param clientKeyFile its private key, or null
     * @param proxy proxy URL for every request; null: from the environment (curl's rules); "": none
     * @param noProxy hosts reached directly (curl's list), or null for the environment's
     */
    public record Network(String caFile, String clientCertFile, String clientKeyFile, String proxy, String noProxy) {
        /** The library's defaults: the system trust store, proxies from the environment. */
        public static final Network DEFAULTS = new Network(null, null, null, null, null);
    }

    /** A failure in transport (connect, timeout, reset, idle cut, abort, body over the limit). */
    public static final class TransportException extends IOException {
        private static final long serialVersionUID = 1L;
        private final transient Outcome outcome;

        TransportException(Outcome outcome) {
            super(outcome.message().orElse("transport failure"));
            this.outcome = outcome;
        }

        /** The driver's {@code transport} outcome. */
        public Outcome outcome() {
            return outcome;
        }
    }

    /** A complete response (header names lower-cased, in arrival order). */
    public record Response(int status, List<Map.Entry<String, String>> headers, byte[] body) {
        /** The first value of header {@code name} (case-insensitive). */
        public Optional<String> header(String name) {
            return headers.stream().filter(e -> e.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue)
                .findFirst();
        }
    }

    /**
     * A thread-safe abort switch for one call: {@link #trigger} from any thread ends the call
     * (a blocked exchange or read returns promptly with a {@link TransportException}).
     */
    public static final class Abort implements AutoCloseable {
        private final A2aCoreLibrary lib;
        private Pointer handle;

        /** A new, untriggered switch. */
        public Abort() {
            lib = A2aCore.lib();
            Memory out = new Memory(Native.POINTER_SIZE);
            A2aCoreException.check("a2a_abort_new", lib.a2a_abort_new(out));
            handle = out.getPointer(0);
        }

        /** Aborts the call (no-op once closed or already triggered). Any thread. */
        public synchronized void trigger() {
            if (handle != null) {
                lib.a2a_abort_trigger(handle);
            }
        }

        /** Whether {@link #trigger} was called. */
        public synchronized boolean triggered() {
            return handle != null && lib.a2a_abort_is_triggered(handle) != 0;
        }

        synchronized Pointer pointer() {
            if (handle == null) {
                throw new IllegalStateException("abort switch closed");
            }
            return handle;
        }

        /** Frees the switch (a call given it keeps its own reference). */
        @Override
        public synchronized void close() {
            if (handle != null) {
                lib.a2a_abort_free(handle);
                handle = null;
            }
        }
    }

    private synchronized Pointer client() {
        if (handle == null) {
            throw new IllegalStateException("RawHttp closed");
        }
        return handle;
    }

    /**
     * Sends one request and reads the whole response (BLOCKS, bounded by {@code timeout}
     * or the call timeout, whichever is shorter).
     *
     * @param timeout null for the configured call timeout
     * @param abort null for none
     * @throws TransportException on a transport failure (the outcome says which)
     */
    public Response exchange(String method, String url, List<Map.Entry<String, String>> headers, byte[] body,
                             Duration timeout, Abort abort) throws TransportException {
        NativeArgs args = new NativeArgs();
        Pointer out = args.outPointer();
        Pointer err = args.outPointer();
        Pointer result;
        Pointer error;
        byte[] m = method.getBytes(StandardCharsets.UTF_8);
        byte[] u = url.getBytes(StandardCharsets.UTF_8);
        int rc;
        lock.readLock().lock();
        try {
            Pointer c = client();
            Pointer h = args.headerArray(headers);
            int hn = headers == null ? 0 : headers.size();
            Pointer b = args.bytes(body);
            int bn = body == null ? 0 : body.length;
            long ms = timeout == null ? 0 : Math.max(1, timeout.toMillis());
            Pointer a = abort == null ? null : abort.pointer();
            rc = Direct.ON ? Direct.a2a_client_exchange(c, m, m.length, u, u.length, h, hn, b, bn, ms, a, out, err)
                : lib.a2a_client_exchange(c, m, new SizeT(m.length), u, new SizeT(u.length), h, new SizeT(hn), b,
                    new SizeT(bn), ms, a, out, err);
            result = out.getPointer(0);
            error = err.getPointer(0);
        } finally {
            lock.readLock().unlock();
            args.release();
            // The client must stay reachable (not freed by a Cleaner) during the native call.
            java.lang.ref.Reference.reachabilityFence(this);
        }
        failOn(rc, error, "a2a_client_exchange");
        Pointer r = result;
        try {
            return response(r, true);
        } finally {
            if (Direct.ON) {
                Direct.a2a_raw_response_free(r);
            } else {
                lib.a2a_raw_response_free(r);
            }
        }
    }

    private void failOn(int rc, Pointer e, String function) throws TransportException {
        if (rc == TRANSPORT) {
            throw new TransportException(e == null
                ? Outcomes.transport(ErrorName.RESET, RequestSent.UNKNOWN, "transport failure")
                : Outcome.consume(lib, e));
        }
        A2aCoreException.check(function, rc);
    }

    private Response response(Pointer r, boolean withBody) {
        int status = Short.toUnsignedInt(Direct.ON ? Direct.a2a_raw_response_status(r) : lib.a2a_raw_response_status(r));
        long n = Direct.ON ? Direct.a2a_raw_response_header_count(r) : lib.a2a_raw_response_header_count(r).longValue();
        List<Map.Entry<String, String>> headers = new ArrayList<>((int) n);
        // One native block for both views (name at 0, value after), reused for every header.
        Memory views = new Memory(2L * Layout.VIEW_SIZE);
        Pointer name = views;
        Pointer value = views.share(Layout.VIEW_SIZE);
        for (long i = 0; i < n; i++) {
            A2aCoreException.check("a2a_raw_response_header", Direct.ON
                ? Direct.a2a_raw_response_header(r, i, name, value)
                : lib.a2a_raw_response_header(r, new SizeT(i), name, value));
            headers.add(Map.entry(view(name), view(value)));
        }
        byte[] body = withBody ? lib.a2a_raw_response_body(r).bytes() : null;
        return new Response(status, List.copyOf(headers), body == null ? new byte[0] : body);
    }

    private static String view(Pointer m) {
        return new String(bytes(m), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(Pointer m) {
        Pointer p = m.getPointer(0);
        long len = Layout.sizeT(m, Layout.VIEW_LEN);
        return p == null || len == 0 ? new byte[0] : p.getByteArray(0, Math.toIntExact(len));
    }

    /**
     * Sends a streaming request and returns once the response head arrived (BLOCKS,
     * bounded by {@code timeout} or the call timeout).
     *
     * @param abort null for none; triggering it ends the open or any later read
     * @throws TransportException on a transport failure
     */
    public Stream openStream(String method, String url, List<Map.Entry<String, String>> headers, byte[] body,
                             Duration timeout, Abort abort) throws TransportException {
        NativeArgs args = new NativeArgs();
        Pointer out = args.outPointer();
        Pointer err = args.outPointer();
        Pointer result;
        Pointer error;
        byte[] m = method.getBytes(StandardCharsets.UTF_8);
        byte[] u = url.getBytes(StandardCharsets.UTF_8);
        int rc;
        lock.readLock().lock();
        try {
            Pointer c = client();
            rc = lib.a2a_client_open_stream(c, m, new SizeT(m.length), u, new SizeT(u.length),
                args.headerArray(headers), new SizeT(headers == null ? 0 : headers.size()), args.bytes(body),
                new SizeT(body == null ? 0 : body.length), timeout == null ? 0 : Math.max(1, timeout.toMillis()),
                abort == null ? null : abort.pointer(), out, err);
            result = out.getPointer(0);
            error = err.getPointer(0);
        } finally {
            lock.readLock().unlock();
            args.release();
            // The client must stay reachable (not freed by a Cleaner) during the native call.
            java.lang.ref.Reference.reachabilityFence(this);
        }
        failOn(rc, error, "a2a_client_open_stream");
        Pointer s = result;
        try {
            Response head = response(lib.a2a_raw_stream_head(s), true);
            // An event stream: a 2xx head whose first Content-Type is text/event-stream (what the
            // driver decided when it kept the body open).
            boolean events = head.status() >= 200 && head.status() <= 299
                && Outcomes.isEventStream(head.header("content-type").orElse(null));
            return new Stream(lib, s, head, events);
        } catch (RuntimeException | Error e) {
            lib.a2a_raw_stream_free(s);
            throw e;
        }
    }

    /**
     * An open response: its head, and for an event stream the body read chunk by chunk.
     * Not thread-safe, except {@link #abort}, which may be called from another thread
     * while a {@link #read} blocks.
     */
    public static final class Stream implements AutoCloseable {
        private final A2aCoreLibrary lib;
        private final Response head;
        private final boolean eventStream;
        private final Memory chunk = new Memory(Layout.VIEW_SIZE);
        private final Memory err = new Memory(Native.POINTER_SIZE);
        private final Object life = new Object();
        private Pointer handle;

        Stream(A2aCoreLibrary lib, Pointer handle, Response head, boolean eventStream) {
            this.lib = lib;
            this.handle = handle;
            this.head = head;
            this.eventStream = eventStream;
        }

        /** Status and headers; the whole body when the response is not an event stream. */
        public Response head() {
            return head;
        }

        /** Whether the response is a 2xx {@code text/event-stream} read with {@link #read}. */
        public boolean isEventStream() {
            return eventStream;
        }

        private Pointer pointer() {
            synchronized (life) {
                if (handle == null) {
                    throw new IllegalStateException("stream closed");
                }
                return handle;
            }
        }

        /**
         * The next bytes of the body (BLOCKS at most {@code idle}; null: the configured
         * idle timeout), or null once the body ended cleanly.
         *
         * @throws TransportException on an idle cut ({@code Timeout}), a broken connection
         *     or an abort ({@code Reset})
         */
        public byte[] read(Duration idle) throws TransportException {
            Pointer s = pointer();
            err.setPointer(0, null);
            long ms = idle == null ? 0 : Math.max(1, idle.toMillis());
            int rc = Direct.ON ? Direct.a2a_raw_stream_read(s, ms, chunk, err) : lib.a2a_raw_stream_read(s, ms, chunk, err);
            if (rc == A2aCoreException.NONE) {
                return null;
            }
            if (rc == TRANSPORT) {
                Pointer e = err.getPointer(0);
                throw new TransportException(e == null
                    ? Outcomes.transport(ErrorName.RESET, RequestSent.UNKNOWN, "transport failure")
                    : Outcome.consume(lib, e));
            }
            A2aCoreException.check("a2a_raw_stream_read", rc);
            return bytes(chunk);
        }

        /** Aborts the stream; a read blocked in another thread returns. Any thread; no-op once closed. */
        public void abort() {
            synchronized (life) {
                if (handle != null) {
                    lib.a2a_raw_stream_abort(handle);
                }
            }
        }

        /** Frees the stream (closing its connection). Call it after the last read returned. */
        @Override
        public void close() {
            Pointer h;
            synchronized (life) {
                h = handle;
                handle = null;
            }
            if (h != null) {
                lib.a2a_raw_stream_free(h);
            }
        }
    }

    /**
     * Frees the client once the calls in flight have returned (streams opened on it keep the
     * pool alive until they are closed); idempotent.
     */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            synchronized (this) {
                if (handle != null) {
                    lib.a2a_client_free(handle);
                    handle = null;
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
    }
}
