package dev.a2acore.a2ajava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.a2acore.A2aClient;
import dev.a2acore.CardResolutionException;
import dev.a2acore.ErrorName;
import dev.a2acore.MachineTarget;
import io.a2a.client.http.A2AHttpResponse;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real networks through Java (issue 14): the drop-in hands the JVM's trust store and proxy
 * choice to the native client, and the a2a-core client's builder takes a CA file and a
 * proxy. The test CA and the agent's certificate are made by the JDK's keytool; the agent is
 * the JDK's HttpsServer; the CONNECT proxy is a plain socket loop. Loopback only.
 */
class JvmNetworkTest {
    private static final String PW = "changeit";
    @TempDir
    static Path dir;
    private static HttpsServer agent;
    private static String url;

    private static void keytool(String... args) throws Exception {
        String bin = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        List<String> cmd = new java.util.ArrayList<>(List.of(bin));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool finished");
        assertEquals(0, p.exitValue(), "keytool " + String.join(" ", args) + ": " + out);
    }

    @BeforeAll
    static void start() throws Exception {
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
            "CN=a2a-core java CA", "-ext", "bc:c", "-validity", "2", "-keystore", "ca.p12", "-storepass", PW);
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-storepass", PW, "-file", "ca.pem");
        keytool("-genkeypair", "-alias", "agent", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
            "CN=localhost", "-validity", "2", "-keystore", "agent.p12", "-storepass", PW);
        keytool("-certreq", "-alias", "agent", "-keystore", "agent.p12", "-storepass", PW, "-file", "agent.csr");
        keytool("-gencert", "-alias", "ca", "-keystore", "ca.p12", "-storepass", PW, "-infile", "agent.csr",
            "-outfile", "agent.cer", "-rfc", "-validity", "2", "-ext", "san=dns:localhost,ip:127.0.0.1",
            "-ext", "eku=serverAuth");
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "agent.p12",
            "-storepass", PW);
        keytool("-importcert", "-alias", "agent", "-file", "agent.cer", "-keystore", "agent.p12", "-storepass", PW);
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "trust.p12",
            "-storepass", PW);
        // A client certificate from the same CA, in a key store of its own.
        keytool("-genkeypair", "-alias", "client", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
            "CN=client", "-validity", "2", "-keystore", "client.p12", "-storepass", PW);
        keytool("-certreq", "-alias", "client", "-keystore", "client.p12", "-storepass", PW, "-file", "client.csr");
        keytool("-gencert", "-alias", "ca", "-keystore", "ca.p12", "-storepass", PW, "-infile", "client.csr",
            "-outfile", "client.cer", "-rfc", "-validity", "2", "-ext", "eku=clientAuth");
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "client.p12",
            "-storepass", PW);
        keytool("-importcert", "-alias", "client", "-file", "client.cer", "-keystore", "client.p12",
            "-storepass", PW);

        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("agent.p12"))) {
            ks.load(in, PW.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PW.toCharArray());
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf.getKeyManagers(), null, null);
        agent = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        agent.setHttpsConfigurator(new HttpsConfigurator(ssl));
        agent.createContext("/", ex -> {
            String base = "https://localhost:" + agent.getAddress().getPort();
            byte[] body = ("{\"protocolVersion\":\"0.3.0\",\"name\":\"java-agent\",\"description\":\"d\",\"url\":\"" + base
                + "/\",\"preferredTransport\":\"JSONRPC\",\"version\":\"1\",\"capabilities\":{},"
                + "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}")
                .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("content-type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(body);
            }
        });
        agent.start();
        url = "https://localhost:" + agent.getAddress().getPort() + "/";
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.stop(0);
        }
    }

    @Test
    void theDropInTrustsTheJvmTrustStore() throws Exception {
        String before = System.getProperty("javax.net.ssl.trustStore");
        try {
            // The JVM's default cacerts does not know the test CA: a TLS failure, the JDK's words
            // (the card's GET is the JDK's HttpClient's: no rustls reason such as unknown_issuer).
            System.clearProperty("javax.net.ssl.trustStore");
            A2aCallException e = assertThrows(A2aCallException.class,
                () -> A2aCoreHttpClient.builder().build().createGet().url(url).get());
            assertEquals(ErrorName.TLS, e.errorName());
            assertTrue(e.outcome().message().orElse("").contains("certification path"), e.getMessage());
            // javax.net.ssl.trustStore naming a store with the test CA: trusted.
            System.setProperty("javax.net.ssl.trustStore", dir.resolve("trust.p12").toString());
            System.setProperty("javax.net.ssl.trustStorePassword", PW);
            System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
            A2AHttpResponse r = A2aCoreHttpClient.builder().build().createGet().url(url).get();
            assertEquals(200, r.status());
            assertTrue(r.body().contains("java-agent"));
        } finally {
            if (before == null) {
                System.clearProperty("javax.net.ssl.trustStore");
            } else {
                System.setProperty("javax.net.ssl.trustStore", before);
            }
            System.clearProperty("javax.net.ssl.trustStorePassword");
            System.clearProperty("javax.net.ssl.trustStoreType");
        }
    }

    @Test
    void theDropInPresentsTheJvmKeyStoreCertificate() throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("agent.p12"))) {
            ks.load(in, PW.toCharArray());
        }
        KeyStore ts = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("trust.p12"))) {
            ts.load(in, PW.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PW.toCharArray());
        javax.net.ssl.TrustManagerFactory tmf =
            javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        HttpsServer mtls = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        mtls.setHttpsConfigurator(new HttpsConfigurator(ssl) {
            @Override
            public void configure(com.sun.net.httpserver.HttpsParameters params) {
                javax.net.ssl.SSLParameters p = getSSLContext().getDefaultSSLParameters();
                p.setNeedClientAuth(true);
                params.setSSLParameters(p);
            }
        });
        mtls.createContext("/", ex -> {
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(body);
            }
        });
        mtls.start();
        String murl = "https://localhost:" + mtls.getAddress().getPort() + "/";
        try {
            System.setProperty("javax.net.ssl.trustStore", dir.resolve("trust.p12").toString());
            System.setProperty("javax.net.ssl.trustStorePassword", PW);
            System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
            // Without a key store the JDK server ends the TLS 1.3 session (it closes without an
            // alert the client gets to read, so this one is a reset rather than
            // client_cert_refused, which the Rust, Python and Go tests see from rustls, OpenSSL
            // and Go servers).
            assertThrows(A2aCallException.class,
                () -> A2aCoreHttpClient.builder().build().createGet().url(murl).get());
            System.setProperty("javax.net.ssl.keyStore", dir.resolve("client.p12").toString());
            System.setProperty("javax.net.ssl.keyStorePassword", PW);
            System.setProperty("javax.net.ssl.keyStoreType", "PKCS12");
            assertEquals(200, A2aCoreHttpClient.builder().build().createGet().url(murl).get().status());
        } finally {
            mtls.stop(0);
            for (String k : List.of("trustStore", "trustStorePassword", "trustStoreType", "keyStore",
                "keyStorePassword", "keyStoreType")) {
                System.clearProperty("javax.net.ssl." + k);
            }
        }
    }

    @Test
    void theDropInTakesANetworkOfPemFiles() throws Exception {
        // Builder.network: its CA file (PEM) is the trust of both the native transport and the
        // java.net.http client the card's GET goes out on; proxy "" is no proxy.
        MachineTarget.Network n = new MachineTarget.Network(dir.resolve("ca.pem").toString(), null, null, "", null);
        A2AHttpResponse r = A2aCoreHttpClient.builder().network(n).build().createGet().url(url).get();
        assertEquals(200, r.status());
        assertTrue(r.body().contains("java-agent"));
        // A CA file that is not the agent's issuer: refused (the agent's own certificate is no CA).
        MachineTarget.Network other = new MachineTarget.Network(dir.resolve("client.cer").toString(), null, null, "",
            null);
        A2aCallException e = assertThrows(A2aCallException.class,
            () -> A2aCoreHttpClient.builder().network(other).build().createGet().url(url).get());
        assertEquals(ErrorName.TLS, e.errorName());
    }

    @Test
    void theDropInUsesTheJvmProxySelector() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (ServerSocket proxy = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> tunnel(proxy, seen));
            t.setDaemon(true);
            t.start();
            ProxySelector before = ProxySelector.getDefault();
            try {
                ProxySelector.setDefault(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.getLocalPort())));
                MachineTarget.Network n;
                try (JvmNetwork jvm = JvmNetwork.current()) {
                    n = jvm.network;
                    assertEquals("http://127.0.0.1:" + proxy.getLocalPort(), n.proxy());
                    assertTrue(Files.readString(Path.of(n.caFile())).contains("BEGIN CERTIFICATE"));
                }
                assertFalse(Files.exists(Path.of(n.caFile())), "the temporary CA file is gone");
                // The card request goes through the proxy's tunnel (the test CA is unknown to the
                // JVM's cacerts, so the handshake after the tunnel fails: the tunnel was used).
                assertThrows(A2aCallException.class,
                    () -> A2aCoreHttpClient.builder().build().createGet().url(url).get());
                assertEquals(List.of("localhost:" + agent.getAddress().getPort()), seen);
            } finally {
                ProxySelector.setDefault(before);
            }
        }
        assertEquals(".corp.example,localhost", JvmNetwork.noProxyList("*.corp.example|localhost|10.*"));
        assertNull(JvmNetwork.noProxyList(null));
    }

    @Test
    void theClientBuilderTakesACaFileAndAProxy() throws Exception {
        CardResolutionException e = assertThrows(CardResolutionException.class,
            () -> A2aClient.builder(url).proxy("").build());
        assertEquals("unknown_issuer", e.outcome().reason().orElseThrow());
        try (A2aClient c = A2aClient.builder(url).proxy("").caFile(dir.resolve("ca.pem").toString())
            .maxTime(Duration.ofSeconds(20)).build()) {
            assertTrue(c != null);
        }
    }

    /** Answers one CONNECT with 200 and pipes both ways (enough for one TLS attempt). */
    private static void tunnel(ServerSocket proxy, List<String> seen) {
        try (Socket c = proxy.accept()) {
            c.setSoTimeout(10_000);
            BufferedReader in = new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.ISO_8859_1));
            String line = in.readLine();
            seen.add(line.split(" ")[1]);
            while (line != null && !line.isEmpty()) {
                line = in.readLine();
            }
            String[] hp = seen.get(0).split(":");
            try (Socket up = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(hp[1]))) {
                c.getOutputStream().write("HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                Thread back = new Thread(() -> {
                    try {
                        up.getInputStream().transferTo(c.getOutputStream());
                    } catch (Exception ignored) {
                        // The client closed.
                    }
                });
                back.setDaemon(true);
                back.start();
                c.getInputStream().transferTo(up.getOutputStream());
            }
        } catch (Exception ignored) {
            // The test checks what was seen.
        }
    }
}
