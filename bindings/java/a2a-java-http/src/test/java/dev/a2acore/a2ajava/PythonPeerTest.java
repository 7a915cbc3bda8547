package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.a2a.A2A;
import io.a2a.client.Client;
import io.a2a.client.ClientEvent;
import io.a2a.client.MessageEvent;
import io.a2a.client.TaskEvent;
import io.a2a.client.TaskUpdateEvent;
import io.a2a.client.http.A2ACardResolver;
import io.a2a.spec.AgentCard;
import io.a2a.spec.Artifact;
import io.a2a.spec.Part;
import io.a2a.spec.TaskArtifactUpdateEvent;
import io.a2a.spec.TaskState;
import io.a2a.spec.TextPart;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * a2a-java 0.3.2's own {@link Client} and {@code JSONRPCTransport}, configured with
 * {@link A2aCoreHttpClient}, against the real Python a2a-sdk 1.3.0 server in its 0.3
 * compatibility mode (no {@code A2A-Version} header: the server answers {@code message/send}
 * and {@code message/stream} in 0.3 shapes, SSE with CRLF and {@code : ping} comments).
 * Agent words: tests/peers/README.md.
 */
class PythonPeerTest {
    private static Peer peer;
    private static AgentCard card;

    @BeforeAll
    static void start() throws Exception {
        peer = Peer.python("--ping", "1");
        card = new A2ACardResolver(client(), peer.url).getAgentCard();
    }

    @AfterAll
    static void stop() throws Exception {
        if (peer != null) {
            peer.close();
        }
    }

    private static A2aCoreHttpClient client() {
        return A2aCoreHttpClient.builder().connectTimeout(Duration.ofSeconds(2)).callTimeout(Duration.ofSeconds(20))
            .streamIdleTimeout(Duration.ofMillis(1800)).build();
    }

    private static String text(List<Part<?>> parts) {
        StringBuilder sb = new StringBuilder();
        for (Part<?> p : parts) {
            if (p instanceof TextPart t) {
                sb.append(t.getText());
            }
        }
        return sb.toString();
    }

    @Test
    void cardResolvedThroughOurClient() {
        assertEquals(peer.url, card.url().replaceAll("/+$", ""), "card url");
        assertTrue(card.capabilities().streaming(), "peer card says streaming");
    }

    @Test
    void messageSendCompletes() throws Exception {
        List<ClientEvent> events = new ArrayList<>();
        Client c = Recorder.client(client(), card, false);
        c.sendMessage(A2A.toUserMessage("echo hello from java"), List.of((e, ac) -> events.add(e)), null, null);
        assertEquals(1, events.size(), "events: " + events);
        TaskEvent te = assertInstanceOf(TaskEvent.class, events.get(0));
        assertEquals(TaskState.COMPLETED, te.getTask().getStatus().state(), peer.stderr());
        List<Artifact> artifacts = te.getTask().getArtifacts();
        assertEquals(1, artifacts.size());
        assertEquals("echo", artifacts.get(0).name());
        assertEquals("hello from java", text(artifacts.get(0).parts()));
    }

    @Test
    void messageSendDirectMessage() throws Exception {
        List<ClientEvent> events = new ArrayList<>();
        Recorder.client(client(), card, false).sendMessage(A2A.toUserMessage("message hi there"),
            List.of((e, ac) -> events.add(e)), null, null);
        MessageEvent me = assertInstanceOf(MessageEvent.class, events.get(0));
        assertEquals("hi there", text(me.getMessage().getParts()));
    }

    @Test
    void messageStreamCompletes() throws Exception {
        Recorder r = new Recorder().send(Recorder.client(client(), card, true), "stream 3");
        assertTrue(r.awaitEnd(20_000), "stream never ended; peer stderr:\n" + peer.stderr());
        assertNull(r.endError(), "stream error: " + r.endError());
        assertTrue(r.sawState(TaskState.WORKING), "events: " + r.events);
        assertTrue(r.sawState(TaskState.COMPLETED), "events: " + r.events);
        List<String> chunks = new ArrayList<>();
        synchronized (r.events) {
            for (ClientEvent e : r.events) {
                if (e instanceof TaskUpdateEvent u && u.getUpdateEvent() instanceof TaskArtifactUpdateEvent a) {
                    chunks.add(text(a.getArtifact().parts()));
                }
            }
        }
        assertEquals(List.of("chunk 0", "chunk 1", "chunk 2"), chunks);
        assertEquals(1, r.signals.size(), "terminal signals: " + r.signals);
    }

    @Test
    void keepAliveCommentsKeepASlowStreamAlive() throws Exception {
        // Ticks 2.5 s apart, idle timeout 1.8 s: only the peer's `: ping` comments (every
        // 1 s, --ping 1) keep the stream alive; they count as activity.
        Recorder r = new Recorder().send(Recorder.client(client(), card, true), "ticks 2 2.5");
        assertTrue(r.awaitEnd(20_000), "stream never ended; peer stderr:\n" + peer.stderr());
        assertNull(r.endError(), "stream error: " + r.endError());
        assertTrue(r.sawState(TaskState.COMPLETED), "events: " + r.events);
    }

    @Test
    void failedTaskStreamsItsFinalState() throws Exception {
        Recorder r = new Recorder().send(Recorder.client(client(), card, true), "fail");
        assertTrue(r.awaitEnd(20_000), "stream never ended");
        assertNull(r.endError(), "stream error: " + r.endError());
        assertTrue(r.sawState(TaskState.FAILED), "events: " + r.events);
    }

    @Test
    void inputRequiredEndsTheTurnCleanly() throws Exception {
        Recorder r = new Recorder().send(Recorder.client(client(), card, true), "input");
        assertTrue(r.awaitEnd(20_000), "stream never ended");
        assertNull(r.endError(), "stream error: " + r.endError());
        assertTrue(r.sawState(TaskState.INPUT_REQUIRED), "events: " + r.events);
    }
}
