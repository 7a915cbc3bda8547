package dev.a2acore.bench;

import dev.a2acore.A2aClient;
import dev.a2acore.ClientStreamEvent;
import dev.a2acore.Outcome;
import dev.a2acore.ProtocolVersion;
import dev.a2acore.StreamEndKind;
import dev.a2acore.StreamItem;
import dev.a2acore.StreamItemKind;
import dev.a2acore.TaskState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * The Java binding's asynchronous calls (bindings/java/a2a-core, {@link A2aClient#sendAsync}
 * and {@link A2aClient#streamAsync}: the library's client machine over java.net.http) in the
 * client-overhead harness: the card resolved once, then each send a {@code CompletableFuture}
 * awaited before the next, and the stream a {@code Flow.Publisher} read by a subscriber
 * (protocol 0.3), every answer asserted. Only the binding's documented API is used.
 */
public final class AsyncClient {
    private static void send(A2aClient c) throws Exception {
        Outcome o = c.sendAsync("ping").get(60, TimeUnit.SECONDS);
        Bench.check(o.state().orElse(null) == TaskState.COMPLETED, o.toString());
        String text = o.result().flatMap(a -> a.text()).orElse(null);
        Bench.check("ping".equals(text), "answer text " + text);
    }

    /** Reads a whole stream: every event requested one at a time, as a reactive reader does. */
    private static final class Reader implements Flow.Subscriber<ClientStreamEvent> {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final CompletableFuture<ClientStreamEvent> first = new CompletableFuture<>();
        final boolean hold;
        Flow.Subscription sub;
        int items;
        String last;
        ClientStreamEvent.End end;
        String unexpected;

        Reader(boolean hold) {
            this.hold = hold;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            sub = s;
            s.request(1);
        }

        @Override
        public void onNext(ClientStreamEvent ev) {
            first.complete(ev);
            if (ev instanceof ClientStreamEvent.Item it) {
                items++;
                if (it.item().kind() == StreamItemKind.ARTIFACT_UPDATE) {
                    last = it.item().artifactId().orElse(null);
                }
            } else if (ev instanceof ClientStreamEvent.End e) {
                end = e;
            } else {
                unexpected = String.valueOf(ev);
            }
            if (!hold) {
                sub.request(1);
            }
        }

        @Override
        public void onError(Throwable t) {
            first.completeExceptionally(t);
            done.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            done.complete(null);
        }
    }

    private static void stream(A2aClient c, int n) throws Exception {
        Reader r = new Reader(false);
        c.streamAsync("stream " + n).subscribe(r);
        r.done.get(600, TimeUnit.SECONDS);
        Bench.check(r.unexpected == null, "resubscribed: " + r.unexpected);
        Bench.check(r.end != null && r.end.outcome().state().orElse(null) == TaskState.COMPLETED, String.valueOf(r.end));
        Bench.check(!r.end.lostContent(), "content lost");
        Bench.check(r.items == n, r.items + " items, wanted " + n);
        Bench.check(("chunk-" + (n - 4)).equals(r.last), "last artifact " + r.last);
    }

    public static void main(String[] args) throws Exception {
        Bench b = new Bench();
        try (A2aClient c = A2aClient.builder(b.url).allowHttp(true).protocol(ProtocolVersion.V0_3).build()) {
            b.measure(n -> send(c), n -> stream(c, n));
            if (b.idle > 0) {
                b.rssBefore = Bench.rssKiB();
                List<Reader> open = new ArrayList<>();
                for (int i = 0; i < b.idle; i++) {
                    Reader r = new Reader(true);
                    c.streamAsync("hold").subscribe(r);
                    ClientStreamEvent first = r.first.get(60, TimeUnit.SECONDS);
                    Bench.check(first instanceof ClientStreamEvent.Item it
                        && it.item().kind() == StreamItemKind.TASK, String.valueOf(first));
                    open.add(r);
                }
                b.rssAfter = Bench.rssKiB();
                open.forEach(r -> r.sub.cancel());
            }
        }
        b.print("java-async");
    }
}
