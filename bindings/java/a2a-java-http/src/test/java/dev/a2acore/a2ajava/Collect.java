package dev.a2acore.a2ajava;

import dev.a2acore.ClientStreamEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/** Subscribes to a stream publisher and collects its events (one at a time, bounded wait). */
final class Collect implements Flow.Subscriber<ClientStreamEvent> {
    final List<ClientStreamEvent> events = java.util.Collections.synchronizedList(new ArrayList<>());
    final CompletableFuture<List<ClientStreamEvent>> done = new CompletableFuture<>();
    volatile Flow.Subscription subscription;

    /** Every event to {@code onComplete}, within {@code seconds}. */
    static List<ClientStreamEvent> all(Flow.Publisher<ClientStreamEvent> p, int seconds) throws Exception {
        Collect c = new Collect();
        p.subscribe(c);
        return c.done.get(seconds, TimeUnit.SECONDS);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(1);
    }

    @Override
    public void onNext(ClientStreamEvent item) {
        events.add(item);
        subscription.request(1);
    }

    @Override
    public void onError(Throwable t) {
        done.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
        done.complete(List.copyOf(events));
    }
}
