package local

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/caddyserver/caddy/v2"

	"github.com/proofgate/proofgate/internal/verify/w3c"
)

// policyID identifies what this backend judges presentations by
// (proofs.Config.Policy): the W3C verification options, the
// anoncreds_registry sources and revocation rule, invitation_ttl and
// allow_private_endpoints. Instances of one cluster configured alike share
// it even when each advertises its own DIDComm endpoint, and take each
// other's records; another site on the storage with another policy does
// not judge this one's records by its own. The URLs, label, storage,
// retention and keys are not policy; neither are a registry source's
// credentials or cache (instances may each have their own), which also
// keeps them out of every record.
func (l *Local) policyID() string {
	type source struct {
		Type  string `json:"type"`
		Dir   string `json:"dir,omitempty"`
		Agent string `json:"agent,omitempty"`
		URL   string `json:"url,omitempty"`
	}
	var p struct {
		W3C                   w3c.Options    `json:"w3c"`
		Sources               []source       `json:"anoncredsSources,omitempty"`
		RevocationUnchecked   string         `json:"revocationUnchecked,omitempty"`
		Anoncreds             bool           `json:"anoncreds"`
		InvitationTTL         caddy.Duration `json:"invitationTtl"`
		AllowPrivateEndpoints bool           `json:"allowPrivateEndpoints"`
	}
	p.W3C, p.InvitationTTL, p.AllowPrivateEndpoints = l.Options, l.InvitationTTL, l.AllowPrivateEndpoints
	if r := l.AnonCredsRegistry; r != nil {
		p.Anoncreds, p.RevocationUnchecked = true, r.RevocationUnchecked
		for _, s := range r.Sources {
			p.Sources = append(p.Sources, source{Type: s.Type, Dir: s.Dir, Agent: s.Agent, URL: s.URL})
		}
	}
	b, err := json.Marshal(p) // strings, numbers and booleans only
	if err != nil {
		// No policy id: records are then taken at their own endpoint only
		// (Service.madeHere), never by a site whose policy merely failed
		// to encode the same way.
		return ""
	}
	sum := sha256.Sum256(append([]byte("proofgate local policy\x00"), b...))
	return hex.EncodeToString(sum[:16])
}
