package dev.a2acore;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link PushVerifier} demands of a push notification (A2A spec 4.3.3, 13.2): the
 * config's token, or a JWT signed with one of {@link #keys()} whose {@code aud},
 * {@code iss}, {@code iat}/{@code exp} (within {@link #skew()}, at most {@link #maxAge()}
 * old), {@code jti} (replay window of {@link #replayCapacity()}) and task id are checked.
 * Immutable; built with {@link #builder()}. {@link #toString()} never shows the token.
 */
public final class PushPolicy {
    private final String token;
    private final String audience;
    private final String issuer;
    private final String taskId;
    private final Duration skew;
    private final Duration maxAge;
    private final byte[] keys;
    private final int replayCapacity;

    private PushPolicy(Builder b) {
        this.token = b.token;
        this.audience = b.audience;
        this.issuer = b.issuer;
        this.taskId = b.taskId;
        this.skew = b.skew;
        this.maxAge = b.maxAge;
        this.keys = b.keys;
        this.replayCapacity = b.replayCapacity;
    }

    /** A builder with the library's defaults (skew 60 s, max age 300 s, replay window 4096). */
    public static Builder builder() {
        return new Builder();
    }

    /** The token the config set (sent as {@code X-A2A-Notification-Token}), if any. */
    public Optional<String> token() {
        return Optional.ofNullable(token);
    }

    /** The JWT audience demanded (the receiver's webhook URL), if any. */
    public Optional<String> audience() {
        return Optional.ofNullable(audience);
    }

    /** The JWT issuer demanded, if any. */
    public Optional<String> issuer() {
        return Optional.ofNullable(issuer);
    }

    /** The task id the notification must be about, if any. */
    public Optional<String> taskId() {
        return Optional.ofNullable(taskId);
    }

    /** Clock skew allowed (empty: the library's 60 s). */
    public Optional<Duration> skew() {
        return Optional.ofNullable(skew);
    }

    /** Oldest {@code iat} accepted (empty: the library's 300 s). */
    public Optional<Duration> maxAge() {
        return Optional.ofNullable(maxAge);
    }

    /** The sender's keys (JWKS, one JWK, or PEM public keys), if JWTs are verified. */
    public Optional<byte[]> keys() {
        return keys == null ? Optional.empty() : Optional.of(keys.clone());
    }

    /** How many accepted notifications the replay window remembers (0: the library's 4096). */
    public int replayCapacity() {
        return replayCapacity;
    }

    /** The policy JSON {@code a2a_push_verifier_new} reads. */
    byte[] json() {
        ObjectNode n = TrustException.MAPPER.createObjectNode();
        if (token != null) {
            n.put("token", token);
        }
        if (audience != null) {
            n.put("audience", audience);
        }
        if (issuer != null) {
            n.put("issuer", issuer);
        }
        if (taskId != null) {
            n.put("taskId", taskId);
        }
        if (skew != null) {
            n.put("skewSecs", skew.toSeconds());
        }
        if (maxAge != null) {
            n.put("maxAgeSecs", maxAge.toSeconds());
        }
        return n.toString().getBytes(StandardCharsets.UTF_8);
    }

    byte[] rawKeys() {
        return keys;
    }

    @Override
    public String toString() {
        return "PushPolicy{token=" + (token == null ? "none" : "<redacted>") + ", audience=" + audience
            + ", issuer=" + issuer + ", taskId=" + taskId + ", skew=" + skew + ", maxAge=" + maxAge
            + ", keys=" + (keys == null ? "none" : keys.length + " bytes") + ", replayCapacity=" + replayCapacity + "}";
    }

    /** Builder of a {@link PushPolicy}; every field optional. */
    public static final class Builder {
        private String token;
        private String audience;
        private String issuer;
        private String taskId;
        private Duration skew;
        private Duration maxAge;
        private byte[] keys;
        private int replayCapacity;

        private Builder() {}

        /** The token the push config set: a notification must carry it ({@code X-A2A-Notification-Token}). */
        public Builder token(String token) {
            this.token = Objects.requireNonNull(token, "token");
            return this;
        }

        /** The JWT {@code aud} demanded (typically the webhook URL). */
        public Builder audience(String audience) {
            this.audience = Objects.requireNonNull(audience, "audience");
            return this;
        }

        /** The JWT {@code iss} demanded. */
        public Builder issuer(String issuer) {
            this.issuer = Objects.requireNonNull(issuer, "issuer");
            return this;
        }

        /** The task the notifications must be about (the config's task). */
        public Builder taskId(String taskId) {
            this.taskId = Objects.requireNonNull(taskId, "taskId");
            return this;
        }

        /** Clock skew allowed on {@code iat}/{@code exp} (whole seconds; not negative). */
        public Builder skew(Duration skew) {
            this.skew = nonNegative(skew, "skew");
            return this;
        }

        /** The oldest {@code iat} accepted (whole seconds; not negative). */
        public Builder maxAge(Duration maxAge) {
            this.maxAge = nonNegative(maxAge, "maxAge");
            return this;
        }

        /** The sender's public keys (JWKS document, one JWK, or PEM): JWT notifications are verified with them. */
        public Builder keys(byte[] keys) {
            this.keys = Objects.requireNonNull(keys, "keys").clone();
            return this;
        }

        /** How many accepted notifications the replay window remembers (0: 4096). */
        public Builder replayCapacity(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("replayCapacity must not be negative: " + n);
            }
            this.replayCapacity = n;
            return this;
        }

        /** The policy. */
        public PushPolicy build() {
            return new PushPolicy(this);
        }

        private static Duration nonNegative(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative()) {
                throw new IllegalArgumentException(what + " must not be negative: " + d);
            }
            return d;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PushPolicy p && Objects.equals(token, p.token) && Objects.equals(audience, p.audience)
            && Objects.equals(issuer, p.issuer) && Objects.equals(taskId, p.taskId) && Objects.equals(skew, p.skew)
            && Objects.equals(maxAge, p.maxAge) && Arrays.equals(keys, p.keys) && replayCapacity == p.replayCapacity;
    }

    @Override
    public int hashCode() {
        return Objects.hash(token, audience, issuer, taskId, skew, maxAge, Arrays.hashCode(keys), replayCapacity);
    }
}
