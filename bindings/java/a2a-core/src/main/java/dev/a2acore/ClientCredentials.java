package dev.a2acore;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * OAuth 2.0 client credentials (RFC 6749 4.4) for an {@link A2aClient}
 * ({@link A2aClient.Builder#oauth2}): the client fetches an access token from the token
 * endpoint (this one, or the card's {@code clientCredentials} flow's {@code tokenUrl}) with
 * its own {@code HttpClient}, keeps it until shortly before it expires, and sends it as
 * {@code Authorization: Bearer} to the card's validated interface only. Immutable; the
 * secret is held as a {@code char[]} copy and never shown ({@link #toString()} redacts it).
 */
public final class ClientCredentials {
    private final String tokenUrl;
    private final String clientId;
    private final char[] secret;
    private final String scope;
    private final boolean basicAuth;
    private final Duration refreshEarly;
    private final boolean allowHttpLoopback;
    private final Clock clock;

    private ClientCredentials(Builder b) {
        this.tokenUrl = b.tokenUrl;
        this.clientId = b.clientId;
        this.secret = b.secret.clone();
        this.scope = b.scope;
        this.basicAuth = b.basicAuth;
        this.refreshEarly = b.refreshEarly;
        this.allowHttpLoopback = b.allowHttpLoopback;
        this.clock = b.clock;
    }

    /** A builder for the client {@code clientId} with its secret (copied). */
    public static Builder builder(String clientId, char[] secret) {
        return new Builder(clientId, Objects.requireNonNull(secret, "secret").clone());
    }

    /** A builder for the client {@code clientId} with its secret. */
    public static Builder builder(String clientId, String secret) {
        return new Builder(clientId, Objects.requireNonNull(secret, "secret").toCharArray());
    }

    /** The token endpoint given (empty: the card's clientCredentials flow's). */
    public Optional<String> tokenUrl() {
        return Optional.ofNullable(tokenUrl);
    }

    /** The client id. */
    public String clientId() {
        return clientId;
    }

    /** The scope asked for (empty: none). */
    public Optional<String> scope() {
        return Optional.ofNullable(scope);
    }

    /** Whether the client authenticates with HTTP Basic (RFC 6749's default) rather than form fields. */
    public boolean basicAuth() {
        return basicAuth;
    }

    /** How long before expiry a token is refreshed (empty: the library's 30 s). */
    public Optional<Duration> refreshEarly() {
        return Optional.ofNullable(refreshEarly);
    }

    /** Whether a plain-http token endpoint on loopback is allowed (tests). */
    public boolean allowHttpLoopback() {
        return allowHttpLoopback;
    }

    char[] secret() {
        return secret.clone();
    }

    Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "ClientCredentials{clientId=" + clientId + ", secret=<redacted>, tokenUrl="
            + (tokenUrl == null ? "<from card>" : tokenUrl) + ", scope=" + scope + ", basicAuth=" + basicAuth + "}";
    }

    /** Builder of {@link ClientCredentials}. */
    public static final class Builder {
        private final String clientId;
        private final char[] secret;
        private String tokenUrl;
        private String scope;
        private boolean basicAuth = true;
        private Duration refreshEarly;
        private boolean allowHttpLoopback;
        private Clock clock = Clock.systemUTC();

        private Builder(String clientId, char[] secret) {
            this.clientId = Objects.requireNonNull(clientId, "clientId");
            if (clientId.isEmpty()) {
                throw new IllegalArgumentException("clientId is empty");
            }
            this.secret = secret;
        }

        /** The token endpoint (default: the {@code tokenUrl} of the card's clientCredentials flow). */
        public Builder tokenUrl(String url) {
            this.tokenUrl = Objects.requireNonNull(url, "url");
            return this;
        }

        /** The scope to ask for (space-separated). */
        public Builder scope(String scope) {
            this.scope = Objects.requireNonNull(scope, "scope");
            return this;
        }

        /** HTTP Basic client authentication (true, the default) or {@code client_id}/{@code client_secret} form fields. */
        public Builder basicAuth(boolean on) {
            this.basicAuth = on;
            return this;
        }

        /** Refreshes a token this long before it expires (default 30 s; positive). */
        public Builder refreshEarly(Duration d) {
            Objects.requireNonNull(d, "d");
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("refreshEarly must be positive: " + d);
            }
            this.refreshEarly = d;
            return this;
        }

        /** Allows a plain-http token endpoint on a loopback address (tests only; default false). */
        public Builder allowHttpLoopback(boolean on) {
            this.allowHttpLoopback = on;
            return this;
        }

        /** The wall clock token expiry is measured on (tests). */
        Builder clock(Clock c) {
            this.clock = Objects.requireNonNull(c, "c");
            return this;
        }

        /** The credentials (each holds its own copy of the secret). */
        public ClientCredentials build() {
            return new ClientCredentials(this);
        }
    }
}
