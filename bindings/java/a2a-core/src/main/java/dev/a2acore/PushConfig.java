package dev.a2acore;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A task's push-notification config: where the agent posts the task's updates. {@code taskId}
 * and {@code id} name it ({@code id} empty: the agent picks one when it is created); {@code url}
 * is required to create one. The same record for A2A 0.3 and 1.0, JSON-RPC and HTTP+JSON: the
 * client machine writes each version's envelope, and every shape an agent answers in (1.0 flat,
 * nested {@code pushNotificationConfig}, 0.3 REST {@code name}) reads into it.
 *
 * @param taskId the task the config belongs to
 * @param id the config's id; empty when none was given (the agent assigns one)
 * @param url where the agent posts the task's updates
 * @param token the token the agent sends with each notification, when set
 * @param authentication how the agent authenticates to {@code url}, when set
 */
public record PushConfig(String taskId, String id, String url, Optional<String> token,
                         Optional<Authentication> authentication) {

    /** How the agent authenticates to a push URL: its schemes ({@code Bearer}) and credentials (may be empty). */
    public record Authentication(List<String> schemes, String credentials) {
        /** Checks the fields and copies the schemes. */
        public Authentication {
            schemes = List.copyOf(Objects.requireNonNull(schemes, "schemes"));
            credentials = credentials == null ? "" : credentials;
        }
    }

    /** Checks the fields ({@code null} optionals become empty, a {@code null} id ""). */
    public PushConfig {
        Objects.requireNonNull(taskId, "taskId");
        id = id == null ? "" : id;
        url = url == null ? "" : url;
        token = token == null ? Optional.empty() : token;
        authentication = authentication == null ? Optional.empty() : authentication;
    }

    /** A config to create: the task and the URL; the agent picks the id. */
    public static PushConfig of(String taskId, String url) {
        return new PushConfig(taskId, "", Objects.requireNonNull(url, "url"), Optional.empty(), Optional.empty());
    }

    /** This config with the id {@code id}. */
    public PushConfig withId(String id) {
        return new PushConfig(taskId, id, url, token, authentication);
    }

    /** This config with the token {@code token}. */
    public PushConfig withToken(String token) {
        return new PushConfig(taskId, id, url, Optional.of(token), authentication);
    }

    /** This config with the authentication {@code schemes} and {@code credentials}. */
    public PushConfig withAuthentication(List<String> schemes, String credentials) {
        return new PushConfig(taskId, id, url, token, Optional.of(new Authentication(schemes, credentials)));
    }
}
