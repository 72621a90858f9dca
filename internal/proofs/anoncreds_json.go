package proofs

import (
	"slices"
	"strconv"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/jsonenc"
)

// appendAnonCredsRequest appends what marshal makes of r, byte for byte
// (TestAppendAnonCredsRequest holds it to that): encoding/json's
// reflection over the maps of referents and restrictions, keys sorted as
// it sorts them, was most of building a request. Keep it in step with
// AnonCredsProofRequest and the backend types it holds.
func appendAnonCredsRequest(b []byte, r *AnonCredsProofRequest) []byte {
	b = slices.Grow(b, 256+64*(len(r.RequestedAttributes)+len(r.RequestedPredicates)))
	b = append(b, `{"name":`...)
	b = jsonenc.AppendString(b, r.Name, false)
	b = append(b, `,"version":`...)
	b = jsonenc.AppendString(b, r.Version, false)
	b = append(b, `,"nonce":`...)
	b = jsonenc.AppendString(b, r.Nonce, false)
	b = append(b, `,"requested_attributes":`...)
	b = appendObject(b, r.RequestedAttributes, appendAttribute)
	b = append(b, `,"requested_predicates":`...)
	b = appendObject(b, r.RequestedPredicates, appendPredicate)
	if r.NonRevoked != nil {
		b = append(b, `,"non_revoked":`...)
		b = appendNonRevoked(b, r.NonRevoked)
	}
	return append(b, '}')
}

func appendAttribute(b []byte, a backend.IndyAttribute) []byte {
	b = append(b, '{')
	comma := false
	member := func(name string) {
		if comma {
			b = append(b, ',')
		}
		comma = true
		b = append(b, name...)
	}
	if a.Name != "" {
		member(`"name":`)
		b = jsonenc.AppendString(b, a.Name, false)
	}
	if len(a.Names) > 0 {
		member(`"names":[`)
		for i, n := range a.Names {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, n, false)
		}
		b = append(b, ']')
	}
	if len(a.Restrictions) > 0 {
		member(`"restrictions":`)
		b = appendRestrictions(b, a.Restrictions)
	}
	if a.NonRevoked != nil {
		member(`"non_revoked":`)
		b = appendNonRevoked(b, a.NonRevoked)
	}
	return append(b, '}')
}

func appendPredicate(b []byte, p backend.IndyPredicate) []byte {
	b = append(b, `{"name":`...)
	b = jsonenc.AppendString(b, p.Name, false)
	b = append(b, `,"p_type":`...)
	b = jsonenc.AppendString(b, p.PType, false)
	b = append(b, `,"p_value":`...)
	b = strconv.AppendInt(b, int64(p.PValue), 10)
	if len(p.Restrictions) > 0 {
		b = append(b, `,"restrictions":`...)
		b = appendRestrictions(b, p.Restrictions)
	}
	if p.NonRevoked != nil {
		b = append(b, `,"non_revoked":`...)
		b = appendNonRevoked(b, p.NonRevoked)
	}
	return append(b, '}')
}

// appendRestrictions appends a list of restriction objects (a nil one as
// null, as encoding/json writes it).
func appendRestrictions(b []byte, list []map[string]string) []byte {
	b = append(b, '[')
	for i, r := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendObject(b, r, appendPlainString)
	}
	return append(b, ']')
}

// appendObject appends m as a JSON object with its keys sorted, each value
// by appendValue (a nil map as null): what encoding/json writes for a map.
func appendObject[V any](b []byte, m map[string]V, appendValue func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, k, false)
		b = append(b, ':')
		b = appendValue(b, m[k])
	}
	return append(b, '}')
}

func appendPlainString(b []byte, s string) []byte { return jsonenc.AppendString(b, s, false) }

func appendNonRevoked(b []byte, nr *backend.NonRevoked) []byte {
	b = append(b, '{')
	if nr.From != nil {
		b = append(b, `"from":`...)
		b = strconv.AppendInt(b, *nr.From, 10)
	}
	if nr.To != nil {
		if nr.From != nil {
			b = append(b, ',')
		}
		b = append(b, `"to":`...)
		b = strconv.AppendInt(b, *nr.To, 10)
	}
	return append(b, '}')
}
