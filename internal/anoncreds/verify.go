package anoncreds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"

	"github.com/proofgate/proofgate/internal/anoncreds/cl"
	"github.com/proofgate/proofgate/internal/anoncreds/names"
	"github.com/proofgate/proofgate/internal/verify"
)

// Verifier verifies AnonCreds v1 presentations against the presentation
// request they answer, following the specification's "Verify
// Presentation" with anoncreds-rs as the cross-check.
type Verifier struct {
	// Resolver finds the schemas and credential definitions the
	// presentation's identifiers name.
	Resolver Resolver
	// AcceptUncheckedRevocation lets a presentation whose credentials
	// should prove non-revocation but carry no non-revocation proof
	// verify on its CL proof alone, with revocation "unchecked" in the
	// verdict. Without it such a presentation is refused, as the reference
	// refuses it. (A non-revocation proof that is present can never be
	// accepted unchecked: the CL challenge covers its pairing commitments,
	// so without them nothing of the proof can be checked.)
	AcceptUncheckedRevocation bool
}

var predicateTypes = map[string]cl.PredicateType{">=": cl.GE, ">": cl.GT, "<=": cl.LE, "<": cl.LT}

// Verify checks a presentation (JSON) against its request (JSON).
func (v *Verifier) Verify(ctx context.Context, requestJSON, presentationJSON []byte) Verdict {
	verdict := Verdict{Revocation: RevocationNotRequested}
	fail := func(reason, format string, args ...any) Verdict {
		verdict.Verified = false
		verdict.Reason = reason
		verdict.Problems = append(verdict.Problems, fmt.Sprintf(format, args...))
		return verdict
	}
	failAll := func(problems []problem) Verdict {
		verdict.Reason = problems[0].reason
		for _, p := range problems {
			verdict.Problems = append(verdict.Problems, p.text)
		}
		return verdict
	}
	var req Request
	if err := json.Unmarshal(requestJSON, &req); err != nil {
		return fail(verify.ReasonMalformed, "the presentation request cannot be read: %v", err)
	}
	nonce, ok := new(big.Int).SetString(req.Nonce, 10)
	if !ok || nonce.Sign() < 0 || nonce.BitLen() > 256 {
		return fail(verify.ReasonMalformed, "the presentation request's nonce is not a decimal number")
	}
	if err := checkShape(presentationJSON); err != nil {
		return fail(verify.ReasonMalformed, "%v", err)
	}
	var pres Presentation
	if err := json.Unmarshal(presentationJSON, &pres); err != nil {
		return fail(verify.ReasonMalformed, "the presentation cannot be read: %v", err)
	}
	if len(pres.Identifiers) > cl.MaxSubProofs {
		return fail(verify.ReasonLimits, "the presentation names %d credentials (identifiers); at most %d are taken", len(pres.Identifiers), cl.MaxSubProofs)
	}
	proof, err := cl.ParseProof(pres.Proof)
	if err != nil {
		return fail(verify.ReasonMalformed, "%v", err)
	}
	if len(proof.Sub) != len(pres.Identifiers) {
		return fail(verify.ReasonMalformed, "the proof has %d sub proofs for %d identifiers", len(proof.Sub), len(pres.Identifiers))
	}

	// 1. Every referent answered, nothing else, each from a credential
	//    of the presentation; revealed values those of the proof.
	if problems := checkStructure(&req, &pres, proof); len(problems) > 0 {
		return failAll(problems)
	}
	// A prover proves the predicates it was asked; more predicate proofs
	// would only be work for us.
	geProofs := 0
	for _, sp := range proof.Sub {
		geProofs += len(sp.GE)
	}
	if geProofs > len(req.RequestedPredicates) {
		return fail(verify.ReasonLimits, "the proof has %d predicate proofs for %d requested predicates", geProofs, len(req.RequestedPredicates))
	}
	// Every sub proof answers a referent. One that answers none proves
	// nothing the request asks, yet its CL proof costs as much as any
	// (a hostile one the most its sizes allow): refused before the
	// registry is asked and before any CL math. The reference's prover
	// puts in only the credentials its referents need; the reference's
	// verifier checks such a sub proof like the others.
	if i := unusedSubProof(&pres); i >= 0 {
		return fail(verify.ReasonLimits, "sub proof %d (%s) answers no referent of the request", i, pres.Identifiers[i].CredDefID)
	}

	// 2. The credentials: schema and definition of each, from the
	//    registry.
	facts := make([]*credFacts, len(pres.Identifiers))
	creds := make([]cl.Credential, len(pres.Identifiers))
	for i, id := range pres.Identifiers {
		def, err := v.Resolver.CredentialDefinition(ctx, id.CredDefID)
		if err != nil {
			return fail(resolveReason(err, verify.ReasonUnknownCredDef), "%s", resolveProblem("credential definition", id.CredDefID, err))
		}
		schema, err := v.Resolver.Schema(ctx, id.SchemaID)
		if err != nil {
			return fail(resolveReason(err, verify.ReasonUnknownCredDef), "%s", resolveProblem("schema", id.SchemaID, err))
		}
		// ParseCredentialDefinition requires schemaId; a Resolver that
		// builds definitions otherwise is held to it here.
		if def.SchemaID == "" {
			return fail(verify.ReasonUnsupported, "credential %d: credential definition %s names no schema (schemaId), so nothing ties the credential to schema %s", i, id.CredDefID, id.SchemaID)
		}
		if !isDigits(def.SchemaID) && def.SchemaID != id.SchemaID {
			return fail(verify.ReasonRestriction, "credential %d: credential definition %s is for schema %s, not %s", i, id.CredDefID, def.SchemaID, id.SchemaID)
		}
		// A legacy definition names its schema by ledger sequence number:
		// compared when the schema's document gives its own. (Without it,
		// keyFitsSchema below still holds the schema to the definition's
		// attributes, and no restriction on the schema is met:
		// credFacts.schemaUnconfirmed.)
		if isDigits(def.SchemaID) && schema.SeqNo != 0 && !sameSeqNo(def.SchemaID, schema.SeqNo) {
			return fail(verify.ReasonRestriction, "credential %d: credential definition %s is for the schema with ledger sequence number %s; schema %s has %d",
				i, id.CredDefID, def.SchemaID, id.SchemaID, schema.SeqNo)
		}
		f := &credFacts{id: id, schema: schema, def: def, revealed: revealedValues(&req, &pres, i), attrs: map[string]bool{},
			schemaUnconfirmed: isDigits(def.SchemaID) && schema.SeqNo == 0}
		for _, a := range schema.AttrNames {
			f.attrs[names.Attr(a)] = true
		}
		// The schema's attributes must be the definition's: a key R per
		// attribute and one for the link secret, no more, no fewer. A
		// legacy definition names its schema by ledger sequence number,
		// which the check above cannot compare; without this a prover
		// could name another schema with fewer attributes (of another
		// name, version or issuer, to meet a restriction) and still
		// reveal the ones it lacks. The reference refuses that too
		// ("Credential doesn't contain requested attribute").
		if problem := keyFitsSchema(def.Key, f.attrs); problem != "" {
			return fail(verify.ReasonRestriction, "credential %d: credential definition %s does not fit schema %s: %s", i, id.CredDefID, id.SchemaID, problem)
		}
		facts[i] = f
		verdict.Credentials = append(verdict.Credentials, CredentialVerdict{CredDefID: id.CredDefID, IssuerID: def.IssuerID})
		creds[i] = cl.Credential{Key: def.Key, Attrs: sortedKeys(f.attrs)}
	}

	// An unrevealed attribute is one its credential has.
	if problems := checkUnrevealed(&req, &pres, facts); len(problems) > 0 {
		return failAll(problems)
	}

	// 3. Restrictions and self-attested values.
	if problem, mixed := mixesIssuerTags(&req); mixed {
		return fail(verify.ReasonRestriction, "%s", problem)
	}
	var problems []problem
	for _, ref := range sortedKeys(req.RequestedAttributes) {
		a := req.RequestedAttributes[ref]
		if _, self := pres.RequestedProof.SelfAttestedAttrs[ref]; self {
			if len(a.Restrictions) > 0 {
				problems = append(problems, problem{verify.ReasonRestriction, fmt.Sprintf("requested attribute %q is self-attested but has restrictions", ref)})
			}
			continue
		}
		for _, i := range attrIndexes(&pres, ref) {
			if !meets(a.Restrictions, facts[i]) {
				problems = append(problems, problem{verify.ReasonRestriction, fmt.Sprintf("requested attribute %q: credential %s does not meet its restrictions%s", ref, pres.Identifiers[i].CredDefID, unmetWhy(a.Restrictions, facts[i]))})
			}
		}
	}
	for _, ref := range sortedKeys(req.RequestedPredicates) {
		p := req.RequestedPredicates[ref]
		if i := pres.RequestedProof.Predicates[ref].SubProofIndex; !meets(p.Restrictions, facts[i]) {
			problems = append(problems, problem{verify.ReasonRestriction, fmt.Sprintf("requested predicate %q: credential %s does not meet its restrictions%s", ref, pres.Identifiers[i].CredDefID, unmetWhy(p.Restrictions, facts[i]))})
		}
	}
	if len(problems) > 0 {
		return failAll(problems)
	}

	// 4. Revocation.
	for i, f := range facts {
		if !f.def.Revocable {
			continue
		}
		interval, asked := nonRevokedFor(&req, &pres, i)
		if !asked {
			continue
		}
		verdict.Revocation = RevocationUnchecked
		verdict.Credentials[i].Revocation = RevocationUnchecked
		// Non-revocation is never checked here: without the operator's
		// consent to that, the credential is refused, whatever the
		// presentation carries (a timestamp alone proves nothing).
		switch {
		case proof.Sub[i].NonRevocation:
			return fail(verify.ReasonRevocationUnchecked, "credential %d (%s) carries a non-revocation proof, which needs pairings on the BN254 curve that this verifier does not compute: the proof cannot be verified", i, f.id.CredDefID)
		case !v.AcceptUncheckedRevocation:
			return fail(verify.ReasonRevocationUnchecked, "credential %d (%s) must prove non-revocation but the presentation has no non-revocation proof for it", i, f.id.CredDefID)
		case f.id.Timestamp != nil && !interval.contains(*f.id.Timestamp):
			return fail(verify.ReasonRevocationUnchecked, "credential %d (%s): timestamp %d is outside the requested non_revoked interval", i, f.id.CredDefID, *f.id.Timestamp)
		default:
			verdict.Problems = append(verdict.Problems, fmt.Sprintf("credential %d (%s): non-revocation not checked (accepted by configuration)", i, f.id.CredDefID))
		}
	}

	// 5. The CL proof.
	err = cl.Verify(ctx, proof, creds, nonce)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fail(verify.ReasonLimits, "verification stopped: %v", ctxErr)
	}
	for i := range verdict.Credentials {
		verdict.Credentials[i].Signature = map[bool]string{true: verify.OK, false: verify.Failed}[err == nil]
	}
	if err != nil {
		return fail(verify.ReasonSignature, "%v", err)
	}
	verdict.Verified = true
	return verdict
}

