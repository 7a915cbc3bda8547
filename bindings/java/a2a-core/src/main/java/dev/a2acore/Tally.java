package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.SizeT;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Outcome counts per (agent, method, channel, code-or-state), rendered in the Prometheus
 * text format as {@code a2a_outcomes_total}. Every method is synchronized.
 */
public final class Tally implements AutoCloseable {
    /**
     * One counter.
     *
     * @param agent the remote agent
     * @param method the method as recorded
     * @param channel the outcome's channel
     * @param code the error name, HTTP status or task state
     * @param count how many outcomes were counted
     */
    public record Entry(String agent, String method, Channel channel, String code, long count) {}

    private final A2aCoreLibrary lib;
    private final OwnedHandle handle;

    /** A new empty tally. */
    public Tally() {
        lib = A2aCore.lib();
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_tally_new", lib.a2a_tally_new(out));
        handle = new OwnedHandle(this, out.getPointer(0), h -> A2aCore.lib().a2a_tally_free(h), "Tally");
    }

    /**
     * Counts one outcome of {@code method} on {@code agent}.
     *
     * @throws IllegalStateException for a stream item's or stream End's outcome (a copy
     *     without a native handle; count the call with {@link #add} instead)
     */
    public synchronized void record(String agent, String method, Outcome outcome) {
        Pointer o = outcome.nativeHandle();
        if (o == null) {
            throw new IllegalStateException("this outcome is a copy of a borrowed one; it cannot be recorded");
        }
        byte[] a = agent.getBytes(StandardCharsets.UTF_8);
        byte[] m = method.getBytes(StandardCharsets.UTF_8);
        synchronized (outcome) {
            A2aCoreException.check("a2a_tally_record",
                lib.a2a_tally_record(h(), a, new SizeT(a.length), m, new SizeT(m.length), o));
        }
        java.lang.ref.Reference.reachabilityFence(outcome);
    }

    /** Adds {@code n} to one counter directly (e.g. to merge tallies). */
    public synchronized void add(String agent, String method, Channel channel, String code, long n) {
        byte[] a = agent.getBytes(StandardCharsets.UTF_8);
        byte[] m = method.getBytes(StandardCharsets.UTF_8);
        byte[] c = code.getBytes(StandardCharsets.UTF_8);
        A2aCoreException.check("a2a_tally_add", lib.a2a_tally_add(h(), a, new SizeT(a.length), m, new SizeT(m.length),
            channel.code(), c, new SizeT(c.length), n));
    }

    /** The count of one counter (0 when never recorded). */
    public synchronized long count(String agent, String method, Channel channel, String code) {
        byte[] a = agent.getBytes(StandardCharsets.UTF_8);
        byte[] m = method.getBytes(StandardCharsets.UTF_8);
        byte[] c = code.getBytes(StandardCharsets.UTF_8);
        Memory out = new Memory(8);
        A2aCoreException.check("a2a_tally_count", lib.a2a_tally_count(h(), a, new SizeT(a.length), m,
            new SizeT(m.length), channel.code(), c, new SizeT(c.length), out));
        return out.getLong(0);
    }

    /** The total of every counter. */
    public synchronized long total() {
        return lib.a2a_tally_total(h());
    }

    /** Every counter, sorted by agent, method, channel, code. */
    public synchronized List<Entry> entries() {
        long n = lib.a2a_tally_entry_count(h()).longValue();
        List<Entry> out = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            A2aCoreLibrary.TallyEntry e = new A2aCoreLibrary.TallyEntry();
            A2aCoreException.check("a2a_tally_get_entry", lib.a2a_tally_get_entry(h(), new SizeT(i), e));
            e.read();
            out.add(new Entry(Layout.string(e.agent), Layout.string(e.method),
                Channel.fromCode(e.channel).orElseThrow(() -> new IllegalStateException("bad channel " + e.channel)),
                Layout.string(e.code), e.count));
        }
        return out;
    }

    /** The Prometheus text exposition (0.0.4). */
    public synchronized String renderPrometheus() {
        Memory out = new Memory(Layout.VIEW_SIZE);
        A2aCoreException.check("a2a_tally_render_prometheus", lib.a2a_tally_render_prometheus(h(), out));
        byte[] b = Layout.viewBytes(out, 0);
        return b == null ? "" : new String(b, StandardCharsets.UTF_8);
    }

    private Pointer h() {
        return handle.get();
    }

    /** Frees the tally; idempotent. */
    @Override
    public synchronized void close() {
        handle.close();
    }
}
