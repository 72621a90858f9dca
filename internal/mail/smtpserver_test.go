package mail

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// testServer is a real SMTP server (emersion/go-smtp) on 127.0.0.1 that
// records what it accepts and answers as the test tells it to.
type testServer struct {
	addr string
	srv  *smtp.Server

	// Behaviour, set before the first session.
	// rcpt, if set, answers RCPT TO; n counts RCPT TOs for that address, from 1.
	rcpt func(to string, n int) error
	// mail and data, if set, answer MAIL FROM and the end of DATA; n counts
	// the calls, from 1.
	mail, data func(n int) error
	// users, if set, requires AUTH PLAIN with one of these credentials.
	users map[string]string

	mu       sync.Mutex
	rcptSeen map[string]int
	mailSeen int
	dataSeen int
	msgs     []received
	got      chan received
}

type received struct {
	From string
	To   []string
	User string // authenticated user, if any
	TLS  bool
	Data []byte
}

type serverOptions struct {
	tls      *tls.Config // enables STARTTLS (or implicit TLS with implicit)
	implicit bool
	addr     string // default 127.0.0.1:0
	rcpt     func(to string, n int) error
	mail     func(n int) error
	data     func(n int) error
	users    map[string]string
}

func startServer(t *testing.T, o serverOptions) *testServer {
	t.Helper()
	ts := &testServer{rcpt: o.rcpt, mail: o.mail, data: o.data, users: o.users, rcptSeen: map[string]int{}, got: make(chan received, 100)}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		_, isTLS := c.TLSConnectionState()
		return &testSession{ts: ts, tls: isTLS, conn: c}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout = 30 * time.Second
	srv.WriteTimeout = 30 * time.Second
	srv.MaxMessageBytes = 1 << 20
	srv.MaxRecipients = 10
	srv.TLSConfig = o.tls
	addr := o.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var ln net.Listener
	var err error
	// A just-freed port may linger briefly; retry the listen for a while.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if o.implicit {
			ln, err = tls.Listen("tcp", addr, o.tls)
		} else {
			ln, err = net.Listen("tcp", addr)
		}
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = ln.Addr().String()
	ts.srv = srv
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ts
}

func (ts *testServer) messages() []received {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]received(nil), ts.msgs...)
}

// wait returns the next accepted message.
func (ts *testServer) wait(t *testing.T) received {
	t.Helper()
	select {
	case r := <-ts.got:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no message reached the SMTP server")
		return received{}
	}
}

type testSession struct {
	ts   *testServer
	tls  bool
	conn *smtp.Conn
	user string
	from string
	to   []string
}

func (s *testSession) AuthMechanisms() []string {
	if s.ts.users == nil {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *testSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if want, ok := s.ts.users[username]; !ok || want != password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		s.user = username
		return nil
	}), nil
}

func (s *testSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.ts.users != nil && s.user == "" {
		return smtp.ErrAuthRequired
	}
	s.ts.mu.Lock()
	s.ts.mailSeen++
	n := s.ts.mailSeen
	s.ts.mu.Unlock()
	if s.ts.mail != nil {
		if err := s.ts.mail(n); err != nil {
			return err
		}
	}
	s.from = from
	return nil
}

func (s *testSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.ts.mu.Lock()
	s.ts.rcptSeen[to]++
	n := s.ts.rcptSeen[to]
	s.ts.mu.Unlock()
	if s.ts.rcpt != nil {
		if err := s.ts.rcpt(to, n); err != nil {
			return err
		}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *testSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.ts.mu.Lock()
	s.ts.dataSeen++
	n := s.ts.dataSeen
	s.ts.mu.Unlock()
	if s.ts.data != nil {
		if err := s.ts.data(n); err != nil {
			return err
		}
	}
	_, isTLS := s.conn.TLSConnectionState()
	m := received{From: s.from, To: s.to, User: s.user, TLS: isTLS || s.tls, Data: b}
	s.ts.mu.Lock()
	s.ts.msgs = append(s.ts.msgs, m)
	s.ts.mu.Unlock()
	s.ts.got <- m
	return nil
}

func (s *testSession) Reset()        { s.from, s.to = "", nil }
func (s *testSession) Logout() error { return nil }

func smtpErr(code int, enhanced smtp.EnhancedCode, msg string) error {
	return &smtp.SMTPError{Code: code, EnhancedCode: enhanced, Message: msg}
}

// testCert makes a self-signed CA certificate for 127.0.0.1 and writes it
// to a PEM file, for the client's ca_file.
func testCert(t *testing.T) (*tls.Config, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "proofgate test SMTP"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, file
}

// freeAddr returns a loopback address nothing listens on (yet).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		t.Fatal(err)
	}
	return addr
}
