package anoncreds

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/proofgate/proofgate/internal/anoncreds/cl"
	"github.com/proofgate/proofgate/internal/anoncreds/names"
)

// Request is an AnonCreds presentation request (the hlindy/proof-req
// attachment).
type Request struct {
	Name                string              `json:"name"`
	Version             string              `json:"version"`
	Nonce               string              `json:"nonce"`
	RequestedAttributes map[string]AttrInfo `json:"requested_attributes"`
	RequestedPredicates map[string]PredInfo `json:"requested_predicates"`
	NonRevoked          *Interval           `json:"non_revoked"`
}

// AttrInfo is one requested attribute referent: name or names.
type AttrInfo struct {
	Name         string       `json:"name"`
	Names        []string     `json:"names"`
	Restrictions Restrictions `json:"restrictions"`
	NonRevoked   *Interval    `json:"non_revoked"`
}

// PredInfo is one requested predicate referent.
type PredInfo struct {
	Name         string       `json:"name"`
	PType        string       `json:"p_type"`
	PValue       int32        `json:"p_value"`
	Restrictions Restrictions `json:"restrictions"`
	NonRevoked   *Interval    `json:"non_revoked"`
}

// Interval is a non_revoked interval (seconds since the epoch).
type Interval struct {
	From *uint64 `json:"from"`
	To   *uint64 `json:"to"`
}

// Restrictions is an OR of AND objects; each key is a restriction tag.
// A single object is taken as a list of one.
type Restrictions []map[string]string

// UnmarshalJSON takes an array of flat objects, one flat object, or null.
func (r *Restrictions) UnmarshalJSON(data []byte) error {
	var list []map[string]string
	if err := json.Unmarshal(data, &list); err == nil {
		*r = list
		return nil
	}
	var one map[string]string
	if err := json.Unmarshal(data, &one); err != nil {
		return errors.New("restrictions: an array of objects with string values expected")
	}
	if one != nil {
		*r = Restrictions{one}
	}
	return nil
}

// Presentation is an AnonCreds presentation (the hlindy/proof or
// anoncreds/proof attachment).
type Presentation struct {
	Proof          json.RawMessage `json:"proof"`
	RequestedProof struct {
		RevealedAttrs      map[string]RevealedAttr  `json:"revealed_attrs"`
		RevealedAttrGroups map[string]RevealedGroup `json:"revealed_attr_groups"`
		UnrevealedAttrs    map[string]SubProofRef   `json:"unrevealed_attrs"`
		SelfAttestedAttrs  map[string]string        `json:"self_attested_attrs"`
		Predicates         map[string]SubProofRef   `json:"predicates"`
	} `json:"requested_proof"`
	Identifiers []Identifier `json:"identifiers"`
}

// RevealedAttr is a revealed attribute of requested_proof.
type RevealedAttr struct {
	SubProofIndex int    `json:"sub_proof_index"`
	Raw           string `json:"raw"`
	Encoded       string `json:"encoded"`
}

// RevealedGroup is a revealed names group of requested_proof.
type RevealedGroup struct {
	SubProofIndex int `json:"sub_proof_index"`
	Values        map[string]struct {
		Raw     string `json:"raw"`
		Encoded string `json:"encoded"`
	} `json:"values"`
}

// SubProofRef points a referent at a sub proof.
type SubProofRef struct {
	SubProofIndex int `json:"sub_proof_index"`
}

// Identifier names the schema, credential definition and revocation
// registry of one sub proof's credential.
type Identifier struct {
	SchemaID  string  `json:"schema_id"`
	CredDefID string  `json:"cred_def_id"`
	RevRegID  *string `json:"rev_reg_id"`
	Timestamp *uint64 `json:"timestamp"`
}

// Schema is an AnonCreds schema.
type Schema struct {
	ID        string
	IssuerID  string
	Name      string
	Version   string
	AttrNames []string
	// SeqNo is the ledger sequence number of a legacy Indy schema, when
	// its document gives it (ACA-Py's answers do, as "seqNo"); 0 when not
	// known. A legacy credential definition names its schema by it.
	SeqNo int64
}

