package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The shared trust fixtures ({@code bindings/fixtures/trust/cases.json}, every binding runs
 * them) through this binding's API: cards (one signed by the Python a2a-sdk's signer, ES256;
 * ones signed by the core, EdDSA and RS256; tampered, wrong keys, unsigned, keys that are not
 * keys), key URLs, push verifier steps on their own clocks, webhook checks. Plus signing with
 * the fixture keys, and the a2a-sdk's signature checked by the JDK too.
 */
class TrustFixtureTest {
    private static final Path DIR = Fixtures.repoRoot().resolve("bindings").resolve("fixtures").resolve("trust");

    private static byte[] file(String name) throws Exception {
        return Files.readAllBytes(DIR.resolve(name));
    }

    private static JsonNode cases() throws Exception {
        return Jose.MAPPER.readTree(file("cases.json"));
    }

    private static Optional<String> text(JsonNode c, String field) {
        JsonNode v = c.get(field);
        return v == null || v.isNull() ? Optional.empty() : Optional.of(v.asText());
    }

    private static int code(JsonNode all, String name) {
        return all.get("codes").get(name).asInt();
    }

    @Test
    void cards() throws Exception {
        JsonNode all = cases();
        assertTrue(all.get("cards").size() >= 8);
        boolean sdk = false;
        for (JsonNode c : all.get("cards")) {
            String name = c.get("name").asText();
            byte[] card = file(c.get("card").asText());
            byte[] keys = file(c.get("keys").asText());
            String expect = c.get("expect").asText();
            if (expect.equals("A2A_OK")) {
                VerifiedSignature v = Trust.verifyCard(card, keys);
                assertEquals(c.get("alg").asText(), v.alg(), name);
                assertEquals(text(c, "kid"), v.kid(), name);
                if (c.has("jku")) {
                    assertEquals(text(c, "jku"), v.jku(), name);
                }
                sdk |= c.get("card").asText().startsWith("sdk-");
                continue;
            }
            TrustException e = assertThrows(TrustException.class, () -> Trust.verifyCard(card, keys), name);
            assertEquals(code(all, expect), e.code(), name + ": " + e.getMessage());
            assertEquals(c.get("reason").asText(), e.reason(), name);
            if (c.has("rejected")) {
                List<String> want = new ArrayList<>();
                c.get("rejected").forEach(r -> want.add(r.asText()));
                List<String> got = new ArrayList<>();
                ((CardSignatureException) e).signatures().forEach(r -> got.add(r.rejected()));
                assertEquals(want, got, name);
            }
        }
        assertTrue(sdk, "the a2a-sdk-signed card is among the accepted ones");
    }

    @Test
    void keyUrls() throws Exception {
        JsonNode all = cases();
        for (JsonNode c : all.get("key_urls")) {
            String name = c.get("name").asText();
            byte[] card = file(c.get("card").asText());
            String extra = c.get("extra_hosts").asText();
            String[] hosts = extra.isEmpty() ? new String[0] : extra.split(",");
            String cardUrl = c.get("card_url").asText();
            switch (c.get("expect").asText()) {
                case "A2A_OK" -> assertEquals(Optional.of(c.get("url").asText()), Trust.cardKeyUrl(card, cardUrl, hosts), name);
                case "A2A_NONE" -> assertEquals(Optional.empty(), Trust.cardKeyUrl(card, cardUrl, hosts), name);
                default -> {
                    CardSignatureException e = assertThrows(CardSignatureException.class,
                        () -> Trust.cardKeyUrl(card, cardUrl, hosts), name);
                    assertEquals(code(all, c.get("expect").asText()), e.code(), name);
                    assertEquals(c.get("reason").asText(), e.reason(), name);
                }
            }
        }
    }

    @Test
    void push() throws Exception {
        JsonNode all = cases();
        int steps = 0;
        for (JsonNode c : all.get("push")) {
            String name = c.get("name").asText();
            JsonNode p = c.get("policy");
            PushPolicy.Builder b = PushPolicy.builder();
            text(p, "token").ifPresent(b::token);
            text(p, "audience").ifPresent(b::audience);
            text(p, "issuer").ifPresent(b::issuer);
            text(p, "taskId").ifPresent(b::taskId);
            if (p.has("skewSecs")) {
                b.skew(java.time.Duration.ofSeconds(p.get("skewSecs").asLong()));
            }
            if (p.has("maxAgeSecs")) {
                b.maxAge(java.time.Duration.ofSeconds(p.get("maxAgeSecs").asLong()));
            }
            if (c.hasNonNull("keys")) {
                b.keys(file(c.get("keys").asText()));
            }
            try (PushVerifier v = new PushVerifier(b.build())) {
                for (JsonNode s : c.get("steps")) {
                    Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                    for (JsonNode h : s.get("headers")) {
                        headers.computeIfAbsent(h.get(0).asText(), k -> new ArrayList<>()).add(h.get(1).asText());
                    }
                    byte[] body = Jose.MAPPER.writeValueAsBytes(s.get("body"));
                    PushVerdict verdict = v.check(headers, body, Instant.ofEpochSecond(s.get("now").asLong()));
                    String step = name + " #" + steps + ": " + verdict;
                    assertEquals(s.get("expect").asText().equals("A2A_OK"), verdict.accepted(), step);
                    assertEquals(text(s, "reason"), verdict.reason(), step);
                    steps++;
                }
            }
        }
        assertTrue(steps >= 8, "only " + steps + " push steps");
    }

