package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link RetryPolicy} and {@link CircuitBreaker} over the C ABI, on a simulated clock.
 * Expectations follow issue 8's rules (side-effecting sends are not resent after an unknown
 * outcome without an idempotency key; retries keep messageId and key, new JSON-RPC id;
 * protocol errors do not open the breaker; an open breaker refuses with a transport outcome
 * whose request was not sent).
 */
class ResilienceTest {
    private static final String COMPLETED = "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"task\",\"id\":\"t1\","
        + "\"contextId\":\"c1\",\"status\":{\"state\":\"completed\"}}}";
    private static final String METHOD_NOT_FOUND = "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"error\":{\"code\":-32601,"
        + "\"message\":\"Method not found\"}}";

    private static Outcome completed() {
        return Outcomes.classify(200, "application/json", null, COMPLETED.getBytes(),
            Asked.jsonRpc(ProtocolVersion.V0_3, "message/send", "1"));
    }

    private static Outcome timeout() {
        return Outcomes.transport(ErrorName.TIMEOUT, RequestSent.UNKNOWN, "call deadline expired");
    }

    @Test
    void unknownOutcomeWithoutKeyIsNotResent() {
        try (RetryPolicy p = new RetryPolicy(RetryPolicy.Config.defaults(RetryPolicy.CallKind.SIDE_EFFECTING), 0)) {
            p.beginAttempt(0);
            RetryPolicy.Action a = p.next(timeout(), 100, 42);
            assertEquals(RetryPolicy.ActionKind.GIVE_UP, a.kind());
            assertTrue(a.giveUpText().orElse("").contains("idempotency key"), a.toString());
            assertTrue(p.isFinished());
            assertTrue(timeout().modelText("booking").orElseThrow().startsWith("REMOTE_UNKNOWN booking"));
        }
    }

    @Test
    void unknownOutcomeWithKeyRetriesWithSameIdsAndNewJsonRpcId() {
        RetryPolicy.Config cfg = RetryPolicy.Config.defaults(RetryPolicy.CallKind.WITH_IDEMPOTENCY_KEY);
        try (RetryPolicy p = new RetryPolicy(cfg, 0)) {
            p.beginAttempt(0);
            RetryPolicy.Action a = p.next(timeout(), 100, 12345);
            assertEquals(RetryPolicy.ActionKind.RETRY_AFTER, a.kind());
            assertTrue(a.delayMs().getAsLong() <= cfg.baseDelayMs(), a.toString());
            assertEquals(RetryPolicy.IdRule.KEEP, a.messageId());
            assertEquals(RetryPolicy.IdRule.KEEP, a.idempotencyKey());
            assertEquals(RetryPolicy.IdRule.NEW, a.jsonRpcId());
            p.beginAttempt(300);
            assertEquals(RetryPolicy.ActionKind.DONE, p.next(completed(), 400, 1).kind());
            assertEquals(2, p.attempts());
        }
    }

    @Test
    void retryAfterBeyondTheDeadlineGivesUp() {
        RetryPolicy.Config cfg = RetryPolicy.Config.defaults(RetryPolicy.CallKind.READ).withDeadline(1_000);
        try (RetryPolicy p = new RetryPolicy(cfg, 0)) {
            p.beginAttempt(0);
            Outcome busy = Outcomes.classify(503, "text/plain", "5", "busy".getBytes(), Asked.unknown());
            RetryPolicy.Action a = p.next(busy, 100, 7);
            assertEquals(RetryPolicy.ActionKind.GIVE_UP, a.kind());
            assertTrue(a.giveUpReason().isPresent(), a.toString());
            assertEquals(900, p.remaining(100).getAsLong());
        }
    }

    @Test
    void breakerOpensOnTransportFailuresNotOnProtocolErrors() {
        CircuitBreaker.Config d = CircuitBreaker.Config.defaults();
        CircuitBreaker.Config cfg = new CircuitBreaker.Config(3, 0, d.minCalls(), 10_000, 10, 1_000, 1);
        try (CircuitBreaker b = new CircuitBreaker("specialist", cfg)) {
            Outcome protocol = Outcomes.classify(200, "application/json", METHOD_NOT_FOUND);
            assertFalse(protocol.countsTowardBreaker());
            for (int i = 0; i < 5; i++) {
                assertTrue(b.allow(i));
                b.record(protocol, i);
            }
            assertEquals(CircuitBreaker.State.CLOSED, b.state(5));
            Outcome refused = Outcomes.transport(ErrorName.CONNECT_FAILED, RequestSent.NO, "connection refused");
            assertTrue(refused.countsTowardBreaker());
            for (int i = 10; i < 13; i++) {
                assertTrue(b.allow(i));
                b.record(refused, i);
            }
            assertEquals(CircuitBreaker.State.OPEN, b.state(13));
            assertFalse(b.allow(14));
            Outcome r = b.refusal(14);
            assertEquals(Channel.TRANSPORT, r.channel());
            assertEquals(Optional.of(ErrorName.CIRCUIT_OPEN), r.errorName());
            assertEquals(Optional.of(RequestSent.NO), r.requestSent());
            assertTrue(r.modelText("specialist").orElseThrow().startsWith("REMOTE_UNAVAILABLE specialist"));
            assertEquals(CircuitBreaker.State.HALF_OPEN, b.state(12 + 1_000));
            assertTrue(b.allow(1_013), "one trial call");
            assertFalse(b.allow(1_013), "only one trial call");
            b.record(completed(), 1_020);
            assertEquals(CircuitBreaker.State.CLOSED, b.state(1_021));
            CircuitBreaker.Snapshot s = b.snapshot(1_021);
            assertEquals(1, s.timesOpened());
            assertTrue(s.refused() >= 2, s.toString());
            // recordResult: false is a success, true a counted failure (three open it again).
            assertTrue(b.allow(1_022));
            b.recordResult(false, 1_022);
            assertEquals(0, b.snapshot(1_022).failuresInWindow());
            for (int i = 1_023; i < 1_026; i++) {
                assertTrue(b.allow(i));
                b.recordResult(true, i);
            }
            assertEquals(CircuitBreaker.State.OPEN, b.state(1_026));
            assertEquals(2, b.snapshot(1_026).timesOpened());
        }
    }
}
