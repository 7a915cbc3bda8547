package dev.a2acore;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;

/**
 * The JDK's own JOSE pieces for the tests (java.security only): keys, PEM, ES256/RS256 JWS
 * signatures in JOSE form, so the library's signatures and verdicts are checked against an
 * implementation that is not the library's.
 */
final class Jose {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Jose() {}

    static KeyPair ec256() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    static KeyPair rsa() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return g.generateKeyPair();
    }

    static byte[] publicPem(PublicKey k) {
        return pem("PUBLIC KEY", k.getEncoded());
    }

    static byte[] privatePem(PrivateKey k) {
        return pem("PRIVATE KEY", k.getEncoded());
    }

    private static byte[] pem(String label, byte[] der) {
        String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return ("-----BEGIN " + label + "-----\n" + b64 + "\n-----END " + label + "-----\n")
            .getBytes(StandardCharsets.US_ASCII);
    }

    static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    static byte[] unb64(String s) {
        return Base64.getUrlDecoder().decode(s);
    }

    static String b64Json(Map<String, Object> m) throws Exception {
        return b64(MAPPER.writeValueAsBytes(m));
    }

    /** A JWS signature over {@code protectedB64 + "." + payloadB64} (ES256 in JOSE r||s form, or RS256). */
    static String sign(String alg, PrivateKey key, String protectedB64, String payloadB64) throws Exception {
        byte[] input = (protectedB64 + "." + payloadB64).getBytes(StandardCharsets.US_ASCII);
        if (alg.equals("ES256")) {
            Signature s = Signature.getInstance("SHA256withECDSA");
            s.initSign(key);
            s.update(input);
            return b64(derToJose(s.sign(), 32));
        }
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(key);
        s.update(input);
        return b64(s.sign());
    }

    /** Verifies a JOSE signature with the JDK. */
    static boolean verify(String alg, PublicKey key, String protectedB64, String payloadB64, String sigB64)
        throws Exception {
        byte[] input = (protectedB64 + "." + payloadB64).getBytes(StandardCharsets.US_ASCII);
        byte[] sig = unb64(sigB64);
        Signature s;
        if (alg.equals("ES256")) {
            s = Signature.getInstance("SHA256withECDSA");
            sig = joseToDer(sig);
        } else if (alg.equals("RS256")) {
            s = Signature.getInstance("SHA256withRSA");
        } else if (alg.equals("EdDSA")) {
            s = Signature.getInstance("Ed25519");
        } else {
            throw new IllegalArgumentException(alg);
        }
        s.initVerify(key);
        s.update(input);
        return s.verify(sig);
    }

    /** A compact JWT signed with ES256. */
    static String jwt(PrivateKey key, String kid, Map<String, Object> claims) throws Exception {
        String h = b64Json(Map.of("alg", "ES256", "typ", "JWT", "kid", kid));
        String p = b64Json(claims);
        return h + "." + p + "." + sign("ES256", key, h, p);
    }

    private static byte[] derToJose(byte[] der, int n) {
        int off = 2 + (der[1] == (byte) 0x81 ? 1 : 0);
        int rLen = der[off + 1];
        byte[] r = Arrays.copyOfRange(der, off + 2, off + 2 + rLen);
        off = off + 2 + rLen;
        int sLen = der[off + 1];
        byte[] s = Arrays.copyOfRange(der, off + 2, off + 2 + sLen);
        byte[] out = new byte[2 * n];
        copyInt(r, out, 0, n);
        copyInt(s, out, n, n);
        return out;
    }

    private static void copyInt(byte[] v, byte[] out, int at, int n) {
        int start = 0;
        while (v.length - start > n && v[start] == 0) {
            start++;
        }
        System.arraycopy(v, start, out, at + n - (v.length - start), v.length - start);
    }

    private static byte[] joseToDer(byte[] jose) {
        int n = jose.length / 2;
        byte[] r = derInt(Arrays.copyOfRange(jose, 0, n));
        byte[] s = derInt(Arrays.copyOfRange(jose, n, 2 * n));
        int len = 2 + r.length + 2 + s.length;
        byte[] out = new byte[2 + (len > 127 ? 1 : 0) + len];
        int i = 0;
        out[i++] = 0x30;
        if (len > 127) {
            out[i++] = (byte) 0x81;
        }
        out[i++] = (byte) len;
        out[i++] = 0x02;
        out[i++] = (byte) r.length;
        System.arraycopy(r, 0, out, i, r.length);
        i += r.length;
        out[i++] = 0x02;
        out[i++] = (byte) s.length;
        System.arraycopy(s, 0, out, i, s.length);
        return out;
    }

    private static byte[] derInt(byte[] v) {
        int start = 0;
        while (start < v.length - 1 && v[start] == 0) {
            start++;
        }
        byte[] t = Arrays.copyOfRange(v, start, v.length);
        if ((t[0] & 0x80) != 0) {
            byte[] p = new byte[t.length + 1];
            System.arraycopy(t, 0, p, 1, t.length);
            return p;
        }
        return t;
    }
}