// ParseSchema reads a schema document: the AnonCreds form (issuerId,
// name, version, attrNames) or the legacy Indy form (id, name, version,
// attrNames; the issuer is the id's DID).
func ParseSchema(id string, raw []byte) (*Schema, error) {
	var j struct {
		ID        string   `json:"id"`
		IssuerID  string   `json:"issuerId"`
		Name      string   `json:"name"`
		Version   string   `json:"version"`
		AttrNames []string `json:"attrNames"`
		SeqNo     *int64   `json:"seqNo"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("schema %s: %v", id, err)
	}
	var seqNo int64
	if j.SeqNo != nil {
		if *j.SeqNo < 1 {
			return nil, fmt.Errorf("schema %s: seqNo %d is not a ledger sequence number", id, *j.SeqNo)
		}
		seqNo = *j.SeqNo
	}
	if j.ID != "" && id != "" && j.ID != id {
		return nil, fmt.Errorf("schema %s: the document is schema %s", id, j.ID)
	}
	if id == "" {
		id = j.ID
	}
	if j.IssuerID == "" {
		if parts := strings.Split(id, ":"); len(parts) == 4 && parts[1] == "2" {
			j.IssuerID = parts[0]
		}
	}
	if j.Name == "" || j.Version == "" || len(j.AttrNames) == 0 {
		return nil, fmt.Errorf("schema %s: name, version and attrNames are required", id)
	}
	if len(j.AttrNames) > cl.MaxAttributes {
		return nil, fmt.Errorf("schema %s: more than %d attributes", id, cl.MaxAttributes)
	}
	return &Schema{ID: id, IssuerID: j.IssuerID, Name: j.Name, Version: j.Version, AttrNames: j.AttrNames, SeqNo: seqNo}, nil
}

// CredentialDefinition is an AnonCreds CL credential definition.
type CredentialDefinition struct {
	ID       string
	IssuerID string
	SchemaID string
	Tag      string
	Key      *cl.PublicKey
	// Revocable tells the definition has a revocation key.
	Revocable bool
}

// ParseCredentialDefinition reads a credential definition document: the
// AnonCreds form (issuerId, schemaId, type CL, tag, value) or the legacy
// Indy form (id, schemaId, type, tag, value; the issuer is the id's DID).
func ParseCredentialDefinition(id string, raw []byte) (*CredentialDefinition, error) {
	var j struct {
		ID       string `json:"id"`
		IssuerID string `json:"issuerId"`
		SchemaID string `json:"schemaId"`
		Type     string `json:"type"`
		Tag      string `json:"tag"`
		Value    struct {
			Primary    json.RawMessage `json:"primary"`
			Revocation json.RawMessage `json:"revocation"`
		} `json:"value"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("credential definition %s: %v", id, err)
	}
	if j.ID != "" && id != "" && j.ID != id {
		return nil, fmt.Errorf("credential definition %s: the document is %s", id, j.ID)
	}
	if id == "" {
		id = j.ID
	}
	if j.Type != "CL" {
		return nil, fmt.Errorf("credential definition %s: type %q is not CL", id, j.Type)
	}
	// schemaId ties the credential to its schema: without it a
	// presentation could show the credential under any schema with the
	// same attributes and meet that schema's restrictions. The reference
	// refuses such a document too ("missing field `schemaId`").
	if j.SchemaID == "" {
		return nil, fmt.Errorf("credential definition %s: schemaId is required (the schema the credential is of)", id)
	}
	if j.IssuerID == "" {
		if issuer, _, ok := names.CredDef(id); ok {
			j.IssuerID = issuer
		}
	}
	key, err := cl.ParsePublicKey(j.Value.Primary)
	if err != nil {
		return nil, fmt.Errorf("credential definition %s: %v", id, err)
	}
	rev := len(j.Value.Revocation) > 0 && string(j.Value.Revocation) != "null"
	return &CredentialDefinition{ID: id, IssuerID: j.IssuerID, SchemaID: j.SchemaID, Tag: j.Tag, Key: key, Revocable: rev}, nil
}
