package dev.a2acore.internal;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Native copies of call arguments, owned by the binding and kept alive (by this object)
 * for the duration of one foreign call: the library never sees Java heap memory.
 */
public final class NativeArgs {
    private final List<Memory> keep = new ArrayList<>();

    /** A native copy of {@code bytes} (NULL for null or empty). */
    public Pointer bytes(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return null;
        }
        Memory m = new Memory(bytes.length);
        m.write(0, bytes, 0, bytes.length);
        keep.add(m);
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

    /** Fills a view with a native UTF-8 copy of {@code text} (absent for null, present-empty for ""). */
    public void view(Layout.BytesView v, String text) {
        if (text == null) {
            v.ptr = null;
            v.len = new SizeT(0);
            return;
        }
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (b.length == 0) {
            Memory m = new Memory(1);
            keep.add(m);
            v.ptr = m;
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
        Memory arr = new Memory((long) size * texts.size());
        keep.add(arr);
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
        Memory arr = new Memory((long) size * headers.size());
        keep.add(arr);
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
        Memory m = new Memory(1);
        keep.add(m);
        return m;
    }

    /** Keeps the memory reachable until here (call after the foreign call). */
    public void release() {
        keep.clear();
    }
}
