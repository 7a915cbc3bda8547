package dev.a2acore;

import com.sun.jna.Memory;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** An A2A operation (the C ABI's {@code a2a_method}), named by its 1.0 JSON-RPC name. */
public enum A2aMethod {
    /** {@code SendMessage} ({@code message/send}). */
    SEND_MESSAGE(1),
    /** {@code SendStreamingMessage} ({@code message/stream}). */
    SEND_STREAMING_MESSAGE(2),
    /** {@code GetTask} ({@code tasks/get}). */
    GET_TASK(3),
    /** {@code ListTasks} (1.0 only). */
    LIST_TASKS(4),
    /** {@code CancelTask} ({@code tasks/cancel}). */
    CANCEL_TASK(5),
    /** {@code SubscribeToTask} ({@code tasks/resubscribe}). */
    SUBSCRIBE_TO_TASK(6),
    /** {@code CreateTaskPushNotificationConfig}. */
    CREATE_PUSH_CONFIG(7),
    /** {@code GetTaskPushNotificationConfig}. */
    GET_PUSH_CONFIG(8),
    /** {@code ListTaskPushNotificationConfigs}. */
    LIST_PUSH_CONFIGS(9),
    /** {@code DeleteTaskPushNotificationConfig}. */
    DELETE_PUSH_CONFIG(10),
    /** {@code GetExtendedAgentCard}. */
    GET_EXTENDED_AGENT_CARD(11);

    private final int code;

    A2aMethod(int code) {
        this.code = code;
    }

    /** The number of this value in the C ABI. */
    public int code() {
        return code;
    }

    /** The value with this C ABI number. */
    public static Optional<A2aMethod> fromCode(int code) {
        for (A2aMethod m : values()) {
            if (m.code == code) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** The JSON-RPC wire name in {@code version}; empty where the method does not exist (ListTasks in 0.3). */
    public Optional<String> jsonRpcName(ProtocolVersion version) {
        return Optional.ofNullable(A2aCore.lib().a2a_vocab_name(vocab(version), code).string());
    }

    /** The vocabulary ({@code a2a_vocab}) of the JSON-RPC method names of {@code version}. */
    private static int vocab(ProtocolVersion version) {
        return version == ProtocolVersion.V0_3 ? AbiEnums.VOCAB_METHOD_JSONRPC_V0_3 : AbiEnums.VOCAB_METHOD_JSONRPC_V1_0;
    }

    /** Reads a JSON-RPC method name of either version ({@code message/send} or {@code SendMessage}). */
    public static Optional<A2aMethod> fromJsonRpcName(String name) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        Memory m = new Memory(4);
        // 1.0's names first, then 0.3's, as the core looks them up.
        for (ProtocolVersion v : new ProtocolVersion[] {ProtocolVersion.V1_0, ProtocolVersion.V0_3}) {
            int rc = A2aCore.lib().a2a_vocab_parse(vocab(v), b, new dev.a2acore.internal.SizeT(b.length), m);
            if (rc == A2aCoreException.NONE) {
                continue;
            }
            A2aCoreException.check("a2a_vocab_parse", rc);
            return fromCode(m.getInt(0));
        }
        return Optional.empty();
    }
}
