package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.a2acore.A2aClient;
import dev.a2acore.Answer;
import dev.a2acore.Binding;
import dev.a2acore.CallOptions;
import dev.a2acore.Channel;
import dev.a2acore.ClientStreamEvent;
import dev.a2acore.Outcome;
import dev.a2acore.ProtocolVersion;
import dev.a2acore.StreamEndKind;
import dev.a2acore.StreamItem;
import dev.a2acore.StreamItemKind;
import dev.a2acore.ErrorName;
import dev.a2acore.PushConfig;
import dev.a2acore.TaskPage;
import dev.a2acore.TaskState;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The asynchronous client (the library's client machine on java.net.http) against the real
 * Python a2a-sdk and JS {@code @a2a-js/sdk} peers, in every protocol version and binding they
 * serve (JSON-RPC at {@code /}, HTTP+JSON at {@code /rest}; 1.0 and 0.3): send, get, a FAILED
 * task, a stream's typed items (status updates, artifact updates with their parts) and its
 * End, list tasks (every page, chained on nextPageToken), push configs refused by an agent
 * without push notifications; and the card resolved over the caller's own HttpClient.
 */
class AsyncPeerTest {
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

    static Stream<Arguments> interfaces() {
        return Stream.of("python", "js").flatMap(p -> Stream.of(
            Arguments.of(p, ProtocolVersion.V1_0, Binding.JSON_RPC),
            Arguments.of(p, ProtocolVersion.V0_3, Binding.JSON_RPC),
            Arguments.of(p, ProtocolVersion.V1_0, Binding.HTTP_JSON),
            Arguments.of(p, ProtocolVersion.V0_3, Binding.HTTP_JSON)));
    }

    private static Peer peer(String kind) {
        return kind.equals("python") ? python : js;
    }

    private static A2aClient client(String kind, ProtocolVersion v, Binding b) {
        String url = peer(kind).url + (b == Binding.JSON_RPC ? "/" : "/rest");
        return A2aClient.builder(url).knownTarget(v, b).allowHttp(true).connectTimeout(Duration.ofSeconds(2))
            .callTimeout(Duration.ofSeconds(20)).streamIdleTimeout(Duration.ofSeconds(10)).build();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("interfaces")
    void sendGetAndFailAsync(String kind, ProtocolVersion v, Binding b) throws Exception {
        try (A2aClient c = client(kind, v, b)) {
            Outcome o = c.sendAsync("echo hello async").get(30, TimeUnit.SECONDS);
            assertEquals(Channel.TASK, o.channel(), o + "\n" + peer(kind).stderr());
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
            assertEquals("hello async", o.result().flatMap(Answer::text).orElseThrow(), o.toString());
            String taskId = o.taskId().orElseThrow();
            Outcome got = c.getAsync(taskId).get(30, TimeUnit.SECONDS);
            assertEquals(TaskState.COMPLETED, got.state().orElseThrow(), got.toString());
            assertEquals(taskId, got.taskId().orElseThrow());
            Outcome failed = c.sendAsync("fail").get(30, TimeUnit.SECONDS);
            assertEquals(TaskState.FAILED, failed.state().orElseThrow(), failed.toString());
            assertTrue(failed.errorId().orElseThrow().matches("[0-9a-f]{12}"), failed.toString());
            assertTrue(failed.modelText("peer").orElseThrow().startsWith("REMOTE_"), failed.toString());
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("interfaces")
    void streamItemsAreTyped(String kind, ProtocolVersion v, Binding b) throws Exception {
        try (A2aClient c = client(kind, v, b)) {
            List<ClientStreamEvent> events = Collect.all(c.streamAsync("stream 3"), 30);
            List<Answer.ArtifactUpdate> chunks = events.stream().filter(e -> e instanceof ClientStreamEvent.Item)
                .map(e -> ((ClientStreamEvent.Item) e).answer().orElseThrow())
                .flatMap(a -> a.artifactUpdate().stream()).toList();
            assertEquals(List.of("chunk-0", "chunk-1", "chunk-2"),
                chunks.stream().map(u -> u.artifact().artifactId()).toList(), events.toString());
            for (Answer.ArtifactUpdate u : chunks) {
                assertFalse(u.artifact().parts().isEmpty(), u.toString());
                assertEquals(Answer.PartKind.TEXT, u.artifact().parts().get(0).kind(), u.toString());
                assertFalse(u.taskId().isEmpty(), u.toString());
            }
            assertTrue(events.stream().filter(e -> e instanceof ClientStreamEvent.Item)
                .map(e -> ((ClientStreamEvent.Item) e).answer().orElseThrow())
                .anyMatch(a -> a.statusUpdate().isPresent()), "a typed status update: " + events);
            ClientStreamEvent.End end = assertInstanceOf(ClientStreamEvent.End.class, events.get(events.size() - 1));
            assertEquals(StreamEndKind.COMPLETED, end.endKind().orElseThrow(), end.toString());
            assertEquals(TaskState.COMPLETED, end.outcome().state().orElseThrow(), end.toString());
            assertEquals(1, events.stream().filter(e -> e instanceof ClientStreamEvent.End).count());
        }
    }

    /** The blocking driver's stream items carry the same typed answers. */
    @Test
    void blockingDriverStreamItemsAreTypedToo() {
        try (A2aClient c = A2aClient.builder(python.url).allowHttp(true).build();
             var s = c.stream("stream 2")) {
            List<String> ids = s.stream().filter(e -> e instanceof ClientStreamEvent.Item)
                .map(e -> ((ClientStreamEvent.Item) e).answer().orElseThrow())
                .flatMap(a -> a.artifactUpdate().stream()).map(u -> u.artifact().artifactId()).toList();
            assertEquals(List.of("chunk-0", "chunk-1"), ids);
        }
    }

    /** The caller's HttpClient resolves the card and carries every call, blocking ones too. */
    @Test
    void callersHttpClientCarriesCardAndBlockingCalls() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(2)).build();
        try (A2aClient c = A2aClient.builder(python.url).httpClient(http).allowHttp(true).build()) {
            Outcome o = c.send("echo on my client");
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
            assertEquals("on my client", o.result().flatMap(Answer::text).orElseThrow());
            ClientStreamEvent.End end;
            try (var s = c.stream("stream 2")) {
                end = s.drain();
            }
            assertEquals(TaskState.COMPLETED, end.outcome().state().orElseThrow(), end.toString());
            TaskPage page = c.listTasksAsync(Map.of("pageSize", 50), CallOptions.none()).get(30, TimeUnit.SECONDS);
            assertTrue(page.outcome().isSuccess() || page.outcome().channel() == Channel.TASK, page.toString());
            assertTrue(page.tasks().stream().anyMatch(t -> o.taskId().orElseThrow().equals(t.get("id"))),
                "the task just made is listed: " + page);
        }
    }

    /**
     * The builder's protocol and binding insist on that interface of the card for the async
     * calls (the machine) as for the blocking ones (the driver): both speak it.
     */
    @Test
    void protocolAndBindingPickTheCardsInterfaceOnBothPaths() throws Exception {
        for (ProtocolVersion v : List.of(ProtocolVersion.V0_3, ProtocolVersion.V1_0)) {
            try (A2aClient c = A2aClient.builder(python.url).allowHttp(true).protocol(v)
                    .binding(Binding.HTTP_JSON).build()) {
                Outcome async = c.sendAsync("echo async").get(30, TimeUnit.SECONDS);
                assertEquals("async", async.result().flatMap(Answer::text).orElseThrow(), async.toString());
                assertEquals(v, async.version().orElseThrow(), async.toString());
                Outcome blocking = c.send("echo blocking");
                assertEquals(v, blocking.version().orElseThrow(), blocking.toString());
            }
        }
    }
    static Stream<Arguments> v1Interfaces() {
        return interfaces().filter(a -> a.get()[1] == ProtocolVersion.V1_0);
    }

    /** Every page of ListTasks on a real peer: pages of two, chained on nextPageToken, the last without one. */
    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("v1Interfaces")
    void listTasksPagesAcrossAPeer(String kind, ProtocolVersion v, Binding b) throws Exception {
        String context = "ctx-" + kind + "-" + b + "-" + System.nanoTime();
        try (A2aClient c = client(kind, v, b)) {
            java.util.Set<Object> sent = new java.util.HashSet<>();
            for (int i = 0; i < 5; i++) {
                Outcome o = c.sendAsync(List.of(Answer.Part.text("echo " + i)), Map.of(),
                    CallOptions.none().withContextId(context)).get(30, TimeUnit.SECONDS);
                assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o + "\n" + peer(kind).stderr());
                sent.add(o.taskId().orElseThrow());
            }
            Map<String, Object> params = Map.of("contextId", context, "pageSize", 2);
            List<TaskPage> pages = new java.util.ArrayList<>();
            c.taskPages(params, CallOptions.none()).forEach(pages::add);
            assertTrue(pages.stream().allMatch(p -> p.outcome().isSuccess()), pages + "\n" + peer(kind).stderr());
            assertEquals(3, pages.size(), pages.toString());
            assertTrue(pages.get(0).nextPageToken().isPresent() && pages.get(1).nextPageToken().isPresent(),
                pages.toString());
            assertFalse(pages.get(2).nextPageToken().isPresent(), pages.toString());
            List<Object> all = new java.util.ArrayList<>();
            c.allTasks(params, CallOptions.none()).forEach(t -> all.add(t.get("id")));
            assertEquals(5, all.size(), all.toString());
            assertEquals(sent, new java.util.HashSet<>(all));
            assertEquals(List.of(all.get(0), all.get(1)), pages.get(0).tasks().stream().map(t -> t.get("id")).toList());
        }
    }

    /** A peer without push notifications answers every push-config call with PushNotificationNotSupported. */
    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("interfaces")
    void pushConfigsOnAPeerWithoutPush(String kind, ProtocolVersion v, Binding b) throws Exception {
        try (A2aClient c = client(kind, v, b)) {
            String task = c.sendAsync("echo push").get(30, TimeUnit.SECONDS).taskId().orElseThrow();
            A2aClient.PushConfigResult created = c.createPushConfigAsync(PushConfig.of(task, "https://hooks.example/x")
                .withToken("t"), CallOptions.none()).get(30, TimeUnit.SECONDS);
            assertEquals(Channel.PROTOCOL, created.outcome().channel(), created.outcome() + "\n" + peer(kind).stderr());
            // The JS SDK's 0.3 HTTP+JSON server reads the create body as a bare
            // TaskPushNotificationConfig and refuses the 0.3 proto's request ({parent, configId,
            // config}, what the core writes and the Python SDK reads) with InvalidParams first.
            if (!(kind.equals("js") && v == ProtocolVersion.V0_3 && b == Binding.HTTP_JSON)) {
                assertEquals(ErrorName.PUSH_NOTIFICATION_NOT_SUPPORTED, created.outcome().errorName().orElse(null),
                    created.outcome().toString());
            }
            assertTrue(created.config().isEmpty(), created.toString());
            A2aClient.PushConfigList listed = c.listPushConfigs(task, CallOptions.none());
            assertEquals(ErrorName.PUSH_NOTIFICATION_NOT_SUPPORTED, listed.outcome().errorName().orElse(null),
                listed.outcome().toString());
            assertEquals(List.of(), listed.configs());
        }
    }
}
