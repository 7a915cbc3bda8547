package dev.a2acore.bench;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import io.a2a.client.http.A2AHttpClient;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP layer alone under the a2a-java rows of the client-overhead harness: the CPU and
 * the heap allocation per stream event of an {@link A2AHttpClient} ({@code jdk}: the stock
 * {@link io.a2a.client.http.JdkA2AHttpClient}; {@code a2a-core}: the drop-in), without a2a-java's client on top.
 * Not run by {@code scripts/bench/clients.py}: in its {@code java-sdk-*} rows a2a-java's own
 * per-event work (its task kept up to date, quadratic in a stream's artifacts: about 170 µs
 * per event of a 10 000-event stream) is the same for both HTTP clients and buries their
 * difference in its noise; this measures that difference.
 *
 * <p>Each round posts {@code BENCH_LAYER_STREAMS} (5) JSON-RPC {@code message/stream} requests
 * for {@code stream <BENCH_EVENTS>} (the bench server's replay, the same bytes both clients
 * get) through {@code postAsyncSSE}, with a consumer that counts the messages and sums their
 * lengths, and asserts every stream delivered exactly its events and then ended cleanly.
 * The figure per round is the process CPU (every thread: the HttpClient's, the drop-in's
 * reader, JIT and GC) and the bytes allocated by every live thread, each divided by the
 * round's events; printed as min, median and max over {@code BENCH_LAYER_ROUNDS} (15)
 * rounds after 20 warm-up streams of 1 000 events. Run it like the other Java clients
 * (classpath of benches/clients/java, {@code A2A_CORE_LIB}, {@code BENCH_URL} of a running
 * {@code a2a-bench-server}): {@code java -Xms256m -Xmx256m -cp ... dev.a2acore.bench.SdkLayer jdk|a2a-core}.
 */
public final class SdkLayer {
    private static final OperatingSystemMXBean OS =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocated() {
        long sum = 0;
        for (long b : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }

    /** One stream of {@code n} events; returns the characters delivered. */
    private static long stream(A2AHttpClient http, String url, int n) throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/stream\",\"params\":{\"message\":{"
            + "\"kind\":\"message\",\"messageId\":\"layer\",\"role\":\"user\",\"parts\":[{\"kind\":\"text\","
            + "\"text\":\"stream " + n + "\"}]}}}";
        AtomicLong count = new AtomicLong();
        AtomicLong chars = new AtomicLong();
        CompletableFuture<Throwable> end = new CompletableFuture<>();
        http.createPost().url(url).addHeader("Content-Type", "application/json")
            .addHeader("Accept", "text/event-stream").body(body)
            .postAsyncSSE(s -> {
                count.incrementAndGet();
                chars.addAndGet(s.length());
            }, end::complete, () -> end.complete(null));
        Throwable err = end.get(600, TimeUnit.SECONDS);
        Bench.check(err == null, "stream error " + err + " after " + count.get() + " of " + n + " events");
        Bench.check(count.get() == n, count.get() + " events, wanted " + n);
        return chars.get();
    }

    private static String spread(double[] v) {
        Arrays.sort(v);
        return String.format(Locale.ROOT, "[%.3f,%.3f,%.3f]", v[0], v[v.length / 2], v[v.length - 1]);
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "jdk";
        A2AHttpClient http = SdkClient.httpClient(args);
        String url = System.getenv("BENCH_URL");
        Bench.check(url != null && !url.isEmpty(), "BENCH_URL must name the bench server");
        int n = Integer.parseInt(System.getenv().getOrDefault("BENCH_EVENTS", "10000").trim());
        int streams = Integer.parseInt(System.getenv().getOrDefault("BENCH_LAYER_STREAMS", "5").trim());
        int rounds = Integer.parseInt(System.getenv().getOrDefault("BENCH_LAYER_ROUNDS", "15").trim());
        long expect = -1;
        for (int i = 0; i < 20; i++) {
            stream(http, url, 1000);
        }
        double[] cpu = new double[rounds];
        double[] alloc = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long c0 = OS.getProcessCpuTime();
            long a0 = allocated();
            for (int s = 0; s < streams; s++) {
                long chars = stream(http, url, n);
                // Same text every stream: the bench server replays one template.
                Bench.check(expect < 0 || chars == expect, chars + " characters, the first stream had " + expect);
                expect = chars;
            }
            cpu[r] = (OS.getProcessCpuTime() - c0) / 1000.0 / ((double) n * streams);
            alloc[r] = (allocated() - a0) / ((double) n * streams);
        }
        System.out.println(String.format(Locale.ROOT,
            "{\"client\":\"%s-layer\",\"events\":%d,\"streams\":%d,\"rounds\":%d,\"chars_per_stream\":%d,"
                + "\"cpu_us_per_event\":%s,\"alloc_bytes_per_event\":%s}",
            mode, n, streams, rounds, expect, spread(cpu), spread(alloc)));
        System.exit(0);
    }
}
