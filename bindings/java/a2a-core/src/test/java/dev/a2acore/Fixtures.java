package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Finds and reads the shared conformance fixtures in {@code bindings/fixtures/}. */
final class Fixtures {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Fixtures() {}

    /** The repository root (system property {@code a2a.repo.root}, set by the POM, or found upwards). */
    static Path repoRoot() {
        String prop = System.getProperty("a2a.repo.root");
        if (prop != null && Files.isDirectory(Paths.get(prop, "bindings", "fixtures"))) {
            return Paths.get(prop).toAbsolutePath().normalize();
        }
        Path p = Paths.get("").toAbsolutePath();
        for (int i = 0; p != null && i < 8; i++, p = p.getParent()) {
            if (Files.isDirectory(p.resolve("bindings").resolve("fixtures"))) {
                return p;
            }
        }
        throw new IllegalStateException("bindings/fixtures not found above " + Paths.get("").toAbsolutePath());
    }

    /** Reads a fixture file; a missing file is a test failure, never a skip. */
    static JsonNode load(String name) throws IOException {
        Path f = repoRoot().resolve("bindings").resolve("fixtures").resolve(name);
        if (!Files.isRegularFile(f)) {
            throw new AssertionError("fixture file missing: " + f);
        }
        return MAPPER.readTree(f.toFile());
    }
}
