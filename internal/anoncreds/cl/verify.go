package cl

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"strconv"
)

// Credential is what the verifier knows of the credential behind one sub
// proof: its definition's public key and its schema's attributes
// (canonical names).
type Credential struct {
	Key   *PublicKey
	Attrs []string
}

// iterations is the number of squares a GE proof decomposes Δ into.
const iterations = 4

// largeEStart is 2^596: e = 2^596 + e' for every CL signature.
var largeEStart = new(big.Int).Lsh(big.NewInt(1), 596)

// Sizes an honest prover's numbers have, from anoncreds-clsignatures-rs
// (constants.rs; the same in ursa and indy-crypto before it).
const (
	// challengeBits: c is a SHA-256 digest (hash_list_to_bignum), c < 2^256.
	challengeBits = 256
	// largeEEndRange (LARGE_E_END_RANGE): the issuer picks e as a prime in
	// [2^596, 2^596 + 2^119], so 0 < e' = e − 2^596 ≤ 2^119 and
	// c·e' < 2^(256+119).
	largeEEndRange = 119
	// largeETilde (LARGE_ETILDE): ẽ is a random 456-bit number.
	largeETilde = 456
	// largeMVect (LARGE_MVECT): m̃ of every hidden attribute, the link
	// secret included, is a random 592-bit number (get_mtilde).
	largeMVect = 592
	// attributeBits: an attribute is a SHA-256 digest or a 32-bit
	// integer (the encoding rule), the link secret a 256-bit number
	// (LARGE_LINK_SECRET): |m| < 2^256, so |c·m| < 2^(256+256).
	attributeBits = 256
)

// Bounds on the responses of an equality proof. x < 2^a and y < 2^b give
// x + y < 2^(max(a,b)+1).
const (
	// MaxEHatBits bounds ê = ẽ + c·e' < 2^456 + 2^375 < 2^457; ê is never
	// negative. This is the check the CL proof's soundness rests on: it
	// makes the e the prover knows lie near 2^596 (the extracted
	// e' = Δê/Δc has |e'| < 2^457). Without it e can be anything, e = 1
	// included, and A' = Z/(Π R^m · S^v · Rctxt^m2) is a "signature"
	// anyone computes from the public key alone.
	MaxEHatBits = max(largeETilde, challengeBits+largeEEndRange) + 1
	// MaxMHatBits bounds m̂ = m̃ + c·m < 2^592 + 2^512 < 2^593. m̂ is never
	// negative either: a negative attribute (a negative 32-bit integer)
	// makes it so only if m̃ < c·|m| < 2^288, which a 592-bit random m̃ is
	// with probability below 2^-304.
	MaxMHatBits = max(largeMVect, challengeBits+attributeBits) + 1
)

// The other responses (v̂, m̂2, and the predicate proofs' û, r̂, α̂) keep
// only MaxExponentBits: the CL proof of knowledge range-checks ê and m̂
// alone (as Idemix's specification does), and m̂2 changed size between
// prover versions (m̃2 of LARGE_MVECT, now LARGE_M2TILDE = 2432 bits).

// ErrRejected wraps every reason a proof does not verify.
var ErrRejected = errors.New("CL proof rejected")

func reject(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRejected, fmt.Sprintf(format, args...))
}

