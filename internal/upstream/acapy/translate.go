package acapy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// createRequest is ACA-Py's V20PresCreateRequestRequest.
type createRequest struct {
	PresentationRequest map[string]any `json:"presentation_request"`
	Comment             string         `json:"comment,omitempty"`
	AutoVerify          *bool          `json:"auto_verify,omitempty"`
	// AutoRemove is always false: ACA-Py otherwise deletes the record as
	// soon as it is done (unless started with --preserve-exchange-records),
	// and answers the accept with state "deleted"; proofgate needs the
	// record for the answer, a second accept's 409 and ownership checks,
	// as Credo keeps it.
	AutoRemove bool `json:"auto_remove"`
	Trace      bool `json:"trace"`
}

// createInvitation is ACA-Py's InvitationCreateRequest for a connectionless
// request: the presentation request as attachment, no handshake.
type createInvitation struct {
	Attachments  []attachmentDef `json:"attachments"`
	MyLabel      string          `json:"my_label,omitempty"`
	GoalCode     string          `json:"goal_code,omitempty"`
	UsePublicDID bool            `json:"use_public_did,omitempty"`
	UseDID       string          `json:"use_did,omitempty"`
}

type attachmentDef struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// isUUID4 tells whether s has the pattern ACA-Py's schemas put on
// presentation definition ids, challenges and record ids:
// ^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-4[a-fA-F0-9]{3}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$
// (checked by hand: it runs on every accept and every record read).
func isUUID4(s string) bool {
	if len(s) != 36 || s[14] != '4' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// buildCreate translates the validated request, or says why ACA-Py cannot
// serve it.
func buildCreate(req backend.OOBRequest) (createRequest, error) {
	if req.ProtocolVersion == backend.ProtocolV1 {
		// present-proof 1.0 left ACA-Py in 1.5.0.
		return createRequest{}, &agent.UnsupportedError{Field: "protocolVersion", Message: "v1 is not served by the org's agent (ACA-Py); use v2"}
	}
	body := createRequest{Comment: req.Comment}
	switch req.AutoAcceptProof {
	case "always", "contentApproved":
		// ACA-Py's verifier either verifies on receipt or waits: a
		// presentation that verifies is one whose content matches.
		t := true
		body.AutoVerify = &t
	case "never":
		f := false
		body.AutoVerify = &f
	}
	switch req.RequestType {
	case backend.RequestPresentationExchange:
		def, err := difDefinition(req.PresentationDefinition)
		if err != nil {
			return createRequest{}, err
		}
		body.PresentationRequest = map[string]any{"dif": map[string]any{
			"options":                 map[string]any{"challenge": uuid.NewString()},
			"presentation_definition": def,
		}}
	default:
		indy := *req.Indy
		if indy.RequestedAttributes == nil {
			indy.RequestedAttributes = map[string]backend.IndyAttribute{}
		}
		if indy.RequestedPredicates == nil {
			indy.RequestedPredicates = map[string]backend.IndyPredicate{}
		}
		refs := make([]string, 0, len(indy.RequestedAttributes))
		for ref := range indy.RequestedAttributes {
			refs = append(refs, ref)
		}
		sort.Strings(refs)
		for _, ref := range refs {
			if a := indy.RequestedAttributes[ref]; len(a.Names) > 0 && len(a.Restrictions) == 0 {
				return createRequest{}, &agent.UnsupportedError{
					Field:   "proofFormats.indy.requested_attributes." + ref + ".restrictions",
					Message: "the org's agent (ACA-Py) requires restrictions with names",
				}
			}
		}
		// ACA-Py adds the nonce.
		body.PresentationRequest = map[string]any{"indy": indy}
	}
	return body, nil
}

// difDefinition adapts a DIF presentation definition to what ACA-Py's
// schema takes: a UUID4 id (a fresh one replaces any other id: ACA-Py
// refuses it otherwise, and the holder's submission refers to the id it is
// sent), and input descriptor schemas in ACA-Py's object form
// {oneof_filter, uri_groups} rather than the v1 list, which its parser
// turns into exactly that.
func difDefinition(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var def map[string]any
	if err := dec.Decode(&def); err != nil {
		return nil, fmt.Errorf("presentation definition: %w", err)
	}
	if id, _ := def["id"].(string); !isUUID4(id) {
		def["id"] = uuid.NewString()
	}
	if ids, ok := def["input_descriptors"].([]any); ok {
		for _, d := range ids {
			desc, ok := d.(map[string]any)
			if !ok {
				continue
			}
			if list, ok := desc["schema"].([]any); ok {
				desc["schema"] = map[string]any{"oneof_filter": false, "uri_groups": []any{list}}
			}
		}
	}
	return def, nil
}

// buildInvitation asks for an invitation carrying the request pres.
func (b *Backend) buildInvitation(org backend.Org, req backend.OOBRequest, presExID string) createInvitation {
	inv := createInvitation{
		Attachments: []attachmentDef{{ID: presExID, Type: "present-proof"}},
		MyLabel:     req.Label,
		GoalCode:    req.GoalCode,
	}
	if req.ReuseConnection {
		did := b.InvitationDID
		if d, ok := b.OrgInvitationDIDs[org.ID]; ok {
			did = d
		}
		switch did {
		case "":
		case "public":
			inv.UsePublicDID = true
		default:
			inv.UseDID = did
		}
	}
	return inv
}
