package dev.a2acore.internal;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.nio.ByteBuffer;

/**
 * Field offsets of the C structs this binding reads in bulk ({@code a2a_sse_item}), taken from
 * JNA's layout of the same declaration so they are right on every platform JNA supports.
 */
public final class Layout {
    private Layout() {}

    /** JNA mirror of {@code a2a_bytes}, used only for its layout. */
    @Structure.FieldOrder({"ptr", "len"})
    public static class BytesView extends Structure {
        /** First byte, or NULL when absent. */
        public Pointer ptr;
        /** Number of bytes. */
        public SizeT len;
    }

    /** JNA mirror of {@code a2a_sse_item}, used only for its layout. */
    @Structure.FieldOrder({"kind", "event_type", "data", "id", "retry_ms", "error", "limit"})
    public static class SseItem extends Structure {
        /** {@code a2a_sse_item_kind}. */
        public int kind;
        /** Event type view. */
        public BytesView event_type;
        /** Data (or comment) view. */
        public BytesView data;
        /** Last event ID view. */
        public BytesView id;
        /** Retry milliseconds. */
        public long retry_ms;
        /** Limit error code. */
        public int error;
        /** Limit in bytes. */
        public SizeT limit;

        int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

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
}
