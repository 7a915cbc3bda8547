package dev.a2acore.internal;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Native copies of call arguments, owned by the binding and kept alive (by this object)
 * for the duration of one foreign call: the library never sees Java heap memory.
 *
 * <p>The copies are carved out of one native block that {@link #release} hands back to a
 * small per-thread pool, so a call costs no native allocation (a JNA {@link Memory} is a
 * malloc, a cleaner registration and a free on the cleaner's thread); what does not fit
 * gets a {@link Memory} of its own. A block is never shared: a call made while another
 * one's arguments are alive (a header hook's call) takes another block.
 */
public final class NativeArgs {
    /** Size of a pooled block: a call's headers, URL and a small body fit. */
    private static final int BLOCK = 8192;
    /** Blocks kept per thread (nested calls: a header hook's own call). */
    private static final int POOLED = 4;
    private static final ThreadLocal<ArrayDeque<Memory>> POOL = ThreadLocal.withInitial(ArrayDeque::new);

    private final Thread owner = Thread.currentThread();
    private Memory block;
    private int used;
    private List<Memory> keep;

    /** {@code n} bytes of native memory alive until {@link #release} (contents undefined). */
    private Pointer alloc(int n) {
        if (block == null && n <= BLOCK && Thread.currentThread() == owner) {
            block = POOL.get().poll();
            if (block == null) {
                block = new Memory(BLOCK);
            }
        }
        if (block != null && used + n <= BLOCK) {
            Pointer p = block.share(used, n);
            used += (n + 7) & ~7;
            return p;
        }
        Memory m = new Memory(n);
        if (keep == null) {
            keep = new ArrayList<>(2);
        }
        keep.add(m);
        return m;
    }

    /** A zeroed pointer-sized out-parameter (read it before {@link #release}). */
    public Pointer outPointer() {
        Pointer p = alloc(Native.POINTER_SIZE);
        p.setPointer(0, null);
        return p;
    }

    /** A native copy of {@code bytes} (NULL for null or empty). */
    public Pointer bytes(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return null;
        }
        Pointer m = alloc(bytes.length);
        m.write(0, bytes, 0, bytes.length);
        return m;
    }

    /** A native UTF-8 copy of {@code text} (NULL for null). */
    public Pointer utf8(String text) {
        return text == null ? null : bytes(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The UTF-8 length of {@code text} (0 for null). */
    public static SizeT len(String text) {
        return new SizeT(text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length);
    }

    /** Fills an {@code a2a_asked}. */
    public void asked(A2aCoreLibrary.Asked a, int version, int binding, String method, String requestId) {
        a.version = version;
        a.binding = binding;
        byte[] m = method == null ? null : method.getBytes(StandardCharsets.UTF_8);
        byte[] r = requestId == null ? null : requestId.getBytes(StandardCharsets.UTF_8);
        a.method = bytes(m);
        a.method_len = new SizeT(m == null ? 0 : m.length);
        a.request_id = bytes(r);
        a.request_id_len = new SizeT(r == null ? 0 : r.length);
    }

    /** Fills an {@code a2a_response}. */
    public void response(A2aCoreLibrary.Response r, int status, String contentType, String retryAfter, byte[] body) {
        r.status = (short) status;
        byte[] ct = contentType == null ? null : contentType.getBytes(StandardCharsets.UTF_8);
        byte[] ra = retryAfter == null ? null : retryAfter.getBytes(StandardCharsets.UTF_8);
        r.content_type = bytes(ct);
        r.content_type_len = new SizeT(ct == null ? 0 : ct.length);
        r.retry_after = bytes(ra);
        r.retry_after_len = new SizeT(ra == null ? 0 : ra.length);
        r.body = bytes(body);
        r.body_len = new SizeT(body == null ? 0 : body.length);
    }

    /** Offsets of {@code a2a_response} and its {@code a2a_asked} (from the mirrors LayoutTest checks). */
    private static final class ResponseLayout {
        private static final A2aCoreLibrary.Response R = new A2aCoreLibrary.Response();
        private static final A2aCoreLibrary.Asked A = new A2aCoreLibrary.Asked();
        static final int SIZE = R.size();
        static final int STATUS = R.offsetOf("status");
        static final int CONTENT_TYPE = R.offsetOf("content_type");
        static final int CONTENT_TYPE_LEN = R.offsetOf("content_type_len");
        static final int RETRY_AFTER = R.offsetOf("retry_after");
        static final int RETRY_AFTER_LEN = R.offsetOf("retry_after_len");
        static final int BODY = R.offsetOf("body");
        static final int BODY_LEN = R.offsetOf("body_len");
        static final int ASKED = R.offsetOf("asked");
        static final int NOW = R.offsetOf("now_unix_seconds");
        static final int VERSION = ASKED + A.offsetOf("version");
        static final int BINDING = ASKED + A.offsetOf("binding");
        static final int METHOD = ASKED + A.offsetOf("method");
        static final int METHOD_LEN = ASKED + A.offsetOf("method_len");
        static final int REQUEST_ID = ASKED + A.offsetOf("request_id");
        static final int REQUEST_ID_LEN = ASKED + A.offsetOf("request_id_len");

        private ResponseLayout() {}
    }

    /**
     * An {@code a2a_response} (with its {@code a2a_asked}) written in native memory, every
     * field set: what {@link #response} and {@link #asked} fill in a JNA Structure, without
     * the Structure's allocation and reflective write.
     */
    public Pointer response(int status, String contentType, String retryAfter, byte[] body, long nowUnixSeconds,
                            int version, int binding, String method, String requestId) {
        Pointer r = alloc(ResponseLayout.SIZE);
        r.setShort(ResponseLayout.STATUS, (short) status);
        setView(r, ResponseLayout.CONTENT_TYPE, ResponseLayout.CONTENT_TYPE_LEN, utf8OrNull(contentType));
        setView(r, ResponseLayout.RETRY_AFTER, ResponseLayout.RETRY_AFTER_LEN, utf8OrNull(retryAfter));
        setView(r, ResponseLayout.BODY, ResponseLayout.BODY_LEN, body);
        r.setLong(ResponseLayout.NOW, nowUnixSeconds);
        r.setInt(ResponseLayout.VERSION, version);
        r.setInt(ResponseLayout.BINDING, binding);
        setView(r, ResponseLayout.METHOD, ResponseLayout.METHOD_LEN, utf8OrNull(method));
        setView(r, ResponseLayout.REQUEST_ID, ResponseLayout.REQUEST_ID_LEN, utf8OrNull(requestId));
        return r;
    }

    private static byte[] utf8OrNull(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    /** A (pointer, length) pair as {@link #bytes} makes it: NULL and 0 for null or empty. */
    private void setView(Pointer struct, int ptrAt, int lenAt, byte[] b) {
        struct.setPointer(ptrAt, bytes(b));
        Layout.setSizeT(struct, lenAt, b == null ? 0 : b.length);
    }

    /** Fills a view with a native UTF-8 copy of {@code text} (absent for null, present-empty for ""). */
    public void view(Layout.BytesView v, String text) {
        if (text == null) {
            v.ptr = null;
            v.len = new SizeT(0);
            return;
        }
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (b.length == 0) {
            v.ptr = placeholder();
        } else {
            v.ptr = bytes(b);
        }
        v.len = new SizeT(b.length);
    }

    /** A native array of {@code a2a_str} views of {@code texts} (NULL for an empty list). */
    public Pointer strArray(List<String> texts) {
        if (texts == null || texts.isEmpty()) {
            return null;
        }
        int size = Layout.VIEW_SIZE;
        Pointer arr = alloc(Math.multiplyExact(size, texts.size()));
        for (int i = 0; i < texts.size(); i++) {
            byte[] b = texts.get(i).getBytes(StandardCharsets.UTF_8);
            Pointer p = b.length == 0 ? placeholder() : bytes(b);
            arr.setPointer((long) i * size, p);
            Layout.setSizeT(arr, (long) i * size + Layout.VIEW_LEN, b.length);
        }
        return arr;
    }

    /** A native array of {@code a2a_header} (name, value) pairs (NULL for an empty list). */
    public Pointer headerArray(List<Map.Entry<String, String>> headers) {
        if (headers == null || headers.isEmpty()) {
            return null;
        }
        int size = Layout.HEADER_SIZE;
        Pointer arr = alloc(Math.multiplyExact(size, headers.size()));
        for (int i = 0; i < headers.size(); i++) {
            long at = (long) i * size;
            byte[] n = headers.get(i).getKey().getBytes(StandardCharsets.UTF_8);
            byte[] v = headers.get(i).getValue().getBytes(StandardCharsets.UTF_8);
            arr.setPointer(at, n.length == 0 ? placeholder() : bytes(n));
            Layout.setSizeT(arr, at + Layout.HEADER_NAME_LEN, n.length);
            arr.setPointer(at + Layout.HEADER_VALUE, v.length == 0 ? placeholder() : bytes(v));
            Layout.setSizeT(arr, at + Layout.HEADER_VALUE_LEN, v.length);
        }
        return arr;
    }

    private Pointer placeholder() {
        return alloc(1);
    }

    /**
     * Keeps the memory reachable until here (call after the foreign call; nothing this
     * object handed out may be used after it).
     */
    public void release() {
        if (block != null && Thread.currentThread() == owner) {
            ArrayDeque<Memory> pool = POOL.get();
            if (pool.size() < POOLED) {
                pool.push(block);
            }
        }
        block = null;
        used = 0;
        keep = null;
    }
}
