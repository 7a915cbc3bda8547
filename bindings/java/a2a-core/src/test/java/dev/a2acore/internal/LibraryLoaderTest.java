package dev.a2acore.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Platform;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The discovery rule's explicit step, and the library the Maven build bundles. */
class LibraryLoaderTest {
    private final String saved = System.getProperty(LibraryLoader.ENV);

    @AfterEach
    void restore() {
        if (saved == null) {
            System.clearProperty(LibraryLoader.ENV);
        } else {
            System.setProperty(LibraryLoader.ENV, saved);
        }
    }

    @Test
    void aNamedLibraryThatIsNotThereIsAnErrorNamingTheVariable(@TempDir Path dir) {
        String missing = dir.resolve("nope.so").toString();
        System.setProperty(LibraryLoader.ENV, missing);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, LibraryLoader::find);
        assertTrue(e.getMessage().contains("A2A_CORE_LIB") && e.getMessage().contains("nope.so"), e.getMessage());
    }

    @Test
    void aNamedDirectoryMeansTheLibraryInIt(@TempDir Path dir) throws Exception {
        String file = System.mapLibraryName("a2a_core");
        Files.writeString(dir.resolve(file), "not loaded, only found");
        System.setProperty(LibraryLoader.ENV, dir.toString());
        assertEquals(dir.resolve(file).toFile().getAbsolutePath(), LibraryLoader.find());
    }

    @Test
    void theBuildBundlesTheLibraryAtJnasResourcePath() {
        if (!Platform.RESOURCE_PREFIX.equals("linux-x86-64") || Boolean.getBoolean("a2a.native.skip")) {
            return; // bundled only where the Maven profile builds it
        }
        String resource = "linux-x86-64/" + System.mapLibraryName("a2a_core");
        assertNotNull(LibraryLoader.class.getClassLoader().getResource(resource), resource);
        File lib = new File(LibraryLoader.class.getClassLoader().getResource(resource).getFile());
        assertTrue(lib.length() > 1_000_000 && lib.length() < 8L * 1024 * 1024,
            "a stripped library of a few MiB: " + lib.length());
    }
}
