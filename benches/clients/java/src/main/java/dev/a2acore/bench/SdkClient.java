package dev.a2acore.bench;

import dev.a2acore.a2ajava.A2aCoreHttpClient;
import io.a2a.A2A;
import io.a2a.client.Client;
import io.a2a.client.ClientEvent;
import io.a2a.client.TaskEvent;
import io.a2a.client.TaskUpdateEvent;
import io.a2a.client.config.ClientConfig;
import io.a2a.client.http.A2ACardResolver;
import io.a2a.client.http.A2AHttpClient;
import io.a2a.client.http.JdkA2AHttpClient;
import io.a2a.client.transport.jsonrpc.JSONRPCTransport;
import io.a2a.client.transport.jsonrpc.JSONRPCTransportConfig;
import io.a2a.spec.AgentCard;
import io.a2a.spec.Part;
import io.a2a.spec.TaskArtifactUpdateEvent;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatusUpdateEvent;
import io.a2a.spec.TextPart;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * a2a-java 0.3.2.Final's own {@link Client} with its {@link JSONRPCTransport} (protocol
 * 0.3) in the client-overhead harness, over an {@link A2AHttpClient} chosen by the first
 * argument: {@code jdk} (the stock {@link JdkA2AHttpClient}) or {@code a2a-core} (the
 * project's drop-in {@link A2aCoreHttpClient}, bindings/java/a2a-java-http). The card is
 * resolved once with the SDK's resolver over that HTTP client; sends go through a client
 * built with streaming off (blocking), the stream through one with streaming on (events
 * arrive on the SDK's threads; the end is the error handler's {@code null}). Every answer
 * is asserted.
 */
public final class SdkClient {
    private static String text(List<Part<?>> parts) {
        StringBuilder sb = new StringBuilder();
        for (Part<?> p : parts) {
            if (p instanceof TextPart t) {
                sb.append(t.getText());
            }
        }
        return sb.toString();
    }

    private static Client client(A2AHttpClient http, AgentCard card, boolean streaming) throws Exception {
        return Client.builder(card)
            .withTransport(JSONRPCTransport.class, new JSONRPCTransportConfig(http))
            .clientConfig(new ClientConfig.Builder().setStreaming(streaming).build())
            .build();
    }

    private static void send(Client c) throws Exception {
        List<ClientEvent> events = new ArrayList<>(1);
        c.sendMessage(A2A.toUserMessage("ping"), List.of((e, card) -> events.add(e)), t -> {
            if (t != null) {
                throw new AssertionError(t);
            }
        }, null);
        Bench.check(events.size() == 1 && events.get(0) instanceof TaskEvent, String.valueOf(events));
        var task = ((TaskEvent) events.get(0)).getTask();
        Bench.check(task.getStatus().state() == TaskState.COMPLETED
            && "ping".equals(text(task.getArtifacts().get(0).parts())), String.valueOf(task));
    }

    private static void stream(Client c, int n) throws Exception {
        AtomicInteger events = new AtomicInteger();
        AtomicReference<TaskState> state = new AtomicReference<>();
        AtomicReference<String> last = new AtomicReference<>("");
        CompletableFuture<Throwable> end = new CompletableFuture<>();
        c.sendMessage(A2A.toUserMessage("stream " + n), List.of((e, card) -> {
            events.incrementAndGet();
            if (e instanceof TaskEvent t) {
                state.set(t.getTask().getStatus().state());
            } else if (e instanceof TaskUpdateEvent u) {
                if (u.getUpdateEvent() instanceof TaskStatusUpdateEvent s) {
                    state.set(s.getStatus().state());
                } else if (u.getUpdateEvent() instanceof TaskArtifactUpdateEvent a) {
                    last.set(text(a.getArtifact().parts()));
                }
            }
        }), end::complete, null);
        Throwable err = end.get(600, TimeUnit.SECONDS);
        if (err instanceof NullPointerException && String.valueOf(err.getMessage()).contains("\"future\" is null")
            && events.get() == n && state.get() == TaskState.COMPLETED) {
            // a2a-java 0.3.2's own race, with the stock client and the drop-in alike:
            // JSONRPCTransport stores postAsyncSSE's future only after the call returns, and its
            // SSE listener cancels the stored future after the final event; a final event that
            // comes first makes that a NullPointerException, reported as the stream's error
            // after every event arrived. Counted (stderr), not taken for a wrong answer.
            System.err.println("a2a-java race: final event before its future was stored (" + n + " events, all received)");
            err = null;
        }
        if (chunkedCut(err) && events.get() == n && state.get() == TaskState.COMPLETED) {
            // The same listener's cancel, when it lands while the JDK client reads the next
            // chunk-size line (the body's last chunk and its end still unread): the JDK closes
            // the exchange and reports the cut to a2a-java's error handler as "chunked transfer
            // encoding, state: READING_LENGTH", after every event arrived (it failed CI's smoke
            // run once on 2026-12-05). Counted (stderr), not taken for a wrong answer; a cut
            // before the last event still fails the checks below.
            System.err.println("a2a-java race: cancel after the final event cut the chunked body (" + n + " events, all received)");
            err = null;
        }
        Bench.check(err == null, "stream error " + err + " after " + events.get() + " of " + n
            + " events, state " + state.get());
        Bench.check(events.get() == n, events.get() + " events, wanted " + n);
        Bench.check(state.get() == TaskState.COMPLETED, "end state " + state.get());
        Bench.check(("chunk " + (n - 4)).equals(last.get()), "last artifact " + last.get());
    }

    /** Whether {@code t} (or a cause) is the JDK client's "chunked transfer encoding" cut. */
    private static boolean chunkedCut(Throwable t) {
        for (int depth = 0; t != null && depth < 8; t = t.getCause(), depth++) {
            if (t instanceof java.io.IOException
                && String.valueOf(t.getMessage()).startsWith("chunked transfer encoding")) {
                return true;
            }
        }
        return false;
    }

    /** The HTTP layer the first argument names: "jdk" (the stock client, the default) or "a2a-core" (the drop-in). */
    static A2AHttpClient httpClient(String[] args) {
        String mode = args.length > 0 ? args[0] : "jdk";
        return switch (mode) {
            case "jdk" -> new JdkA2AHttpClient();
            case "a2a-core" -> A2aCoreHttpClient.builder().build();
            default -> throw new IllegalArgumentException("mode jdk or a2a-core, not " + mode);
        };
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "jdk";
        A2AHttpClient http = httpClient(args);
        Bench b = new Bench();
        AgentCard card = new A2ACardResolver(http, b.url).getAgentCard();
        Client sender = client(http, card, false);
        Client streamer = client(http, card, true);
        b.measure(n -> send(sender), n -> stream(streamer, n));
        if (b.idle > 0) {
            b.rssBefore = Bench.rssKiB();
            // a2a-java hands no stream handle back: each stream counts the latch down at its
            // first event and stays open until the process exits.
            CountDownLatch first = new CountDownLatch(b.idle);
            for (int i = 0; i < b.idle; i++) {
                AtomicInteger seen = new AtomicInteger();
                streamer.sendMessage(A2A.toUserMessage("hold"), List.of((e, c) -> {
                    if (seen.getAndIncrement() == 0 && e instanceof TaskEvent) {
                        first.countDown();
                    }
                }), t -> { }, null);
            }
            Bench.check(first.await(120, TimeUnit.SECONDS), first.getCount() + " idle streams without a first event");
            b.rssAfter = Bench.rssKiB();
        }
        b.print(mode.equals("jdk") ? "java-sdk-jdk" : "java-sdk-a2a-core");
        System.exit(0);
    }
}
