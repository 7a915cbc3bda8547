package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Machine;
import dev.a2acore.internal.SizeT;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One {@link A2aClient#waitAsync}: the library's wait planner ({@code a2a_task_wait}) says
 * which GetTask to make and when; each poll is a machine call like any other, and the next
 * one is scheduled on the machines' timer thread at the planner's time (no thread blocks
 * while waiting). {@code cancel} ends the poll in flight (or the scheduled one) at once.
 */
final class TaskWaiter extends CompletableFuture<Outcome> {
    private static final int STEP_POLL_AT = 1;
    private static final int STEP_GAVE_UP = 3;

    private final A2aCoreLibrary lib;
    private final MachineClient machine;
    private final CallOptions pollOptions;
    /** The native plan; freed once the wait is over. Guarded by {@code this}. */
    private Pointer plan;
    /** The poll in flight, or the scheduled next one. Guarded by {@code this}. */
    private Future<?> current;

    /** The poll in flight was answered 401 once and is made again with a fresh token. Guarded by {@code this}. */
    private boolean retried;

    /** A finished poll: its outcome, and the planner's step after it (0 when not read). */
    record Polled(Outcome outcome, int kind, long pollAt, Outcome gaveUp) {}

    private TaskWaiter(A2aCoreLibrary lib, MachineClient machine, CallOptions pollOptions, Pointer plan) {
        this.lib = lib;
        this.machine = machine;
        this.pollOptions = pollOptions;
        this.plan = plan;
        whenComplete((v, e) -> free());
    }

    /** Starts waiting for {@code taskId}: the first poll goes out now. */
    static TaskWaiter start(A2aCoreLibrary lib, MachineClient machine, String taskId, WaitOptions w) {
        byte[] id = taskId.getBytes(StandardCharsets.UTF_8);
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_task_wait_new", lib.a2a_task_wait_new(id, new SizeT(id.length),
            w.poll().historyLength().orElse(-1), A2aClient.millis(w.pollInterval()), A2aClient.millis(w.maxInterval()),
            A2aClient.millis(w.timeout()), MachineCall.nowMs(), out));
        TaskWaiter waiter = new TaskWaiter(lib, machine, w.poll(), out.getPointer(0));
        waiter.poll();
        return waiter;
    }

    private void poll() {
        if (isDone()) {
            return;
        }
        synchronized (this) {
            retried = false;
        }
        MachineClient.CallFuture<Polled> f = machine.call((st, settings, now, out) -> {
            synchronized (this) {
                return plan == null ? A2aCoreException.CLOSED : lib.a2a_task_wait_poll(plan, st, settings, now, out);
            }
        }, pollOptions, this::read, null, null);
        synchronized (this) {
            current = f;
        }
        if (isDone()) {
            f.cancel(true);
            return;
        }
        f.whenComplete((p, err) -> {
            if (err != null) {
                completeExceptionally(err instanceof CompletionException && err.getCause() != null ? err.getCause() : err);
            } else if (p.kind == STEP_POLL_AT) {
                schedule(p.pollAt);
            } else if (p.kind == STEP_GAVE_UP) {
                complete(p.gaveUp);
            } else {
                complete(p.outcome);
            }
        });
    }

    /** The poll's FINISHED event read into the plan (on the thread that finished the call). */
    private Polled read(Machine.Event ev, Pointer call, Runnable release) {
        Machine.WaitStep step = new Machine.WaitStep();
        Outcome o = MachineClient.finishedOutcome(lib, ev, release);
        int rc;
        synchronized (this) {
            if (machine.hasOAuth2() && !retried && o.httpStatus().orElse(0) == 401) {
                // Not read into the plan: the machine forgets the token and makes this poll
                // once more with a fresh one, as every call (a token that expires during a
                // long wait must not end it).
                retried = true;
                return new Polled(o, 0, 0, null);
            }
            rc = plan == null || ev.outcome == null ? A2aCoreException.CLOSED
                : lib.a2a_task_wait_read(plan, ev.outcome, MachineCall.nowMs(), step);
        }
        if (rc != 0) {
            return new Polled(o, 0, 0, null); // the wait was cancelled: this poll is its last
        }
        Outcome gaveUp = step.kind == STEP_GAVE_UP ? Outcome.consume(lib, step.outcome) : null;
        return new Polled(o, step.kind, step.poll_at_ms, gaveUp);
    }

    private void schedule(long at) {
        long delay = Math.max(0, at - MachineCall.nowMs());
        Future<?> next = MachineCall.TIMER.schedule(this::poll, delay, TimeUnit.MILLISECONDS);
        synchronized (this) {
            current = next;
        }
        if (isDone()) {
            next.cancel(false);
        }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean c = super.cancel(mayInterruptIfRunning);
        Future<?> f;
        synchronized (this) {
            f = current;
        }
        if (f != null) {
            f.cancel(mayInterruptIfRunning);
        }
        return c;
    }

    private synchronized void free() {
        if (plan != null) {
            lib.a2a_task_wait_free(plan);
            plan = null;
        }
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }
}
