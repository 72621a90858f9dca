package anoncreds

import (
	"context"
	"strings"

	"github.com/proofgate/proofgate/internal/verify"
)

// Presentation attachment formats this verifier judges (RFC 0454; the
// present-proof 1.0 libindy attachment is judged as hlindy/proof@v2.0).
const (
	FormatIndyProof      = "hlindy/proof@v2.0"
	FormatAnonCredsProof = "anoncreds/proof@v1.0"
)

// maxCredentialsInVerdict caps the per-credential entries of a stored
// verdict (verify.Verdict must stay bounded).
const maxCredentialsInVerdict = 16

// FormatVerifier plugs the AnonCreds verifier into the verification seam
// (internal/verify).
type FormatVerifier struct {
	V *Verifier
}

var _ verify.Verifier = FormatVerifier{}

// Formats implements verify.Verifier.
func (FormatVerifier) Formats() []string { return []string{FormatIndyProof, FormatAnonCredsProof} }

// Verify implements verify.Verifier. A presentation is never an error,
// only a verdict.
func (f FormatVerifier) Verify(ctx context.Context, in verify.Input) (verify.Verdict, error) {
	v := f.V.Verify(ctx, in.Request, in.Presentation)
	out := verify.Verdict{
		Format:      in.Format,
		Verified:    v.Verified,
		Reason:      v.Reason,
		Detail:      verify.Truncate(strings.Join(v.Problems, "; "), verify.MaxDetail),
		Credentials: []verify.Credential{},
	}
	if v.Verified && v.Revocation == RevocationUnchecked && out.Reason == "" {
		// Accepted by configuration: say what was not checked.
		out.Detail = verify.Truncate("revocation unchecked: "+strings.Join(v.Problems, "; "), verify.MaxDetail)
	}
	for i, c := range v.Credentials {
		if i == maxCredentialsInVerdict {
			break
		}
		vc := verify.Credential{
			ID:         verify.Truncate(c.CredDefID, 200),
			Issuer:     verify.Truncate(c.IssuerID, 200),
			Signature:  c.Signature,
			Revocation: c.Revocation,
			Trusted:    true, // no trust list for AnonCreds issuers: restrictions decide
		}
		if vc.Signature == "" {
			vc.Signature = verify.Unchecked
		}
		if c.Signature == "failed" {
			vc.Signature = verify.Failed
			vc.Reason = verify.ReasonSignature
		}
		if c.Revocation == RevocationUnchecked && !v.Verified && v.Reason == verify.ReasonRevocationUnchecked {
			vc.Reason = verify.ReasonRevocationUnchecked
		}
		out.Credentials = append(out.Credentials, vc)
	}
	return out, nil
}
