package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"syscall"
)

// Coarse categories of a failed outbound delivery. They are what API
// callers and webhook receivers may see: they reveal neither the addresses
// a name resolved to nor anything of the operator's network. The full
// error belongs in the log.
const (
	CategoryNotPublic   = "endpoint-not-public"
	CategoryUnreachable = "unreachable"
	CategoryRefused     = "refused"
	CategoryTimeout     = "timeout"
	CategoryTLS         = "tls"
)

// Category returns the coarse category of a dial, TLS or request error.
func Category(err error) string {
	var (
		certErr  *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
		recErr   tls.RecordHeaderError
		alertErr tls.AlertError
		netErr   net.Error
	)
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return CategoryNotPublic
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return CategoryTimeout
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &hostErr),
		errors.As(err, &invalid), errors.As(err, &recErr), errors.As(err, &alertErr):
		return CategoryTLS
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return CategoryRefused
	case errors.As(err, &netErr) && netErr.Timeout():
		return CategoryTimeout
	}
	return CategoryUnreachable
}
