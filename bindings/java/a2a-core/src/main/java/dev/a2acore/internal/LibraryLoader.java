package dev.a2acore.internal;

import com.sun.jna.Native;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Finds and loads liba2a_core once per JVM.
 *
 * <p>Order: the system property {@code A2A_CORE_LIB}, then the environment variable
 * {@code A2A_CORE_LIB} (a path to the library file, or to a directory holding it); else the
 * Cargo target directory ({@code CARGO_TARGET_DIR}, or {@code target/} of the a2a-core
 * checkout found from the system property {@code a2a.repo.root} or by walking up from the
 * working directory), taking the newer of {@code debug/} and {@code release/}; else JNA's
 * own search ({@code jna.library.path}, the system library path) for {@code a2a_core}.
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

    /** Where the library was loaded from (a file path, or the bare name for JNA's search). */
    public static String path() {
        return Holder.LOADED.path();
    }

    private static Loaded load() {
        String fileName = System.mapLibraryName("a2a_core");
        String explicit = System.getProperty(ENV);
        if (explicit == null || explicit.isEmpty()) {
            explicit = System.getenv(ENV);
        }
        String chosen;
        if (explicit != null && !explicit.isEmpty()) {
            File f = new File(explicit);
            if (f.isDirectory()) {
                f = new File(f, fileName);
            }
            if (!f.isFile()) {
                throw new UnsatisfiedLinkError(ENV + "=" + explicit + ": no such library file " + f);
            }
            chosen = f.getAbsolutePath();
        } else {
            chosen = fromCargo(fileName);
            if (chosen == null) {
                chosen = "a2a_core";
            }
        }
        A2aCoreLibrary lib = Native.load(chosen, A2aCoreLibrary.class,
            Map.of(com.sun.jna.Library.OPTION_STRING_ENCODING, "UTF-8"));
        return new Loaded(lib, chosen);
    }

    private static String fromCargo(String fileName) {
        List<Path> targets = new ArrayList<>();
        String cargoTarget = System.getenv("CARGO_TARGET_DIR");
        if (cargoTarget != null && !cargoTarget.isEmpty()) {
            targets.add(Paths.get(cargoTarget));
        }
        Path root = repoRoot();
        if (root != null) {
            targets.add(root.resolve("target"));
        }
        List<Path> found = new ArrayList<>();
        for (Path t : targets) {
            for (String profile : new String[] {"debug", "release"}) {
                Path p = t.resolve(profile).resolve(fileName);
                if (Files.isRegularFile(p)) {
                    found.add(p);
                }
            }
            if (!found.isEmpty()) {
                break;
            }
        }
        if (found.isEmpty()) {
            return null;
        }
        Collections.sort(found, (a, b) -> Long.compare(b.toFile().lastModified(), a.toFile().lastModified()));
        return found.get(0).toAbsolutePath().normalize().toString();
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
