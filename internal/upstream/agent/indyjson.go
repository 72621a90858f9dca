package agent

import (
	"slices"
	"strconv"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/jsonenc"
)

// The backends write their create requests by hand (Request.JSON): the
// same bytes json.Marshal writes (HTML-escaped strings, map keys sorted),
// which the tests hold them to, without its reflection over the maps of
// referents and restrictions.

// AppendString appends s as json.Marshal writes a string.
func AppendString(b []byte, s string) []byte { return jsonenc.AppendString(b, s, true) }

// AppendIndyRequest appends json.Marshal(r): an AnonCreds proof request
// without nonce, as both agents take it (credo's proofFormats.indy,
// ACA-Py's presentation_request.indy).
func AppendIndyRequest(b []byte, r *backend.IndyProofRequest) []byte {
	b = slices.Grow(b, 128+96*(len(r.RequestedAttributes)+len(r.RequestedPredicates)))
	b = append(b, `{"name":`...)
	b = AppendString(b, r.Name)
	b = append(b, `,"version":`...)
	b = AppendString(b, r.Version)
	b = append(b, `,"requested_attributes":`...)
	b = appendSortedObject(b, r.RequestedAttributes, appendIndyAttribute)
	b = append(b, `,"requested_predicates":`...)
	b = appendSortedObject(b, r.RequestedPredicates, appendIndyPredicate)
	if r.NonRevoked != nil {
		b = append(b, `,"non_revoked":`...)
		b = appendNonRevoked(b, r.NonRevoked)
	}
	return append(b, '}')
}

func appendIndyAttribute(b []byte, a backend.IndyAttribute) []byte {
	b = append(b, '{')
	n := len(b)
	if a.Name != "" {
		b = append(b, `"name":`...)
		b = AppendString(b, a.Name)
	}
	if len(a.Names) > 0 {
		if len(b) > n {
			b = append(b, ',')
		}
		b = append(b, `"names":[`...)
		for i, name := range a.Names {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, name)
		}
		b = append(b, ']')
	}
	if len(a.Restrictions) > 0 {
		if len(b) > n {
			b = append(b, ',')
		}
		b = append(b, `"restrictions":`...)
		b = appendRestrictions(b, a.Restrictions)
	}
	if a.NonRevoked != nil {
		if len(b) > n {
			b = append(b, ',')
		}
		b = append(b, `"non_revoked":`...)
		b = appendNonRevoked(b, a.NonRevoked)
	}
	return append(b, '}')
}

func appendIndyPredicate(b []byte, p backend.IndyPredicate) []byte {
	b = append(b, `{"name":`...)
	b = AppendString(b, p.Name)
	b = append(b, `,"p_type":`...)
	b = AppendString(b, p.PType)
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

func appendRestrictions(b []byte, list []map[string]string) []byte {
	b = append(b, '[')
	for i, r := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSortedObject(b, r, AppendString)
	}
	return append(b, ']')
}

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

// appendSortedObject appends m as json.Marshal writes a map: keys sorted,
// each value by appendValue, a nil map as null.
func appendSortedObject[V any](b []byte, m map[string]V, appendValue func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var buf [8]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		b = appendValue(b, m[k])
	}
	return append(b, '}')
}
