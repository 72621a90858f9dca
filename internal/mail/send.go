package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/netguard"
	gomail "github.com/wneessen/go-mail"
)

// smtpSender opens one SMTP session per message (deliveries are rare and
// spread out; a pooled connection would mostly be a stale one).
type smtpSender struct {
	host     string
	port     int
	mode     string
	tls      *tls.Config
	username string
	password string
	timeout  time.Duration
}

func newSMTPSender(cfg Config) (*smtpSender, error) {
	host, portText, err := net.SplitHostPort(cfg.SMTP)
	if err != nil {
		return nil, fmt.Errorf("email: smtp: %w", err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("email: smtp: %w", err)
	}
	s := &smtpSender{
		host: host, port: port, mode: cfg.TLS,
		username: cfg.Username, password: cfg.Password,
		timeout: time.Duration(cfg.Timeout),
	}
	if cfg.TLS != TLSNone {
		if s.tls, err = cfg.tlsConfig(host); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// preferredAuth lists the SASL mechanisms tried, strongest first. PLAIN and
// LOGIN refuse to run over a connection that is neither TLS nor loopback.
var preferredAuth = []gomail.SMTPAuthType{
	gomail.SMTPAuthSCRAMSHA256, gomail.SMTPAuthSCRAMSHA1,
	gomail.SMTPAuthPlain, gomail.SMTPAuthLogin, gomail.SMTPAuthCramMD5,
}

// send runs one SMTP session for msg. The whole session, not just each
// command, is bounded by the timeout: the connection is closed when it ends.
func (s *smtpSender) send(msg *gomail.Msg) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	opts := []gomail.Option{
		gomail.WithPort(s.port),
		gomail.WithTimeout(s.timeout),
		gomail.WithDialContextFunc(s.dialer(ctx)),
	}
	opts = append(opts, gomail.WithTLSPolicy(s.tlsPolicy()))
	if s.tls != nil {
		opts = append(opts, gomail.WithTLSConfig(s.tls))
	}
	if s.username != "" {
		opts = append(opts,
			gomail.WithOpportunisticSMTPAuth(preferredAuth...),
			gomail.WithUsername(s.username),
			gomail.WithPassword(s.password))
	}
	client, err := gomail.NewClient(s.host, opts...)
	if err != nil {
		return err
	}
	return client.DialAndSendWithContext(ctx, msg)
}

// tlsPolicy is the STARTTLS policy of a session. SMTP AUTH is never sent
// in clear text to a server off the machine, whatever the tls mode: with
// credentials, opportunistic STARTTLS becomes mandatory unless the server
// is on loopback (mode none is only accepted for loopback at load).
func (s *smtpSender) tlsPolicy() gomail.TLSPolicy {
	switch s.mode {
	case TLSStartTLS:
		return gomail.TLSMandatory
	case TLSOpportunistic:
		if s.username != "" && !isLoopback(s.host) {
			return gomail.TLSMandatory
		}
		return gomail.TLSOpportunistic
	default: // implicit TLS is done by the dialer; none is none
		return gomail.NoTLS
	}
}

// maxSessionRead bounds what one SMTP session reads from the server: its
// replies to a handful of commands are a few kilobytes, and the client
// buffers a reply line whole, however long the server makes it.
const maxSessionRead = 1 << 20

// errSessionRead is the read error of a session past maxSessionRead.
var errSessionRead = fmt.Errorf("the server sent more than %d bytes of replies", maxSessionRead)

// dialer connects (with TLS at once in implicit mode) and ties the
// connection's life to ctx. What the session reads is capped at
// maxSessionRead, below TLS, so no server (nor whoever answers on its
// address) can make the client buffer an endless reply. Returning the
// *tls.Conn itself matters: it is how the SMTP client knows the session
// is encrypted before it sends a password.
func (s *smtpSender) dialer(session context.Context) gomail.DialContextFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		raw, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		var conn net.Conn = &limitedConn{Conn: raw, left: maxSessionRead}
		if s.mode == TLSImplicit {
			tc := tls.Client(conn, s.tls)
			if err := tc.HandshakeContext(ctx); err != nil {
				conn.Close()
				return nil, err
			}
			conn = tc
		}
		context.AfterFunc(session, func() { conn.Close() })
		return conn, nil
	}
}

// limitedConn is a connection whose reads fail once left bytes have been
// read. One session uses it from one goroutine at a time.
type limitedConn struct {
	net.Conn
	left int64
}

func (c *limitedConn) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errSessionRead
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.Conn.Read(p)
	c.left -= int64(n)
	return n, err
}

// attemptError is the outcome of a failed attempt.
type attemptError struct {
	// permanent: retrying cannot help (the server refused this message).
	permanent bool
	// text describes the failure without personal data, for the status.
	text string
	// err is the full error, for debug logs only (it can hold the address).
	err error
}

func (e *attemptError) Error() string { return e.text }

// classify turns a send error into an attemptError. Only replies about this
// message are permanent: a 5xx to RCPT TO or to the message data. Failures
// to connect, negotiate TLS or authenticate, and 5xx replies to MAIL FROM
// (the sender), are the server's or the configuration's, so they are
// retried up to max_attempts, in case an operator fixes them meanwhile.
func classify(err error) *attemptError {
	var se *gomail.SendError
	if errors.As(err, &se) {
		code := se.ErrorCode()
		text := se.Reason.String()
		if code != 0 {
			text += ": SMTP " + strconv.Itoa(code)
			if esc := se.EnhancedStatusCode(); esc != "" {
				text += " " + esc
			}
		} else if !se.IsTemp() {
			text += ": connection failed"
		}
		permanent := code >= 500 && code < 600
		switch se.Reason {
		case gomail.ErrSMTPMailFrom, gomail.ErrConnCheck, gomail.ErrSMTPReset:
			permanent = false
		case gomail.ErrGetSender, gomail.ErrGetRcpts, gomail.ErrNoUnencoded:
			permanent = true
		}
		return &attemptError{permanent: permanent, text: text, err: err}
	}
	// Before MAIL FROM: connect, greeting, TLS, AUTH.
	return &attemptError{text: sessionText(err), err: err}
}

// sessionText describes a failure before MAIL FROM for the message's
// status, which the proof record's metadata.email shows to the org's
// callers and webhooks: what went wrong, not where. Go's errors name the
// mail server's resolved address, the resolver, or the certificate's
// hosts; the full error goes to the debug log.
func sessionText(err error) string {
	var reply *textproto.Error
	switch {
	case errors.As(err, &reply):
		return "SMTP " + strconv.Itoa(reply.Code) // 535: authentication refused
	case strings.Contains(err.Error(), "does not support STARTTLS"):
		return "STARTTLS required, and not offered by the server"
	}
	category := netguard.Category(err)
	if category == netguard.CategoryTLS {
		return "tls: the handshake failed (the server's certificate is not trusted, or it speaks no TLS there)"
	}
	return "connection failed: " + category
}
