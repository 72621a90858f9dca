package agent

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	_ "github.com/caddyserver/caddy/v2/modules/caddytls"
)

// testCA issues certificates for the TLS test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a leaf certificate and its key, PEM encoded.
func (ca *testCA) issue(t *testing.T, serial int64, usage x509.ExtKeyUsage, ips ...net.IP) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "leaf"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// TestTLSToTheAgent: an agent behind mutual TLS is reached with Caddy's
// own transport settings (trust pool, client certificate), and refused
// without them.
func TestTLSToTheAgent(t *testing.T) {
	ca := newTestCA(t)
	serverCert, serverKey := ca.issue(t, 2, x509.ExtKeyUsageServerAuth, net.ParseIP("127.0.0.1"))
	clientCert, clientKey := ca.issue(t, 3, x509.ExtKeyUsageClientAuth)
	pair, err := tls.X509KeyPair(serverCert, serverKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"client": r.TLS.PeerCertificates[0].Subject.CommonName})
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}
	srv.StartTLS()
	defer srv.Close()

	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caFile, certFile, keyFile := write("ca.pem", ca.pem), write("client.pem", clientCert), write("client.key", clientKey)

	call := func(t *testing.T, tlsCfg *reverseproxy.TLSConfig) error {
		t.Helper()
		cfg := Config{URL: srv.URL, Transport: &reverseproxy.HTTPTransport{TLS: tlsCfg}}
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		defer cancel()
		if err := cfg.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		defer cfg.Cleanup()
		c := NewClient(cfg.Base(), cfg.Transport, 5*time.Second, 0, nil)
		resp, err := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/status", Idempotent: true})
		if err != nil {
			return err
		}
		if resp.Status != 200 || string(resp.Body) != "{\"client\":\"leaf\"}\n" {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		return nil
	}
	caRaw := json.RawMessage(`{"provider":"file","pem_files":["` + caFile + `"]}`)

	t.Run("trusted, with client certificate", func(t *testing.T) {
		if err := call(t, &reverseproxy.TLSConfig{CARaw: caRaw, ClientCertificateFile: certFile, ClientCertificateKeyFile: keyFile}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("server not trusted", func(t *testing.T) {
		if err := call(t, &reverseproxy.TLSConfig{ClientCertificateFile: certFile, ClientCertificateKeyFile: keyFile}); err == nil {
			t.Fatal("an untrusted agent certificate was accepted")
		}
	})
	t.Run("no client certificate", func(t *testing.T) {
		if err := call(t, &reverseproxy.TLSConfig{CARaw: caRaw}); err == nil {
			t.Fatal("the agent's mutual TLS was passed without a client certificate")
		}
	})
}
