package dev.a2acore.internal;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The C struct(s) of {@code include/a2a_core.h} a JNA {@link com.sun.jna.Structure} mirrors. Every Structure of the
 * binding carries it; the layout test compares each with the C compiler's sizeof, alignment and field offsets of the
 * named struct (scripts/c-layout.py).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface CStruct {
    /** The C struct names ({@code a2a_str}); more than one when the C structs share one layout. */
    String[] value();
}
