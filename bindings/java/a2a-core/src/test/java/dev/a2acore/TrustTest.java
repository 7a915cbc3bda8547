package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Signed agent cards and webhook URL checks through {@link Trust}: the library's signatures
 * checked by the JDK's own ECDSA/RSA, the JDK's signatures verified by the library, and the
 * refusals (tampered card, wrong key, unsigned card, jku on another host, SSRF targets).
 */
class TrustTest {
    static final String CARD = "{\"protocolVersion\":\"0.3.0\",\"name\":\"signed agent\",\"description\":\"d\","
        + "\"url\":\"https://agent.example/a2a\",\"preferredTransport\":\"JSONRPC\",\"version\":\"1.0.0\","
        + "\"capabilities\":{\"streaming\":true},\"defaultInputModes\":[\"text/plain\"],"
        + "\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";
    static KeyPair ec;
    static KeyPair rsa;

    @BeforeAll
    static void keys() throws Exception {
        ec = Jose.ec256();
        rsa = Jose.rsa();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The card signed by the JDK (detached JWS over the library's canonical card form). */
    static byte[] jdkSigned(byte[] card, String alg, java.security.PrivateKey key, String kid, String jku)
        throws Exception {
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("alg", alg);
        header.put("typ", "JOSE");
        header.put("kid", kid);
        if (jku != null) {
            header.put("jku", jku);
        }
        String protectedB64 = Jose.b64Json(header);
        String payload = Jose.b64(Trust.canonical(card, true));
        ObjectNode n = (ObjectNode) Jose.MAPPER.readTree(card);
        ArrayNode sigs = n.has("signatures") ? (ArrayNode) n.get("signatures") : n.putArray("signatures");
        sigs.addObject().put("protected", protectedB64).put("signature", Jose.sign(alg, key, protectedB64, payload));
        return Jose.MAPPER.writeValueAsBytes(n);
    }

    @Test
    void canonicalFormIsRfc8785() {
        assertEquals("{\"a\":[1,\"x\",true],\"b\":{\"c\":null,\"d\":1.5}}", new String(Trust.canonical(
            utf8("{ \"b\": {\"d\": 1.50, \"c\": null}, \"a\": [1.0, \"x\", true] }"), false), StandardCharsets.UTF_8));
    }

    @Test
    void cardFormLeavesOutSignatures() throws Exception {
        byte[] signed = jdkSigned(utf8(CARD), "ES256", ec.getPrivate(), "k1", null);
        assertTrue(new String(signed, StandardCharsets.UTF_8).contains("\"signatures\""));
        String form = new String(Trust.canonical(signed, true), StandardCharsets.UTF_8);
        assertFalse(form.contains("signatures"), form);
        assertEquals(form, new String(Trust.canonical(utf8(CARD), true), StandardCharsets.UTF_8));
    }

    @Test
    void canonicalRefusesWhatIsNotJson() {
        TrustException e = assertThrows(TrustException.class, () -> Trust.canonical(utf8("{\"a\":"), false));
        assertEquals(TrustException.TRUST_JSON, e.code());
    }

    @Test
    void jdkSignedCardsVerify() throws Exception {
        VerifiedSignature v = Trust.verifyCard(jdkSigned(utf8(CARD), "ES256", ec.getPrivate(), "ec-1", null),
            Jose.publicPem(ec.getPublic()));
        assertEquals("ES256", v.alg());
        assertEquals(Optional.of("ec-1"), v.kid());
        assertEquals(Optional.empty(), v.jku());
        VerifiedSignature r = Trust.verifyCard(jdkSigned(utf8(CARD), "RS256", rsa.getPrivate(), "rsa-1", null),
            Jose.publicPem(rsa.getPublic()));
        assertEquals("RS256", r.alg());
    }

    @Test
    void librarySignedCardVerifiesWithTheJdk() throws Exception {
        byte[] signed = Trust.signCard(utf8(CARD), Jose.privatePem(rsa.getPrivate()), "rsa-lib", "https://agent.example/jwks.json");
        JsonNode sig = Jose.MAPPER.readTree(signed).get("signatures").get(0);
        String protectedB64 = sig.get("protected").asText();
        JsonNode header = Jose.MAPPER.readTree(Jose.unb64(protectedB64));
        assertEquals("rsa-lib", header.get("kid").asText());
        assertEquals("https://agent.example/jwks.json", header.get("jku").asText());
        String payload = Jose.b64(Trust.canonical(signed, true));
        assertTrue(Jose.verify(header.get("alg").asText(), rsa.getPublic(), protectedB64, payload,
            sig.get("signature").asText()), "the JDK verifies the library's signature");
        VerifiedSignature v = Trust.verifyCard(signed, Jose.publicPem(rsa.getPublic()));
        assertEquals(Optional.of("https://agent.example/jwks.json"), v.jku());
    }

    @Test
    void tamperedCardIsRefused() throws Exception {
        byte[] signed = jdkSigned(utf8(CARD), "ES256", ec.getPrivate(), "ec-1", null);
        ObjectNode n = (ObjectNode) Jose.MAPPER.readTree(signed);
        n.put("url", "https://evil.example/a2a");
        CardSignatureException e = assertThrows(CardSignatureException.class,
            () -> Trust.verifyCard(Jose.MAPPER.writeValueAsBytes(n), Jose.publicPem(ec.getPublic())));
        assertEquals(TrustException.CARD_SIGNATURE, e.code());
        assertEquals("no_valid_signature", e.reason());
        assertEquals(1, e.signatures().size());
        assertEquals(Optional.of("ec-1"), e.signatures().get(0).kid());
        assertFalse(e.signatures().get(0).rejected().isEmpty());
    }

    @Test
    void wrongKeyIsRefused() throws Exception {
        byte[] signed = jdkSigned(utf8(CARD), "ES256", ec.getPrivate(), "ec-1", null);
        KeyPair other = Jose.ec256();
        CardSignatureException e = assertThrows(CardSignatureException.class,
            () -> Trust.verifyCard(signed, Jose.publicPem(other.getPublic())));
        assertEquals("no_valid_signature", e.reason());
        assertEquals(1, e.signatures().size());
    }

    @Test
    void unsignedCardIsRefused() {
        CardSignatureException e = assertThrows(CardSignatureException.class,
            () -> Trust.verifyCard(utf8(CARD), Jose.publicPem(ec.getPublic())));
        assertEquals("unsigned", e.reason());
        assertTrue(e.signatures().isEmpty());
    }

    @Test
    void unreadableKeysAreAKeyError() throws Exception {
        byte[] signed = jdkSigned(utf8(CARD), "ES256", ec.getPrivate(), "ec-1", null);
        TrustException e = assertThrows(TrustException.class, () -> Trust.verifyCard(signed, utf8("not a key")));
        assertEquals(TrustException.TRUST_KEY, e.code());
        TrustException s = assertThrows(TrustException.class,
            () -> Trust.signCard(utf8(CARD), utf8("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
                "k", null));
        assertEquals(TrustException.TRUST_KEY, s.code());
    }

    @Test
    void jkuIsFetchedOnlyFromTheCardsHostOverHttps() throws Exception {
        byte[] card = jdkSigned(utf8(CARD), "ES256", ec.getPrivate(), "ec-1", "https://agent.example/keys.json");
        assertEquals(Optional.of("https://agent.example/keys.json"),
            Trust.cardKeyUrl(card, "https://agent.example/.well-known/agent-card.json"));
        CardSignatureException other = assertThrows(CardSignatureException.class,
            () -> Trust.cardKeyUrl(card, "https://cards.example/.well-known/agent-card.json"));
        assertFalse(other.detail().isEmpty());
        assertEquals(Optional.of("https://agent.example/keys.json"),
            Trust.cardKeyUrl(card, "https://cards.example/.well-known/agent-card.json", "agent.example"));
        byte[] plain = jdkSigned(utf8(CARD), "ES256", ec.getPrivate(), "ec-1", "http://agent.example/keys.json");
        assertThrows(CardSignatureException.class,
            () -> Trust.cardKeyUrl(plain, "https://agent.example/.well-known/agent-card.json"));
        byte[] none = jdkSigned(utf8(CARD), "ES256", ec.getPrivate(), "ec-1", null);
        assertEquals(Optional.empty(), Trust.cardKeyUrl(none, "https://agent.example/"));
    }

    @Test
    void webhookUrlsToPublicHttpsHostsAreAllowed() throws Exception {
        Trust.checkWebhookUrl("https://hooks.example/a2a", false);
        Trust.checkWebhookUrl("https://hooks.example/a2a", false, InetAddress.getByAddress(new byte[] {93, (byte) 184, (byte) 216, 34}));
        Trust.checkWebhookUrl("http://hooks.example/a2a", true);
    }

    @Test
    void webhookUrlsToInternalTargetsAreRefused() throws Exception {
        String[][] refused = {
            {"http://hooks.example/a2a", "scheme"},
            {"https://127.0.0.1/hook", "internal"},
            {"https://localhost/hook", "internal"},
            {"https://10.1.2.3/hook", "internal"},
            {"https://192.168.0.7/hook", "internal"},
            {"https://169.254.169.254/latest/meta-data", "internal"},
            {"https://[::1]/hook", "internal"},
            {"https://[fe80::1]/hook", "internal"},
            {"https://0.0.0.0/hook", "internal"},
            {"https://user:pw@hooks.example/hook", "userinfo"},
            {"not a url", "invalid"},
        };
        for (String[] r : refused) {
            WebhookRefusedException e = assertThrows(WebhookRefusedException.class,
                () -> Trust.checkWebhookUrl(r[0], false), r[0]);
            assertEquals(r[1], e.reason(), r[0] + ": " + e.getMessage());
            assertEquals(TrustException.WEBHOOK_REFUSED, e.code());
        }
        // Plain http allowed does not open loopback.
        assertEquals("internal", assertThrows(WebhookRefusedException.class,
            () -> Trust.checkWebhookUrl("http://127.0.0.1:8080/hook", true)).reason());
        // A public name that resolves to a private, loopback or link-local address is refused.
        for (byte[] a : new byte[][] {{10, 0, 0, 5}, {127, 0, 0, 1}, {(byte) 169, (byte) 254, 1, 1}}) {
            InetAddress addr = InetAddress.getByAddress(a);
            WebhookRefusedException e = assertThrows(WebhookRefusedException.class,
                () -> Trust.checkWebhookUrl("https://hooks.example/a2a", false, addr), addr.toString());
            assertEquals("internal", e.reason());
        }
    }
}
