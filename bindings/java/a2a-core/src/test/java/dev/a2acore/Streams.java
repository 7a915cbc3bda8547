package dev.a2acore;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/** Test helpers for the async client's streams. */
final class Streams {
    private Streams() {}

    /** The outcome of a stream's end event (null when the stream completes without one), within 20 s. */
    static Outcome end(Flow.Publisher<ClientStreamEvent> p) throws Exception {
        CompletableFuture<Outcome> done = new CompletableFuture<>();
        p.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ClientStreamEvent e) {
                if (e instanceof ClientStreamEvent.End end) {
                    done.complete(end.outcome());
                }
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
        return done.get(20, TimeUnit.SECONDS);
    }
}