    @Test
    void webhooks() throws Exception {
        JsonNode all = cases();
        for (JsonNode c : all.get("webhooks")) {
            String url = c.get("url").asText();
            String resolved = c.get("resolved").asText();
            List<InetAddress> addrs = new ArrayList<>();
            for (String a : resolved.isEmpty() ? new String[0] : resolved.split(",")) {
                addrs.add(InetAddress.getByName(a)); // literals only: no lookup
            }
            InetAddress[] arr = addrs.toArray(new InetAddress[0]);
            boolean allowHttp = c.get("allow_http").asBoolean();
            if (c.get("expect").asText().equals("A2A_OK")) {
                Trust.checkWebhookUrl(url, allowHttp, arr);
                continue;
            }
            WebhookRefusedException e = assertThrows(WebhookRefusedException.class,
                () -> Trust.checkWebhookUrl(url, allowHttp, arr), url + " " + resolved);
            assertEquals(c.get("reason").asText(), e.reason(), url + " " + resolved);
        }
    }

    @Test
    void signingWithTheFixtureKeys() throws Exception {
        byte[] unsigned = file("card.unsigned.json");
        String[][] signers = {
            {"core-eddsa.pem", "core-eddsa.jwks.json", "EdDSA", "core-eddsa"},
            {"core-rs256.pem", "core-rs256.jwks.json", "RS256", "core-rs256"},
            {"sdk-es256.pem", "sdk-es256.pub.pem", "ES256", "java-signed"},
        };
        for (String[] s : signers) {
            // The kid names the key in the JWKS (a JWKS key is chosen by kid; a PEM key by trial).
            byte[] signed = Trust.signCard(unsigned, file(s[0]), s[3], null);
            VerifiedSignature v = Trust.verifyCard(signed, file(s[1]));
            assertEquals(s[2], v.alg(), s[0]);
            assertEquals(Optional.of(s[3]), v.kid());
            assertThrows(CardSignatureException.class, () -> Trust.verifyCard(signed, file("wrong.jwks.json")), s[0]);
        }
        // The ES256 signature made here verifies with the JDK too.
        byte[] signed = Trust.signCard(unsigned, file("sdk-es256.pem"), "k", null);
        assertTrue(jdkVerifies(signed, publicKey(file("sdk-es256.pub.pem"))));
    }

    @Test
    void theSdkSignedCardVerifiesWithTheJdkToo() throws Exception {
        byte[] card = file("sdk-es256.card.json");
        assertTrue(jdkVerifies(card, publicKey(file("sdk-es256.pub.pem"))),
            "a2a-sdk's signature over the canonical form the library computes, checked by the JDK");
        JsonNode n = Jose.MAPPER.readTree(card);
        ((com.fasterxml.jackson.databind.node.ObjectNode) n).put("description", "changed");
        assertFalse(jdkVerifies(Jose.MAPPER.writeValueAsBytes(n), publicKey(file("sdk-es256.pub.pem"))));
    }

    private static PublicKey publicKey(byte[] pem) throws Exception {
        String b64 = new String(pem, java.nio.charset.StandardCharsets.US_ASCII)
            .replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(b64)));
    }

    /** Whether the JDK verifies the card's first signature (ES256) over the library's canonical card form. */
    private static boolean jdkVerifies(byte[] card, PublicKey key) throws Exception {
        JsonNode sig = Jose.MAPPER.readTree(card).get("signatures").get(0);
        String protectedB64 = sig.get("protected").asText();
        String alg = Jose.MAPPER.readTree(Jose.unb64(protectedB64)).get("alg").asText();
        if (!alg.equals("ES256")) {
            fail("not ES256: " + alg);
        }
        return Jose.verify(alg, key, protectedB64, Jose.b64(Trust.canonical(card, true)), sig.get("signature").asText());
    }
}
