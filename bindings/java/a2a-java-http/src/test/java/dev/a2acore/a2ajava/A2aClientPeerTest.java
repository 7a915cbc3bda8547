package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.a2acore.A2aClient;
import dev.a2acore.CallOptions;
import dev.a2acore.Channel;
import dev.a2acore.ClientStream;
import dev.a2acore.ClientStreamEvent;
import dev.a2acore.Outcome;
import dev.a2acore.StreamEndKind;
import dev.a2acore.StreamItem;
import dev.a2acore.StreamItemKind;
import dev.a2acore.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The project's driver through the Java binding ({@link A2aClient}) against the real Python
 * a2a-sdk 1.3.0 and JS {@code @a2a-js/sdk} 1.3.0 servers: card resolution, then the agent
 * words of tests/peers/README.md ({@code echo}, {@code fail}, {@code stream 3}, {@code input},
 * {@code cancel-me}), get and cancel. Each test runs on both peers.
 */
class A2aClientPeerTest {
    private static Peer python;
    private static Peer js;

    @BeforeAll
    static void start() throws Exception {
        python = Peer.python("--ping", "1", "--cancel-wait", "20");
        js = Peer.js("--cancel-wait", "20");
    }

    @AfterAll
    static void stop() throws Exception {
        if (python != null) {
            python.close();
        }
        if (js != null) {
            js.close();
        }
    }

    private static String url(String kind) {
        return kind.equals("python") ? python.url : js.url;
    }

    private static String stderr(String kind) {
        return kind.equals("python") ? python.stderr() : js.stderr();
    }

    private static A2aClient client(String kind) {
        return A2aClient.builder(url(kind)).allowHttp(true).connectTimeout(Duration.ofSeconds(2))
            .callTimeout(Duration.ofSeconds(20)).streamIdleTimeout(Duration.ofSeconds(10)).build();
    }

    private static List<ClientStreamEvent> drain(ClientStream s) {
        List<ClientStreamEvent> events = new ArrayList<>();
        s.forEachRemaining(events::add);
        return events;
    }

    @ParameterizedTest
    @ValueSource(strings = {"python", "js"})
    void sendEchoCompletesAndGetReadsTheTask(String kind) {
        try (A2aClient c = client(kind)) {
            Outcome o = c.send("echo hello from java");
            assertEquals(Channel.TASK, o.channel(), o + "\n" + stderr(kind));
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
            assertTrue(o.isSuccess(), o.toString());
            assertTrue(o.isTerminal(), o.toString());
            String taskId = o.taskId().orElseThrow();
            Outcome got = c.get(taskId);
            assertEquals(Channel.TASK, got.channel(), got.toString());
            assertEquals(TaskState.COMPLETED, got.state().orElseThrow(), got.toString());
            assertEquals(taskId, got.taskId().orElseThrow());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"python", "js"})
    void failGivesFailedWithErrorId(String kind) {
        try (A2aClient c = client(kind)) {
            Outcome o = c.send("fail");
            assertEquals(Channel.TASK, o.channel(), o.toString());
            assertEquals(TaskState.FAILED, o.state().orElseThrow(), o.toString());
            assertFalse(o.isSuccess());
            String id = o.errorId().orElseThrow(() -> new AssertionError("no error_id in " + o));
            assertTrue(id.matches("[0-9a-f]{12}"), id);
            assertTrue(stderr(kind).contains("error_id=" + id), "the peer logged error_id=" + id);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"python", "js"})
    void streamOfThreeChunksCompletes(String kind) {
        try (A2aClient c = client(kind); ClientStream s = c.stream("stream 3")) {
            List<ClientStreamEvent> events = drain(s);
            List<String> artifacts = events.stream().filter(e -> e instanceof ClientStreamEvent.Item)
                .map(e -> ((ClientStreamEvent.Item) e).item())
                .filter(i -> i.kind() == StreamItemKind.ARTIFACT_UPDATE)
                .map(i -> i.artifactId().orElseThrow()).collect(Collectors.toList());
            assertEquals(List.of("chunk-0", "chunk-1", "chunk-2"), artifacts, events.toString());
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
            assertEquals(StreamEndKind.COMPLETED, end.endKind().orElseThrow(), end.toString());
            assertEquals(TaskState.COMPLETED, end.outcome().state().orElseThrow(), end.toString());
            assertEquals(0, end.resubscribes());
            assertEquals(1, events.stream().filter(e -> e instanceof ClientStreamEvent.End).count());
            assertFalse(s.hasNext(), "nothing after End");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"python", "js"})
    void inputRequiredIsInterruptedAndTheAnswerCompletesIt(String kind) {
        try (A2aClient c = client(kind)) {
            ClientStreamEvent.End end;
            try (ClientStream s = c.stream("input")) {
                end = s.drain();
            }
            assertEquals(StreamEndKind.INTERRUPTED, end.endKind().orElseThrow(), end.toString());
            assertEquals(TaskState.INPUT_REQUIRED, end.outcome().state().orElseThrow(), end.toString());
            String taskId = end.outcome().taskId().orElseThrow();
            CallOptions cont = CallOptions.none().withTaskId(taskId)
                .withContextId(end.outcome().contextId().orElseThrow());
            Outcome answered = c.send("forty-two", cont);
            assertEquals(TaskState.COMPLETED, answered.state().orElseThrow(), answered.toString());
            assertEquals(taskId, answered.taskId().orElseThrow());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"python", "js"})
    void cancelWhileStreaming(String kind) {
        try (A2aClient c = client(kind); ClientStream s = c.stream("cancel-me")) {
            String taskId = null;
            while (taskId == null && s.hasNext()) {
                ClientStreamEvent e = s.next();
                assertInstanceOf(ClientStreamEvent.Item.class, e, "an item before the cancel: " + e);
                taskId = ((ClientStreamEvent.Item) e).item().outcome().taskId().orElse(null);
            }
            assertTrue(taskId != null, "a task id from the stream");
            Outcome canceled = c.cancel(taskId);
            assertEquals(TaskState.CANCELED, canceled.state().orElseThrow(), canceled + "\n" + stderr(kind));
            ClientStreamEvent.End end = s.drain();
            assertEquals(TaskState.CANCELED, end.outcome().state().orElseThrow(), end.toString());
            assertEquals(TaskState.CANCELED, c.get(taskId).state().orElseThrow());
        }
    }
}
