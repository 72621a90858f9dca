package cl

import (
	"encoding/json"
	"fmt"
	"math/big"
)

// PublicKey is the primary (RSA-group) public key of a CL credential
// definition: value.primary of an AnonCreds credential definition.
type PublicKey struct {
	N, S, Z, Rctxt *big.Int
	// R holds one base per attribute, by canonical attribute name
	// (lowercase, no spaces), plus "master_secret" for the link secret.
	R map[string]*big.Int
}

// ParsePublicKey reads value.primary of a credential definition: n of at
// most MaxModulusBits bits, every other value in [1, n).
func ParsePublicKey(raw json.RawMessage) (*PublicKey, error) {
	var j struct {
		N     string            `json:"n"`
		S     string            `json:"s"`
		Z     string            `json:"z"`
		Rctxt string            `json:"rctxt"`
		R     map[string]string `json:"r"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("primary public key: %v", err)
	}
	n, err := parseNonNeg("primary.n", j.N, MaxModulusBits)
	if err != nil {
		return nil, err
	}
	if n.BitLen() < 512 || n.Bit(0) == 0 {
		return nil, fmt.Errorf("primary.n: not an RSA modulus")
	}
	inGroup := func(field, s string) (*big.Int, error) {
		v, err := parseNonNeg(field, s, MaxModulusBits)
		if err != nil {
			return nil, err
		}
		if v.Sign() == 0 || v.Cmp(n) >= 0 {
			return nil, fmt.Errorf("%s: not in [1, n)", field)
		}
		return v, nil
	}
	pk := &PublicKey{N: n}
	if pk.S, err = inGroup("primary.s", j.S); err != nil {
		return nil, err
	}
	if pk.Z, err = inGroup("primary.z", j.Z); err != nil {
		return nil, err
	}
	if pk.Rctxt, err = inGroup("primary.rctxt", j.Rctxt); err != nil {
		return nil, err
	}
	if pk.R, err = parseMap("primary.r", j.R, MaxAttributes+1, inGroup); err != nil {
		return nil, err
	}
	if _, ok := pk.R[LinkSecret]; !ok {
		return nil, fmt.Errorf("primary.r: no %s", LinkSecret)
	}
	return pk, nil
}

// LinkSecret is the attribute name of the holder's link secret, common
// to every sub proof of a presentation.
const LinkSecret = "master_secret"

// PredicateType is a GE proof's comparison, as the reference writes it.
type PredicateType string

// The four predicate types.
const (
	GE PredicateType = "GE"
	GT PredicateType = "GT"
	LE PredicateType = "LE"
	LT PredicateType = "LT"
)

// Predicate is what a GE proof proves: attribute <type> value.
type Predicate struct {
	Attr  string        `json:"attr_name"`
	Type  PredicateType `json:"p_type"`
	Value int32         `json:"value"`
}

// isLess tells whether the proof shows value - attribute >= 0 (LE, LT)
// rather than attribute - value >= 0 (GE, GT).
func (p Predicate) isLess() bool { return p.Type == LE || p.Type == LT }

// deltaPrime is the bound the proof's Δ is shifted by: the value, one more
// for GT, one less for LT.
func (p Predicate) deltaPrime() *big.Int {
	v := int64(p.Value)
	switch p.Type {
	case GT:
		v++
	case LT:
		v--
	}
	return big.NewInt(v)
}

// EqProof is the equality proof of one credential.
type EqProof struct {
	// Revealed holds the encoded value of each revealed attribute.
	Revealed map[string]*big.Int
	APrime   *big.Int
	E, V, M2 *big.Int
	// M holds m̂ of each hidden attribute, the link secret included.
	M map[string]*big.Int
}

// GEProof proves one predicate over a hidden attribute.
type GEProof struct {
	U, R, T   map[string]*big.Int
	Mj, Alpha *big.Int
	Predicate Predicate
}

// SubProof is the proof of one credential.
type SubProof struct {
	Eq EqProof
	GE []GEProof
	// NonRevocation tells the prover included a non-revocation proof.
	NonRevocation bool
}

// Proof is the CL proof of a presentation (its "proof" member).
type Proof struct {
	Sub   []SubProof
	CHash *big.Int
	CList [][]byte
}

type proofJSON struct {
	Proofs []struct {
		Primary struct {
			Eq struct {
				Revealed map[string]string `json:"revealed_attrs"`
				APrime   string            `json:"a_prime"`
				E        string            `json:"e"`
				V        string            `json:"v"`
				M        map[string]string `json:"m"`
				M2       string            `json:"m2"`
			} `json:"eq_proof"`
			GE []struct {
				U         map[string]string `json:"u"`
				R         map[string]string `json:"r"`
				Mj        string            `json:"mj"`
				Alpha     string            `json:"alpha"`
				T         map[string]string `json:"t"`
				Predicate Predicate         `json:"predicate"`
			} `json:"ge_proofs"`
		} `json:"primary_proof"`
		NonRevoc json.RawMessage `json:"non_revoc_proof"`
	} `json:"proofs"`
	Aggregated struct {
		CHash string     `json:"c_hash"`
		CList []byteList `json:"c_list"`
	} `json:"aggregated_proof"`
}

// ParseProof reads the "proof" member of an AnonCreds presentation,
// bounding every count and number (see the Max constants).
func ParseProof(raw json.RawMessage) (*Proof, error) {
	var j proofJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("proof: %v", err)
	}
	if len(j.Proofs) > MaxSubProofs {
		return nil, fmt.Errorf("proof.proofs: more than %d sub proofs", MaxSubProofs)
	}
	if len(j.Aggregated.CList) > MaxCListEntries {
		return nil, fmt.Errorf("proof.aggregated_proof.c_list: more than %d entries", MaxCListEntries)
	}
	p := &Proof{Sub: make([]SubProof, len(j.Proofs))}
	var err error
	if p.CHash, err = parseNonNeg("proof.aggregated_proof.c_hash", j.Aggregated.CHash, MaxChallengeBits); err != nil {
		return nil, err
	}
	for _, c := range j.Aggregated.CList {
		p.CList = append(p.CList, c)
	}
	for i, sp := range j.Proofs {
		field := fmt.Sprintf("proof.proofs[%d]", i)
		eq := sp.Primary.Eq
		out := &p.Sub[i]
		out.NonRevocation = len(sp.NonRevoc) > 0 && string(sp.NonRevoc) != "null"
		if len(eq.Revealed)+len(eq.M) > MaxAttributes {
			return nil, fmt.Errorf("%s: more than %d attributes", field, MaxAttributes)
		}
		revealed := func(f, s string) (*big.Int, error) { return parseDec(f, s, MaxRevealedBits) }
		if out.Eq.Revealed, err = parseMap(field+".eq_proof.revealed_attrs", eq.Revealed, MaxAttributes, revealed); err != nil {
			return nil, err
		}
		if out.Eq.M, err = parseMap(field+".eq_proof.m", eq.M, MaxAttributes, exponent); err != nil {
			return nil, err
		}
		if out.Eq.APrime, err = element(field+".eq_proof.a_prime", eq.APrime); err != nil {
			return nil, err
		}
		if out.Eq.E, err = exponent(field+".eq_proof.e", eq.E); err != nil {
			return nil, err
		}
		if out.Eq.V, err = exponent(field+".eq_proof.v", eq.V); err != nil {
			return nil, err
		}
		if out.Eq.M2, err = exponent(field+".eq_proof.m2", eq.M2); err != nil {
			return nil, err
		}
		if len(sp.Primary.GE) > MaxPredicates {
			return nil, fmt.Errorf("%s: more than %d predicate proofs", field, MaxPredicates)
		}
		for k, ge := range sp.Primary.GE {
			gf := fmt.Sprintf("%s.ge_proofs[%d]", field, k)
			var g GEProof
			switch ge.Predicate.Type {
			case GE, GT, LE, LT:
			default:
				return nil, fmt.Errorf("%s.predicate.p_type: %q is not GE, GT, LE or LT", gf, ge.Predicate.Type)
			}
			g.Predicate = ge.Predicate
			if g.U, err = parseMap(gf+".u", ge.U, 8, exponent); err != nil {
				return nil, err
			}
			if g.R, err = parseMap(gf+".r", ge.R, 8, exponent); err != nil {
				return nil, err
			}
			if g.T, err = parseMap(gf+".t", ge.T, 8, element); err != nil {
				return nil, err
			}
			if g.Mj, err = exponent(gf+".mj", ge.Mj); err != nil {
				return nil, err
			}
			if g.Alpha, err = exponent(gf+".alpha", ge.Alpha); err != nil {
				return nil, err
			}
			out.GE = append(out.GE, g)
		}
	}
	return p, nil
}
