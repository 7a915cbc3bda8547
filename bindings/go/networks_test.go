package a2a

// Real networks through the Go client (issue 14): a private CA (CAFile), a client
// certificate, a CONNECT proxy with credentials, fixed resolutions and the total deadline,
// on 127.0.0.1 only. The test CA and certificates are made here with crypto/x509.

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type testPKI struct {
	dir    string
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	caPool *x509.CertPool
}

func newPKI(t *testing.T) *testPKI {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "a2a-core go CA " + t.Name()},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	p := &testPKI{dir: t.TempDir(), ca: ca, caKey: key, caPool: x509.NewCertPool()}
	p.caPool.AddCert(ca)
	p.write("ca.pem", "CERTIFICATE", der)
	return p
}

func (p *testPKI) write(name, kind string, der []byte) string {
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		panic(err)
	}
	return path
}

// leaf signs a certificate; it returns the tls.Certificate and the PEM files.
func (p *testPKI) leaf(t *testing.T, name string, client bool) (tls.Certificate, string, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	usage := x509.ExtKeyUsageServerAuth
	if client {
		usage = x509.ExtKeyUsageClientAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost", "agent.test"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalPKCS8PrivateKey(key)
	certFile := p.write(name+".pem", "CERTIFICATE", der)
	keyFile := p.write(name+".key", "PRIVATE KEY", kder)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, certFile, keyFile
}

// netAgent answers a 0.3 card naming itself, keep-alive comments on POST /sse, and a
// JSON-RPC message "pong" on any other POST.
func netAgent(t *testing.T, tlsConfig *tls.Config) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			base := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
			fmt.Fprintf(w, `{"protocolVersion":"0.3.0","name":"go-agent","description":"d","url":%q,"preferredTransport":"JSONRPC","version":"1","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, base+"/")
			return
		}
		body, _ := io.ReadAll(r.Body)
		if strings.HasPrefix(r.URL.Path, "/sse") {
			w.Header().Set("content-type", "text/event-stream")
			f, _ := w.(http.Flusher)
			for i := 0; i < 300; i++ { // at most 30 s
				if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
					return
				}
				f.Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &req)
		w.Header().Set("content-type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"message","messageId":"m1","role":"agent","parts":[{"kind":"text","text":"pong"}]}}`, req.ID)
	}))
	if tlsConfig != nil {
		srv.TLS = tlsConfig
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv
}

func localURL(srv *httptest.Server) string {
	return strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/"
}

func cardError(t *testing.T, err error) *Outcome {
	t.Helper()
	var ce *CardResolutionError
	if !errors.As(err, &ce) || ce.Outcome == nil {
		t.Fatalf("want a CardResolutionError with an outcome, got %v", err)
	}
	return ce.Outcome
}

func TestNetworksPrivateCAAndClientCertificate(t *testing.T) {
	p := newPKI(t)
	cert, _, _ := p.leaf(t, "agent", false)
	srv := netAgent(t, &tls.Config{Certificates: []tls.Certificate{cert}})
	cfg := DefaultClientConfig()
	cfg.ProxyDisabled = true
	_, err := NewClient(localURL(srv), &cfg)
	o := cardError(t, err)
	if o.Error != NameTLS || o.Reason == nil || *o.Reason != "unknown_issuer" || o.RequestSent != RequestSentNo {
		t.Fatalf("want Tls/unknown_issuer, got %+v", o)
	}
	cfg.CAFile = filepath.Join(p.dir, "ca.pem")
	c, err := NewClient(localURL(srv), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.SendText("ping", nil)
	if err != nil || r.Text == nil || *r.Text != "pong" {
		t.Fatalf("send: %+v %v", r, err)
	}

	// Mutual TLS.
	_, clientCert, clientKey := p.leaf(t, "client", true)
	msrv := netAgent(t, &tls.Config{Certificates: []tls.Certificate{cert},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.caPool})
	_, err = NewClient(localURL(msrv), &cfg)
	if o := cardError(t, err); o.Reason == nil || *o.Reason != "client_cert_refused" {
		t.Fatalf("want client_cert_refused, got %+v", o)
	}
	cfg.ClientCertFile, cfg.ClientKeyFile = clientCert, clientKey
	mc, err := NewClient(localURL(msrv), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	if r, err := mc.SendText("ping", nil); err != nil || r.Text == nil || *r.Text != "pong" {
		t.Fatalf("mTLS send: %+v %v", r, err)
	}
}

// connectProxy tunnels CONNECT requests, asking for Basic creds when given.
func connectProxy(t *testing.T, creds string) (string, func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var seen []string
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(30 * time.Second))
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				mu.Lock()
				seen = append(seen, req.Host)
				mu.Unlock()
				want := "Basic " + base64.StdEncoding.EncodeToString([]byte(creds))
				if creds != "" && req.Header.Get("Proxy-Authorization") != want {
					io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n")
					return
				}
				up, err := net.DialTimeout("tcp", req.Host, 5*time.Second)
				if err != nil {
					io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
					return
				}
				defer up.Close()
				io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
				go func() { _, _ = io.Copy(up, c); up.Close() }()
				_, _ = io.Copy(c, up)
			}(c)
		}
	}()
	return "127.0.0.1:" + fmt.Sprint(ln.Addr().(*net.TCPAddr).Port), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func TestNetworksConnectProxy(t *testing.T) {
	p := newPKI(t)
	cert, _, _ := p.leaf(t, "agent", false)
	srv := netAgent(t, &tls.Config{Certificates: []tls.Certificate{cert}})
	addr, seen := connectProxy(t, "user:secret")
	cfg := DefaultClientConfig()
	cfg.CAFile = filepath.Join(p.dir, "ca.pem")
	cfg.Proxy = "http://" + addr
	_, err := NewClient(localURL(srv), &cfg)
	o := cardError(t, err)
	if o.Error != NameProxy || o.Reason == nil || *o.Reason != "auth_required" || o.HTTPStatus != nil {
		t.Fatalf("want Proxy/auth_required, got %+v", o)
	}
	cfg.Proxy = "http://user:secret@" + addr
	c, err := NewClient(localURL(srv), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r, err := c.SendText("ping", nil); err != nil || r.Text == nil || *r.Text != "pong" {
		t.Fatalf("send via proxy: %+v %v", r, err)
	}
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, h := range seen() {
		if h != "localhost:"+port {
			t.Fatalf("CONNECT to %q, want localhost:%s", h, port)
		}
	}
}

func TestNetworksResolveAndMaxTime(t *testing.T) {
	srv := netAgent(t, nil)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	cfg := DefaultClientConfig()
	cfg.AllowHTTP, cfg.ProxyDisabled = true, true
	cfg.Resolve = []string{"agent.test:" + port + ":127.0.0.1"}
	cfg.MaxTime = 800 * time.Millisecond
	cfg.StreamResubscribeAttempts = 2
	c, err := NewClientWithTarget("http://agent.test:"+port+"/sse", V03, JSONRPC, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.StreamText("hello", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	for i := 0; i < 1000; i++ {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == StreamEventResubscribing {
			t.Fatal("resubscribed after the total deadline")
		}
		if ev.Kind == StreamEventEnd {
			if ev.Outcome.Error != NameTimeout || ev.Outcome.RequestSent != RequestSentUnknown {
				t.Fatalf("want Timeout/unknown, got %+v", ev.Outcome)
			}
			if d := time.Since(start); d < 700*time.Millisecond || d > 15*time.Second {
				t.Fatalf("ended after %v", d)
			}
			return
		}
	}
	t.Fatal("no end")
}
