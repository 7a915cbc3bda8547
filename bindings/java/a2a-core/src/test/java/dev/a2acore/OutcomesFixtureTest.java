package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every row of {@code bindings/fixtures/outcomes.json} (the single outcome table) through
 * {@link Outcomes#classify} or {@link Outcomes#transport}: each {@code expect} key must match
 * the outcome exactly (named like the {@code a2a classify --json} keys), and the
 * {@code hint_contains} / {@code message_contains} substrings must be there, and the
 * {@code model_prefix} and {@code breaker} columns must match {@link Outcome#modelPrefix()}
 * and {@link Outcome#countsTowardBreaker()}, and the {@code exit_code} column
 * {@link Outcome#exitCode()}.
 */
class OutcomesFixtureTest {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    @TestFactory
    Stream<DynamicTest> outcomeTable() throws Exception {
        JsonNode rows = Fixtures.load("outcomes.json").get("rows");
        assertTrue(rows.size() >= 150, "outcome table shrank to " + rows.size() + " rows");
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode row : rows) {
            tests.add(DynamicTest.dynamicTest(row.get("id").asText(), () -> check(row)));
        }
        return tests.stream();
    }

    private static Outcome run(JsonNode input) {
        if (input.has("transport")) {
            JsonNode t = input.get("transport");
            ErrorName name = ErrorName.fromWireName(t.get("error").asText()).orElseThrow();
            RequestSent sent = RequestSent.fromWireName(t.get("request_sent").asText()).orElseThrow();
            return Outcomes.transport(name, sent, t.get("message").asText());
        }
        byte[] body = input.has("body_base64") ? Base64.getDecoder().decode(input.get("body_base64").asText())
            : input.has("body_repeat") ? repeat(input.get("body_repeat"))
            : input.get("body").asText().getBytes(StandardCharsets.UTF_8);
        String retryAfter = null;
        JsonNode headers = input.get("headers");
        if (headers != null && headers.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = headers.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> h = it.next();
                // The C ABI takes the one header the classifier reads besides Content-Type.
                if (h.getKey().equalsIgnoreCase("Retry-After")) {
                    retryAfter = h.getValue().asText();
                }
            }
        }
        Asked asked = new Asked(text(input, "version").map(v -> ProtocolVersion.fromWireName(v).orElseThrow()),
            text(input, "binding").map(b -> b.equalsIgnoreCase("jsonrpc") ? Binding.JSON_RPC
                : b.equalsIgnoreCase("http+json") || b.equalsIgnoreCase("rest") ? Binding.HTTP_JSON
                : failBinding(b)),
            text(input, "method"), text(input, "request_id"));
        OptionalLong now = input.hasNonNull("now_unix_seconds")
            ? OptionalLong.of(input.get("now_unix_seconds").asLong()) : OptionalLong.empty();
        return Outcomes.classify(input.get("status").asInt(), text(input, "content_type").orElse(null), retryAfter,
            body, asked, now);
    }

    /** A {@code body_repeat} input: head, fill repeated count times, tail (UTF-8). */
    private static byte[] repeat(JsonNode r) {
        String s = r.get("head").asText() + r.get("fill").asText().repeat(r.get("count").asInt())
            + r.get("tail").asText();
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Binding failBinding(String b) {
        throw new AssertionError("unknown binding in fixture: " + b);
    }

    private static Optional<String> text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v == null || v.isNull() ? Optional.empty() : Optional.of(v.asText());
    }

    /** The outcome in the CLI's JSON vocabulary (absent fields as null). */
    static ObjectNode json(Outcome o) {
        ObjectNode n = F.objectNode();
        n.put("channel", o.channel().wireName());
        putInt(n, "http_status", o.httpStatus().isPresent() ? (Long) (long) o.httpStatus().getAsInt() : null);
        putInt(n, "code", o.code().isPresent() ? (Long) o.code().getAsLong() : null);
        putText(n, "error", o.errorName().map(ErrorName::wireName));
        putText(n, "state", o.state().map(TaskState::wireName));
        n.put("terminal", o.isTerminal());
        n.put("retry", o.retry().wireName());
        putText(n, "hint", o.hint());
        putText(n, "reason", o.reason());
        putText(n, "message", o.message());
        putText(n, "task_id", o.taskId());
        putText(n, "context_id", o.contextId());
        putText(n, "text", o.text());
        putText(n, "error_id", o.errorId());
        if (o.remoteHint().isEmpty()) {
            n.putNull("remote_hint");
        } else {
            ObjectNode h = n.putObject("remote_hint");
            o.remoteHint().forEach(h::put);
        }
        n.put("leaked_detail", o.leakedDetail());
        putText(n, "cancel_origin", o.cancelOrigin());
        return n;
    }

    private static void putInt(ObjectNode n, String k, Long v) {
        if (v == null) {
            n.putNull(k);
        } else {
            n.put(k, v);
        }
    }

    private static void putText(ObjectNode n, String k, Optional<String> v) {
        if (v.isPresent()) {
            n.put(k, v.get());
        } else {
            n.putNull(k);
        }
    }

    private static void check(JsonNode row) {
        String id = row.get("id").asText();
        Outcome o = run(row.get("input"));
        ObjectNode got = json(o);
        List<String> failures = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = row.get("expect").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode have = got.get(e.getKey());
            if (have == null) {
                failures.add(e.getKey() + ": not mapped by the Java binding");
                continue;
            }
            if (!numericEquals(e.getValue(), have)) {
                failures.add(e.getKey() + ": want " + e.getValue() + ", got " + have);
            }
        }
        JsonNode hints = row.get("hint_contains");
        if (hints != null) {
            String hint = o.hint().orElse("");
            hints.forEach(p -> {
                if (!hint.contains(p.asText())) {
                    failures.add("hint " + hint + " lacks " + p);
                }
            });
        }
        JsonNode ras = row.get("retry_after_secs");
        if (ras != null) {
            OptionalLong want = ras.isNull() ? OptionalLong.empty() : OptionalLong.of(ras.asLong());
            if (!want.equals(o.retryAfterSecs())) {
                failures.add("retry_after_secs: want " + want + ", got " + o.retryAfterSecs());
            }
        }
        JsonNode mc = row.get("message_contains");
        if (mc != null && !o.message().orElse("").contains(mc.asText())) {
            failures.add("message " + o.message().orElse("") + " lacks " + mc);
        }
        JsonNode prefix = row.get("model_prefix");
        Optional<String> wantPrefix = prefix == null || prefix.isNull() ? Optional.empty() : Optional.of(prefix.asText());
        if (!wantPrefix.equals(o.modelPrefix())) {
            failures.add("model_prefix: want " + wantPrefix + ", got " + o.modelPrefix());
        }
        if (wantPrefix.isPresent() && !o.modelText("agent").orElse("").startsWith(wantPrefix.get() + " agent")) {
            failures.add("model text " + o.modelText("agent") + " does not start with " + wantPrefix.get() + " agent");
        }
        if (row.get("breaker").asBoolean() != o.countsTowardBreaker()) {
            failures.add("breaker: want " + row.get("breaker") + ", got " + o.countsTowardBreaker());
        }
        JsonNode exit = row.get("exit_code");
        if (exit == null || !exit.isInt()) {
            failures.add("row without an integer exit_code");
        } else if (exit.asInt() != o.exitCode()) {
            failures.add("exit_code: want " + exit + ", got " + o.exitCode());
        }
        assertEquals(List.of(), failures, id + " (" + row.get("source").asText() + ")");
    }

    private static boolean numericEquals(JsonNode want, JsonNode have) {
        if (want.isNumber() && have.isNumber()) {
            return want.asLong() == have.asLong();
        }
        return want.equals(have);
    }

}
