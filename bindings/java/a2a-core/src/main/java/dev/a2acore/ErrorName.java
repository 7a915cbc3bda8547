package dev.a2acore;

import java.util.Optional;

/** The typed name of an error outcome: protocol names 1-99, http 101-199, transport 201-299. */
public enum ErrorName implements NativeEnum {
    /** -32700: the body was not valid JSON. */
    PARSE_ERROR,
    /** -32600: not a valid JSON-RPC request. */
    INVALID_REQUEST,
    /** -32601: unknown method (often a version mismatch). */
    METHOD_NOT_FOUND,
    /** -32602: invalid parameters. */
    INVALID_PARAMS,
    /** -32603: internal error. */
    INTERNAL,
    /** -32001: task not found. */
    TASK_NOT_FOUND,
    /** -32002: task cannot be canceled. */
    TASK_NOT_CANCELABLE,
    /** -32003: push notifications not supported. */
    PUSH_NOTIFICATION_NOT_SUPPORTED,
    /** -32004: operation not supported. */
    UNSUPPORTED_OPERATION,
    /** -32005: content type not supported. */
    CONTENT_TYPE_NOT_SUPPORTED,
    /** -32006: the agent produced an invalid response. */
    INVALID_AGENT_RESPONSE,
    /** -32007: extended agent card not configured. */
    EXTENDED_AGENT_CARD_NOT_CONFIGURED,
    /** -32008: a required extension is not supported by the client. */
    EXTENSION_SUPPORT_REQUIRED,
    /** -32009: protocol version not supported. */
    VERSION_NOT_SUPPORTED,
    /** Any other protocol error code. */
    OTHER,
    /** HTTP 401. */
    UNAUTHENTICATED,
    /** HTTP 403. */
    FORBIDDEN,
    /** HTTP 404 without a protocol body (wrong URL). */
    NOT_FOUND,
    /** HTTP 413. */
    PAYLOAD_TOO_LARGE,
    /** HTTP 429. */
    RATE_LIMITED,
    /** HTTP 3xx: a redirect, never followed. */
    REDIRECT,
    /** HTTP 502. */
    BAD_GATEWAY,
    /** HTTP 503. */
    UNAVAILABLE,
    /** HTTP 504. */
    GATEWAY_TIMEOUT,
    /** Any other non-2xx status. */
    HTTP,
    /** The TCP (or TLS) connection could not be established. */
    CONNECT_FAILED,
    /** The host name did not resolve. */
    DNS,
    /** A connect, call or stream-idle deadline expired. */
    TIMEOUT,
    /** The connection was reset or closed before a complete response. */
    RESET,
    /** The local circuit breaker refused the call. */
    CIRCUIT_OPEN,
    /** The agent card could not be fetched, parsed or validated. */
    CARD_RESOLUTION,
    /** The response exceeded the configured size limit. */
    RESPONSE_TOO_LARGE,
    /** TLS failed (certificate, handshake); the outcome's reason names the cause. */
    TLS,
    /** The proxy refused the tunnel (CONNECT answered 407 or another non-2xx). */
    PROXY,
    /** The host resolved only to addresses refused for this agent (DNS rebinding). */
    ADDRESS_REFUSED,
    /** The agent card does not declare the capability the call needs; nothing was sent. */
    CAPABILITY_NOT_DECLARED;

    /** The channel this name belongs to. */
    public Channel channel() {
        int code = code();
        return code < 100 ? Channel.PROTOCOL : code < 200 ? Channel.HTTP : Channel.TRANSPORT;
    }

    /** The value with this C ABI number. */
    public static Optional<ErrorName> fromCode(int code) {
        return NativeEnum.byCode(values(), code);
    }

    /** The value with this wire name (exact, case-sensitive). */
    public static Optional<ErrorName> fromWireName(String name) {
        return NativeEnum.byWireName(values(), name);
    }
}
