package w3c

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/proofgate/proofgate/internal/verify/jwtvc"
)

// VerifyStatusList implements status.ListVerifier: a status list
// credential is verified like any credential (JSON-LD proof or JWT), and
// only its signed fields are used.
func (v *Verifier) VerifyStatusList(ctx context.Context, body []byte) (string, map[string]any, time.Time, error) {
	var (
		sc  *signedCredential
		err error
	)
	if token, ok := jwtString(body); ok && jwtvc.IsJWT(token) {
		sc, err = v.jwtCredential(ctx, token)
	} else {
		var cred map[string]any
		if json.Unmarshal(body, &cred) != nil {
			return "", nil, time.Time{}, errors.New("not a JSON object")
		}
		if err := v.canon.Limits().CheckShape(cred); err != nil {
			return "", nil, time.Time{}, err
		}
		sc, err = v.ldpCredential(ctx, cred)
	}
	if err != nil {
		_, _, detail := classify(err)
		if de, ok := err.(detailError); ok {
			detail = de.detail
		}
		return "", nil, time.Time{}, errors.New(detail)
	}
	m, ok := sc.subject.(map[string]any)
	if !ok {
		return "", nil, time.Time{}, errors.New("credentialSubject is not an object")
	}
	if !sc.validFrom.IsZero() && v.now().Add(v.o.clockSkew()).Before(sc.validFrom) {
		return "", nil, time.Time{}, errors.New("not yet valid")
	}
	return sc.issuer, m, sc.validUntil, nil
}
