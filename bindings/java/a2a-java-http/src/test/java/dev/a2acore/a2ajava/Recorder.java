package dev.a2acore.a2ajava;

import io.a2a.A2A;
import io.a2a.client.Client;
import io.a2a.client.ClientEvent;
import io.a2a.client.TaskEvent;
import io.a2a.client.TaskUpdateEvent;
import io.a2a.client.config.ClientConfig;
import io.a2a.client.http.A2AHttpClient;
import io.a2a.client.transport.jsonrpc.JSONRPCTransport;
import io.a2a.client.transport.jsonrpc.JSONRPCTransportConfig;
import io.a2a.spec.AgentCapabilities;
import io.a2a.spec.AgentCard;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatusUpdateEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Drives a2a-java's own {@link Client} with {@link JSONRPCTransport} over a given
 * {@link A2AHttpClient} and records what the application sees: client events, and the
 * first call of the error handler (a2a-java 0.3 signals a clean end as {@code null}).
 */
final class Recorder {
    final List<ClientEvent> events = Collections.synchronizedList(new ArrayList<>());
    /** Completes at the first error-handler call: null = clean end, else the error. */
    final CompletableFuture<Throwable> end = new CompletableFuture<>();
    final List<Throwable> signals = Collections.synchronizedList(new ArrayList<>());

    /** A client for a 0.3 JSON-RPC agent at {@code url} (card built here, streaming as asked). */
    static Client client(A2AHttpClient http, String url, boolean streaming) throws Exception {
        AgentCard card = new AgentCard.Builder().name("agent").description("test agent").url(url).version("1.0.0")
            .capabilities(new AgentCapabilities.Builder().streaming(true).build())
            .defaultInputModes(List.of("text")).defaultOutputModes(List.of("text")).skills(List.of())
            .preferredTransport("JSONRPC").protocolVersion("0.3.0").build();
        return client(http, card, streaming);
    }

    /** A client for the given card. */
    static Client client(A2AHttpClient http, AgentCard card, boolean streaming) throws Exception {
        return Client.builder(card)
            .withTransport(JSONRPCTransport.class, new JSONRPCTransportConfig(http))
            .clientConfig(new ClientConfig.Builder().setStreaming(streaming).build())
            .build();
    }

    /** Sends {@code text}; events and the end signal land in this recorder. */
    Recorder send(Client client, String text) throws Exception {
        client.sendMessage(A2A.toUserMessage(text), List.of((e, card) -> events.add(e)), t -> {
            signals.add(t);
            end.complete(t);
        }, null);
        return this;
    }

    /** Waits at most {@code ms} for the end signal; true when it came. */
    boolean awaitEnd(long ms) throws InterruptedException {
        try {
            end.get(ms, TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError(e);
        }
    }

    /** The end signal's error (null for a clean end); only after {@link #awaitEnd} was true. */
    Throwable endError() {
        return end.getNow(null);
    }

    /** Whether any recorded event carries the terminal state {@code state}. */
    boolean sawState(TaskState state) {
        synchronized (events) {
            for (ClientEvent e : events) {
                if (e instanceof TaskUpdateEvent u && u.getUpdateEvent() instanceof TaskStatusUpdateEvent s
                    && s.getStatus().state() == state) {
                    return true;
                }
                if (e instanceof TaskEvent t && t.getTask().getStatus().state() == state) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Polls {@code cond} every 10 ms for at most {@code ms}. */
    static boolean eventually(long ms, java.util.function.BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() < deadline) {
            if (cond.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return cond.getAsBoolean();
    }
}
