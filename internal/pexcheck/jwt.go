package pexcheck

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/proofgate/proofgate/internal/jsonlimit"
)

// maxJWT caps a JWT presentation or credential read by the structural
// check (the message itself is capped at 1 MiB).
const maxJWT = 256 << 10

// jwtPayload decodes the payload of a compact JWS (jwt_vp, jwt_vc)
// WITHOUT verifying it: the structural check reads what it claims, the
// format's verifier checks the signature. The payload is measured
// (jsonlimit.Problem) before it is decoded. It returns a problem text when
// the token is not a JWT with a JSON object payload.
func jwtPayload(token string) (map[string]any, string) {
	if len(token) > maxJWT {
		return nil, fmt.Sprintf("is a JWT longer than %d bytes", maxJWT)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, "is a string but not a compact JWT (header.payload.signature)"
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, "is a JWT whose payload is not base64url"
	}
	if problem := jsonlimit.Problem(raw); problem != "" {
		return nil, "is a JWT whose payload " + problem
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, "is a JWT whose payload is not a JSON object"
	}
	return m, ""
}

// jwtHeaderAlg reads the alg of a compact JWS's protected header, WITHOUT
// verifying it, for the definition's format (an alg list): the format's
// verifier then verifies the token under that very alg. Members are
// matched exactly, the last of a repeated one winning, as go-jose reads
// them: a struct decoding would take "ALG" for alg (encoding/json folds
// case) and so judge another alg than the one verified. "" when the
// header cannot be read; it is measured (jsonlimit.Problem) before it is
// decoded, and the token is already capped at maxJWT.
func jwtHeaderAlg(token string) string {
	head, _, ok := strings.Cut(token, ".")
	if !ok || len(token) > maxJWT {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(head, "="))
	if err != nil || jsonlimit.Problem(raw) != "" {
		return ""
	}
	var h map[string]json.RawMessage
	var alg string
	if json.Unmarshal(raw, &h) != nil || json.Unmarshal(h["alg"], &alg) != nil {
		return ""
	}
	return alg
}

// jwtBindingProblems checks that a JWT presentation is bound to this
// request: its nonce is our challenge and, when it names an audience and
// we set a domain, the audience includes our domain (VC-JWT maps the
// proof's challenge and domain to nonce and aud). The signature is not
// checked here.
func jwtBindingProblems(payload map[string]any, challenge, domain string) []string {
	if n, _ := payload["nonce"].(string); n != challenge {
		return []string{"the JWT presentation's nonce is not the request's challenge"}
	}
	if domain == "" || payload["aud"] == nil {
		return nil
	}
	switch aud := payload["aud"].(type) {
	case string:
		if aud == domain {
			return nil
		}
	case []any:
		for _, a := range aud {
			if a == domain {
				return nil
			}
		}
	}
	return []string{fmt.Sprintf("the JWT presentation's audience does not include the request's domain %q", domain)}
}
