package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/emersion/go-smtp"

	"github.com/proofgate/proofgate/internal/proofs"
)

// smtpSink is a real SMTP server (emersion/go-smtp) on 127.0.0.1 that keeps
// what it is sent. While refuse is set it answers 451 (try again later).
type smtpSink struct {
	addr string
	mu   sync.Mutex
	msgs map[string][]byte // recipient → message
	got  chan string
	// refuse makes the server answer 451 to every RCPT TO; refused counts
	// those answers.
	refuse  bool
	refused int
}

func startSMTP(t *testing.T) *smtpSink {
	t.Helper()
	s := &smtpSink{msgs: map[string][]byte{}, got: make(chan string, 100)}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &sinkSession{s: s}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

func (s *smtpSink) setRefuse(v bool) { s.mu.Lock(); s.refuse = v; s.mu.Unlock() }

// wait returns the message delivered to rcpt, waiting for it.
func (s *smtpSink) wait(t *testing.T, rcpt string) []byte {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		s.mu.Lock()
		m, ok := s.msgs[rcpt]
		s.mu.Unlock()
		if ok {
			return m
		}
		select {
		case <-s.got:
		case <-deadline:
			t.Fatalf("no mail for %s", rcpt)
		}
	}
}

type sinkSession struct {
	s  *smtpSink
	to []string
}

func (x *sinkSession) AuthMechanisms() []string             { return nil }
func (x *sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (x *sinkSession) Reset()                               { x.to = nil }
func (x *sinkSession) Logout() error                        { return nil }
func (x *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	if x.s.refuse {
		x.s.refused++
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	x.to = append(x.to, to)
	return nil
}
func (x *sinkSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	for _, to := range x.to {
		x.s.msgs[to] = b
	}
	x.s.mu.Unlock()
	for _, to := range x.to {
		x.s.got <- to
	}
	return nil
}

func emailBlock(s *smtpSink) string {
	return `email {
			smtp ` + s.addr + `
			tls none
			from "Example Verifier <noreply@verifier.example>"
			retry_backoff 1s
		}`
}

// TestEmailRecipients: one proof request per recipient, each mailed with
// its invitation URL (and QR code), the outcome noted on the record.
func TestEmailRecipients(t *testing.T) {
	sink := startSMTP(t)
	_, dir := startCaddy(t, emailBlock(sink))
	sentBefore := metricValue(t, `caddy_proofgate_mail_attempts_total{outcome="sent"}`)
	body := strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":true,"emailId":["alice@example.com","Bob@Example.com"]`, 1)
	r := postJSON(t, oobPath(orgA, "indy"), keyA, body)
	if r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var env struct {
		Data struct {
			Recipients []struct {
				Email, ProofRecordID, ProofRecordThID, InvitationURL, EmailStatus string
			} `json:"recipients"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatal(err)
	}
	recips := env.Data.Recipients
	if len(recips) != 2 || recips[0].ProofRecordID == recips[1].ProofRecordID || recips[0].EmailStatus != "queued" {
		t.Fatalf("recipients %+v", recips)
	}
	svc, err := proofs.New(&certmagic.FileStorage{Path: dir}, proofs.Config{PublicURL: base, Endpoint: base + "/didcomm"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for _, rc := range recips {
		raw := sink.wait(t, rc.Email)
		msg, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msg.Header.Get("To"), rc.Email) || !strings.Contains(msg.Header.Get("From"), "noreply@verifier.example") {
			t.Fatalf("headers %v", msg.Header)
		}
		if !strings.HasPrefix(rc.InvitationURL, base+"/url/") || !bytes.Contains(raw, []byte(rc.InvitationURL)) {
			t.Fatalf("mail to %s does not carry %s", rc.Email, rc.InvitationURL)
		}
		if !bytes.Contains(raw, []byte("image/png")) {
			t.Fatal("no QR code")
		}
		// The outcome reaches the record's metadata.
		deadline := time.Now().Add(30 * time.Second)
		for {
			rec, err := svc.LoadRecord(context.Background(), rc.ProofRecordID)
			if err != nil {
				t.Fatal(err)
			}
			if e, ok := rec.Metadata["email"].(map[string]any); ok && e["state"] == "sent" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("record metadata %v", rec.Metadata)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if sent := metricValue(t, `caddy_proofgate_mail_attempts_total{outcome="sent"}`) - sentBefore; sent != 2 {
		t.Fatalf("%v mails counted as sent, want 2", sent)
	}
}

// TestEmailSurvivesMailServerTrouble: with the mail server refusing, the
// request still succeeds (mails are queued), and the mail arrives once the
// server accepts again.
func TestEmailSurvivesMailServerTrouble(t *testing.T) {
	sink := startSMTP(t)
	sink.setRefuse(true)
	startCaddy(t, emailBlock(sink))
	body := strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":false,"emailId":["carol@example.com"]`, 1)
	if r := postJSON(t, oobPath(orgA, "indy"), keyA, body); r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		sink.mu.Lock()
		refused := sink.refused
		sink.mu.Unlock()
		if refused > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no delivery was attempted")
		}
	}
	sink.setRefuse(false)
	sink.wait(t, "carol@example.com")
}

func TestEmailWithoutEmailBlock(t *testing.T) {
	startCaddy(t, "")
	body := strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":false,"emailId":["dave@example.com"]`, 1)
	r := postJSON(t, oobPath(orgA, "indy"), keyA, body)
	if r.status != 400 || !strings.Contains(string(r.body), "emailId: e-mail delivery is not configured") {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// TestEmailQueueFailureLeavesNothing breaks the outbox storage: the request
// fails with 503, and the records and short URLs made for it are gone.
func TestEmailQueueFailureLeavesNothing(t *testing.T) {
	sink := startSMTP(t)
	_, dir := startCaddy(t, emailBlock(sink))
	if err := os.MkdirAll(filepath.Join(dir, "proofgate"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proofgate", "outbox"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":true,"emailId":["erin@example.com","frank@example.com"]`, 1)
	wantBody(t, postJSON(t, oobPath(orgA, "indy"), keyA, body), http.StatusServiceUnavailable, "")
	if left := storedRecords(t, dir); len(left) != 0 {
		t.Fatalf("%d records left behind", len(left))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "proofgate", "shorturls", "*")); len(left) != 0 {
		t.Fatalf("short URLs left behind: %v", left)
	}
}

// TestEmailDelivererSurvivesReload queues a mail while the server refuses,
// reloads the config, and the mail still arrives (the deliverer and its
// queue outlive the old config).
func TestEmailDelivererSurvivesReload(t *testing.T) {
	sink := startSMTP(t)
	sink.setRefuse(true)
	tester, dir := startCaddy(t, emailBlock(sink))
	body := strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":false,"emailId":["grace@example.com"]`, 1)
	if r := postJSON(t, oobPath(orgA, "indy"), keyA, body); r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	tester.InitServer(globalOptions(dir)+proofgateSite(emailBlock(sink)+"\n\t\tshort_url_ttl 1h"), "caddyfile")
	settle(t)
	sink.setRefuse(false)
	sink.wait(t, "grace@example.com")
}
