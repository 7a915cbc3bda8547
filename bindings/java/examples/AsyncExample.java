import dev.a2acore.*;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * The README's asynchronous example (compiled by scripts/ci/55-java.sh; run it with an agent
 * URL): calls on the caller's own HttpClient, a future with a deadline, a stream's typed items.
 */
public class AsyncExample {
    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : "https://agent.example";
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3))
            .followRedirects(HttpClient.Redirect.NEVER).build();
        try (A2aClient agent = A2aClient.builder(url).httpClient(http).build()) {
            CompletableFuture<Outcome> f = agent.sendAsync("book seat 12A")
                .orTimeout(20, TimeUnit.SECONDS);             // or f.cancel(true): the exchange ends at once
            System.out.println(f.get().modelText("agent").orElse("ok"));
            CompletableFuture<Void> done = new CompletableFuture<>();
            agent.streamAsync("stream 3").subscribe(new Flow.Subscriber<>() {
                private Flow.Subscription s;

                @Override
                public void onSubscribe(Flow.Subscription s) {
                    this.s = s;
                    s.request(1);
                }

                @Override
                public void onNext(ClientStreamEvent e) {
                    if (e instanceof ClientStreamEvent.Item item) {   // typed: status or artifact update
                        item.answer().flatMap(Answer::artifactUpdate)
                            .ifPresent(u -> System.out.println(u.artifact().parts()));
                    } else if (e instanceof ClientStreamEvent.End end) {
                        System.out.println("end: " + end.outcome().state());
                    }
                    s.request(1);
                }

                @Override
                public void onError(Throwable t) {
                    done.completeExceptionally(t);
                }

                @Override
                public void onComplete() {
                    done.complete(null);
                }
            });
            done.get(60, TimeUnit.SECONDS);
        }
    }
}
