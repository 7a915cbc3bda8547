package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The receiving end of push notifications ({@code a2a_push_verifier_*}): checks each
 * notification's token or JWT against its {@link PushPolicy} and rejects replays within its
 * window. Safe from several threads (the library locks it); free it with {@link #close()}
 * (a {@link Cleaner} is the safety net).
 *
 * <pre>{@code
 * try (PushVerifier v = new PushVerifier(PushPolicy.builder().token(configToken).taskId(taskId).build())) {
 *     PushVerdict verdict = v.check(exchange.getRequestHeaders(), body, Instant.now());
 *     exchange.sendResponseHeaders(verdict.accepted() ? 200 : 401, -1);
 * }
 * }</pre>
 */
public final class PushVerifier implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Frees the native verifier; never references the PushVerifier. */
    private static final class State implements Runnable {
        Pointer handle;

        @Override
        public void run() {
            if (handle != null) {
                A2aCore.lib().a2a_push_verifier_free(handle);
                handle = null;
            }
        }
    }

    private final A2aCoreLibrary lib;
    private final State state = new State();
    private final Cleaner.Cleanable cleanable;

    /**
     * A verifier for {@code policy}.
     *
     * @throws TrustException {@code TRUST_KEY} for unreadable keys, {@code TRUST_JSON} for a policy the library refuses
     */
    public PushVerifier(PushPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        this.lib = A2aCore.lib();
        byte[] p = policy.json();
        byte[] keys = policy.rawKeys();
        Memory out = new Memory(Native.POINTER_SIZE);
        out.setPointer(0, null);
        int rc = lib.a2a_push_verifier_new(p, new SizeT(p.length), keys, new SizeT(keys == null ? 0 : keys.length),
            new SizeT(policy.replayCapacity()), out);
        if (rc != 0) {
            if (TrustException.isTrustCode(rc)) {
                throw new TrustException("a2a_push_verifier_new", rc, TrustException.MAPPER.createObjectNode()
                    .put("reason", rc == TrustException.TRUST_KEY ? "key" : "json")
                    .put("detail", A2aCore.describe(rc)));
            }
            throw new A2aCoreException("a2a_push_verifier_new", rc, null);
        }
        state.handle = out.getPointer(0);
        this.cleanable = CLEANER.register(this, state);
    }

    /**
     * Checks one notification: its request headers (any case; e.g. a
     * {@code com.sun.net.httpserver.Headers} or {@code HttpHeaders.map()}), its body, and the
     * wall clock. An accepted notification is remembered, so the same one again is rejected
     * as a replay. Never throws for a rejection.
     */
    public synchronized PushVerdict check(Map<String, List<String>> headers, byte[] body, Instant now) {
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(now, "now");
        Pointer h = handle();
        List<Map.Entry<String, String>> flat = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                continue;
            }
            for (String v : e.getValue()) {
                flat.add(new AbstractMap.SimpleImmutableEntry<>(e.getKey(), v));
            }
        }
        NativeArgs args = new NativeArgs();
        try (NativeBuffer out = new NativeBuffer(lib)) {
            Pointer arr = args.headerArray(flat);
            int rc = lib.a2a_push_verifier_check(h, arr, new SizeT(flat.size()), body, new SizeT(body.length),
                now.getEpochSecond(), out.p);
            byte[] verdict = out.bytes();
            if (rc == 0 || TrustException.isTrustCode(rc) && verdict.length > 0) {
                JsonNode n = TrustException.parse(verdict);
                if (rc != 0 && !n.has("accepted")) {
                    ((com.fasterxml.jackson.databind.node.ObjectNode) n).put("accepted", false);
                }
                return new PushVerdict(n);
            }
            String err = out.lastError();
            throw new A2aCoreException("a2a_push_verifier_check", rc, err);
        } finally {
            args.release();
        }
    }

    private Pointer handle() {
        if (state.handle == null) {
            throw new IllegalStateException("PushVerifier is closed");
        }
        return state.handle;
    }

    /** Frees the verifier; idempotent. */
    @Override
    public synchronized void close() {
        cleanable.clean();
    }
}
