import dev.a2acore.SseDecoder;
import dev.a2acore.SseEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Rough throughput of SseDecoder through JNA (not a test; run by hand, see README): decodes
 * a stream of A2A-sized events (about 330 bytes of JSON each, CRLF, a keep-alive comment
 * every 10 events) fed in chunks of a given size, and prints events per second with String
 * data materialised.
 */
public class SseThroughput {
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
        for (int chunk : new int[] {stream.length, 16384, 4096, 512}) {
            double best = 0;
            for (int round = 0; round < 7; round++) {
                long t0 = System.nanoTime();
                int got = 0;
                long bytes = 0;
                try (SseDecoder d = new SseDecoder()) {
                    for (int off = 0; off < stream.length; off += chunk) {
                        int n = Math.min(chunk, stream.length - off);
                        List<SseEvent> out = d.feed(stream, off, n);
                        for (SseEvent e : out) {
                            bytes += e.data().length();
                        }
                        got += out.size();
                    }
                    d.finish();
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                if (got != events || bytes == 0) {
                    throw new AssertionError("decoded " + got + " events");
                }
                best = Math.max(best, events / secs);
            }
            System.out.printf("chunk %7d B: %,10.0f events/s (%.1f MB/s)%n", chunk, best,
                best * stream.length / events / 1e6);
        }
    }
}
