package dev.a2acore;

import java.util.Optional;

/**
 * What a call asked, so the classifier can judge the answer: the protocol version and
 * binding (detected from the body when absent), the JSON-RPC method or REST path (retry
 * advice assumes a side effect when absent), and the JSON-RPC request id as text.
 */
public record Asked(Optional<ProtocolVersion> version, Optional<Binding> binding, Optional<String> method,
                    Optional<String> requestId) {

    /** Nothing known. */
    public static Asked unknown() {
        return new Asked(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** A JSON-RPC call of {@code method} with request id {@code requestId} (either may be null). */
    public static Asked jsonRpc(ProtocolVersion version, String method, String requestId) {
        return new Asked(Optional.ofNullable(version), Optional.of(Binding.JSON_RPC), Optional.ofNullable(method),
            Optional.ofNullable(requestId));
    }

    /** A copy with this version. */
    public Asked withVersion(ProtocolVersion v) {
        return new Asked(Optional.ofNullable(v), binding, method, requestId);
    }

    /** A copy with this binding. */
    public Asked withBinding(Binding b) {
        return new Asked(version, Optional.ofNullable(b), method, requestId);
    }

    /** A copy with this method (or REST path). */
    public Asked withMethod(String m) {
        return new Asked(version, binding, Optional.ofNullable(m), requestId);
    }

    /** A copy with this request id. */
    public Asked withRequestId(String id) {
        return new Asked(version, binding, method, Optional.ofNullable(id));
    }
}
