package dev.a2acore;

import java.util.Optional;

/**
 * The signature of an agent card that verified ({@link Trust#verifyCard}).
 *
 * @param kid the key id of the signature (empty when it names none)
 * @param alg the JWS algorithm ({@code ES256}, {@code RS256}, {@code EdDSA}, ...)
 * @param jku the key set URL the signature names (empty when none)
 */
public record VerifiedSignature(Optional<String> kid, String alg, Optional<String> jku) {}
