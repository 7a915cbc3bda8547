package dev.a2acore.bench;

import dev.a2acore.A2aClient;
import dev.a2acore.ClientStream;
import dev.a2acore.ClientStreamEvent;
import dev.a2acore.Outcome;
import dev.a2acore.ProtocolVersion;
import dev.a2acore.StreamEndKind;
import dev.a2acore.StreamItem;
import dev.a2acore.StreamItemKind;
import dev.a2acore.TaskState;
import java.util.ArrayList;
import java.util.List;

/**
 * The Java binding (bindings/java/a2a-core, {@link A2aClient}: the driver over the C ABI
 * through JNA) in the client-overhead harness: the card resolved once, then {@code send}
 * and {@code stream} as an application calls them (protocol 0.3), every answer asserted.
 * Only the binding's documented API is used.
 */
public final class BindingClient {
    private static void send(A2aClient c) {
        Outcome o = c.send("ping");
        Bench.check(o.state().orElse(null) == TaskState.COMPLETED, o.toString());
        String text = o.result().flatMap(a -> a.text()).orElse(null);
        Bench.check("ping".equals(text), "answer text " + text);
    }

    private static void stream(A2aClient c, int n) {
        int items = 0;
        String last = null;
        ClientStreamEvent.End end = null;
        try (ClientStream s = c.stream("stream " + n)) {
            while (s.hasNext()) {
                ClientStreamEvent ev = s.next();
                if (ev instanceof ClientStreamEvent.Item it) {
                    items++;
                    if (it.item().kind() == StreamItemKind.ARTIFACT_UPDATE) {
                        last = it.item().artifactId().orElse(null);
                    }
                } else if (ev instanceof ClientStreamEvent.End e) {
                    end = e;
                } else {
                    Bench.check(false, "resubscribed: " + ev);
                }
            }
        }
        Bench.check(end != null && end.outcome().state().orElse(null) == TaskState.COMPLETED, String.valueOf(end));
        Bench.check(!end.lostContent(), "content lost");
        Bench.check(items == n, items + " items, wanted " + n);
        Bench.check(("chunk-" + (n - 4)).equals(last), "last artifact " + last);
    }

    public static void main(String[] args) throws Exception {
        Bench b = new Bench();
        try (A2aClient c = A2aClient.builder(b.url).allowHttp(true).protocol(ProtocolVersion.V0_3).build()) {
            b.measure(n -> send(c), n -> stream(c, n));
            if (b.idle > 0) {
                b.rssBefore = Bench.rssKiB();
                List<ClientStream> open = new ArrayList<>();
                for (int i = 0; i < b.idle; i++) {
                    ClientStream st = c.stream("hold");
                    ClientStreamEvent first = st.next();
                    Bench.check(first instanceof ClientStreamEvent.Item it
                        && it.item().kind() == StreamItemKind.TASK, String.valueOf(first));
                    open.add(st);
                }
                b.rssAfter = Bench.rssKiB();
                open.forEach(ClientStream::close);
            }
        }
        b.print("java-binding");
    }
}
