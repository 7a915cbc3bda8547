package dev.a2acore.a2ajava;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The project's fault-injecting server, {@code a2a-testkit fault-server --port 0 --exit-on-eof}
 * (the test tooling of testkit/; binary from {@code A2A_TESTKIT_BIN}, else
 * {@code target/debug/a2a-testkit} of the checkout, built by {@code scripts/ci/55-java.sh});
 * 127.0.0.1 only. A missing binary is a failure, not a skip.
 */
final class ProjectFaultServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    final String url;
    private final Process process;
    private final Path log;

    private ProjectFaultServer(String url, Process process, Path log) {
        this.url = url;
        this.process = process;
        this.log = log;
    }

    static ProjectFaultServer start() throws Exception {
        String bin = System.getenv("A2A_TESTKIT_BIN");
        if (bin == null || bin.isEmpty()) {
            String target = System.getenv("CARGO_TARGET_DIR");
            Path t = target == null || target.isEmpty() ? repoRoot().resolve("target") : Paths.get(target);
            bin = t.resolve("debug").resolve("a2a-testkit").toString();
        }
        if (!new File(bin).canExecute()) {
            throw new AssertionError("a2a-testkit binary " + bin + " missing: cargo build -p a2a-testkit");
        }
        Path log = Files.createTempFile("a2a-fault-server", ".log");
        Process p = new ProcessBuilder(bin, "fault-server", "--port", "0", "--exit-on-eof").redirectError(log.toFile())
            .start();
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("READY ")) {
                        return line.substring(6).trim();
                    }
                }
            } catch (Exception e) {
                return null;
            }
            return null;
        });
        String url;
        try {
            url = ready.get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            url = null;
        }
        if (url == null) {
            p.destroyForcibly();
            throw new AssertionError("a2a-testkit fault-server did not print READY: " + Files.readString(log));
        }
        return new ProjectFaultServer(url.replaceAll("/+$", ""), p, log);
    }

    private static Path repoRoot() {
        String prop = System.getProperty("a2a.repo.root");
        if (prop != null && Files.isRegularFile(Paths.get(prop, "Cargo.toml"))) {
            return Paths.get(prop).toAbsolutePath().normalize();
        }
        Path p = Paths.get("").toAbsolutePath();
        for (int i = 0; p != null && i < 8; i++, p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("Cargo.toml")) && Files.isDirectory(p.resolve("ffi"))) {
                return p;
            }
        }
        throw new AssertionError("a2a-core checkout not found above " + Paths.get("").toAbsolutePath());
    }

    /** The JSON-RPC endpoint of a scenario. */
    String rpc(String scenario) {
        return url + "/" + scenario + "/a2a";
    }

    /** One scenario's counters ({@code requests}, {@code messages}, ...). */
    JsonNode counters(String scenario) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/_counters/"
            + scenario)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    @Override
    public void close() throws Exception {
        process.getOutputStream().close();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
        Files.deleteIfExists(log);
    }
}
