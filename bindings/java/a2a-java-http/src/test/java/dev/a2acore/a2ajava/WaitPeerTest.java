package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.a2acore.A2aClient;
import dev.a2acore.Answer;
import dev.a2acore.Binding;
import dev.a2acore.CallOptions;
import dev.a2acore.Channel;
import dev.a2acore.ErrorName;
import dev.a2acore.Outcome;
import dev.a2acore.ProtocolVersion;
import dev.a2acore.RetryAdvice;
import dev.a2acore.TaskState;
import dev.a2acore.WaitOptions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link A2aClient#waitAsync} and {@link A2aClient#waitFor} (the library's wait planner, each
 * poll a machine call) against the real Python a2a-sdk peer: a send with return-immediately
 * leaves the peer's {@code slow} task running; the wait polls it to completion in every
 * version and binding; a short timeout gives up with the typed outcome; cancel() aborts.
 */
class WaitPeerTest {
    private static Peer python;
    private static final Set<TaskState> RUNNING = Set.of(TaskState.SUBMITTED, TaskState.WORKING);
    private static final WaitOptions FAST = WaitOptions.defaults().withPollInterval(Duration.ofMillis(200))
        .withMaxInterval(Duration.ofMillis(500)).withTimeout(Duration.ofSeconds(20));

    @BeforeAll
    static void start() throws Exception {
        python = Peer.python("--cancel-wait", "20");
    }

    @AfterAll
    static void stop() throws Exception {
        if (python != null) {
            python.close();
        }
    }

    static Stream<Arguments> interfaces() {
        return Stream.of(
            Arguments.of(ProtocolVersion.V1_0, Binding.JSON_RPC),
            Arguments.of(ProtocolVersion.V0_3, Binding.JSON_RPC),
            Arguments.of(ProtocolVersion.V1_0, Binding.HTTP_JSON),
            Arguments.of(ProtocolVersion.V0_3, Binding.HTTP_JSON));
    }

    private static A2aClient client(ProtocolVersion v, Binding b) {
        String url = python.url + (b == Binding.JSON_RPC ? "/" : "/rest");
        return A2aClient.builder(url).knownTarget(v, b).allowHttp(true).connectTimeout(Duration.ofSeconds(2))
            .callTimeout(Duration.ofSeconds(20)).build();
    }

    /** Sends {@code text} with return-immediately; the task it names is still running. */
    private static String sendRunning(A2aClient c, String text) throws Exception {
        long started = System.nanoTime();
        Outcome o = c.sendAsync(text, CallOptions.none().withReturnImmediately(true)).get(20, TimeUnit.SECONDS);
        assertTrue(RUNNING.contains(o.state().orElseThrow()), o + "\n" + python.stderr());
        assertTrue(System.nanoTime() - started < 1_000_000_000L, "the send did not wait for the task: " + o);
        return o.taskId().orElseThrow();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("interfaces")
    void aSlowTaskIsPolledToCompletion(ProtocolVersion v, Binding b) throws Exception {
        try (A2aClient c = client(v, b)) {
            long started = System.nanoTime();
            String id = sendRunning(c, "slow 1.2");
            Outcome o = c.waitAsync(id, FAST).get(30, TimeUnit.SECONDS);
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
            assertEquals(id, o.taskId().orElseThrow());
            assertEquals("slept 1.2 s", o.result().flatMap(Answer::text).orElseThrow(), o.toString());
            assertTrue(System.nanoTime() - started >= 1_200_000_000L);
        }
    }

    @Test
    void aShortTimeoutGivesUpWithATypedOutcome() throws Exception {
        try (A2aClient c = client(ProtocolVersion.V1_0, Binding.JSON_RPC)) {
            String id = sendRunning(c, "slow 5");
            long started = System.nanoTime();
            Outcome o = c.waitFor(id, FAST.withPollInterval(Duration.ofMillis(100))
                .withMaxInterval(Duration.ofMillis(200)).withTimeout(Duration.ofMillis(800)));
            long tookMs = (System.nanoTime() - started) / 1_000_000L;
            assertEquals(Channel.TRANSPORT, o.channel(), o.toString());
            assertEquals(ErrorName.TIMEOUT, o.errorName().orElseThrow(), o.toString());
            assertEquals(id, o.taskId().orElseThrow());
            assertTrue(RUNNING.contains(o.state().orElseThrow()), o.toString());
            assertEquals(RetryAdvice.POLL, o.retry());
            assertEquals(3, o.exitCode());
            assertTrue(o.message().orElseThrow().contains("still"), o.toString());
            assertTrue(tookMs >= 500 && tookMs < 3000, "gave up after " + tookMs + " ms");
        }
    }

    @Test
    void inputRequiredAndUnknownTasksEndTheWait() throws Exception {
        try (A2aClient c = client(ProtocolVersion.V1_0, Binding.JSON_RPC)) {
            String id = sendRunning(c, "input");
            Outcome o = c.waitAsync(id, FAST).get(30, TimeUnit.SECONDS);
            assertEquals(TaskState.INPUT_REQUIRED, o.state().orElseThrow(), o.toString());
            Outcome unknown = c.waitAsync("no-such-task", FAST).get(30, TimeUnit.SECONDS);
            assertEquals(ErrorName.TASK_NOT_FOUND, unknown.errorName().orElseThrow(), unknown.toString());
            assertThrows(IllegalArgumentException.class,
                () -> FAST.withPollInterval(Duration.ofSeconds(2)).withMaxInterval(Duration.ofSeconds(1)));
        }
    }

    @Test
    void cancelEndsTheWaitAtOnce() throws Exception {
        try (A2aClient c = client(ProtocolVersion.V1_0, Binding.JSON_RPC)) {
            String id = sendRunning(c, "slow 5");
            CompletableFuture<Outcome> f = c.waitAsync(id, FAST.withPollInterval(Duration.ofMillis(100)));
            Thread.sleep(300);
            assertFalse(f.isDone());
            long started = System.nanoTime();
            assertTrue(f.cancel(true));
            assertThrows(CancellationException.class, () -> f.get(5, TimeUnit.SECONDS));
            assertTrue(System.nanoTime() - started < 1_000_000_000L);
            // the client still works
            Outcome o = c.sendAsync("echo after").get(20, TimeUnit.SECONDS);
            assertEquals(TaskState.COMPLETED, o.state().orElseThrow(), o.toString());
        }
    }
}
