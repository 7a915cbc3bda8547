package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link PushVerifier}: token and JWT notifications (JWTs signed by the JDK's ECDSA),
 * accepted once, and the rejections as verdicts (never exceptions): wrong token, replay,
 * expired, too old, wrong audience, wrong key, wrong task.
 */
class PushVerifierTest {
    private static final String AUD = "https://client.example/a2a/push";
    private static final Instant NOW = Instant.ofEpochSecond(1_780_000_000L);
    private static KeyPair sender;

    @BeforeAll
    static void keys() throws Exception {
        sender = Jose.ec256();
    }

    private static byte[] task(String id, String state) {
        return ("{\"task\":{\"id\":\"" + id + "\",\"contextId\":\"c-1\",\"status\":{\"state\":\"" + state + "\"}}}")
            .getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, List<String>> headers(String name, String value) {
        Map<String, List<String>> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        h.put("Content-Type", List.of("application/json"));
        h.put(name, List.of(value));
        return h;
    }

    private static String jwt(String jti, long iat, long exp, String aud, String taskId) throws Exception {
        Map<String, Object> claims = new java.util.LinkedHashMap<>();
        claims.put("iss", "https://agent.example");
        claims.put("aud", aud);
        claims.put("iat", iat);
        claims.put("exp", exp);
        claims.put("jti", jti);
        if (taskId != null) {
            claims.put("taskId", taskId);
        }
        return Jose.jwt(sender.getPrivate(), "push-1", claims);
    }

    private static PushVerifier jwtVerifier() {
        return new PushVerifier(PushPolicy.builder().audience(AUD).issuer("https://agent.example").taskId("t-1")
            .keys(Jose.publicPem(sender.getPublic())).skew(Duration.ofSeconds(30)).maxAge(Duration.ofMinutes(5))
            .build());
    }

    @Test
    void tokenNotificationIsAcceptedOnceThenReplayed() {
        try (PushVerifier v = new PushVerifier(PushPolicy.builder().token("s3cret-token").taskId("t-1").build())) {
            PushVerdict ok = v.check(headers("x-a2a-notification-token", "s3cret-token"), task("t-1", "TASK_STATE_WORKING"), NOW);
            assertTrue(ok.accepted(), ok.json());
            assertEquals(Optional.empty(), ok.reason());
            assertEquals(Optional.of("t-1"), ok.field("taskId"));
            assertFalse(ok.json().contains("s3cret-token"), "the verdict never shows the token");
            PushVerdict again = v.check(headers("X-A2A-Notification-Token", "s3cret-token"),
                task("t-1", "TASK_STATE_WORKING"), NOW.plusSeconds(1));
            assertFalse(again.accepted());
            assertEquals(Optional.of("replayed"), again.reason());
            PushVerdict next = v.check(headers("X-A2A-Notification-Token", "s3cret-token"),
                task("t-1", "TASK_STATE_COMPLETED"), NOW.plusSeconds(2));
            assertTrue(next.accepted(), "another notification is new: " + next);
        }
    }

    @Test
    void wrongOrMissingTokenIsRejected() {
        try (PushVerifier v = new PushVerifier(PushPolicy.builder().token("s3cret-token").build())) {
            PushVerdict wrong = v.check(headers("X-A2A-Notification-Token", "guess"), task("t-1", "TASK_STATE_WORKING"), NOW);
            assertEquals(Optional.of("token_mismatch"), wrong.reason());
            assertFalse(wrong.json().contains("s3cret-token"));
            PushVerdict missing = v.check(headers("X-Other", "x"), task("t-1", "TASK_STATE_WORKING"), NOW);
            assertEquals(Optional.of("token_missing"), missing.reason());
            assertTrue(missing.detail().isPresent());
        }
    }

    @Test
    void notificationAboutAnotherTaskIsRejected() {
        try (PushVerifier v = new PushVerifier(PushPolicy.builder().token("tok").taskId("t-1").build())) {
            PushVerdict r = v.check(headers("X-A2A-Notification-Token", "tok"), task("t-2", "TASK_STATE_WORKING"), NOW);
            assertFalse(r.accepted());
            assertEquals(Optional.of("task_mismatch"), r.reason());
        }
    }

    @Test
    void signedJwtIsAcceptedOnceThenReplayed() throws Exception {
        try (PushVerifier v = jwtVerifier()) {
            String t = jwt("jti-1", NOW.getEpochSecond() - 5, NOW.getEpochSecond() + 300, AUD, "t-1");
            PushVerdict ok = v.check(headers("Authorization", "Bearer " + t), task("t-1", "TASK_STATE_WORKING"), NOW);
            assertTrue(ok.accepted(), ok.json());
            assertTrue(ok.json().contains("jti-1"), ok.json());
            PushVerdict replay = v.check(headers("Authorization", "Bearer " + t), task("t-1", "TASK_STATE_WORKING"),
                NOW.plusSeconds(3));
            assertEquals(Optional.of("replayed"), replay.reason());
        }
    }

    @Test
    void expiredTooOldAndFutureJwtsAreRejected() throws Exception {
        long now = NOW.getEpochSecond();
        try (PushVerifier v = jwtVerifier()) {
            assertEquals(Optional.of("expired"), v.check(headers("Authorization", "Bearer "
                + jwt("e-1", now - 200, now - 100, AUD, "t-1")), task("t-1", "TASK_STATE_WORKING"), NOW).reason());
            assertEquals(Optional.of("too_old"), v.check(headers("Authorization", "Bearer "
                + jwt("e-2", now - 3600, now + 3600, AUD, "t-1")), task("t-1", "TASK_STATE_WORKING"), NOW).reason());
            assertEquals(Optional.of("not_yet_valid"), v.check(headers("Authorization", "Bearer "
                + jwt("e-3", now + 600, now + 900, AUD, "t-1")), task("t-1", "TASK_STATE_WORKING"), NOW).reason());
        }
    }

    @Test
    void jwtForAnotherAudienceTaskOrKeyIsRejected() throws Exception {
        long now = NOW.getEpochSecond();
        try (PushVerifier v = jwtVerifier()) {
            assertEquals(Optional.of("wrong_audience"), v.check(headers("Authorization", "Bearer "
                + jwt("a-1", now, now + 60, "https://other.example/hook", "t-1")), task("t-1", "TASK_STATE_WORKING"),
                NOW).reason());
            assertEquals(Optional.of("task_mismatch"), v.check(headers("Authorization", "Bearer "
                + jwt("a-2", now, now + 60, AUD, "t-9")), task("t-1", "TASK_STATE_WORKING"), NOW).reason());
            KeyPair other = Jose.ec256();
            Map<String, Object> claims = Map.of("iss", "https://agent.example", "aud", AUD, "iat", now, "exp", now + 60,
                "jti", "a-3");
            PushVerdict forged = v.check(headers("Authorization", "Bearer " + Jose.jwt(other.getPrivate(), "push-1", claims)),
                task("t-1", "TASK_STATE_WORKING"), NOW);
            assertFalse(forged.accepted());
            assertEquals(Optional.of("jwt"), forged.reason());
            assertEquals(Optional.of("jwt_missing"), v.check(headers("X-Other", "x"), task("t-1", "TASK_STATE_WORKING"),
                NOW).reason());
            // The forged copy was not remembered: the real one with the same jti still passes.
            PushVerdict real = v.check(headers("Authorization", "Bearer " + jwt("a-3", now, now + 60, AUD, "t-1")),
                task("t-1", "TASK_STATE_WORKING"), NOW);
            assertTrue(real.accepted(), real.json());
        }
    }

    @Test
    void unreadableKeysFailTheConstructorAndCloseIsFinal() {
        TrustException e = assertThrows(TrustException.class,
            () -> new PushVerifier(PushPolicy.builder().keys("nonsense".getBytes(StandardCharsets.UTF_8)).build()));
        assertEquals(TrustException.TRUST_KEY, e.code());
        PushVerifier v = new PushVerifier(PushPolicy.builder().token("t").build());
        v.close();
        v.close();
        assertThrows(IllegalStateException.class, () -> v.check(Map.of(), new byte[0], NOW));
    }

    @Test
    void policyNeverShowsItsToken() {
        PushPolicy p = PushPolicy.builder().token("s3cret-token").audience(AUD).build();
        assertFalse(p.toString().contains("s3cret-token"), p.toString());
        assertTrue(p.toString().contains("<redacted>"));
    }
}
