package dev.a2acore.a2ajava;

import com.fasterxml.jackson.databind.JsonNode;
import io.a2a.common.A2AErrorMessages;
import io.a2a.spec.A2AClientException;
import io.a2a.spec.JSONRPCError;
import io.a2a.util.Utils;
import java.io.IOException;
import java.util.Optional;

/**
 * What a2a-java 0.3.2's own code expects to receive, built around an {@link A2aCallException}
 * so that the classified outcome rides along in the cause chain:
 * <ul>
 *   <li>401/403: the stock {@code JdkA2AHttpClient}'s plain {@link IOException} with its exact
 *       messages ({@link A2AErrorMessages}), the classified failure as its cause;</li>
 *   <li>a JSON-RPC error: the typed {@link JSONRPCError} (e.g. {@code TaskNotFoundError}) that
 *       a2a-java's {@code JSONRPCTransport} / {@code SSEEventListener} would have made from the
 *       same JSON, through a2a-java's own mapper, the classified failure as its cause;</li>
 *   <li>for a plain call, that error wrapped exactly as {@code JSONRPCTransport} wraps it.</li>
 * </ul>
 */
final class A2aJavaSignals {
    private A2aJavaSignals() {}

    /** Whether a status is the stock client's special case (401 or 403). */
    static boolean isAuthStatus(int status) {
        return status == 401 || status == 403;
    }

    /** The stock client's authentication {@link IOException}, with the classified failure as cause. */
    static IOException authFailure(int status, A2aCallException cause) {
        return new IOException(status == 401 ? A2AErrorMessages.AUTHENTICATION_FAILED
            : A2AErrorMessages.AUTHORIZATION_FAILED, cause);
    }

    /**
     * The {@link JSONRPCError} a2a-java would make of the {@code error} member of {@code json}
     * (its own {@code JSONRPCErrorDeserializer} picks the subclass by code), with
     * {@code cause} attached; empty when a2a-java could not make one of it either.
     */
    static Optional<JSONRPCError> jsonRpcError(String json, A2aCallException cause) {
        try {
            JsonNode n = Utils.OBJECT_MAPPER.readTree(json);
            if (n == null || !n.isObject() || !n.path("error").isObject()) {
                return Optional.empty();
            }
            JSONRPCError e = Utils.OBJECT_MAPPER.treeToValue(n.get("error"), JSONRPCError.class);
            if (e == null) {
                return Optional.empty();
            }
            e.initCause(cause);
            return Optional.of(e);
        } catch (IOException | RuntimeException e) {
            // Not the shape a2a-java reads (no code, no message, ...): the caller falls back.
            return Optional.empty();
        }
    }

    /** What {@code JSONRPCTransport} throws for a JSON-RPC error answer (its message and cause). */
    static A2AClientException asTransportThrows(JSONRPCError e) {
        return new A2AClientException(e.getMessage() + (e.getData() != null ? ": " + e.getData() : ""), e);
    }
}
