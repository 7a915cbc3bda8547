package dev.a2acore;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * What a {@link PushVerifier} decided about one notification: the same object
 * {@code a2a push verify} prints. A rejection is a verdict, never an exception.
 */
public final class PushVerdict {
    private final JsonNode json;

    PushVerdict(JsonNode json) {
        this.json = json;
    }

    /** Whether the notification passed every check (and is now remembered against replays). */
    public boolean accepted() {
        JsonNode a = json.get("accepted");
        return a != null && a.asBoolean(false);
    }

    /** The core's kind of the rejection ({@code replayed}, {@code expired}, {@code task_mismatch}, {@code token_mismatch}, ...); empty when accepted. */
    public Optional<String> reason() {
        return field("reason");
    }

    /** The core's explanation of the rejection, when it gave one. */
    public Optional<String> detail() {
        Optional<String> m = field("message");
        return m.isPresent() ? m : field("detail");
    }

    /** Any top-level field of the verdict as text (e.g. {@code taskId}, {@code method}), when present. */
    public Optional<String> field(String name) {
        JsonNode v = json.get(name);
        return v == null || v.isNull() ? Optional.empty() : Optional.of(v.isValueNode() ? v.asText() : v.toString());
    }

    /** The verdict JSON as the library wrote it. */
    public String json() {
        return json.toString();
    }

    @Override
    public String toString() {
        return json.toString();
    }
}
