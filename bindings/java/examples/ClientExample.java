import dev.a2acore.*;
import java.time.Duration;

/** The README's A2aClient example (compiled by scripts/ci/55-java.sh; run it with an agent URL). */
public class ClientExample {
    public static void main(String[] args) {
        String url = args.length > 0 ? args[0] : "https://agent.example";
        try (A2aClient agent = A2aClient.builder(url)                         // base or card URL
                .callTimeout(Duration.ofSeconds(30)).streamIdleTimeout(Duration.ofSeconds(60))
                .headerHook((method, h) -> h.set("Authorization", "Bearer " + System.getenv("AGENT_TOKEN")))
                .build()) {                                                   // CardResolutionException if refused
            Outcome o = agent.send("echo hi");                                // o.state(), o.errorId(), o.modelText("agent")
            System.out.println(o.modelText("agent").orElse("ok: " + o.state()));
            try (ClientStream s = agent.stream("stream 3")) {
                s.forEachRemaining(System.out::println);                      // Item..., [Resubscribing], End(endKind, outcome)
            }
            for (java.util.Map<String, Object> task : agent.allTasks(java.util.Map.of("pageSize", 50), CallOptions.none())) {
                System.out.println(task.get("id"));                           // page after page; TaskListException if one fails
            }
            String taskId = o.taskId().orElse("t-1");
            A2aClient.PushConfigResult pushed = agent.createPushConfig(
                PushConfig.of(taskId, "https://hooks.example/a2a").withToken("s3cret"), CallOptions.none());
            System.out.println(pushed.config().map(PushConfig::id).orElse("refused: " + pushed.outcome()));
        }
    }
}
