package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.jna.Memory;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.SizeT;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Signed agent cards (A2A spec 8.4: JWS over the RFC 8785 canonical form of the card) and
 * webhook URL checks, over the library's {@code a2a_trust_*}, {@code a2a_card_signature_*},
 * {@code a2a_card_sign} and {@code a2a_webhook_url_check}. Stateless; safe from any thread.
 * Push notifications are checked by a {@link PushVerifier}; OAuth2 tokens are fetched by an
 * {@link A2aClient} built with {@link A2aClient.Builder#oauth2}.
 */
public final class Trust {
    private Trust() {}

    /**
     * The RFC 8785 canonical form of any JSON ({@code cardForm} false), or an agent card's
     * signing payload ({@code cardForm} true: default values removed, {@code signatures}
     * excluded; what {@code a2a card canonical} prints).
     *
     * @throws TrustException {@code TRUST_JSON} when {@code json} is not JSON
     */
    public static byte[] canonical(byte[] json, boolean cardForm) {
        Objects.requireNonNull(json, "json");
        A2aCoreLibrary lib = A2aCore.lib();
        try (NativeBuffer out = new NativeBuffer(lib)) {
            out.check("a2a_trust_canonical", lib.a2a_trust_canonical(json, new SizeT(json.length), cardForm, out.p));
            return out.bytes();
        }
    }

    /**
     * Verifies the card's JWS signatures against {@code keys}: a JWKS document, one JWK, or one
     * or more PEM public keys (detected). Returns the first signature that verifies.
     *
     * @throws CardSignatureException when none verifies (or the card has none): its
     *     {@link CardSignatureException#signatures()} say why each was rejected
     * @throws TrustException {@code TRUST_KEY} for unreadable keys, {@code TRUST_JSON} for a card that is not JSON
     */
    public static VerifiedSignature verifyCard(byte[] card, byte[] keys) {
        Objects.requireNonNull(card, "card");
        Objects.requireNonNull(keys, "keys");
        A2aCoreLibrary lib = A2aCore.lib();
        try (NativeBuffer report = new NativeBuffer(lib)) {
            report.check("a2a_card_signature_verify", lib.a2a_card_signature_verify(card, new SizeT(card.length), keys,
                new SizeT(keys.length), report.p));
            JsonNode n = TrustException.parse(report.bytes());
            return new VerifiedSignature(opt(n, "kid"), TrustException.text(n, "alg"), opt(n, "jku"));
        }
    }

    /**
     * Where to fetch the card's verifying keys: the {@code jku} its signatures name, when it
     * is HTTPS on the host the card came from ({@code cardUrl}) or on one of
     * {@code extraHosts}. Empty when no signature names a {@code jku}.
     *
     * @throws CardSignatureException when a {@code jku} is named but refused (reason: the core's kind)
     */
    public static Optional<String> cardKeyUrl(byte[] card, String cardUrl, String... extraHosts) {
        Objects.requireNonNull(card, "card");
        Objects.requireNonNull(cardUrl, "cardUrl");
        byte[] u = cardUrl.getBytes(StandardCharsets.UTF_8);
        byte[] hosts = String.join(",", extraHosts == null ? new String[0] : extraHosts)
            .getBytes(StandardCharsets.UTF_8);
        A2aCoreLibrary lib = A2aCore.lib();
        try (NativeBuffer out = new NativeBuffer(lib)) {
            int rc = lib.a2a_card_signature_key_url(card, new SizeT(card.length), u, new SizeT(u.length), hosts,
                new SizeT(hosts.length), out.p);
            if (rc == A2aCoreException.NONE) {
                return Optional.empty();
            }
            out.check("a2a_card_signature_key_url", rc);
            return Optional.of(out.string());
        }
    }

    /**
     * Signs a card (server side): the card with one more entry in {@code signatures}, over its
     * canonical form, with a PKCS#8 PEM private key (EC P-256/P-384, RSA, Ed25519), the key id
     * {@code kid} and {@code jku} (null: none). The key's native copy is zeroed after the call.
     *
     * @throws TrustException {@code TRUST_KEY} for an unusable key, {@code TRUST_JSON} for a card that is not JSON
     */
    public static byte[] signCard(byte[] card, byte[] privateKeyPem, String kid, String jku) {
        Objects.requireNonNull(card, "card");
        Objects.requireNonNull(privateKeyPem, "privateKeyPem");
        Objects.requireNonNull(kid, "kid");
        byte[] k = kid.getBytes(StandardCharsets.UTF_8);
        byte[] j = jku == null ? null : jku.getBytes(StandardCharsets.UTF_8);
        A2aCoreLibrary lib = A2aCore.lib();
        Memory pem = new Memory(Math.max(1, privateKeyPem.length));
        pem.write(0, privateKeyPem, 0, privateKeyPem.length);
        try (NativeBuffer out = new NativeBuffer(lib)) {
            out.check("a2a_card_sign", lib.a2a_card_sign(card, new SizeT(card.length), pem,
                new SizeT(privateKeyPem.length), k, new SizeT(k.length), j, new SizeT(j == null ? 0 : j.length), out.p));
            return out.bytes();
        } finally {
            pem.clear();
        }
    }

    /**
     * Whether a push notification config's webhook URL may be called (sender side): refuses
     * a URL that is not HTTPS (unless {@code allowHttp}), carries userinfo, or names a private,
     * loopback, link-local or unspecified host; every address in {@code resolved} (what the
     * host resolved to, checked by the same rules; none to check the URL alone) too.
     *
     * @throws WebhookRefusedException when refused ({@link TrustException#reason()}: the core's kind)
     */
    public static void checkWebhookUrl(String url, boolean allowHttp, InetAddress... resolved) {
        Objects.requireNonNull(url, "url");
        byte[] u = url.getBytes(StandardCharsets.UTF_8);
        String list = resolved == null ? "" : Arrays.stream(resolved).map(InetAddress::getHostAddress)
            .collect(Collectors.joining(","));
        byte[] r = list.getBytes(StandardCharsets.UTF_8);
        A2aCoreLibrary lib = A2aCore.lib();
        try (NativeBuffer out = new NativeBuffer(lib)) {
            out.check("a2a_webhook_url_check", lib.a2a_webhook_url_check(u, new SizeT(u.length), allowHttp,
                r.length == 0 ? null : r, new SizeT(r.length), out.p));
        }
    }

    private static Optional<String> opt(JsonNode n, String field) {
        String t = TrustException.text(n, field);
        return t.isEmpty() ? Optional.empty() : Optional.of(t);
    }
}
