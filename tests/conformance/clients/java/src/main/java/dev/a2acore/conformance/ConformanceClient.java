package dev.a2acore.conformance;

import io.a2a.A2A;
import io.a2a.client.Client;
import io.a2a.client.ClientEvent;
import io.a2a.client.MessageEvent;
import io.a2a.client.TaskEvent;
import io.a2a.client.TaskUpdateEvent;
import io.a2a.client.config.ClientConfig;
import io.a2a.client.http.A2ACardResolver;
import io.a2a.client.http.A2AHttpClient;
import io.a2a.client.http.JdkA2AHttpClient;
import io.a2a.client.transport.jsonrpc.JSONRPCTransport;
import io.a2a.client.transport.jsonrpc.JSONRPCTransportConfig;
import io.a2a.spec.AgentCard;
import io.a2a.spec.Message;
import io.a2a.spec.Part;
import io.a2a.spec.Task;
import io.a2a.spec.TaskArtifactUpdateEvent;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatus;
import io.a2a.spec.TaskStatusUpdateEvent;
import io.a2a.spec.TextPart;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * a2a-java 0.3.2.Final's {@link Client} with its {@link JSONRPCTransport}, as an application
 * uses it, for {@code a2a-testkit conformance}:
 * {@code ConformanceClient jdk|a2a-core send|stream URL TEXT}. The HTTP client is the stock
 * {@link JdkA2AHttpClient} ({@code jdk}) or the project's drop-in
 * {@code dev.a2acore.a2ajava.A2aCoreHttpClient} ({@code a2a-core}, loaded by name, with its
 * builder's defaults). The card is resolved with the SDK's resolver, given the card's full
 * path (see below); no timeout, retry or
 * resubscribe option is added. Prints the task's state, status text and artifact text, or
 * the error; exit status 0 for a completed task or a message reply, 1 for an error, 3 for a
 * task that ended in another state.
 */
public final class ConformanceClient {
    private ConformanceClient() {}

    private static String text(List<Part<?>> parts) {
        StringBuilder sb = new StringBuilder();
        if (parts != null) {
            for (Part<?> p : parts) {
                if (p instanceof TextPart t) {
                    sb.append(t.getText());
                }
            }
        }
        return sb.toString();
    }

    private static A2AHttpClient http(String which) throws Exception {
        return switch (which) {
            case "jdk" -> new JdkA2AHttpClient();
            case "a2a-core" -> {
                Object builder = Class.forName("dev.a2acore.a2ajava.A2aCoreHttpClient").getMethod("builder").invoke(null);
                yield (A2AHttpClient) builder.getClass().getMethod("build").invoke(builder);
            }
            default -> throw new IllegalArgumentException("jdk or a2a-core, not " + which);
        };
    }

    private static final StringBuilder artifacts = new StringBuilder();
    private static volatile TaskState state;
    private static volatile String status = "";

    private static void status(TaskStatus s) {
        state = s.state();
        if (s.message() != null) {
            status = text(s.message().getParts());
        }
    }

    private static void onEvent(ClientEvent e) {
        if (e instanceof MessageEvent m) {
            System.out.println("message: " + text(m.getMessage().getParts()));
            System.out.flush();
            System.exit(0);
        } else if (e instanceof TaskEvent t) {
            Task task = t.getTask();
            status(task.getStatus());
            if (task.getArtifacts() != null) {
                task.getArtifacts().forEach(a -> artifacts.append(text(a.parts())));
            }
        } else if (e instanceof TaskUpdateEvent u) {
            if (u.getUpdateEvent() instanceof TaskStatusUpdateEvent s) {
                status(s.getStatus());
            } else if (u.getUpdateEvent() instanceof TaskArtifactUpdateEvent a) {
                artifacts.append(text(a.getArtifact().parts()));
            }
        }
    }

    public static void main(String[] args) {
        if (args.length != 4 || !(args[1].equals("send") || args[1].equals("stream"))) {
            System.err.println("usage: ConformanceClient jdk|a2a-core send|stream URL TEXT");
            System.exit(2);
        }
        try {
            A2AHttpClient http = http(args[0]);
            // a2a-java 0.3.2 resolves the card path against the base URL as an absolute path,
            // dropping the base's own path (docs/sdks.md §1.9); the card's path is given in
            // full (the three-argument constructor) so that the cases under a path can run.
            java.net.URI base = java.net.URI.create(args[2]);
            String cardPath = base.getPath().replaceAll("/+$", "") + "/.well-known/agent-card.json";
            AgentCard card = new A2ACardResolver(http, args[2], cardPath).getAgentCard();
            Client c = Client.builder(card)
                .withTransport(JSONRPCTransport.class, new JSONRPCTransportConfig(http))
                .clientConfig(new ClientConfig.Builder().setStreaming(args[1].equals("stream")).build())
                .build();
            Message msg = A2A.toUserMessage(args[3]);
            CompletableFuture<Throwable> end = new CompletableFuture<>();
            c.sendMessage(msg, List.of((e, agentCard) -> onEvent(e)), end::complete, null);
            if (args[1].equals("stream") || end.isDone()) {
                Throwable err = end.get();
                if (err != null && !(state != null && state.isFinal())) {
                    throw err instanceof Exception ex ? ex : new RuntimeException(err);
                }
            }
            System.out.println("state: " + state);
            if (!status.isEmpty()) {
                System.out.println("status: " + status);
            }
            if (artifacts.length() > 0) {
                System.out.println("text: " + artifacts);
            }
            System.out.flush();
            System.exit(state == TaskState.COMPLETED ? 0 : 3);
        } catch (Throwable t) {
            // The drop-in is made by reflection: report what its builder threw, not the wrapper.
            while (t instanceof java.lang.reflect.InvocationTargetException ite && ite.getCause() != null) {
                t = ite.getCause();
            }
            System.out.println("error: " + t.getClass().getName() + ": " + t.getMessage());
            System.out.flush();
            System.exit(1);
        }
    }
}
