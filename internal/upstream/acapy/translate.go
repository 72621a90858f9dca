package acapy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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
		def, err := difDefinition(&req)
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
		if err := indyUnsupported(&indy); err != nil {
			return nil, err
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

// acapyRestrictionKey tells whether ACA-Py 1.4 takes k as a restriction
// key. Its pattern (indy/models/proof_request.py, the same in anoncreds/)
//
//	^schema_id|schema_issuer_did|schema_name|schema_version|issuer_did|cred_def_id|attr::.+::value$
//
// is applied with Python's re.match: anchored at the start only, so that
// each alternative is a prefix but the last, whose $ also matches before
// a final newline (and . matches no newline). ACA-Py refuses (422) a
// request with any other key, AnonCreds' issuer_id, schema_issuer_id,
// attr::<name>::marker and rev_reg_id among them. Checked by hand: it
// runs on every indy create.
func acapyRestrictionKey(k string) bool {
	for _, p := range [...]string{"schema_id", "schema_issuer_did", "schema_name", "schema_version", "issuer_did", "cred_def_id"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	rest, ok := strings.CutPrefix(k, "attr::")
	if !ok {
		return false
	}
	name, ok := strings.CutSuffix(strings.TrimSuffix(rest, "\n"), "::value")
	return ok && name != "" && !strings.Contains(name, "\n")
}

// indyUnsupported names what of a validated indy request ACA-Py refuses,
// every one of them, so that the caller gets a 400 naming each rather than
// a 502: an attribute group (names) without restrictions, and restriction
// keys outside acapyRestrictionKey. It runs on every indy create: nothing
// is sorted unless there is something to refuse.
func indyUnsupported(indy *backend.IndyProofRequest) error {
	var refused []backend.UnsupportedError
	for ref, a := range indy.RequestedAttributes {
		if len(a.Names) > 0 && len(a.Restrictions) == 0 {
			refused = append(refused, backend.UnsupportedError{Field: backend.IndyReferentField("requested_attributes", ref, "restrictions"),
				Message: "the org's agent (ACA-Py) requires restrictions with names"})
		}
		refused = restrictionKeys(refused, a.Restrictions, "requested_attributes", ref)
	}
	for ref, p := range indy.RequestedPredicates {
		refused = restrictionKeys(refused, p.Restrictions, "requested_predicates", ref)
	}
	if len(refused) == 0 {
		return nil
	}
	slices.SortFunc(refused, func(a, b backend.UnsupportedError) int { return strings.Compare(a.Field, b.Field) })
	return backend.Unsupported(refused)
}

// restrictionKeys adds to refused every restriction key ACA-Py refuses of
// the referent ref of kind.
func restrictionKeys(refused []backend.UnsupportedError, restrictions []map[string]string, kind, ref string) []backend.UnsupportedError {
	for i, r := range restrictions {
		for k := range r {
			if !acapyRestrictionKey(k) {
				refused = append(refused, backend.UnsupportedError{Field: backend.Key(backend.IndyReferentField(kind, ref, fmt.Sprintf("restrictions[%d]", i)), k),
					Message: "refused by the org's agent (ACA-Py), which takes only the restriction keys schema_id, schema_issuer_did, " +
						"schema_name, schema_version, issuer_did, cred_def_id and attr::<name>::value"})
			}
		}
	}
	return refused
}

// difDefinition adapts a DIF presentation definition to what ACA-Py's
// schema takes: a UUID4 id (a fresh one replaces any other id: ACA-Py
// refuses it otherwise, and the holder's submission refers to the id it is
// sent), and input descriptor schemas in ACA-Py's object form
// {oneof_filter, uri_groups} rather than the v1 list, which its parser
// turns into exactly that. Its filters are checked and adapted by
// acapyFilters: ACA-Py drops or skips much of JSON Schema without a word.
func difDefinition(req *backend.OOBRequest) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(req.PresentationDefinition))
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
	if err := acapyFilters(def, req); err != nil {
		return nil, err
	}
	return def, nil
}

// buildInvitation asks for an invitation carrying the request presExID:
// ACA-Py's InvitationCreateRequest for a connectionless request (the
// presentation request as attachment, no handshake), written by hand as
// json.Marshal wrote it (TestRequestBodyBytes).
func (b *Backend) buildInvitation(org backend.Org, req backend.OOBRequest, presExID string) []byte {
	out := make([]byte, 0, 192+len(req.Label)+2*len(req.GoalCode)+len(req.Comment))
	out = append(out, `{"attachments":[{"id":`...)
	out = agent.AppendString(out, presExID)
	out = append(out, `,"type":"present-proof"}]`...)
	if req.Label != "" {
		out = append(out, `,"my_label":`...)
		out = agent.AppendString(out, req.Label)
	}
	if req.GoalCode != "" {
		// ACA-Py's wallets refuse an invitation with a goal_code but no
		// goal ("Model cannot have goal_code without goal"). The goal is
		// the text a wallet shows its user about the invitation: the
		// request's comment says that in the verifier's words; without
		// one, the goal code is all there is to say.
		goal := req.Comment
		if goal == "" {
			goal = req.GoalCode
		}
		out = append(out, `,"goal":`...)
		out = agent.AppendString(out, goal)
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
