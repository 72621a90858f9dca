package backend

import (
	"slices"
	"strconv"

	"github.com/proofgate/proofgate/internal/jsonenc"
)

// The AnonCreds proof request is written by hand, byte for byte what
// encoding/json writes (map keys sorted, optional members omitted, a nil
// map as null; its tests hold it to that), without encoding/json's
// reflection over the maps of referents and restrictions, which was most
// of building a request. escapeHTML chooses json.Marshal's strings (true:
// what the agents' request bodies use) or those of an Encoder with
// SetEscapeHTML(false) (the local verifier's messages). Keep it in step
// with IndyProofRequest and the types it holds.

// AppendIndyRequest appends r: the request as an agent takes it (credo's
// proofFormats.indy, ACA-Py's presentation_request.indy), no nonce.
func AppendIndyRequest(b []byte, r *IndyProofRequest, escapeHTML bool) []byte {
	return appendIndyRequest(b, r, nil, escapeHTML)
}

// AppendAnonCredsRequest appends r with its nonce after "version": the
// request as a verifier sends it to the holder.
func AppendAnonCredsRequest(b []byte, r *IndyProofRequest, nonce string, escapeHTML bool) []byte {
	return appendIndyRequest(b, r, &nonce, escapeHTML)
}

// indyWriter appends with one choice of string escaping.
type indyWriter struct{ html bool }

func (w indyWriter) str(b []byte, s string) []byte { return jsonenc.AppendString(b, s, w.html) }

func appendIndyRequest(b []byte, r *IndyProofRequest, nonce *string, escapeHTML bool) []byte {
	w := indyWriter{escapeHTML}
	b = slices.Grow(b, 256+96*(len(r.RequestedAttributes)+len(r.RequestedPredicates)))
	b = append(b, `{"name":`...)
	b = w.str(b, r.Name)
	b = append(b, `,"version":`...)
	b = w.str(b, r.Version)
	if nonce != nil {
		b = append(b, `,"nonce":`...)
		b = w.str(b, *nonce)
	}
	b = append(b, `,"requested_attributes":`...)
	b = appendSortedObject(b, w, r.RequestedAttributes, w.attribute)
	b = append(b, `,"requested_predicates":`...)
	b = appendSortedObject(b, w, r.RequestedPredicates, w.predicate)
	if r.NonRevoked != nil {
		b = append(b, `,"non_revoked":`...)
		b = appendNonRevoked(b, r.NonRevoked)
	}
	return append(b, '}')
}

func (w indyWriter) attribute(b []byte, a IndyAttribute) []byte {
	b = append(b, '{')
	n := len(b)
	member := func(name string) {
		if len(b) > n {
			b = append(b, ',')
		}
		b = append(b, name...)
	}
	if a.Name != "" {
		member(`"name":`)
		b = w.str(b, a.Name)
	}
	if len(a.Names) > 0 {
		member(`"names":[`)
		for i, name := range a.Names {
			if i > 0 {
				b = append(b, ',')
			}
			b = w.str(b, name)
		}
		b = append(b, ']')
	}
	if len(a.Restrictions) > 0 {
		member(`"restrictions":`)
		b = w.restrictions(b, a.Restrictions)
	}
	if a.NonRevoked != nil {
		member(`"non_revoked":`)
		b = appendNonRevoked(b, a.NonRevoked)
	}
	return append(b, '}')
}

func (w indyWriter) predicate(b []byte, p IndyPredicate) []byte {
	b = append(b, `{"name":`...)
	b = w.str(b, p.Name)
	b = append(b, `,"p_type":`...)
	b = w.str(b, p.PType)
	b = append(b, `,"p_value":`...)
	b = strconv.AppendInt(b, int64(p.PValue), 10)
	if len(p.Restrictions) > 0 {
		b = append(b, `,"restrictions":`...)
		b = w.restrictions(b, p.Restrictions)
	}
	if p.NonRevoked != nil {
		b = append(b, `,"non_revoked":`...)
		b = appendNonRevoked(b, p.NonRevoked)
	}
	return append(b, '}')
}

// restrictions appends a list of restriction objects (a nil one as null).
func (w indyWriter) restrictions(b []byte, list []map[string]string) []byte {
	b = append(b, '[')
	for i, r := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSortedObject(b, w, r, w.str)
	}
	return append(b, ']')
}

func appendNonRevoked(b []byte, nr *NonRevoked) []byte {
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

// appendSortedObject appends m as encoding/json writes a map: keys sorted,
// each value by appendValue, a nil map as null.
func appendSortedObject[V any](b []byte, w indyWriter, m map[string]V, appendValue func([]byte, V) []byte) []byte {
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
		b = w.str(b, k)
		b = append(b, ':')
		b = appendValue(b, m[k])
	}
	return append(b, '}')
}
