package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ListTasks through the client machine: one page ({@link A2aClient#listTasksAsync},
 * {@link A2aClient#listTasks}) and every page, lazily ({@link A2aClient#taskPages},
 * {@link A2aClient#allTasks}), on both bindings, asynchronously and blocking on both transports,
 * against {@link A2aServer} (the project's server side) on 127.0.0.1; a 0.3 agent has no
 * ListTasks, so the iterators end with the refused call's outcome.
 */
class ListTasksTest {
    private static HttpServer http;
    private static A2aServer server;
    private static String url;

    @BeforeAll
    static void start() throws IOException {
        server = A2aServer.builder(ctx -> {
            ctx.status("working", null);
            ctx.artifact("out", ctx.text(), false, true);
        }).card("lister", "tasks to list", "1.0.0").skill("s", "S", "a skill", "demo").build();
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", server);
        http.setExecutor(Executors.newCachedThreadPool());
        http.start();
        url = "http://127.0.0.1:" + http.getAddress().getPort();
    }

    @AfterAll
    static void stop() {
        http.stop(0);
        server.close();
    }

    /** ListTasks requests the agent answered so far. */
    private static long listCalls() {
        return server.tally().entries().stream().filter(e -> e.method().equals("ListTasks"))
            .mapToLong(Tally.Entry::count).sum();
    }

    static Stream<Arguments> targets() {
        List<Arguments> out = new ArrayList<>();
        for (Binding b : Binding.values()) {
            for (String path : List.of("native", "httpclient")) {
                out.add(Arguments.of(b, path));
            }
        }
        return out.stream();
    }

    private static A2aClient client(ProtocolVersion v, Binding b, String path) {
        A2aClient.Builder builder = A2aClient.builder(url).protocol(v).binding(b).allowHttp(true)
            .connectTimeout(Duration.ofSeconds(2)).callTimeout(Duration.ofSeconds(20));
        if (path.equals("httpclient")) {
            builder.httpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build());
        }
        return builder.build();
    }

    private static List<Object> ids(List<Map<String, Object>> tasks) {
        return tasks.stream().map(t -> t.get("id")).toList();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("targets")
    void pagesChainOnNextPageTokenLazily(Binding b, String path) throws Exception {
        String context = "ctx-" + b + "-" + path + "-" + System.nanoTime();
        try (A2aClient c = client(ProtocolVersion.V1_0, b, path)) {
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Outcome o = c.send("task " + i, CallOptions.none().withContextId(context));
                assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
                sent.add(o.taskId().orElseThrow());
            }
            List<String> newestFirst = new ArrayList<>(sent);
            java.util.Collections.reverse(newestFirst);
            Map<String, Object> params = Map.of("contextId", context, "pageSize", 2);

            // One page: blocking and asynchronous read the same.
            TaskPage first = c.listTasks(params, CallOptions.none());
            assertTrue(first.outcome().isSuccess(), first.outcome().toString());
            assertEquals(newestFirst.subList(0, 2), ids(first.tasks()));
            assertTrue(first.nextPageToken().isPresent(), first.toString());
            TaskPage async = c.listTasksAsync(params, CallOptions.none()).get(30, TimeUnit.SECONDS);
            assertEquals(ids(first.tasks()), ids(async.tasks()));
            assertEquals(first.nextPageToken(), async.nextPageToken());

            // Every page, fetched one call at a time as the iterator is read.
            long before = listCalls();
            Iterator<TaskPage> it = c.taskPages(params, CallOptions.none()).iterator();
            assertEquals(before, listCalls(), "no page is fetched before it is asked for");
            List<TaskPage> pages = new ArrayList<>();
            while (it.hasNext()) {
                pages.add(it.next());
                assertEquals(before + pages.size(), listCalls());
            }
            assertEquals(3, pages.size(), pages.toString());
            assertTrue(pages.get(0).nextPageToken().isPresent() && pages.get(1).nextPageToken().isPresent());
            assertFalse(pages.get(2).nextPageToken().isPresent(), pages.get(2).toString());
            assertEquals(newestFirst, pages.stream().flatMap(p -> ids(p.tasks()).stream()).toList());

            List<Object> all = new ArrayList<>();
            c.allTasks(params, CallOptions.none()).forEach(t -> all.add(t.get("id")));
            assertEquals(newestFirst, all);
            // Starting from a page token starts from that page.
            Map<String, Object> fromSecond = Map.of("contextId", context, "pageSize", 2,
                "pageToken", first.nextPageToken().orElseThrow());
            List<Object> rest = new ArrayList<>();
            c.allTasks(fromSecond, CallOptions.none()).forEach(t -> rest.add(t.get("id")));
            assertEquals(newestFirst.subList(2, 5), rest);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("targets")
    void a0_3AgentHasNoListTasks(Binding b, String path) {
        try (A2aClient c = client(ProtocolVersion.V0_3, b, path)) {
            long before = listCalls();
            List<TaskPage> pages = new ArrayList<>();
            c.taskPages(Map.of(), CallOptions.none()).forEach(pages::add);
            assertEquals(1, pages.size(), pages.toString());
            Outcome o = pages.get(0).outcome();
            assertFalse(o.isSuccess(), o.toString());
            assertEquals(Channel.TRANSPORT, o.channel(), o.toString());
            assertEquals(List.of(), pages.get(0).tasks());
            Iterator<Map<String, Object>> all = c.allTasks(Map.of(), CallOptions.none()).iterator();
            TaskListException e = assertThrows(TaskListException.class, all::hasNext);
            assertEquals(Channel.TRANSPORT, e.outcome().channel(), e.outcome().toString());
            assertEquals(before, listCalls(), "nothing reached the agent");
        }
    }
}