// problem is one reason a presentation fails: a verify.Reason code and a
// sentence.
type problem struct {
	reason, text string
}

func malformed(format string, args ...any) problem {
	return problem{verify.ReasonMalformed, fmt.Sprintf(format, args...)}
}

// resolveReason is the reason of a failed lookup: the given one for an
// unknown id, malformed for a document that cannot be used.
func resolveReason(err error, unknown string) string {
	if errors.Is(err, ErrUnknown) {
		return unknown
	}
	return verify.ReasonUnsupported
}

func resolveProblem(kind, id string, err error) string {
	if errors.Is(err, ErrUnknown) {
		return fmt.Sprintf("unknown %s %s", kind, id)
	}
	return fmt.Sprintf("%s %s cannot be resolved: %v", kind, id, err)
}

// keyFitsSchema tells how a credential definition's key does not fit
// its schema's attributes (canonical names): "" when it has a key R for
// each of them and the link secret, and no other.
func keyFitsSchema(key *cl.PublicKey, attrs map[string]bool) string {
	if attrs[cl.LinkSecret] {
		return fmt.Sprintf("the schema has an attribute %q", cl.LinkSecret)
	}
	for _, a := range sortedKeys(attrs) {
		if _, ok := key.R[a]; !ok {
			return fmt.Sprintf("the definition has no key for the attribute %q", a)
		}
	}
	for _, a := range sortedKeys(key.R) {
		if a != cl.LinkSecret && !attrs[a] {
			return fmt.Sprintf("the definition has a key for %q, which the schema lacks", a)
		}
	}
	return ""
}

// unmetWhy explains, after a restriction problem, why restrictions a
// credential might seem to meet are not met; otherwise it is empty.
func unmetWhy(restrictions Restrictions, c *credFacts) string {
	why := unconfirmedSchema(restrictions, c)
	if usesTag(restrictions, "rev_reg_id") {
		why += " (a rev_reg_id restriction is never met: the credential's revocation registry is proven only by a non-revocation proof, which this verifier does not check)"
	}
	return why
}

// unconfirmedSchema explains, after a restriction problem, why a schema
// restriction was not met by a credential whose schema is unconfirmed;
// otherwise it is empty.
func unconfirmedSchema(restrictions Restrictions, c *credFacts) string {
	if !c.schemaUnconfirmed || !usesSchemaTag(restrictions) {
		return ""
	}
	return fmt.Sprintf(" (its schema cannot be confirmed: the credential definition names its schema by ledger sequence number %s, and the document of schema %s gives no seqNo to compare)", c.def.SchemaID, c.id.SchemaID)
}

// sameSeqNo reports whether digits (isDigits) are sequence number n.
func sameSeqNo(digits string, n int64) bool {
	v, err := strconv.ParseInt(digits, 10, 64)
	return err == nil && v == n
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
