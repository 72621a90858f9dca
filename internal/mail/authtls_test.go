package mail

import (
	"testing"

	gomail "github.com/wneessen/go-mail"
)

// TestAuthNeverWithoutTLS: credentials turn opportunistic STARTTLS into
// mandatory STARTTLS for any server that is not on loopback, so a server
// (or a man in the middle) that does not offer STARTTLS never gets AUTH.
func TestAuthNeverWithoutTLS(t *testing.T) {
	for _, tc := range []struct {
		mode, host, user string
		want             gomail.TLSPolicy
	}{
		{TLSStartTLS, "smtp.example.com", "u", gomail.TLSMandatory},
		{TLSOpportunistic, "smtp.example.com", "", gomail.TLSOpportunistic},
		{TLSOpportunistic, "smtp.example.com", "u", gomail.TLSMandatory},
		{TLSOpportunistic, "192.0.2.25", "u", gomail.TLSMandatory},
		{TLSOpportunistic, "127.0.0.1", "u", gomail.TLSOpportunistic},
		{TLSOpportunistic, "localhost", "u", gomail.TLSOpportunistic},
		{TLSImplicit, "smtp.example.com", "u", gomail.NoTLS}, // TLS from the first byte
		{TLSNone, "127.0.0.1", "u", gomail.NoTLS},
	} {
		s := &smtpSender{mode: tc.mode, host: tc.host, username: tc.user}
		if got := s.tlsPolicy(); got != tc.want {
			t.Errorf("%s %s user=%q: policy %v, want %v", tc.mode, tc.host, tc.user, got, tc.want)
		}
	}
}
