package ldp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/gowebpki/jcs"

	"github.com/proofgate/proofgate/internal/jsonld"
)

// securityV2 is the context a legacy proof's options take when the
// document has none (jsonld-signatures, ACA-Py).
const securityV2 = "https://w3id.org/security/v2"

// hashData computes what a proof signs: SHA-256 of the canonical proof
// configuration followed by SHA-256 of the canonical document (without
// its proof). proofConfig must already lack the signature fields.
func hashData(ctx context.Context, c *jsonld.Canonicalizer, s suite, doc, proofConfig map[string]any, safe bool) ([]byte, error) {
	var configForm, docForm []byte
	if s.jcs {
		if pctx, ok := proofConfig["@context"]; ok {
			// eddsa-jcs-2022: the proof's @context must be a prefix of
			// the document's.
			if !contextPrefix(pctx, doc["@context"]) {
				return nil, fmt.Errorf("%w: proof @context is not the document's", ErrMalformed)
			}
		}
		var err error
		if configForm, err = jcsForm(proofConfig); err != nil {
			return nil, err
		}
		if docForm, err = jcsForm(doc); err != nil {
			return nil, err
		}
	} else {
		if dctx, ok := doc["@context"]; ok {
			proofConfig["@context"] = dctx
		} else if s.dataIntegrity {
			return nil, fmt.Errorf("%w: document without @context", ErrMalformed)
		} else {
			proofConfig["@context"] = securityV2
		}
		pc, err := c.Canonize(ctx, proofConfig, jsonld.Options{Safe: true})
		if err != nil {
			return nil, err
		}
		dc, err := c.Canonize(ctx, doc, jsonld.Options{Safe: safe})
		if err != nil {
			return nil, err
		}
		configForm, docForm = []byte(pc), []byte(dc)
	}
	ph, dh := sha256.Sum256(configForm), sha256.Sum256(docForm)
	return append(ph[:], dh[:]...), nil
}

func jcsForm(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: JCS: %v", ErrMalformed, err)
	}
	return out, nil
}

// contextPrefix reports whether the proof's @context values start the
// document's.
func contextPrefix(proofCtx, docCtx any) bool {
	p, d := asList(proofCtx), asList(docCtx)
	if len(p) > len(d) {
		return false
	}
	for i := range p {
		if !reflect.DeepEqual(p[i], d[i]) {
			return false
		}
	}
	return true
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	if v == nil {
		return nil
	}
	return []any{v}
}
