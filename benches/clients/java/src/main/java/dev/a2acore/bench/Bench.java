package dev.a2acore.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What the Java clients of the client-overhead harness share: the run parameters from the
 * environment, the process CPU clock (every JVM thread: JIT and GC included), the resident
 * set size and the one JSON line each client prints (contract:
 * benches/clients/rust/src/lib.rs).
 */
final class Bench {
    final String url = require("BENCH_URL");
    final int sends = num("BENCH_SENDS", 2000);
    final int warmup = num("BENCH_WARMUP", 200);
    final int events = num("BENCH_EVENTS", 10000);
    final int warmupEvents = num("BENCH_WARMUP_EVENTS", 1000);
    final int idle = num("BENCH_IDLE", 100);

    double sendWall;
    double streamWall;
    long sendCpu;
    long streamCpu;
    long rssBefore;
    long rssAfter;

    private static String require(String name) {
        String v = System.getenv(name);
        if (v == null || v.isEmpty()) {
            throw new IllegalStateException(name + " must name the bench server");
        }
        return v;
    }

    private static int num(String name, int def) {
        String v = System.getenv(name);
        return v == null ? def : Integer.parseInt(v.trim());
    }

    private static final OperatingSystemMXBean OS =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    static long cpuNanos() {
        return OS.getProcessCpuTime();
    }

    /**
     * Memory in KiB: the process's VmRSS without the Java heap's committed size, plus the
     * heap in use after a full collection (native memory plus live Java objects). The
     * harness runs the JVM with a fixed, pre-touched heap (-Xms = -Xmx, AlwaysPreTouch), so
     * the heap's own pages never move the RSS and the collector's heap sizing cannot hide or
     * invent growth; the live objects are counted through the heap's used size instead.
     */
    static long rssKiB() {
        System.gc();
        System.gc();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    long rss = Long.parseLong(l.substring(6).replace("kB", "").trim());
                    return rss - heap.getCommitted() / 1024 + heap.getUsed() / 1024;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return 0;
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("wrong answer: " + what);
        }
    }

    /** Wall clock (ns) and CPU (ns) at a section's start. */
    static long[] start() {
        return new long[] {System.nanoTime(), cpuNanos()};
    }

    static double wallSince(long[] s) {
        return (System.nanoTime() - s[0]) / 1e9;
    }

    static long cpuSince(long[] s) {
        return cpuNanos() - s[1];
    }

    /** One call of a client under test (a send, or a stream of n events). */
    interface Call {
        void run(int n) throws Exception;
    }

    /**
     * The warm-up, then the two measured sections every client has: `sends` sequential sends,
     * then one stream of `events` events (`send` ignores its argument).
     */
    void measure(Call send, Call stream) throws Exception {
        for (int i = 0; i < warmup; i++) {
            send.run(1);
        }
        stream.run(Math.max(warmupEvents, 4));
        long[] s = start();
        for (int i = 0; i < sends; i++) {
            send.run(1);
        }
        sendWall = wallSince(s);
        sendCpu = cpuSince(s);
        s = start();
        stream.run(events);
        streamWall = wallSince(s);
        streamCpu = cpuSince(s);
        if (System.getenv("BENCH_SECTION_CLOCK") != null) {
            // For a profile of the stream section alone (perf record -k CLOCK_MONOTONIC, then
            // perf report --time FROM,TO): System.nanoTime is CLOCK_MONOTONIC on Linux.
            System.err.println(String.format(Locale.ROOT, "stream section: %.6f,%.6f", s[0] / 1e9,
                (s[0] + (long) (streamWall * 1e9)) / 1e9));
        }
    }

    void print(String client) {
        double perStream = idle == 0 ? 0 : (double) (rssAfter - rssBefore) / idle;
        System.out.println(String.format(Locale.ROOT,
            "{\"client\":\"%s\",\"sends\":%d,\"sends_per_s\":%.3f,\"cpu_us_per_send\":%.3f,\"events\":%d,"
                + "\"events_per_s\":%.3f,\"cpu_us_per_event\":%.3f,\"idle_streams\":%d,\"rss_before_kib\":%d,"
                + "\"rss_after_kib\":%d,\"rss_kib_per_stream\":%.3f}",
            client, sends, sends / sendWall, sendCpu / 1000.0 / sends, events, events / streamWall,
            streamCpu / 1000.0 / events, idle, rssBefore, rssAfter, perStream));
    }
}
