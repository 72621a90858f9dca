package wallet

import (
	"context"
	"testing"
	"time"
)

// T is a Wallet for tests: the same methods, failing the test instead of
// returning errors, and the endpoint closed when the test ends.
type T struct {
	*Wallet
	tb testing.TB
}

// NewT makes a wallet for a test; messages the endpoint cannot take fail
// the test.
func NewT(tb testing.TB, opts Options) *T {
	tb.Helper()
	if opts.OnError == nil {
		opts.OnError = func(err error) { tb.Errorf("%v", err) }
	}
	w, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(w.Close)
	return &T{Wallet: w, tb: tb}
}

// ReadInvitation decodes a long invitation URL.
func (w *T) ReadInvitation(longURL string) *Invitation {
	w.tb.Helper()
	inv, err := ParseInvitation(longURL)
	if err != nil {
		w.tb.Fatal(err)
	}
	return inv
}

// Presentation builds a presentation message (Wallet.Presentation) with
// the wallet's ~service.
func (w *T) Presentation(inv *Invitation, payload any, opts PresentOptions) map[string]any {
	w.tb.Helper()
	m, err := w.Wallet.Presentation(inv, payload, opts)
	if err != nil {
		w.tb.Fatal(err)
	}
	return m
}

// Pack packs msg to the invitation's verifier key.
func (w *T) Pack(inv *Invitation, msg any, anon bool) []byte {
	w.tb.Helper()
	env, err := w.Wallet.Pack(inv, msg, anon)
	if err != nil {
		w.tb.Fatal(err)
	}
	return env
}

// PackTo packs msg to a base58 verkey.
func (w *T) PackTo(verkey string, msg any, anon bool) []byte {
	w.tb.Helper()
	env, err := w.Wallet.PackTo(verkey, msg, anon)
	if err != nil {
		w.tb.Fatal(err)
	}
	return env
}

// Present packs a presentation of payload and returns the envelope.
func (w *T) Present(inv *Invitation, payload any, anon bool) []byte {
	w.tb.Helper()
	return w.Pack(inv, w.Presentation(inv, payload, PresentOptions{}), anon)
}

// Next waits (10 s at most) for the next message the endpoint gets.
func (w *T) Next() Received {
	w.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := w.Wallet.Next(ctx)
	if err != nil {
		w.tb.Fatal(err)
	}
	return r
}

// None checks that the endpoint got nothing so far.
func (w *T) None() {
	w.tb.Helper()
	if r, ok := w.Poll(); ok {
		w.tb.Fatalf("the wallet received %s", r.Raw)
	}
}
