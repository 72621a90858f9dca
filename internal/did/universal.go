package did

import (
	"encoding/json"
	"fmt"
)

// parseResolution reads a Universal Resolver answer: a DID resolution
// result ({didDocument, didResolutionMetadata, didDocumentMetadata}) or,
// with some drivers, the bare DID document. A deactivated DID resolves to
// nothing.
func parseResolution(did string, raw []byte) (*Document, error) {
	var res struct {
		DidDocument         json.RawMessage `json:"didDocument"`
		DidDocumentMetadata struct {
			Deactivated bool `json:"deactivated"`
		} `json:"didDocumentMetadata"`
		DidResolutionMetadata struct {
			Error string `json:"error"`
		} `json:"didResolutionMetadata"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%w: resolution result is not a JSON object", ErrInvalid)
	}
	if res.DidResolutionMetadata.Error != "" {
		return nil, fmt.Errorf("%w: resolver: %.80s", ErrNotFound, res.DidResolutionMetadata.Error)
	}
	if res.DidDocumentMetadata.Deactivated {
		return nil, fmt.Errorf("%w: %s is deactivated", ErrNotFound, did)
	}
	if len(res.DidDocument) == 0 || string(res.DidDocument) == "null" {
		return ParseDocument(did, raw)
	}
	return ParseDocument(did, res.DidDocument)
}
