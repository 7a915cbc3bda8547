package dev.a2acore.a2ajava;

import java.io.BufferedReader;
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
 * The real JS {@code @a2a-js/sdk} 1.3.0 peer ({@code tests/peers/js/peer.mjs}) on 127.0.0.1:
 * the URL from {@code A2A_PEER_URL_JS} when the tests run under {@code tests/peers/launch.py},
 * else started here ({@code A2A_PEER_NODE} or {@code node}, {@code --port 0}) and read from its
 * {@code READY <url>} line. Missing {@code node_modules} is a failure, not a skip
 * ({@code scripts/ci/05-setup.sh} runs {@code npm ci}).
 */
final class JsPeer implements AutoCloseable {
    private static final long READY_MS = 30_000;

    final String url;
    private final Process process;
    private final Path log;

    private JsPeer(String url, Process process, Path log) {
        this.url = url;
        this.process = process;
        this.log = log;
    }

    static JsPeer start(String... options) throws Exception {
        String given = System.getenv("A2A_PEER_URL_JS");
        if (given != null && !given.isEmpty() && options.length == 0) {
            return new JsPeer(given.replaceAll("/+$", ""), null, null);
        }
        Path root = repoRoot();
        String node = System.getenv("A2A_PEER_NODE");
        if (node == null || node.isEmpty()) {
            node = "node";
        }
        if (!Files.isDirectory(root.resolve("tests/peers/js/node_modules"))) {
            throw new AssertionError("tests/peers/js/node_modules missing: run scripts/ci/05-setup.sh (npm ci)");
        }
        List<String> cmd = new ArrayList<>(List.of(node, root.resolve("tests/peers/js/peer.mjs").toString(),
            "--host", "127.0.0.1", "--port", "0"));
        cmd.addAll(List.of(options));
        Path log = Files.createTempFile("a2a-java-jspeer", ".log");
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
            throw new AssertionError("JS peer did not print READY within " + READY_MS + " ms; stderr:\n"
                + Files.readString(log));
        }
        return new JsPeer(url, p, log);
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
