package dev.a2acore;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * A cold {@link Flow.Publisher} of one streaming call: each {@code subscribe} starts its own
 * call; items are delivered in order as demanded, then exactly one
 * {@link ClientStreamEvent.End}, then {@code onComplete}. {@code Subscription.cancel()} ends
 * the exchange at once ({@code a2a_call_cancel}) and nothing more is signalled. A failure
 * before the call could start (card resolution, a header hook that threw) is {@code onError}.
 * While the subscriber holds back demand, the response body is not read further (the
 * stream's idle timeout still runs).
 */
final class StreamPublisher implements Flow.Publisher<ClientStreamEvent> {
    /** Starts the call: items go to the consumer, the future completes with the End. */
    private final BiFunction<Consumer<ClientStreamEvent>, Consumer<MachineCall<ClientStreamEvent.End>>,
        CompletableFuture<ClientStreamEvent.End>> start;

    StreamPublisher(BiFunction<Consumer<ClientStreamEvent>, Consumer<MachineCall<ClientStreamEvent.End>>,
        CompletableFuture<ClientStreamEvent.End>> start) {
        this.start = start;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ClientStreamEvent> subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        Sub s = new Sub(subscriber);
        subscriber.onSubscribe(s);
        CompletableFuture<ClientStreamEvent.End> f;
        try {
            f = start.apply(s.queue::add, mc -> s.call = mc);
        } catch (RuntimeException e) {
            s.fail(e);
            return;
        }
        s.future = f;
        if (s.cancelled) {
            f.cancel(true);
        }
        f.whenComplete((end, err) -> {
            if (err != null) {
                s.fail(err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                    ? err.getCause() : err);
            } else {
                s.queue.add(end);
                s.ended = true;
                s.drain();
            }
        });
    }

    private static final class Sub implements Flow.Subscription {
        private final Flow.Subscriber<? super ClientStreamEvent> subscriber;
        final Queue<ClientStreamEvent> queue = new ConcurrentLinkedQueue<>() {
            private static final long serialVersionUID = 1L;

            @Override
            public boolean add(ClientStreamEvent e) {
                boolean r = super.add(e);
                drain();
                return r;
            }
        };
        private final AtomicLong demand = new AtomicLong();
        private final AtomicInteger wip = new AtomicInteger();
        volatile MachineCall<ClientStreamEvent.End> call;
        volatile CompletableFuture<ClientStreamEvent.End> future;
        volatile boolean cancelled;
        volatile boolean ended;
        private volatile Throwable error;
        private boolean done;

        Sub(Flow.Subscriber<? super ClientStreamEvent> subscriber) {
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                fail(new IllegalArgumentException("request(" + n + "): demand must be positive (Flow rule 3.9)"));
                CompletableFuture<ClientStreamEvent.End> f = future;
                if (f != null) {
                    f.cancel(true);
                }
                return;
            }
            demand.getAndAccumulate(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
            drain();
        }

        @Override
        public void cancel() {
            cancelled = true;
            CompletableFuture<ClientStreamEvent.End> f = future;
            if (f != null) {
                f.cancel(true);
            }
        }

        void fail(Throwable t) {
            if (error == null) {
                error = t;
            }
            drain();
        }

        /** Delivers what is queued and demanded; one thread at a time (the wip counter). */
        void drain() {
            if (wip.getAndIncrement() != 0) {
                return;
            }
            int missed = 1;
            do {
                while (!done) {
                    if (cancelled) {
                        done = true;
                        queue.clear();
                        break;
                    }
                    if (error != null && queue.isEmpty()) {
                        done = true;
                        subscriber.onError(error);
                        break;
                    }
                    if (demand.get() == 0) {
                        break;
                    }
                    ClientStreamEvent e = queue.poll();
                    if (e == null) {
                        break;
                    }
                    demand.decrementAndGet();
                    MachineCall<ClientStreamEvent.End> c = call;
                    if (c != null && !(e instanceof ClientStreamEvent.End)) {
                        c.leave(); // the subscriber has the item: its time is not the server's
                    }
                    subscriber.onNext(e);
                    if (e instanceof ClientStreamEvent.End) {
                        done = true;
                        subscriber.onComplete();
                        break;
                    }
                    if (c != null) {
                        c.taken();
                    }
                }
                missed = wip.addAndGet(-missed);
            } while (missed != 0);
        }
    }
}
