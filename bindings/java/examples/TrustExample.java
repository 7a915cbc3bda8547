import dev.a2acore.*;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

public class TrustExample {
    static byte[] pem(String label, byte[] der) {
        return ("-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder().encodeToString(der)
            + "\n-----END " + label + "-----\n").getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        KeyPair key = g.generateKeyPair();                            // the agent's signing key
        byte[] publicPem = pem("PUBLIC KEY", key.getPublic().getEncoded());
        byte[] card = ("{\"name\":\"Echo agent\",\"description\":\"echoes\",\"version\":\"1.0.0\","
            + "\"supportedInterfaces\":[{\"url\":\"https://agent.example/a2a\",\"protocolBinding\":\"JSONRPC\","
            + "\"protocolVersion\":\"1.0\"}],\"capabilities\":{},\"defaultInputModes\":[\"text/plain\"],"
            + "\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}").getBytes(StandardCharsets.UTF_8);

        // Server side: sign the card. Client side: verify it, or find where its keys live.
        byte[] signed = Trust.signCard(card, pem("PRIVATE KEY", key.getPrivate().getEncoded()), "agent-key-1",
            "https://agent.example/jwks.json");
        System.out.println(Trust.verifyCard(signed, publicPem));
        System.out.println(Trust.cardKeyUrl(signed, "https://agent.example/.well-known/agent-card.json"));
        byte[] tampered = new String(signed, StandardCharsets.UTF_8).replace("Echo agent", "Evil agent")
            .getBytes(StandardCharsets.UTF_8);
        try {
            Trust.verifyCard(tampered, publicPem);
        } catch (CardSignatureException e) {
            System.out.println(e.reason() + " " + e.signatures());
        }

        // Sender side: may this webhook be called?
        try {
            Trust.checkWebhookUrl("https://169.254.169.254/latest/meta-data", false);
        } catch (WebhookRefusedException e) {
            System.out.println(e.reason() + ": " + e.detail());
        }

        // Receiving end of push notifications: the config's token, the task, no replays.
        try (PushVerifier verifier = new PushVerifier(PushPolicy.builder().token("cfg-token").taskId("t-1").build())) {
            Map<String, List<String>> headers = Map.of("X-A2A-Notification-Token", List.of("cfg-token"));
            byte[] body = "{\"task\":{\"id\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}"
                .getBytes(StandardCharsets.UTF_8);
            System.out.println(verifier.check(headers, body, Instant.now()));
            PushVerdict again = verifier.check(headers, body, Instant.now());
            System.out.println(again.accepted() + " " + again.reason().orElse("") + ": " + again.detail().orElse(""));
        }
    }
}
