package dev.a2acore.internal;

import com.sun.jna.IntegerType;
import com.sun.jna.Native;

/** A C {@code size_t} (unsigned, pointer-sized) for JNA calls. */
public final class SizeT extends IntegerType {
    private static final long serialVersionUID = 1L;

    /** Zero. */
    public SizeT() {
        this(0);
    }

    /** The given non-negative value. */
    public SizeT(long value) {
        super(Native.SIZE_T_SIZE, value, true);
    }
}
