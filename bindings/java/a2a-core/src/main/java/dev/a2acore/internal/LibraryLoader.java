package dev.a2acore.internal;

import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Finds and loads liba2a_core once per JVM, by the rule every binding of a2a-core follows:
 *
 * <ol>
 *   <li>{@code A2A_CORE_LIB}: the system property, else the environment variable (a path to
 *       the library file, or to a directory holding it). The only way to load a debug build.
 *   <li>The library bundled in this jar, at JNA's resource path ({@code linux-x86-64/liba2a_core.so};
 *       the Maven build puts the release library there), extracted by JNA.
 *   <li>For development in a checkout: the repository's release build, {@code release/} of
 *       {@code CARGO_TARGET_DIR} or of {@code target/} of the a2a-core checkout found from the
 *       system property {@code a2a.repo.root} or by walking up from the working directory.
 *       Never {@code debug/}.
 * </ol>
 *
 * <p>Otherwise an {@link UnsatisfiedLinkError} that names the variable and the build command.
 */
public final class LibraryLoader {
    /** Name of the system property and environment variable naming the library. */
    public static final String ENV = "A2A_CORE_LIB";

    private static final class Holder {
        static final Loaded LOADED = load();
    }

    private record Loaded(A2aCoreLibrary lib, String path) {}

    private LibraryLoader() {}

    /** The loaded library (loads it on first use). */
    public static A2aCoreLibrary lib() {
        return Holder.LOADED.lib();
    }

    /** Where the library was loaded from (for the bundled one: the file JNA extracted it to). */
    public static String path() {
        return Holder.LOADED.path();
    }

    private static Loaded load() {
        String chosen = find();
        A2aCoreLibrary lib = Native.load(chosen, A2aCoreLibrary.class,
            Map.of(com.sun.jna.Library.OPTION_STRING_ENCODING, "UTF-8"));
        return new Loaded(lib, chosen);
    }

    /** The absolute path of the library to load, by the rule above. */
    static String find() {
        String fileName = System.mapLibraryName("a2a_core");
        String explicit = System.getProperty(ENV);
        if (explicit == null || explicit.isEmpty()) {
            explicit = System.getenv(ENV);
        }
        if (explicit != null && !explicit.isEmpty()) {
            File f = new File(explicit);
            if (f.isDirectory()) {
                f = new File(f, fileName);
            }
            if (!f.isFile()) {
                throw new UnsatisfiedLinkError(ENV + "=" + explicit + ": no such library file " + f);
            }
            return f.getAbsolutePath();
        }
        List<String> looked = new ArrayList<>();
        String resource = Platform.RESOURCE_PREFIX + "/" + fileName;
        if (LibraryLoader.class.getClassLoader().getResource(resource) != null) {
            try {
                File extracted = Native.extractFromResourcePath("/" + resource, LibraryLoader.class.getClassLoader());
                return extracted.getAbsolutePath();
            } catch (IOException e) {
                UnsatisfiedLinkError err = new UnsatisfiedLinkError(
                    "cannot extract the bundled " + resource + ": " + e.getMessage());
                err.initCause(e);
                throw err;
            }
        }
        looked.add("classpath:" + resource);
        for (Path p : releaseBuilds(fileName)) {
            if (Files.isRegularFile(p)) {
                return p.toAbsolutePath().normalize().toString();
            }
            looked.add(p.toString());
        }
        throw new UnsatisfiedLinkError(fileName + " not found: use the a2a-core jar built by Maven"
            + " (it bundles the library for " + Platform.RESOURCE_PREFIX + " when built there), build it with"
            + " `cargo build -p a2a-core-ffi --release` in the a2a-core checkout, or set " + ENV
            + " (system property or environment variable) to the library file. Looked at: "
            + String.join(", ", looked));
    }

    private static List<Path> releaseBuilds(String fileName) {
        List<Path> out = new ArrayList<>();
        String cargoTarget = System.getenv("CARGO_TARGET_DIR");
        if (cargoTarget != null && !cargoTarget.isEmpty()) {
            out.add(Paths.get(cargoTarget).resolve("release").resolve(fileName));
        }
        Path root = repoRoot();
        if (root != null) {
            out.add(root.resolve("target").resolve("release").resolve(fileName));
        }
        return out;
    }

    private static Path repoRoot() {
        String prop = System.getProperty("a2a.repo.root");
        if (prop != null && !prop.isEmpty() && isRepoRoot(Paths.get(prop))) {
            return Paths.get(prop).toAbsolutePath().normalize();
        }
        Path p = Paths.get("").toAbsolutePath();
        for (int i = 0; p != null && i < 8; i++, p = p.getParent()) {
            if (isRepoRoot(p)) {
                return p;
            }
        }
        return null;
    }

    private static boolean isRepoRoot(Path p) {
        return Files.isRegularFile(p.resolve("Cargo.toml")) && Files.isDirectory(p.resolve("ffi"))
            && Files.isRegularFile(p.resolve("include").resolve("a2a_core.h"));
    }

}
