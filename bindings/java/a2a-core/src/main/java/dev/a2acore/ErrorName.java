package dev.a2acore;

import java.util.Optional;

/** The typed name of an error outcome: protocol names 1-99, http 101-199, transport 201-299. */
public enum ErrorName implements NativeEnum {
    /** -32700: the body was not valid JSON. */
    PARSE_ERROR(1, "ParseError"),
    /** -32600: not a valid JSON-RPC request. */
    INVALID_REQUEST(2, "InvalidRequest"),
    /** -32601: unknown method (often a version mismatch). */
    METHOD_NOT_FOUND(3, "MethodNotFound"),
    /** -32602: invalid parameters. */
    INVALID_PARAMS(4, "InvalidParams"),
    /** -32603: internal error. */
    INTERNAL(5, "Internal"),
    /** -32001: task not found. */
    TASK_NOT_FOUND(6, "TaskNotFound"),
    /** -32002: task cannot be canceled. */
    TASK_NOT_CANCELABLE(7, "TaskNotCancelable"),
    /** -32003: push notifications not supported. */
    PUSH_NOTIFICATION_NOT_SUPPORTED(8, "PushNotificationNotSupported"),
    /** -32004: operation not supported. */
    UNSUPPORTED_OPERATION(9, "UnsupportedOperation"),
    /** -32005: content type not supported. */
    CONTENT_TYPE_NOT_SUPPORTED(10, "ContentTypeNotSupported"),
    /** -32006: the agent produced an invalid response. */
    INVALID_AGENT_RESPONSE(11, "InvalidAgentResponse"),
    /** -32007: extended agent card not configured. */
    EXTENDED_AGENT_CARD_NOT_CONFIGURED(12, "ExtendedAgentCardNotConfigured"),
    /** -32008: a required extension is not supported by the client. */
    EXTENSION_SUPPORT_REQUIRED(13, "ExtensionSupportRequired"),
    /** -32009: protocol version not supported. */
    VERSION_NOT_SUPPORTED(14, "VersionNotSupported"),
    /** Any other protocol error code. */
    OTHER(15, "Other"),
    /** HTTP 401. */
    UNAUTHENTICATED(101, "Unauthenticated"),
    /** HTTP 403. */
    FORBIDDEN(102, "Forbidden"),
    /** HTTP 404 without a protocol body (wrong URL). */
    NOT_FOUND(103, "NotFound"),
    /** HTTP 413. */
    PAYLOAD_TOO_LARGE(104, "PayloadTooLarge"),
    /** HTTP 429. */
    RATE_LIMITED(105, "RateLimited"),
    /** HTTP 3xx: a redirect, never followed. */
    REDIRECT(106, "Redirect"),
    /** HTTP 502. */
    BAD_GATEWAY(107, "BadGateway"),
    /** HTTP 503. */
    UNAVAILABLE(108, "Unavailable"),
    /** HTTP 504. */
    GATEWAY_TIMEOUT(109, "GatewayTimeout"),
    /** Any other non-2xx status. */
    HTTP(110, "Http"),
    /** The TCP (or TLS) connection could not be established. */
    CONNECT_FAILED(201, "ConnectFailed"),
    /** The host name did not resolve. */
    DNS(202, "Dns"),
    /** A connect, call or stream-idle deadline expired. */
    TIMEOUT(203, "Timeout"),
    /** The connection was reset or closed before a complete response. */
    RESET(204, "Reset"),
    /** The local circuit breaker refused the call. */
    CIRCUIT_OPEN(205, "CircuitOpen"),
    /** The agent card could not be fetched, parsed or validated. */
    CARD_RESOLUTION(206, "CardResolution"),
    /** The response exceeded the configured size limit. */
    RESPONSE_TOO_LARGE(207, "ResponseTooLarge"),
    /** TLS failed (certificate, handshake); the outcome's reason names the cause. */
    TLS(208, "Tls"),
    /** The proxy refused the tunnel (CONNECT answered 407 or another non-2xx). */
    PROXY(209, "Proxy"),
    /** The host resolved only to addresses refused for this agent (DNS rebinding). */
    ADDRESS_REFUSED(210, "AddressRefused"),
    /** The agent card does not declare the capability the call needs; nothing was sent. */
    CAPABILITY_NOT_DECLARED(211, "CapabilityNotDeclared");

    private final int code;
    private final String wireName;

    ErrorName(int code, String wireName) {
        this.code = code;
        this.wireName = wireName;
    }

    /** The number of this value in the C ABI. */
    @Override
    public int code() {
        return code;
    }

    /** The name used in JSON output and the fixtures ({@code TaskNotFound}, {@code Timeout}). */
    @Override
    public String wireName() {
        return wireName;
    }

    /** The channel this name belongs to. */
    public Channel channel() {
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
