package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.a2acore.PushPolicy;
import dev.a2acore.PushVerdict;
import dev.a2acore.PushVerifier;
import dev.a2acore.Trust;
import dev.a2acore.WebhookRefusedException;
import io.a2a.client.http.JdkA2AHttpClient;
import io.a2a.server.tasks.BasePushNotificationSender;
import io.a2a.server.tasks.InMemoryPushNotificationConfigStore;
import io.a2a.spec.PushNotificationConfig;
import io.a2a.spec.Task;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatus;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * a2a-java's own push notification sender ({@code BasePushNotificationSender} of
 * a2a-java-sdk-server-common, which sends the config's token as
 * {@code X-A2A-Notification-Token} and the task as the body) against a2a-core's
 * {@link PushVerifier} on a loopback receiver: its notification is accepted, the same one
 * again is a replay, a config with another token and a task the receiver did not register
 * for are rejected. a2a-java ships no JWT push signing and no card signer or verifier (up to
 * 1.2.0.Final), so token notifications are the interop there is.
 */
class PushInteropTest {
    private HttpServer receiver;
    private PushVerifier verifier;
    private final List<PushVerdict> verdicts = Collections.synchronizedList(new ArrayList<>());
    private String hook;

    @BeforeEach
    void start() throws Exception {
        verifier = new PushVerifier(PushPolicy.builder().token("cfg-token-1").taskId("task-7").build());
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/hook", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            PushVerdict v = verifier.check(ex.getRequestHeaders(), body, Instant.now());
            verdicts.add(v);
            ex.sendResponseHeaders(v.accepted() ? 200 : 401, -1);
            ex.close();
        });
        receiver.start();
        hook = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
        verifier.close();
    }

    private static Task task(String taskId, TaskState state) {
        return new Task.Builder().id(taskId).contextId("ctx-1").status(new TaskStatus(state)).build();
    }

    private void push(Task task, String token) {
        InMemoryPushNotificationConfigStore store = new InMemoryPushNotificationConfigStore();
        store.setInfo(task.getId(), new PushNotificationConfig.Builder().url(hook).token(token).id("cfg-1").build());
        BasePushNotificationSender sender = new BasePushNotificationSender(store, new JdkA2AHttpClient());
        sender.sendNotification(task);
    }

    @Test
    void a2aJavaSendersNotificationIsVerified() {
        Task working = task("task-7", TaskState.WORKING);
        push(working, "cfg-token-1");
        assertEquals(1, verdicts.size());
        assertTrue(verdicts.get(0).accepted(), verdicts.get(0).json());
        assertEquals(Optional.of("task-7"), verdicts.get(0).field("taskId"));

        push(working, "cfg-token-1");
        assertEquals(Optional.of("replayed"), verdicts.get(1).reason(), "the same notification again");

        push(task("task-7", TaskState.COMPLETED), "cfg-token-1");
        assertTrue(verdicts.get(2).accepted(), "a new status (state, timestamp) is a new notification: " + verdicts.get(2));

        push(task("task-7", TaskState.FAILED), "another-token");
        assertEquals(Optional.of("token_mismatch"), verdicts.get(3).reason());
        assertFalse(verdicts.get(3).json().contains("cfg-token-1"), "the verdict never shows the token");

        push(task("task-8", TaskState.WORKING), "cfg-token-1");
        assertEquals(Optional.of("task_mismatch"), verdicts.get(4).reason());
        assertEquals(5, verdicts.size());
    }

    @Test
    void loopbackWebhookThatA2aJavaWouldCallIsRefused() {
        // a2a-java's sender posts to any URL the config names; a2a-core's sender-side check refuses this one.
        WebhookRefusedException e = assertThrows(WebhookRefusedException.class, () -> Trust.checkWebhookUrl(hook, true));
        assertEquals("internal", e.reason());
    }
}
