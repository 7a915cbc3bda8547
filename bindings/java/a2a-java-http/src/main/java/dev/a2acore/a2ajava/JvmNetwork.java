package dev.a2acore.a2ajava;

import dev.a2acore.MachineTarget;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Enumeration;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * The JVM's network settings handed to the native client when an {@link A2aCoreHttpClient}
 * is built, so an ADK Java application keeps what it configured for the JDK:
 * <ul>
 *   <li>trust: the JVM's default trust manager ({@code javax.net.ssl.trustStore}, else
 *       {@code jssecacerts} or {@code cacerts}), its accepted issuers written as a PEM CA
 *       file that replaces the system store;</li>
 *   <li>client certificate: the first key entry of {@code javax.net.ssl.keyStore}
 *       ({@code keyStoreType}, {@code keyStorePassword}), written as PEM chain and PKCS#8
 *       key;</li>
 *   <li>proxy: {@code ProxySelector.getDefault()} asked for an https URL (which covers
 *       {@code https.proxyHost}/{@code https.proxyPort} and {@code java.net.useSystemProxies});
 *       DIRECT means no proxy (the JVM ignores {@code https_proxy}, and so does this client);
 *       {@code http.nonProxyHosts} becomes the no-proxy list. Proxy credentials from a JDK
 *       {@code Authenticator} are not carried over; SOCKS proxies are not supported.</li>
 * </ul>
 * The PEM files are private temporary files (owner-only where the file system allows),
 * deleted by {@link #close} once the native client has read them.
 */
final class JvmNetwork implements AutoCloseable {
    final MachineTarget.Network network;
    private final List<Path> files = new ArrayList<>();

    private JvmNetwork(String proxy, String noProxy) {
        String ca = null;
        String cert = null;
        String key = null;
        try {
            ca = write(trustedPem(), "ca");
            String[] client = clientPem();
            if (client != null) {
                cert = write(client[0], "cert");
                key = write(client[1], "key");
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot hand the JVM's key material to a2a-core", e);
        } catch (GeneralSecurityException e) {
            close();
            throw new IllegalStateException("cannot read the JVM's trust or key store: " + e.getMessage(), e);
        }
        network = new MachineTarget.Network(ca, cert, key, proxy, noProxy);
    }

    /** The JVM's settings now. */
    static JvmNetwork current() {
        ProxySelector selector = ProxySelector.getDefault();
        List<Proxy> proxies = selector == null ? List.of() : selector.select(URI.create("https://a2a-core.invalid/"));
        String proxy = "";
        for (Proxy p : proxies) {
            if (p.type() == Proxy.Type.HTTP && p.address() instanceof InetSocketAddress a) {
                proxy = "http://" + a.getHostString() + ":" + a.getPort();
                break;
            }
        }
        return new JvmNetwork(proxy, noProxyList(System.getProperty("http.nonProxyHosts")));
    }

    /**
     * The JVM's TLS settings now, for {@code java.net.http}: its default trust manager
     * ({@code javax.net.ssl.trustStore} as set now) and a key manager on
     * {@code javax.net.ssl.keyStore}, when set.
     */
    static javax.net.ssl.SSLContext jvmSsl() {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init((KeyStore) null);
            javax.net.ssl.KeyManager[] km = null;
            String path = System.getProperty("javax.net.ssl.keyStore");
            if (path != null && !path.isEmpty() && !path.equals("NONE")) {
                String type = System.getProperty("javax.net.ssl.keyStoreType", KeyStore.getDefaultType());
                char[] pw = System.getProperty("javax.net.ssl.keyStorePassword", "").toCharArray();
                KeyStore ks = KeyStore.getInstance(type);
                try (InputStream in = Files.newInputStream(Path.of(path))) {
                    ks.load(in, pw);
                }
                javax.net.ssl.KeyManagerFactory kmf =
                    javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, pw);
                km = kmf.getKeyManagers();
            }
            javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
            ctx.init(km, tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the JVM's key store", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the JVM's trust or key store: " + e.getMessage(), e);
        }
    }

    /**
     * The TLS settings of {@code n} for {@code java.net.http}: its CA file replacing the
     * JVM's trust store, its client certificate and PKCS#8 key; null when it sets neither
     * (the JDK's defaults).
     */
    static javax.net.ssl.SSLContext pemSsl(MachineTarget.Network n) {
        if (n.caFile() == null && n.clientCertFile() == null) {
            return null;
        }
        try {
            java.security.cert.CertificateFactory cf = java.security.cert.CertificateFactory.getInstance("X.509");
            TrustManager[] tm = null;
            if (n.caFile() != null) {
                KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
                trust.load(null, null);
                int i = 0;
                try (InputStream in = Files.newInputStream(Path.of(n.caFile()))) {
                    for (Certificate c : cf.generateCertificates(in)) {
                        trust.setCertificateEntry("ca" + i++, c);
                    }
                }
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
                tm = tmf.getTrustManagers();
            }
            javax.net.ssl.KeyManager[] km = null;
            if (n.clientCertFile() != null && n.clientKeyFile() != null) {
                List<Certificate> chain;
                try (InputStream in = Files.newInputStream(Path.of(n.clientCertFile()))) {
                    chain = new ArrayList<>(cf.generateCertificates(in));
                }
                String pem = Files.readString(Path.of(n.clientKeyFile()), StandardCharsets.US_ASCII);
                String b64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
                java.security.spec.PKCS8EncodedKeySpec spec =
                    new java.security.spec.PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64));
                PrivateKey key = null;
                for (String alg : List.of("EC", "RSA", "Ed25519")) {
                    try {
                        key = java.security.KeyFactory.getInstance(alg).generatePrivate(spec);
                        break;
                    } catch (GeneralSecurityException ignored) {
                        // Not this algorithm's key: try the next.
                    }
                }
                if (key == null) {
                    throw new GeneralSecurityException("client key is not a PKCS#8 EC, RSA or Ed25519 key");
                }
                KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
                ks.load(null, null);
                ks.setKeyEntry("client", key, new char[0], chain.toArray(new Certificate[0]));
                javax.net.ssl.KeyManagerFactory kmf =
                    javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, new char[0]);
                km = kmf.getKeyManagers();
            }
            javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
            ctx.init(km, tm, null);
            return ctx;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the network's PEM files", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot use the network's PEM files: " + e.getMessage(), e);
        }
    }

    /**
     * The proxy choice of {@code n} for {@code java.net.http}: null for the JVM's default
     * selector (a null proxy), none for "", else the proxy URL's host and port, hosts of the
     * no-proxy list (exact or by domain suffix) reached directly.
     */
    static ProxySelector proxyOf(MachineTarget.Network n) {
        if (n.proxy() == null) {
            return null;
        }
        if (n.proxy().isEmpty()) {
            return java.net.http.HttpClient.Builder.NO_PROXY;
        }
        URI u = URI.create(n.proxy().contains("://") ? n.proxy() : "http://" + n.proxy());
        Proxy p = new Proxy(Proxy.Type.HTTP, InetSocketAddress.createUnresolved(u.getHost(),
            u.getPort() < 0 ? 80 : u.getPort()));
        List<String> direct = n.noProxy() == null ? List.of()
            : java.util.Arrays.stream(n.noProxy().split(",")).map(String::trim).filter(h -> !h.isEmpty()).toList();
        return new ProxySelector() {
            @Override
            public List<Proxy> select(URI uri) {
                String host = uri.getHost() == null ? "" : uri.getHost();
                for (String d : direct) {
                    String bare = d.startsWith(".") ? d.substring(1) : d;
                    if (d.equals("*") || host.equalsIgnoreCase(bare) || host.toLowerCase().endsWith("." + bare.toLowerCase())) {
                        return List.of(Proxy.NO_PROXY);
                    }
                }
                return List.of(p);
            }

            @Override
            public void connectFailed(URI uri, java.net.SocketAddress sa, IOException ioe) {
                // Nothing to remember: the failure reaches the caller.
            }
        };
    }

    /** {@code http.nonProxyHosts} ({@code a|*.b|c*}) as curl's list ({@code a,.b}); null when unset. */
    static String noProxyList(String nonProxyHosts) {
        if (nonProxyHosts == null || nonProxyHosts.isBlank()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (String h : nonProxyHosts.split("\\|")) {
            h = h.trim();
            if (h.equals("*")) {
                out.add("*");
            } else if (h.startsWith("*.")) {
                out.add(h.substring(1));
            } else if (!h.isEmpty() && !h.contains("*")) {
                out.add(h);
            }
            // A prefix pattern (10.*) has no curl equivalent: left out (the proxy is used).
        }
        return out.isEmpty() ? null : String.join(",", out);
    }

    private static String trustedPem() throws GeneralSecurityException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init((KeyStore) null);
        StringBuilder pem = new StringBuilder();
        for (TrustManager tm : tmf.getTrustManagers()) {
            if (tm instanceof X509TrustManager x) {
                for (X509Certificate c : x.getAcceptedIssuers()) {
                    pem.append(pem("CERTIFICATE", c.getEncoded()));
                }
            }
        }
        return pem.toString();
    }

    /** [chain PEM, key PEM] of the key store's first key entry, or null without a key store. */
    private static String[] clientPem() throws GeneralSecurityException, IOException {
        String path = System.getProperty("javax.net.ssl.keyStore");
        if (path == null || path.isEmpty() || path.equals("NONE")) {
            return null;
        }
        String type = System.getProperty("javax.net.ssl.keyStoreType", KeyStore.getDefaultType());
        String pw = System.getProperty("javax.net.ssl.keyStorePassword", "");
        KeyStore ks = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(Path.of(path))) {
            ks.load(in, pw.toCharArray());
        }
        for (Enumeration<String> e = ks.aliases(); e.hasMoreElements();) {
            String alias = e.nextElement();
            if (!ks.isKeyEntry(alias)) {
                continue;
            }
            Key key = ks.getKey(alias, pw.toCharArray());
            Certificate[] chain = ks.getCertificateChain(alias);
            if (!(key instanceof PrivateKey) || chain == null || !"PKCS#8".equals(key.getFormat())) {
                continue;
            }
            StringBuilder certs = new StringBuilder();
            for (Certificate c : chain) {
                certs.append(pem("CERTIFICATE", c.getEncoded()));
            }
            byte[] pkcs8 = key instanceof ECPrivateKey ec
                ? ecPkcs8WithPublicKey(ec, chain[0].getPublicKey().getEncoded())
                : key.getEncoded();
            return new String[] {certs.toString(), pem("PRIVATE KEY", pkcs8)};
        }
        return null;
    }

    /**
     * The JDK writes an EC private key's PKCS#8 without the public key, which the native TLS
     * library (rustls with ring) requires; this is the same key as OpenSSL writes it:
     * {@code PrivateKeyInfo{0, AlgorithmIdentifier, OCTET STRING(ECPrivateKey{1, d, [1] Q})}},
     * with the algorithm identifier and the public point taken from the certificate's
     * SubjectPublicKeyInfo ({@code SEQUENCE{AlgorithmIdentifier, BIT STRING}}).
     */
    static byte[] ecPkcs8WithPublicKey(ECPrivateKey key, byte[] spki) {
        int[] outer = header(spki, 0);                 // SPKI SEQUENCE
        int algAt = outer[0];
        int[] alg = header(spki, algAt);              // AlgorithmIdentifier
        int bitsAt = alg[0] + alg[1];
        int[] bits = header(spki, bitsAt);            // BIT STRING with the point
        byte[] algId = java.util.Arrays.copyOfRange(spki, algAt, bitsAt);
        byte[] point = java.util.Arrays.copyOfRange(spki, bitsAt, bits[0] + bits[1]);
        int size = (key.getParams().getCurve().getField().getFieldSize() + 7) / 8;
        byte[] d = key.getS().toByteArray();
        byte[] fixed = new byte[size];
        int n = Math.min(d.length, size);
        System.arraycopy(d, d.length - n, fixed, size - n, n);
        byte[] ecPrivateKey = tlv(0x30, concat(new byte[] {0x02, 0x01, 0x01}, tlv(0x04, fixed), tlv(0xa1, point)));
        return tlv(0x30, concat(new byte[] {0x02, 0x01, 0x00}, algId, tlv(0x04, ecPrivateKey)));
    }

    /** [content offset, content length] of the DER element at {@code at}. */
    private static int[] header(byte[] der, int at) {
        int len = der[at + 1] & 0xff;
        int off = at + 2;
        if (len >= 0x80) {
            int count = len & 0x7f;
            len = 0;
            for (int i = 0; i < count; i++) {
                len = (len << 8) | (der[off + i] & 0xff);
            }
            off += count;
        }
        if (off + len > der.length) {
            throw new IllegalArgumentException("truncated DER");
        }
        return new int[] {off, len};
    }

    private static byte[] tlv(int tag, byte[] content) {
        int len = content.length;
        byte[] head;
        if (len < 0x80) {
            head = new byte[] {(byte) tag, (byte) len};
        } else if (len < 0x100) {
            head = new byte[] {(byte) tag, (byte) 0x81, (byte) len};
        } else {
            head = new byte[] {(byte) tag, (byte) 0x82, (byte) (len >> 8), (byte) len};
        }
        return concat(head, content);
    }

    private static byte[] concat(byte[]... parts) {
        int total = 0;
        for (byte[] p : parts) {
            total += p.length;
        }
        byte[] out = new byte[total];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    private static String pem(String kind, byte[] der) {
        String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + kind + "-----\n" + b64 + "\n-----END " + kind + "-----\n";
    }

    private String write(String text, String what) throws IOException {
        if (text.isEmpty()) {
            return null;
        }
        Path p;
        try {
            p = Files.createTempFile("a2a-core-" + what + "-", ".pem",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            p = Files.createTempFile("a2a-core-" + what + "-", ".pem");
        }
        files.add(p);
        Files.writeString(p, text, StandardCharsets.US_ASCII);
        return p.toString();
    }

    @Override
    public void close() {
        for (Path p : files) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // A temporary file the OS removes later; nothing secret stays readable by others.
            }
        }
        files.clear();
    }
}
