package dev.a2acore;

import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.LibraryLoader;

/** The native library behind this binding: where it was loaded from and its version. */
public final class A2aCore {
    /** The C ABI major.minor this binding was written against ({@code A2A_VERSION_*}). */
    public static final String ABI_VERSION = "0.1";

    private static volatile boolean checked;

    private A2aCore() {}

    /** The library's version, {@code MAJOR.MINOR.PATCH}. */
    public static String version() {
        return LibraryLoader.lib().a2a_version().string();
    }

    /** Where the library was loaded from. */
    public static String libraryPath() {
        return LibraryLoader.path();
    }

    /**
     * The loaded library, after checking once that its major.minor is the one this binding
     * was written for (a mismatched library would read structs with the wrong layout).
     */
    static A2aCoreLibrary lib() {
        A2aCoreLibrary lib = LibraryLoader.lib();
        if (!checked) {
            String v = lib.a2a_version().string();
            if (v == null || !(v.equals(ABI_VERSION) || v.startsWith(ABI_VERSION + "."))) {
                throw new UnsatisfiedLinkError("liba2a_core at " + LibraryLoader.path() + " is version " + v
                    + "; this binding needs " + ABI_VERSION + ".x");
            }
            checked = true;
        }
        return lib;
    }

    /**
     * Loads the library and checks its version now.
     *
     * @throws UnsatisfiedLinkError when it cannot be found or is the wrong version
     */
    public static void checkLoaded() {
        lib();
    }

    /** Static English text for a C result code. */
    static String describe(int code) {
        return LibraryLoader.lib().a2a_result_describe(code).string();
    }
}
