package dev.a2acore;

import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The machines' call deadlines on one daemon thread ({@code a2a-core-machine-deadlines}),
 * on the host clock of {@link MachineCall#nowMs}: the thread sleeps until the earliest
 * deadline and is woken only by an earlier one. A cancel removes its entry without waking
 * the thread (it wakes at the removed time, finds nothing due and sleeps until the next):
 * each call arms a deadline far ahead (its budget) and cancels it when it finishes, so with
 * a {@code ScheduledThreadPoolExecutor} a call that found the queue empty woke the thread
 * every time. Thread-safe.
 */
final class Deadlines {
    /** One armed deadline; {@link #cancel} it when it is no longer wanted. */
    static final class Entry implements Comparable<Entry> {
        final long atMs;
        final long seq;
        final Consumer<Entry> task;

        Entry(long atMs, long seq, Consumer<Entry> task) {
            this.atMs = atMs;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public int compareTo(Entry o) {
            return atMs != o.atMs ? Long.compare(atMs, o.atMs) : Long.compare(seq, o.seq);
        }
    }

    /** The shared instance (its thread starts on the first deadline). */
    static final Deadlines SHARED = new Deadlines();

    private final TreeSet<Entry> armed = new TreeSet<>();
    private long seq;
    /** The deadline the thread waits for (Long.MAX_VALUE: none, or no thread yet). */
    private long sleepingUntil = Long.MAX_VALUE;
    private boolean started;

    private Deadlines() {}

    /**
     * Runs {@code task} (given its entry) on the deadline thread once {@code nowMs()} reaches
     * {@code atMs}.
     */
    synchronized Entry schedule(Consumer<Entry> task, long atMs) {
        Entry e = new Entry(atMs, seq++, task);
        armed.add(e);
        if (!started) {
            started = true;
            Thread th = new Thread(this::loop, "a2a-core-machine-deadlines");
            th.setDaemon(true);
            th.start();
        } else if (atMs < sleepingUntil) {
            notifyAll();
        }
        return e;
    }

    /** Disarms {@code e} (nothing if it ran or was cancelled); never wakes the thread. */
    synchronized void cancel(Entry e) {
        armed.remove(e);
    }

    private void loop() {
        while (true) {
            Entry due;
            synchronized (this) {
                long now = MachineCall.nowMs();
                Entry head = armed.isEmpty() ? null : armed.first();
                if (head == null || head.atMs > now) {
                    sleepingUntil = head == null ? Long.MAX_VALUE : head.atMs;
                    try {
                        if (head == null) {
                            wait();
                        } else {
                            wait(head.atMs - now);
                        }
                    } catch (InterruptedException ignored) {
                        // a daemon thread nobody interrupts: look again
                    }
                    continue;
                }
                armed.pollFirst();
                sleepingUntil = 0; // running: a new deadline needs no wake-up
                due = head;
            }
            try {
                due.task.accept(due);
            } catch (RuntimeException | Error t) {
                // A deadline's task reports its own failures; the thread keeps serving the others.
                Thread.UncaughtExceptionHandler h = Thread.getDefaultUncaughtExceptionHandler();
                if (h != null) {
                    h.uncaughtException(Thread.currentThread(), t);
                }
            }
        }
    }
}
