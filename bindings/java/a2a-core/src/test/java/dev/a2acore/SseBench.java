package dev.a2acore;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Decoder throughput, run by hand (not a test: Surefire runs only {@code *Test} classes):
 * the stream of {@code examples/SseThroughput.java} (20,000 A2A-sized events, CRLF, a
 * keep-alive comment every 10 events) fed in 16 KiB, 4 KiB and 512 B chunks, every event's
 * data materialised as a {@code String}; 10 warm-up passes per chunk size so the JIT has
 * compiled the path, then the median and best of 25 rounds. Argument {@code items} measures
 * {@code feedItems} (events and comments), otherwise {@code feed} (events only). See the
 * README for the command.
 */
public class SseBench {
    public static void main(String[] args) {
        StringBuilder sb = new StringBuilder();
        int events = 20_000;
        for (int i = 0; i < events; i++) {
            sb.append("data: {\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{\"kind\":\"artifact-update\",\"taskId\":")
              .append("\"4f9c2d3e-1a2b-4c5d-8e9f-0a1b2c3d4e5f\",\"contextId\":\"ctx-0a1b2c3d\",\"artifact\":{")
              .append("\"artifactId\":\"chunk-").append(i).append("\",\"parts\":[{\"kind\":\"text\",\"text\":")
              .append("\"chunk ").append(i).append(" of the answer, with some text in it\"}]},\"append\":true,")
              .append("\"lastChunk\":false}}\r\n\r\n");
            if (i % 10 == 9) {
                sb.append(": ping - 2026-11-30 00:00:00.000000+00:00\r\n\r\n");
            }
        }
        byte[] stream = sb.toString().getBytes(StandardCharsets.UTF_8);
        boolean items = args.length > 0 && args[0].equals("items");
        int[] chunks = {16384, 4096, 512};
        int rounds = 25;
        double[][] rate = new double[chunks.length][rounds];
        for (int warm = 0; warm < 10; warm++) for (int c : chunks) once(stream, c, events, items);
        for (int round = 0; round < rounds; round++) {
            for (int ci = 0; ci < chunks.length; ci++) {
                rate[ci][round] = once(stream, chunks[ci], events, items);
            }
        }
        for (int ci = 0; ci < chunks.length; ci++) {
            double[] r = rate[ci].clone();
            Arrays.sort(r);
            System.out.printf("%s chunk %6d B: median %,10.0f best %,10.0f events/s%n", items ? "feedItems" : "feed", chunks[ci], r[rounds / 2], r[rounds - 1]);
        }
    }

    static double once(byte[] stream, int chunk, int events, boolean items) {
        long t0 = System.nanoTime();
        int got = 0;
        long bytes = 0;
        try (SseDecoder d = new SseDecoder()) {
            for (int off = 0; off < stream.length; off += chunk) {
                int n = Math.min(chunk, stream.length - off);
                if (items) {
                    for (SseItem it : d.feedItems(stream, off, n)) {
                        if (it instanceof SseEvent e) { bytes += e.data().length(); got++; }
                    }
                } else {
                    List<SseEvent> out = d.feed(stream, off, n);
                    for (SseEvent e : out) bytes += e.data().length();
                    got += out.size();
                }
            }
            d.finish();
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        if (got != events || bytes == 0) throw new AssertionError("decoded " + got);
        return events / secs;
    }
}
