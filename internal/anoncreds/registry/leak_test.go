package registry

import (
	"context"
	"net"
	"strings"
	"testing"
)

// What a failed lookup says reaches the verdict's detail (anoncreds
// verify.go resolveProblem: "%v" of this error), and so the record's
// errorMessage and metadata.verification.detail that org API callers read.
// It must not carry the operator's agent URL or the addresses it dials.
func TestLookupErrorNamesNoInternals(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens: connection refused
	src, err := NewAgent(FlavorACAPy, "http://"+addr+"/internal-admin", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(0, src).CredentialDefinition(context.Background(), personDef)
	if err == nil {
		t.Fatal("resolved")
	}
	if strings.Contains(err.Error(), addr) || strings.Contains(err.Error(), "internal-admin") {
		t.Fatalf("the lookup error, copied into the verdict detail, names internals: %q", err)
	}
}
