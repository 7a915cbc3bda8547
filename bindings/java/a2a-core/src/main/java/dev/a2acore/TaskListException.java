package dev.a2acore;

/**
 * A page of {@link A2aClient#allTasks} failed: {@link #outcome()} says how (a transport, HTTP,
 * or protocol outcome; on a 0.3 agent, which has no ListTasks, the transport outcome of the
 * call the machine refused unsent). The tasks of the pages before it were already returned.
 */
public final class TaskListException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Outcome outcome;

    TaskListException(Outcome outcome) {
        super("ListTasks failed: " + outcome);
        this.outcome = outcome;
    }

    /** The failed page's outcome. */
    public Outcome outcome() {
        return outcome;
    }
}
