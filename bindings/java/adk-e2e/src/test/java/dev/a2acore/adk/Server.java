package dev.a2acore.adk;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A test server process (the fault server or the Python SDK peer) that prints {@code READY <url>}. */
final class Server implements AutoCloseable {
    final String url;
    private final Process process;

    private Server(String url, Process process) {
        this.url = url;
        this.process = process;
    }

    /** {@code a2a-testkit fault-server} (A2A_TESTKIT_BIN, else the checkout's target/debug). */
    static Server faults() throws Exception {
        String bin = System.getenv("A2A_TESTKIT_BIN");
        if (bin == null || bin.isEmpty()) {
            bin = root().resolve("target/debug/a2a-testkit").toString();
        }
        return start(List.of(bin, "fault-server", "--port", "0", "--exit-on-eof"));
    }

    /** The Python a2a-sdk peer of tests/peers (A2A_PEER_PYTHON, else the checkout's .venv). */
    static Server python() throws Exception {
        String py = System.getenv("A2A_PEER_PYTHON");
        if (py == null || py.isEmpty()) {
            py = root().resolve(".venv/bin/python").toString();
        }
        return start(List.of(py, root().resolve("tests/peers/python/peer.py").toString(), "--host", "127.0.0.1",
            "--port", "0", "--ping", "1"));
    }

    private static Server start(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(new ArrayList<>(cmd)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("READY ")) {
                        return line.substring(6).trim().replaceAll("/+$", "");
                    }
                }
            } catch (java.io.IOException e) {
                return null;
            }
            return null;
        });
        String url = ready.get(60, TimeUnit.SECONDS);
        if (url == null) {
            p.destroyForcibly();
            throw new AssertionError("no READY line from " + cmd);
        }
        return new Server(url, p);
    }

    private static Path root() {
        Path p = Paths.get("").toAbsolutePath();
        for (int i = 0; p != null && i < 8; i++, p = p.getParent()) {
            if (Files.isDirectory(p.resolve("tests").resolve("peers"))) {
                return p;
            }
        }
        throw new AssertionError("tests/peers not found above " + Paths.get("").toAbsolutePath());
    }

    @Override
    public void close() throws Exception {
        process.getOutputStream().close();
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