// Verify checks the primary CL proofs of a presentation against the
// credentials behind its sub proofs (in order) and the request's nonce:
// every sub proof's equality proof and GE predicate proofs yield the
// commitments t̂ the prover must have hashed, and the hash of all of them,
// the prover's c_list and the nonce must equal c_hash.
//
// A sub proof that carries a non-revocation proof cannot be checked here
// (its commitments need BN254 pairings): the caller decides about those
// before calling Verify; if one is present its commitments are missing
// from the hash and the proof is rejected.
//
// Verification handles public values only; nothing here is secret, so
// math/big's variable-time arithmetic leaks nothing.
//
// Verify stops with ctx's error when ctx ends: a hostile proof within the
// size bounds can still ask for many exponentiations, and the caller's
// deadline bounds them.
func Verify(ctx context.Context, p *Proof, creds []Credential, nonce *big.Int) error {
	if len(p.Sub) != len(creds) {
		return reject("%d sub proofs for %d credentials", len(p.Sub), len(creds))
	}
	h := sha256.New()
	var linkSecret *big.Int
	for i := range p.Sub {
		sp, cred := &p.Sub[i], creds[i]
		// The link secret is hidden behind the same m̂ in every sub
		// proof: one holder bound all the credentials.
		if _, ok := sp.Eq.Revealed[LinkSecret]; ok {
			return reject("sub proof %d reveals the link secret", i)
		}
		ms, ok := sp.Eq.M[LinkSecret]
		if !ok {
			return reject("sub proof %d: no m̂ for the link secret", i)
		}
		if linkSecret == nil {
			linkSecret = ms
		} else if linkSecret.Cmp(ms) != 0 {
			return reject("sub proof %d: the link secret differs from the first credential's", i)
		}
		taus, err := primaryTaus(ctx, cred, sp, p.CHash)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			return fmt.Errorf("%w: sub proof %d: %v", ErrRejected, i, err)
		}
		for _, t := range taus {
			h.Write(t.Bytes())
		}
	}
	for _, c := range p.CList {
		h.Write(c)
	}
	h.Write(nonce.Bytes())
	if new(big.Int).SetBytes(h.Sum(nil)).Cmp(p.CHash) != 0 {
		return reject("the challenge does not match (c_hash)")
	}
	return nil
}

// primaryTaus recomputes the commitments of one sub proof: the equality
// proof's t̂, then six per GE proof.
func primaryTaus(ctx context.Context, cred Credential, sp *SubProof, c *big.Int) ([]*big.Int, error) {
	pk := cred.Key
	if pk == nil {
		return nil, errors.New("no public key")
	}
	if err := checkPredicateBindings(sp); err != nil {
		return nil, err
	}
	t, err := equalityTau(ctx, pk, cred.Attrs, &sp.Eq, c)
	if err != nil {
		return nil, err
	}
	taus := []*big.Int{t}
	for k := range sp.GE {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ts, err := predicateTaus(pk, &sp.GE[k], c)
		if err != nil {
			return nil, fmt.Errorf("predicate proof %d: %v", k, err)
		}
		taus = append(taus, ts...)
	}
	return taus, nil
}

// checkPredicateBindings checks, before any exponentiation, that every
// GE proof of a sub proof is over an attribute its equality proof hides,
// with the m̂ it hides it behind as m̂j (the prover copies it so:
// _finalize_ne_proof). Otherwise m̂j is a number of the prover's choosing
// and the predicate proof says nothing about the credential.
//
// A revealed attribute is refused by name: the equality proof never uses
// an m̂ for it (its value is in the revealed product instead), so an m̂j
// equal to one binds the predicate to nothing. An honest prover cannot
// make such a proof (its m̃ for a GE proof is the hidden attribute's), and
// checkEqResponses refuses the stray m̂ as well. anoncreds 0.2.3 checks
// m̂j against eq_proof.m alone and accepts it: with age 34 revealed, a
// proof of age >= 50 verifies there (testdata/forged_predicate_revealed.json).
func checkPredicateBindings(sp *SubProof) error {
	for k := range sp.GE {
		ge := &sp.GE[k]
		if _, revealed := sp.Eq.Revealed[ge.Predicate.Attr]; revealed {
			return fmt.Errorf("predicate proof %d is over %q, which the equality proof reveals: a predicate is proven over a hidden attribute", k, ge.Predicate.Attr)
		}
		m, ok := sp.Eq.M[ge.Predicate.Attr]
		if !ok {
			return fmt.Errorf("predicate proof %d is over %q, which the equality proof does not hide", k, ge.Predicate.Attr)
		}
		if m.Cmp(ge.Mj) != 0 {
			return fmt.Errorf("predicate proof %d: m̂j differs from the equality proof's m̂ for %q", k, ge.Predicate.Attr)
		}
	}
	return nil
}

// modExp is x^y mod n for a public base x and any exponent y; a negative
// y uses the inverse of x, as the reference does.
func modExp(x, y, n *big.Int) (*big.Int, error) {
	r := new(big.Int).Exp(x, y, n)
	if r == nil {
		return nil, errors.New("a base is not invertible modulo n")
	}
	return r, nil
}

