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

// buildCreate translates the validated request into ACA-Py's
// V20PresCreateRequestRequest, or says why ACA-Py cannot serve it. It is
// written by hand: the bytes json.Marshal wrote of it
// (TestRequestBodyBytes holds it to that). auto_remove is always false:
// ACA-Py otherwise deletes the record as soon as it is done (unless
// started with --preserve-exchange-records), and answers the accept with
// state "deleted"; proofgate needs the record for the answer, a second
// accept's 409 and ownership checks, as Credo keeps it.
func buildCreate(req backend.OOBRequest) ([]byte, error) {
	if req.ProtocolVersion == backend.ProtocolV1 {
		// present-proof 1.0 left ACA-Py in 1.5.0.
		return nil, &agent.UnsupportedError{Field: "protocolVersion", Message: "v1 is not served by the org's agent (ACA-Py); use v2"}
	}
	out := make([]byte, 0, 512)
	out = append(out, `{"presentation_request":`...)
	switch req.RequestType {
	case backend.RequestPresentationExchange:
		def, err := difDefinition(req.PresentationDefinition)
		if err != nil {
			return nil, err
		}
		enc, err := json.Marshal(def)
		if err != nil {
			return nil, fmt.Errorf("encoding request to agent: %w", err)
		}
		out = append(out, `{"dif":{"options":{"challenge":`...)
		out = agent.AppendString(out, uuid.NewString())
		out = append(out, `},"presentation_definition":`...)
		out = append(out, enc...)
		out = append(out, "}}"...)
	default:
		indy := req.Indy.WithBothMaps()
		refs := make([]string, 0, len(indy.RequestedAttributes))
		for ref := range indy.RequestedAttributes {
			refs = append(refs, ref)
		}
		sort.Strings(refs)
		for _, ref := range refs {
			if a := indy.RequestedAttributes[ref]; len(a.Names) > 0 && len(a.Restrictions) == 0 {
				return nil, &agent.UnsupportedError{
					Field:   "proofFormats.indy.requested_attributes." + ref + ".restrictions",
					Message: "the org's agent (ACA-Py) requires restrictions with names",
				}
			}
		}
		// ACA-Py adds the nonce.
		out = append(out, `{"indy":`...)
		out = backend.AppendIndyRequest(out, &indy, true)
		out = append(out, '}')
	}
	if req.Comment != "" {
		out = append(out, `,"comment":`...)
		out = agent.AppendString(out, req.Comment)
	}
	switch req.AutoAcceptProof {
	case "always", "contentApproved":
		// ACA-Py's verifier either verifies on receipt or waits: a
		// presentation that verifies is one whose content matches.
		out = append(out, `,"auto_verify":true`...)
	case "never":
		out = append(out, `,"auto_verify":false`...)
	}
	return append(out, `,"auto_remove":false,"trace":false}`...), nil
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

// buildInvitation asks for an invitation carrying the request presExID:
// ACA-Py's InvitationCreateRequest for a connectionless request (the
// presentation request as attachment, no handshake), written by hand as
// json.Marshal wrote it (TestRequestBodyBytes).
func (b *Backend) buildInvitation(org backend.Org, req backend.OOBRequest, presExID string) []byte {
	out := make([]byte, 0, 192+len(req.Label)+len(req.GoalCode))
	out = append(out, `{"attachments":[{"id":`...)
	out = agent.AppendString(out, presExID)
	out = append(out, `,"type":"present-proof"}]`...)
	if req.Label != "" {
		out = append(out, `,"my_label":`...)
		out = agent.AppendString(out, req.Label)
	}
	if req.GoalCode != "" {
		out = append(out, `,"goal_code":`...)
		out = agent.AppendString(out, req.GoalCode)
	}
	if req.ReuseConnection {
		did := b.InvitationDID
		if d, ok := b.OrgInvitationDIDs[org.ID]; ok {
			did = d
		}
		switch did {
		case "":
		case "public":
			out = append(out, `,"use_public_did":true`...)
		default:
			out = append(out, `,"use_did":`...)
			out = agent.AppendString(out, did)
		}
	}
	return append(out, '}')
}
