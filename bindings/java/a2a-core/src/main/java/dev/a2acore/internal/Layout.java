package dev.a2acore.internal;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;

/**
 * Field offsets of the C structs this binding reads or writes in bulk ({@code a2a_sse_item}, {@code a2a_sse_packed},
 * arrays of {@code a2a_str} and {@code a2a_header}), taken from
 * JNA's layout of the same declaration (fields generated in {@link AbiStructs}) so they are right on every
 * platform JNA supports.
 */
public final class Layout {
    private Layout() {}

    /** JNA mirror of {@code a2a_bytes}, used only for its layout. */
    @CStruct("a2a_bytes")
    public static class BytesView extends AbiStructs.Bytes {
        int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** JNA mirror of {@code a2a_header}, used only for its layout (arrays of headers are written by hand). */
    @CStruct("a2a_header")
    public static class HeaderView extends AbiStructs.Header {
        int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** JNA mirror of {@code a2a_sse_item}, used only for its layout. */
    @CStruct("a2a_sse_item")
    public static class SseItem extends AbiStructs.SseItem {
        int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** JNA mirror of {@code a2a_sse_packed}, used only for its layout. */
    @CStruct("a2a_sse_packed")
    public static class SsePacked extends AbiStructs.SsePacked {
        int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    private static final BytesView VIEW = new BytesView();

    /** {@code sizeof(a2a_str)} and {@code sizeof(a2a_bytes)} (one layout). */
    public static final int VIEW_SIZE = VIEW.size();
    /** Offset of a view's {@code len}. */
    public static final int VIEW_LEN = VIEW.offsetOf("len");

    private static final HeaderView HEADER = new HeaderView();

    /** {@code sizeof(a2a_header)}. */
    public static final int HEADER_SIZE = HEADER.size();
    /** Offset of {@code name_len}. */
    public static final int HEADER_NAME_LEN = HEADER.offsetOf("name_len");
    /** Offset of {@code value}. */
    public static final int HEADER_VALUE = HEADER.offsetOf("value");
    /** Offset of {@code value_len}. */
    public static final int HEADER_VALUE_LEN = HEADER.offsetOf("value_len");

    private static final SsePacked PACKED = new SsePacked();

    /** {@code sizeof(a2a_sse_packed)}. */
    public static final int PACKED_SIZE = PACKED.size();
    /** Offset of {@code bytes}. */
    public static final int PACKED_BYTES = PACKED.offsetOf("bytes");
    /** Offset of {@code offsets}. */
    public static final int PACKED_OFFSETS = PACKED.offsetOf("offsets");
    /** Offset of {@code event_count}. */
    public static final int PACKED_EVENT_COUNT = PACKED.offsetOf("event_count");
    /** Offset of {@code comment_count}. */
    public static final int PACKED_COMMENT_COUNT = PACKED.offsetOf("comment_count");
    /** Offset of {@code limit_error_count}. */
    public static final int PACKED_LIMIT_ERROR_COUNT = PACKED.offsetOf("limit_error_count");
    /** Offset of {@code items}. */
    public static final int PACKED_ITEMS = PACKED.offsetOf("items");
    /** Offset of {@code item_count}. */
    public static final int PACKED_ITEM_COUNT = PACKED.offsetOf("item_count");

    private static final SseItem ITEM = new SseItem();

    /** {@code sizeof(a2a_sse_item)}. */
    public static final int ITEM_SIZE = ITEM.size();
    /** Offset of {@code kind}. */
    public static final int ITEM_KIND = ITEM.offsetOf("kind");
    /** Offset of {@code event_type}. */
    public static final int ITEM_TYPE = ITEM.offsetOf("event_type");
    /** Offset of {@code data}. */
    public static final int ITEM_DATA = ITEM.offsetOf("data");
    /** Offset of {@code id}. */
    public static final int ITEM_ID = ITEM.offsetOf("id");
    /** Offset of {@code retry_ms}. */
    public static final int ITEM_RETRY = ITEM.offsetOf("retry_ms");
    /** Offset of {@code error}. */
    public static final int ITEM_ERROR = ITEM.offsetOf("error");
    /** Offset of {@code limit}. */
    public static final int ITEM_LIMIT = ITEM.offsetOf("limit");
    /** Size of a pointer. */
    public static final int PTR = Native.POINTER_SIZE;
    /** Size of a {@code size_t}. */
    public static final int SIZE_T = Native.SIZE_T_SIZE;

    /** Reads a pointer-sized address from a buffer in native order. */
    public static long address(ByteBuffer buf, int at) {
        return PTR == 8 ? buf.getLong(at) : Integer.toUnsignedLong(buf.getInt(at));
    }

    /** Reads a {@code size_t} from a buffer in native order. */
    public static long sizeT(ByteBuffer buf, int at) {
        return SIZE_T == 8 ? buf.getLong(at) : Integer.toUnsignedLong(buf.getInt(at));
    }

    /** Reads a {@code size_t} from native memory. */
    public static long sizeT(Pointer p, long at) {
        return SIZE_T == 8 ? p.getLong(at) : Integer.toUnsignedLong(p.getInt(at));
    }

    /** Writes a {@code size_t} to native memory. */
    public static void setSizeT(Pointer p, long at, long value) {
        if (SIZE_T == 8) {
            p.setLong(at, value);
        } else {
            p.setInt(at, Math.toIntExact(value));
        }
    }

    /** Reads an {@code a2a_str}/{@code a2a_bytes} view stored at {@code at} as bytes (null when absent). */
    public static byte[] viewBytes(Pointer p, long at) {
        Pointer data = p.getPointer(at);
        if (data == null) {
            return null;
        }
        long n = sizeT(p, at + VIEW_LEN);
        return n == 0 ? new byte[0] : data.getByteArray(0, Math.toIntExact(n));
    }

    /** A view structure's bytes (null when absent). */
    public static byte[] bytes(BytesView v) {
        if (v == null || v.ptr == null) {
            return null;
        }
        long n = v.len.longValue();
        return n == 0 ? new byte[0] : v.ptr.getByteArray(0, Math.toIntExact(n));
    }

    /** A view structure decoded as UTF-8 (null when absent). */
    public static String string(BytesView v) {
        byte[] b = bytes(v);
        return b == null ? null : new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }
}
