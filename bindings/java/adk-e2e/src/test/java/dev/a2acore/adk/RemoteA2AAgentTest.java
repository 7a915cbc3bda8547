package dev.a2acore.adk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.adk.a2a.A2AClient;
import com.google.adk.a2a.RemoteA2AAgent;
import dev.a2acore.a2ajava.A2aCoreHttpClient;
import io.a2a.client.http.A2ACardResolver;
import io.a2a.client.http.A2AHttpClient;
import io.a2a.client.http.JdkA2AHttpClient;
import io.a2a.spec.AgentCard;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The drop-in inside ADK for Java: google-adk-a2a 0.5.0's {@link RemoteA2AAgent} (given ADK's
 * {@link A2AClient} built on the HTTP client), run as the root agent by ADK's
 * {@code InMemoryRunner} (no model), with the stock {@link JdkA2AHttpClient} beside the
 * project's {@link A2aCoreHttpClient}, against the fault server and the Python SDK peer. Each
 * case asserts what ADK's events and error path show, through {@link GuardedRemoteAgent}
 * (which turns each into the parent model's line). ADK 0.5.0's own limits (README):
 * it posts a JSON-RPC body to the card URL plus {@code /v1/message:send}, reads only Message
 * results (a Task becomes an empty event), never streams and never sets {@code errorMessage()}.
 */
class RemoteA2AAgentTest {
    private static Server faults;
    private static Server python;
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() throws Exception {
        faults = Server.faults();
        python = Server.python();
    }

    @AfterAll
    static void stop() throws Exception {
        if (faults != null) {
            faults.close();
        }
        if (python != null) {
            python.close();
        }
    }

    private static A2AHttpClient stock() {
        return new JdkA2AHttpClient();
    }

    private static A2AHttpClient dropIn() {
        return A2aCoreHttpClient.builder().callTimeout(Duration.ofSeconds(2)).build();
    }

    private static GuardedRemoteAgent agent(A2AHttpClient http, String base) throws Exception {
        String path = URI.create(base).getPath().replaceAll("/+$", "") + "/.well-known/agent-card.json";
        AgentCard card = new A2ACardResolver(http, base, path).getAgentCard();
        RemoteA2AAgent remote = RemoteA2AAgent.builder().name("remote").description("the remote agent")
            .agentCardOrSource(card).a2aClient(new A2AClient(card, http, Map.of())).build();
        return new GuardedRemoteAgent(remote, "remote");
    }

    private static JsonNode counters(String scenario) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(faults.url + "/_counters/" + scenario)).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    /** Prints what each client showed through ADK (the README's table is made from these lines). */
    private static void show(String what, GuardedRemoteAgent.Reply stock, GuardedRemoteAgent.Reply drop) {
        System.out.println("ADK-OBSERVED " + what + " | stock: " + line(stock) + " | drop-in: " + line(drop));
    }

    private static String line(GuardedRemoteAgent.Reply r) {
        return r.modelText() + r.error().map(e -> " [ADK threw " + e.getClass().getName() + ": " + e.getMessage() + "]")
            .orElse(" [" + r.events().size() + " event(s)]");
    }

    /** A completed task: ADK 0.5.0 reads only Message results, so both show an event without text. */
    @Test
    void aCompletedTaskIsAnEmptyEventInAdk() throws Exception {
        GuardedRemoteAgent.Reply[] rs = new GuardedRemoteAgent.Reply[2];
        int i = 0;
        for (A2AHttpClient http : new A2AHttpClient[] {stock(), dropIn()}) {
            GuardedRemoteAgent.Reply r = agent(http, faults.url + "/ok").ask("hello");
            rs[i++] = r;
            assertTrue(r.error().isEmpty(), http.getClass().getSimpleName() + ": " + r);
            assertTrue(r.modelText().startsWith("REMOTE_MALFORMED remote:"), r.modelText());
        }
        show("completed task", rs[0], rs[1]);
    }

    /** A FAILED task: ADK 0.5.0 never sets errorMessage(); both clients give the same empty event. */
    @Test
    void aFailedTaskNeverReachesErrorMessage() throws Exception {
        GuardedRemoteAgent.Reply[] rs = new GuardedRemoteAgent.Reply[2];
        int i = 0;
        for (A2AHttpClient http : new A2AHttpClient[] {stock(), dropIn()}) {
            GuardedRemoteAgent.Reply r = agent(http, faults.url + "/ok").ask("fail now");
            rs[i++] = r;
            assertTrue(r.error().isEmpty(), r.toString());
            assertTrue(r.events().stream().allMatch(e -> e.errorMessage().isEmpty()), r.toString());
            assertTrue(r.modelText().startsWith("REMOTE_MALFORMED remote:"), r.modelText());
        }
        show("FAILED task", rs[0], rs[1]);
    }

    /** A JSON-RPC error in HTTP 200: the drop-in's classified failure reaches ADK's error path. */
    @Test
    void aJsonRpcErrorInHttp200() throws Exception {
        GuardedRemoteAgent.Reply stock = agent(stock(), faults.url + "/rpc-error").ask("hello");
        GuardedRemoteAgent.Reply drop = agent(dropIn(), faults.url + "/rpc-error").ask("hello");
        assertTrue(drop.error().isPresent(), drop.toString());
        assertTrue(drop.modelText().startsWith("REMOTE_UNKNOWN remote: Internal (code -32603)"), drop.modelText());
        // The stock client hands the error body to ADK, which reads no Message from it.
        assertFalse(stock.modelText().contains("-32603"), stock.modelText());
        show("rpc-error", stock, drop);
    }

    /** A 502 on a send: ADK's error path with both; sent once by each (no blind resend). */
    @Test
    void a502OnASendIsSentOnce() throws Exception {
        GuardedRemoteAgent.Reply[] rs = new GuardedRemoteAgent.Reply[2];
        int i = 0;
        for (A2AHttpClient http : new A2AHttpClient[] {stock(), dropIn()}) {
            int before = counters("status-502").path("sends").asInt();
            GuardedRemoteAgent.Reply r = agent(http, faults.url + "/status-502").ask("book seat 12A");
            rs[i++] = r;
            assertTrue(r.error().isPresent(), r.toString());
            assertEquals(before + 1, counters("status-502").path("sends").asInt(), "sent once");
            if (http instanceof A2aCoreHttpClient) {
                assertTrue(r.modelText().startsWith("REMOTE_UNKNOWN remote: HTTP 502"), r.modelText());
            }
        }
        show("502 on a send", rs[0], rs[1]);
    }

    /** A hung call: the drop-in ends it at its call timeout; the stock client is still waiting. */
    @Test
    void aHungCallEndsAtTheConfiguredTimeout() throws Exception {
        long t0 = System.nanoTime();
        GuardedRemoteAgent.Reply drop = agent(dropIn(), faults.url + "/hang").ask("hello");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(drop.error().isPresent(), drop.toString());
        assertTrue(drop.modelText().startsWith("REMOTE_UNKNOWN remote:"), drop.modelText());
        assertTrue(ms < 15_000, "ended at the 2 s call timeout (card fetch included), took " + ms + " ms");
        GuardedRemoteAgent stockAgent = agent(stock(), faults.url + "/hang");
        CompletableFuture<GuardedRemoteAgent.Reply> stock = CompletableFuture.supplyAsync(() -> stockAgent.ask("hello"),
            r -> {
                Thread t = new Thread(r, "stock-hung-call");
                t.setDaemon(true);
                t.start();
            });
        Thread.sleep(5_000);
        assertFalse(stock.isDone(), "JdkA2AHttpClient has no call timeout: still waiting after 5 s");
        System.out.println("ADK-OBSERVED hung call | stock: still waiting after 5 s | drop-in: " + line(drop)
            + " after " + ms + " ms");
    }

    /** A message reply (the Python SDK peer's `message` word) is the one result ADK 0.5.0 reads. */
    @Test
    void aMessageReplyFromThePythonPeer() throws Exception {
        GuardedRemoteAgent.Reply[] rs = new GuardedRemoteAgent.Reply[2];
        int i = 0;
        for (A2AHttpClient http : new A2AHttpClient[] {stock(), dropIn()}) {
            GuardedRemoteAgent.Reply r = agent(http, python.url).ask("message hi there");
            rs[i++] = r;
            // ADK posts a JSON-RPC body to <card url>/v1/message:send; the SDK serves JSON-RPC
            // at the card URL only, so the request never reaches a handler.
            assertTrue(r.error().isPresent(), http.getClass().getSimpleName() + ": " + r);
        }
        show("Python SDK peer, message reply", rs[0], rs[1]);
    }
}
