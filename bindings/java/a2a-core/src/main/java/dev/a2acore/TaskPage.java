package dev.a2acore;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One page of {@link A2aClient#listTasksAsync}: the call's outcome, the tasks as the agent
 * sent them (JSON values as Java maps and lists), and the token of the next page.
 *
 * @param outcome how the call ended (the tasks are empty when it failed)
 * @param tasks the page's tasks
 * @param nextPageToken the next page's token; empty on the last page
 */
public record TaskPage(Outcome outcome, List<Map<String, Object>> tasks, Optional<String> nextPageToken) {}
