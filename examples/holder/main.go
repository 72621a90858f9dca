// Command holder is a demo wallet: it answers one proof request of an
// invitation URL, so the quick start can go from a created request to an
// accepted one (done) without a mobile wallet.
//
//	go run ./examples/holder [--attr name=value ...] [--wait-ack 2m] <invitationUrl>
//
// An indy request is answered with self-attested values (attributes
// without restrictions; AnonCreds needs no credential for those). A
// presentationExchange request is answered with a credential the holder
// issues to its own did:key and signs (Ed25519Signature2018), in a
// presentation it signs with the request's challenge. Both are what a verifier that checks
// requests structurally accepts; they prove nothing about the holder, which
// is why a real verifier asks for credentials from issuers it trusts.
//
// With --wait-ack the holder keeps its DIDComm endpoint open on loopback
// and waits for the verifier's ack (sent when the presentation is
// accepted). The local verifier sends acks to loopback only with
// allow_private_endpoints (PROOFGATE_ALLOW_PRIVATE_ENDPOINTS=true for
// examples/Caddyfile).
//
// It is built on internal/testenv/wallet, the project's test wallet.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// attrs is the repeatable --attr name=value flag.
type attrs map[string]string

func (a attrs) String() string { return fmt.Sprint(map[string]string(a)) }

func (a attrs) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return errors.New("want name=value")
	}
	a[name] = value
	return nil
}

func run(args []string) int {
	fs := flag.NewFlagSet("holder", flag.ContinueOnError)
	values := attrs{}
	fs.Var(values, "attr", "a value to present, name=value (repeatable); others are \"demo\"")
	waitAck := fs.Duration("wait-ack", 0, "after presenting, wait this long for the verifier's ack (0: do not wait)")
	listen := fs.String("listen", "127.0.0.1:0", "address of the holder's DIDComm endpoint, with --wait-ack")
	timeout := fs.Duration("timeout", 30*time.Second, "limit for each HTTP request to the verifier")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./examples/holder [flags] <invitationUrl>")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := answer(ctx, fs.Arg(0), values, *waitAck, *listen, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 1
	}
	return 0
}

func say(format string, args ...any) { fmt.Printf("holder: "+format+"\n", args...) }

func answer(ctx context.Context, invitationURL string, values attrs, waitAck time.Duration, listen string, timeout time.Duration) error {
	client := &http.Client{Timeout: timeout}
	inv, err := wallet.ResolveInvitation(ctx, client, invitationURL)
	if err != nil {
		return fmt.Errorf("reading the invitation: %w", err)
	}
	label, _ := inv.Raw["label"].(string)
	comment, _ := inv.Request["comment"].(string)
	say("proof request from %q: %s", label, orNone(comment))

	w, err := wallet.New(wallet.Options{Listen: listen, NoEndpoint: waitAck <= 0})
	if err != nil {
		return err
	}
	defer w.Close()

	var payload any
	if inv.IsDIF() {
		payload, err = selfIssuedVP(ctx, inv, w, values)
	} else {
		payload, err = selfAttestedProof(inv, values)
	}
	if err != nil {
		return err
	}
	// Without --wait-ack the holder offers no endpoint: it will not be
	// there to take the ack.
	if err := w.Present(ctx, client, inv, payload, false); err != nil {
		return err
	}
	say("presentation sent to %s; the verifier's record is now presentation-received", inv.Endpoint)
	if waitAck <= 0 {
		return nil
	}

	say("waiting up to %s for the verifier's ack at %s (accept the presentation now)", waitAck, w.URL())
	wctx, cancel := context.WithTimeout(ctx, waitAck)
	defer cancel()
	for {
		msg, err := w.Next(wctx)
		if err != nil {
			return fmt.Errorf("no ack within %s; the verifier sends acks to a loopback holder only with allow_private_endpoints", waitAck)
		}
		switch msg.Type() {
		case wallet.TypeAckV2, wallet.TypeAckV1:
			say("ack received (status %v): the verifier accepted the presentation; its record is done", msg.Message["status"])
			return nil
		case wallet.TypeProblemReportV2, wallet.TypeProblemReportV1:
			return fmt.Errorf("the verifier refused the presentation: %v", msg.Message["description"])
		default:
			say("ignoring a %s message", msg.Type())
		}
	}
}

// selfAttestedProof answers an AnonCreds request with self-attested values.
// AnonCreds lets a prover self-attest only attributes without
// restrictions; anything else needs a credential the demo holder lacks.
func selfAttestedProof(inv *wallet.Invitation, values attrs) (any, error) {
	pr := inv.ProofRequest
	var cannot []string
	for ref, p := range pr.RequestedPredicates {
		cannot = append(cannot, fmt.Sprintf("predicate %q (%s %s %d)", ref, p.Name, p.PType, p.PValue))
	}
	attested := map[string]string{}
	var shown []string
	for ref, a := range pr.RequestedAttributes {
		switch {
		case len(a.Restrictions) > 0:
			cannot = append(cannot, fmt.Sprintf("attribute %q (%s) with restrictions", ref, a.Name))
		case len(a.Names) > 0:
			cannot = append(cannot, fmt.Sprintf("attribute group %q (%s)", ref, strings.Join(a.Names, ", ")))
		default:
			v, ok := values[a.Name]
			if !ok {
				v = "demo"
			}
			attested[ref] = v
			shown = append(shown, fmt.Sprintf("%s=%q", a.Name, v))
		}
	}
	if len(cannot) > 0 {
		sort.Strings(cannot)
		return nil, fmt.Errorf("the request asks for what only an issued credential can prove, which the demo holder has none of: %s; ask for attributes without restrictions (self-attested), or use a real wallet", strings.Join(cannot, "; "))
	}
	sort.Strings(shown)
	// With no credential there are no sub proofs and no commitments: the
	// aggregated proof's challenge is the hash of the request's nonce
	// alone, as the AnonCreds reference computes it for such a proof.
	nonce, ok := new(big.Int).SetString(pr.Nonce, 10)
	if !ok {
		return nil, fmt.Errorf("the proof request's nonce %q is not a decimal number", pr.Nonce)
	}
	sum := sha256.Sum256(nonce.Bytes())
	say("answering with self-attested %s", strings.Join(shown, ", "))
	return map[string]any{
		"proof": map[string]any{"proofs": []any{}, "aggregated_proof": map[string]any{
			"c_hash": new(big.Int).SetBytes(sum[:]).String(), "c_list": []any{}}},
		"requested_proof": map[string]any{
			"revealed_attrs":       map[string]any{},
			"revealed_attr_groups": map[string]any{},
			"self_attested_attrs":  attested,
			"unrevealed_attrs":     map[string]any{},
			"predicates":           map[string]any{},
		},
		"identifiers": []any{},
	}, nil
}

// selfIssuedVP answers a presentation definition with one credential per
// input descriptor that the holder issues about itself (its did:key) and
// signs (Ed25519Signature2018), in a presentation it signs with the
// request's challenge.
func selfIssuedVP(ctx context.Context, inv *wallet.Invitation, w *wallet.Wallet, values attrs) (any, error) {
	claims := map[string]any{}
	for k, v := range values {
		claims[k] = v
	}
	h := w.Holder()
	vp, err := h.Present(ctx, inv, claims)
	if err != nil {
		return nil, err
	}
	creds, _ := vp["verifiableCredential"].([]any)
	say("answering with %d credential(s) it issued and signed itself (%s)", len(creds), h.DID)
	return vp, nil
}

func orNone(s string) string {
	if s == "" {
		return "(no comment)"
	}
	return s
}