func inverse(x, n *big.Int) (*big.Int, error) {
	r := new(big.Int).ModInverse(x, n)
	if r == nil {
		return nil, errors.New("a value is not invertible modulo n")
	}
	return r, nil
}

func mulMod(a, b, n *big.Int) *big.Int {
	r := new(big.Int).Mul(a, b)
	return r.Mod(r, n)
}

// equalityTau computes
//
//	T̂ = (Z / (A'^(2^596) · Π_revealed R_i^m_i))^(-c) · A'^ê · Π_hidden R_j^m̂_j · S^v̂ · Rctxt^m̂2  (mod n).
func equalityTau(ctx context.Context, pk *PublicKey, attrs []string, eq *EqProof, c *big.Int) (*big.Int, error) {
	if err := checkEqResponses(attrs, eq); err != nil {
		return nil, err
	}
	n := pk.N
	aPrime := new(big.Int).Mod(eq.APrime, n)
	t, err := modExp(aPrime, eq.E, n)
	if err != nil {
		return nil, err
	}
	// Every attribute of the credential is either revealed (with its
	// value) or hidden (with m̂); the link secret is always hidden.
	hidden := append([]string{LinkSecret}, attrs...)
	for _, name := range hidden {
		if _, revealed := eq.Revealed[name]; revealed {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, ok := pk.R[name]
		if !ok {
			return nil, fmt.Errorf("the credential definition has no key for %q", name)
		}
		m, ok := eq.M[name]
		if !ok {
			return nil, fmt.Errorf("no m̂ for the hidden attribute %q", name)
		}
		x, err := modExp(r, m, n)
		if err != nil {
			return nil, err
		}
		t = mulMod(x, t, n)
	}
	x, err := modExp(pk.S, eq.V, n)
	if err != nil {
		return nil, err
	}
	t = mulMod(x, t, n)
	if x, err = modExp(pk.Rctxt, eq.M2, n); err != nil {
		return nil, err
	}
	t = mulMod(x, t, n)

	rar, err := modExp(aPrime, largeEStart, n)
	if err != nil {
		return nil, err
	}
	for name, value := range eq.Revealed {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, ok := pk.R[name]
		if !ok {
			return nil, fmt.Errorf("the credential definition has no key for the revealed %q", name)
		}
		x, err := modExp(r, value, n)
		if err != nil {
			return nil, err
		}
		rar = mulMod(x, rar, n)
	}
	rarInv, err := inverse(rar, n)
	if err != nil {
		return nil, err
	}
	// (Z · rar⁻¹)⁻¹ ^ c
	zr, err := inverse(mulMod(pk.Z, rarInv, n), n)
	if err != nil {
		return nil, err
	}
	t2, err := modExp(zr, c, n)
	if err != nil {
		return nil, err
	}
	return mulMod(t, t2, n), nil
}

// checkEqResponses checks what an equality proof names and the sizes of
// its responses before any exponentiation: every revealed attribute and
// every m̂ is one of the credential's (its schema's attributes, and the
// link secret for m̂), no attribute has both a revealed value and an m̂,
// and ê and every m̂ lie in the range an honest prover's do (MaxEHatBits,
// MaxMHatBits).
//
// The equality check uses the revealed value of a revealed attribute and
// never its m̂, so an m̂ beside it is unproven: a number of the prover's
// choosing that anything reading eq.M (a GE proof's m̂j) would take for
// the credential's. The reference's prover writes m̂ for hidden attributes
// only; its verifier (anoncreds 0.2.3) does not refuse the stray one.
func checkEqResponses(attrs []string, eq *EqProof) error {
	if eq.E.Sign() < 0 || eq.E.BitLen() > MaxEHatBits {
		return fmt.Errorf("ê is not in [0, 2^%d): no credential signature gives it", MaxEHatBits)
	}
	known := make(map[string]bool, len(attrs)+1)
	for _, a := range attrs {
		known[a] = true
	}
	for name := range eq.Revealed {
		if !known[name] {
			return fmt.Errorf("the revealed %q is not an attribute of the credential", name)
		}
	}
	known[LinkSecret] = true
	for name, m := range eq.M {
		if !known[name] {
			return fmt.Errorf("m̂ for %q, which is not an attribute of the credential", name)
		}
		if _, revealed := eq.Revealed[name]; revealed {
			return fmt.Errorf("m̂ for %q, which the equality proof reveals", name)
		}
		if m.Sign() < 0 || m.BitLen() > MaxMHatBits {
			return fmt.Errorf("m̂ for %q is not in [0, 2^%d)", name, MaxMHatBits)
		}
	}
	return nil
}

// predicateTaus computes the six commitments of a GE proof:
//
//	T̂_i = T_i^(-c) · Z^û_i · S^r̂_i                      (i = 0..3)
//	T̂_Δ = (Z^Δ' · T_Δ^±1)^(-c) · Z^m̂_j · S^(±r̂_Δ)
//	Q̂   = T_Δ^(-c) · Π T_i^û_i · S^α̂
//
// with T_Δ^-1 and -r̂_Δ for LE and LT predicates.
func predicateTaus(pk *PublicKey, ge *GEProof, c *big.Int) ([]*big.Int, error) {
	n := pk.N
	get := func(m map[string]*big.Int, name, key string) (*big.Int, error) {
		v, ok := m[key]
		if !ok {
			return nil, fmt.Errorf("no %s[%s]", name, key)
		}
		return v, nil
	}
	taus := make([]*big.Int, 0, iterations+2)
	for i := 0; i < iterations; i++ {
		key := strconv.Itoa(i)
		u, err := get(ge.U, "u", key)
		if err != nil {
			return nil, err
		}
		r, err := get(ge.R, "r", key)
		if err != nil {
			return nil, err
		}
		tv, err := get(ge.T, "t", key)
		if err != nil {
			return nil, err
		}
		zu, err := modExp(pk.Z, u, n)
		if err != nil {
			return nil, err
		}
		sr, err := modExp(pk.S, r, n)
		if err != nil {
			return nil, err
		}
		tc, err := modExp(new(big.Int).Mod(tv, n), c, n)
		if err != nil {
			return nil, err
		}
		tcInv, err := inverse(tc, n)
		if err != nil {
			return nil, err
		}
		taus = append(taus, mulMod(tcInv, mulMod(zu, sr, n), n))
	}

	rDelta, err := get(ge.R, "r", "DELTA")
	if err != nil {
		return nil, err
	}
	tDelta, err := get(ge.T, "t", "DELTA")
	if err != nil {
		return nil, err
	}
	tDelta = new(big.Int).Mod(tDelta, n)
	less := ge.Predicate.isLess()
	rd := rDelta
	tdSigned := tDelta
	if less {
		rd = new(big.Int).Neg(rDelta)
		if tdSigned, err = inverse(tDelta, n); err != nil {
			return nil, err
		}
	}
	zm, err := modExp(pk.Z, ge.Mj, n)
	if err != nil {
		return nil, err
	}
	sr, err := modExp(pk.S, rd, n)
	if err != nil {
		return nil, err
	}
	zd, err := modExp(pk.Z, ge.Predicate.deltaPrime(), n)
	if err != nil {
		return nil, err
	}
	base, err := modExp(mulMod(zd, tdSigned, n), c, n)
	if err != nil {
		return nil, err
	}
	baseInv, err := inverse(base, n)
	if err != nil {
		return nil, err
	}
	taus = append(taus, mulMod(baseInv, mulMod(zm, sr, n), n))

	q := big.NewInt(1)
	for i := 0; i < iterations; i++ {
		key := strconv.Itoa(i)
		x, err := modExp(new(big.Int).Mod(ge.T[key], n), ge.U[key], n)
		if err != nil {
			return nil, err
		}
		q = mulMod(x, q, n)
	}
	sa, err := modExp(pk.S, ge.Alpha, n)
	if err != nil {
		return nil, err
	}
	q = mulMod(sa, q, n)
	tdc, err := modExp(tDelta, c, n)
	if err != nil {
		return nil, err
	}
	tdcInv, err := inverse(tdc, n)
	if err != nil {
		return nil, err
	}
	taus = append(taus, mulMod(tdcInv, q, n))
	return taus, nil
}
