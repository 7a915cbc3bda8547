package dev.a2acore.adk;

import com.google.adk.a2a.RemoteA2AAgent;
import com.google.adk.events.Event;
import com.google.adk.runner.InMemoryRunner;
import com.google.adk.sessions.Session;
import com.google.genai.types.Content;
import com.google.genai.types.Part;
import dev.a2acore.a2ajava.A2aCallException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An ADK {@link RemoteA2AAgent}, run by ADK's {@link InMemoryRunner}, whose every ending is
 * turned into the one line a parent model reads: the agent's text on success, else the
 * {@code REMOTE_*} text of a2a-core's outcome (carried by the drop-in's
 * {@link A2aCallException} in the cause chain ADK throws), else a {@code REMOTE_*} line made
 * here from what ADK itself reports (an event's {@code errorMessage}, an event with no
 * content, an exception without a classified cause).
 *
 * <pre>{@code
 * A2AHttpClient http = A2aCoreHttpClient.builder().build();
 * AgentCard card = new A2ACardResolver(http, url, cardPath).getAgentCard();
 * RemoteA2AAgent remote = RemoteA2AAgent.builder().name("booking").agentCardOrSource(card)
 *     .a2aClient(new com.google.adk.a2a.A2AClient(card, http, Map.of())).build();
 * String line = new GuardedRemoteAgent(remote, "booking").ask("book seat 12A").modelText();
 * }</pre>
 */
public final class GuardedRemoteAgent {
    /**
     * What one turn gave.
     *
     * @param modelText the line for the parent model
     * @param events ADK's events of the turn (empty when ADK threw)
     * @param error what ADK threw, if it did
     */
    public record Reply(String modelText, List<Event> events, Optional<Throwable> error) {}

    private final InMemoryRunner runner;
    private final String agent;

    /** Runs {@code remote} as the root agent of its own in-memory runner; {@code agent} names it in the lines. */
    public GuardedRemoteAgent(RemoteA2AAgent remote, String agent) {
        this.runner = new InMemoryRunner(remote, "guarded-" + agent);
        this.agent = agent;
    }

    /** Sends {@code text} through ADK and turns the result into the parent model's line. */
    public Reply ask(String text) {
        Session session = runner.sessionService().createSession(runner.appName(), "user").blockingGet();
        List<Event> events;
        try {
            events = runner.runAsync("user", session.id(), Content.fromParts(Part.fromText(text))).toList()
                .blockingGet();
        } catch (RuntimeException e) {
            return new Reply(lineOf(e), List.of(), Optional.of(e));
        }
        for (Event e : events) {
            if (e.errorMessage().isPresent()) {
                return new Reply("REMOTE_FAILED " + agent + ": " + e.errorMessage().get(), events, Optional.empty());
            }
        }
        String answer = events.stream().flatMap(e -> e.content().stream()).map(GuardedRemoteAgent::text)
            .filter(t -> !t.isEmpty()).collect(Collectors.joining("\n"));
        if (answer.isEmpty()) {
            return new Reply("REMOTE_MALFORMED " + agent + ": the agent's answer reached ADK without any text"
                + " (ADK 0.5.0 reads only Message results: a Task, completed or FAILED, becomes an empty event)",
                events, Optional.empty());
        }
        return new Reply(answer, events, Optional.empty());
    }

    private static String text(Content c) {
        return c.parts().orElse(List.of()).stream().flatMap(p -> p.text().stream()).collect(Collectors.joining());
    }

    /** The line for a failure ADK threw: a2a-core's classified outcome when the drop-in made it. */
    String lineOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof A2aCallException a) {
                return a.outcome().modelText(agent).orElse("REMOTE_UNKNOWN " + agent + ": " + a.getMessage());
            }
        }
        Throwable root = t;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return "REMOTE_UNKNOWN " + agent + ": " + root.getClass().getSimpleName() + ": " + root.getMessage()
            + " (the request may or may not have been received; do not assume it took effect)";
    }
}
