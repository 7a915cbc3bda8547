package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The access token of one {@link A2aClient} ({@code a2a_oauth2_*}): the library decides when
 * a token must be fetched and reads the endpoint's answer; this class performs the request on
 * the client's {@link HttpClient} asynchronously. Single flight: while a fetch is in flight,
 * every caller gets the same future.
 */
final class OAuth2Tokens {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final int NEED_MORE = 1;
    private static final int IN_USE = 104;
    /** Bound on a token request (the endpoint is not the agent: the call's budget does not apply). */
    private static final Duration FETCH_TIMEOUT = Duration.ofSeconds(30);

    /** Frees the native handle; never references the OAuth2Tokens. */
    private static final class State implements Runnable {
        Pointer handle;

        @Override
        public synchronized void run() {
            if (handle != null) {
                A2aCore.lib().a2a_oauth2_free(handle);
                handle = null;
            }
        }
    }

    private final A2aCoreLibrary lib;
    private final HttpClient http;
    private final ClientCredentials credentials;
    private final State state = new State();
    private final Cleaner.Cleanable cleanable;
    private CompletableFuture<String> inflight;
    private String current;

    /**
     * A token source for {@code credentials}; {@code card} (may be null when the credentials
     * name a token URL) is read for its clientCredentials flow.
     *
     * @throws A2aCoreException when the library refuses the configuration (no token URL, plain http, ...)
     */
    OAuth2Tokens(A2aCoreLibrary lib, HttpClient http, ClientCredentials credentials, AgentCard card) {
        this.lib = lib;
        this.http = http;
        this.credentials = credentials;
        A2aCoreLibrary.OAuth2Config c = new A2aCoreLibrary.OAuth2Config();
        Memory tokenUrl = view(c.token_url, credentials.tokenUrl().orElse("").getBytes(StandardCharsets.UTF_8));
        Memory id = view(c.client_id, credentials.clientId().getBytes(StandardCharsets.UTF_8));
        Memory scope = view(c.scope, credentials.scope().orElse("").getBytes(StandardCharsets.UTF_8));
        char[] secret = credentials.secret();
        ByteBuffer enc = StandardCharsets.UTF_8.encode(CharBuffer.wrap(secret));
        byte[] secretBytes = new byte[enc.remaining()];
        enc.get(secretBytes);
        Memory sec = view(c.client_secret, secretBytes);
        try {
            c.card = card == null ? null : card.nativeHandle();
            c.basic_auth = (byte) (credentials.basicAuth() ? 1 : 0);
            c.refresh_early_ms = credentials.refreshEarly().map(Duration::toMillis).orElse(0L);
            c.allow_http_loopback = (byte) (credentials.allowHttpLoopback() ? 1 : 0);
            Memory out = new Memory(Native.POINTER_SIZE);
            out.setPointer(0, null);
            int rc = lib.a2a_oauth2_new(c, out);
            if (rc != 0) {
                throw new A2aCoreException("a2a_oauth2_new", rc, null);
            }
            state.handle = out.getPointer(0);
        } finally {
            Arrays.fill(secret, '\0');
            Arrays.fill(secretBytes, (byte) 0);
            if (enc.hasArray()) {
                Arrays.fill(enc.array(), (byte) 0);
            }
            if (sec != null) {
                sec.clear();
            }
            keep(tokenUrl, id, scope, card);
        }
        this.cleanable = CLEANER.register(this, state);
    }

    private static void keep(Object... o) {
        java.lang.ref.Reference.reachabilityFence(o);
    }

    /** Points {@code v} at a native copy of {@code b} (a 1-byte placeholder for empty: present, length 0). */
    private static Memory view(dev.a2acore.internal.Layout.BytesView v, byte[] b) {
        Memory m = new Memory(Math.max(1, b.length));
        if (b.length > 0) {
            m.write(0, b, 0, b.length);
        }
        v.ptr = b.length == 0 ? null : m;
        v.len = new SizeT(b.length);
        return m;
    }

    /**
     * The current access token: at once when one is held and fresh, else the future of the
     * one fetch in flight (started here when none is).
     */
    synchronized CompletableFuture<String> token() {
        if (inflight != null) {
            return inflight;
        }
        Pointer h = handle();
        try (NativeBuffer out = new NativeBuffer(lib)) {
            int rc = lib.a2a_oauth2_token(h, now(), out.p);
            if (rc == 0) {
                current = out.string();
                return CompletableFuture.completedFuture(current);
            }
            if (rc == IN_USE) {
                // Another user of the same handle is fetching (not through this object): ask again shortly.
                return CompletableFuture.supplyAsync(() -> null,
                    CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)).thenCompose(v -> token());
            }
            if (rc != NEED_MORE) {
                out.check("a2a_oauth2_token", rc);
            }
        }
        CompletableFuture<String> f;
        try (NativeBuffer url = new NativeBuffer(lib); NativeBuffer form = new NativeBuffer(lib);
             NativeBuffer auth = new NativeBuffer(lib)) {
            int rc = lib.a2a_oauth2_request(h, url.p, form.p, auth.p);
            if (rc != 0) {
                endFetch();
                url.check("a2a_oauth2_request", rc);
            }
            try {
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url.string()))
                    .timeout(FETCH_TIMEOUT)
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .header("Accept", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(form.bytes()));
                String a = auth.string();
                if (!a.isEmpty()) {
                    b.header("Authorization", a);
                }
                f = http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofByteArray())
                    .handle((resp, err) -> resp == null ? handleResponse(0, new byte[0])
                        : handleResponse(resp.statusCode(), resp.body() == null ? new byte[0] : resp.body()));
            } catch (RuntimeException e) {
                endFetch(); // the request could not even start: the library hears of it as a transport failure
                throw e;
            }
        }
        inflight = f;
        if (f.isDone()) {
            inflight = null;
        }
        return f;
    }

    /** Hands the endpoint's answer to the library (exactly once per fetch); the token or the refusal. */
    private synchronized String handleResponse(int status, byte[] body) {
        inflight = null;
        Pointer h = handle();
        try (NativeBuffer err = new NativeBuffer(lib)) {
            int rc = lib.a2a_oauth2_handle_response(h, (short) status, body, new SizeT(body.length), now(), err.p);
            err.check("a2a_oauth2_handle_response", rc);
        }
        try (NativeBuffer out = new NativeBuffer(lib)) {
            int rc = lib.a2a_oauth2_token(h, now(), out.p);
            out.check("a2a_oauth2_token", rc);
            current = out.string();
            return current;
        }
    }

    /** Ends a fetch the library started but that was never sent (status 0: a transport failure). */
    private void endFetch() {
        try {
            handleResponse(0, new byte[0]);
        } catch (RuntimeException ignored) {
            // the caller throws the failure that stopped the fetch
        }
    }

    /** Forgets {@code used} (the agent answered 401 with it) unless a newer token replaced it already. */
    synchronized void invalidate(String used) {
        if (used != null && used.equals(current) && state.handle != null) {
            lib.a2a_oauth2_invalidate(state.handle);
            current = null;
        }
    }

    private long now() {
        return credentials.clock().millis();
    }

    private Pointer handle() {
        if (state.handle == null) {
            throw new IllegalStateException("A2aClient is closed");
        }
        return state.handle;
    }

    /** Frees the native handle; idempotent. */
    synchronized void close() {
        cleanable.clean();
    }
}
