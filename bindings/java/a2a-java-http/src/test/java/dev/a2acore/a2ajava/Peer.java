package dev.a2acore.a2ajava;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A real A2A peer from {@code tests/peers} on 127.0.0.1: the Python a2a-sdk 1.3.0 server
 * ({@code tests/peers/python/peer.py}) or the JS {@code @a2a-js/sdk} 1.3.0 server
 * ({@code tests/peers/js/peer.mjs}). The URL comes from {@code A2A_PEER_URL_PYTHON} /
 * {@code A2A_PEER_URL_JS} when the tests run under {@code tests/peers/launch.py} (and no
 * options are asked for); otherwise the peer is started here with {@code --port 0} and its
 * {@code READY <url>} line is read. A missing interpreter or {@code node_modules} is a failure,
 * not a skip ({@code scripts/ci/05-setup.sh} installs both).
 */
final class Peer implements AutoCloseable {
    private static final long READY_MS = 30_000;

    final String url;
    private final Process process;
    private final Path log;

    private Peer(String url, Process process, Path log) {
        this.url = url;
        this.process = process;
        this.log = log;
    }

    /** The Python a2a-sdk peer ({@code A2A_PEER_PYTHON} or {@code .venv/bin/python}). */
    static Peer python(String... options) throws Exception {
        Path root = repoRoot();
        String python = System.getenv("A2A_PEER_PYTHON");
        if (python == null || python.isEmpty()) {
            python = root.resolve(".venv").resolve("bin").resolve("python").toString();
        }
        if (!new File(python).canExecute()) {
            throw new AssertionError("Python peer interpreter " + python + " missing: run scripts/ci/05-setup.sh");
        }
        return start("Python", "A2A_PEER_URL_PYTHON", List.of(python, root.resolve("tests/peers/python/peer.py").toString()), options);
    }

    /** The JS @a2a-js/sdk peer ({@code A2A_PEER_NODE} or {@code node}). */
    static Peer js(String... options) throws Exception {
        Path root = repoRoot();
        String node = System.getenv("A2A_PEER_NODE");
        if (node == null || node.isEmpty()) {
            node = "node";
        }
        if (!Files.isDirectory(root.resolve("tests/peers/js/node_modules"))) {
            throw new AssertionError("tests/peers/js/node_modules missing: run scripts/ci/05-setup.sh (npm ci)");
        }
        return start("JS", "A2A_PEER_URL_JS", List.of(node, root.resolve("tests/peers/js/peer.mjs").toString()), options);
    }

    private static Peer start(String name, String urlVariable, List<String> command, String... options) throws Exception {
        String given = System.getenv(urlVariable);
        if (given != null && !given.isEmpty() && options.length == 0) {
            return new Peer(given.replaceAll("/+$", ""), null, null);
        }
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("--host", "127.0.0.1", "--port", "0"));
        cmd.addAll(List.of(options));
        Path log = Files.createTempFile("a2a-java-peer", ".log");
        Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("READY ")) {
                        return line.substring(6).trim();
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        });
        String url;
        try {
            url = ready.get(READY_MS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            url = null;
        }
        if (url == null) {
            p.destroyForcibly();
            throw new AssertionError(name + " peer did not print READY within " + READY_MS + " ms; stderr:\n"
                + Files.readString(log));
        }
        return new Peer(url, p, log);
    }

    private static Path repoRoot() {
        String prop = System.getProperty("a2a.repo.root");
        if (prop != null && Files.isDirectory(Paths.get(prop, "tests", "peers"))) {
            return Paths.get(prop).toAbsolutePath().normalize();
        }
        Path p = Paths.get("").toAbsolutePath();
        for (int i = 0; p != null && i < 8; i++, p = p.getParent()) {
            if (Files.isDirectory(p.resolve("tests").resolve("peers"))) {
                return p;
            }
        }
        throw new AssertionError("tests/peers not found above " + Paths.get("").toAbsolutePath());
    }

    /** The peer's standard error so far (for failure messages). */
    String stderr() {
        try {
            return log == null ? "" : Files.readString(log);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void close() throws Exception {
        if (process == null) {
            return;
        }
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(log);
    }
}
