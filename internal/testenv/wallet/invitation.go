package wallet

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/proofgate/proofgate/internal/didcomm"
)

// Invitation is what a wallet reads from an out-of-band invitation that
// carries a connectionless present-proof request.
type Invitation struct {
	// ID is the invitation's @id (the request's ~thread.pthid).
	ID string
	// VerifierKey is the first recipient key of the invitation's service,
	// as a base58 verkey: the key a presentation is encrypted to.
	VerifierKey string
	// Endpoint is the service endpoint presentations are posted to.
	Endpoint string
	// ThreadID and ParentThreadID are the request's ~thread.
	ThreadID, ParentThreadID string
	// V1 is true for a present-proof 1.0 request.
	V1 bool
	// Format is the request's attachment format (FormatIndyRequest,
	// FormatDIFRequest, ...); FormatIndyRequest for 1.0.
	Format string
	// Challenge, Domain and DefinitionID come from a DIF request.
	Challenge, Domain, DefinitionID string
	// Definition is a DIF request's presentation_definition.
	Definition json.RawMessage
	// ProofRequest is an AnonCreds request: names, referents, nonce.
	ProofRequest ProofRequest
	// Raw is the invitation JSON; Request the attached request message;
	// Payload the request's format attachment.
	Raw     map[string]any
	Request map[string]any
	Payload []byte
}

// IsDIF reports whether the request asks for a DIF presentation.
func (inv *Invitation) IsDIF() bool { return inv.Format == FormatDIFRequest }

// ProofRequest is the part of an AnonCreds proof request the wallet reads.
type ProofRequest struct {
	Name                string                   `json:"name"`
	Version             string                   `json:"version"`
	Nonce               string                   `json:"nonce"`
	RequestedAttributes map[string]RequestedAttr `json:"requested_attributes"`
	RequestedPredicates map[string]RequestedPred `json:"requested_predicates"`
	NonRevoked          map[string]any           `json:"non_revoked,omitempty"`
}

// RequestedAttr is one requested attribute (name, or names of a group).
type RequestedAttr struct {
	Name         string              `json:"name,omitempty"`
	Names        []string            `json:"names,omitempty"`
	Restrictions []map[string]string `json:"restrictions,omitempty"`
}

// RequestedPred is one requested predicate.
type RequestedPred struct {
	Name         string              `json:"name"`
	PType        string              `json:"p_type"`
	PValue       int                 `json:"p_value"`
	Restrictions []map[string]string `json:"restrictions,omitempty"`
}

// maxInvitation caps a fetched invitation.
const maxInvitation = 1 << 20

// ResolveInvitation reads an invitation URL: a long URL with ?oob= (or
// ?c_i= / ?d_m=) is decoded in place; any other http(s) URL (a short URL)
// is fetched with Accept: application/json, as RFC 0434 wallets do, and
// the answer is the invitation JSON or a redirect to a long URL. client
// may be nil (http.DefaultClient).
func ResolveInvitation(ctx context.Context, client *http.Client, rawURL string) (*Invitation, error) {
	if inv, err := ParseInvitation(rawURL); err == nil || !errors.Is(err, errNoParameter) {
		return inv, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("invitation URL: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the invitation: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxInvitation))
	if err != nil {
		return nil, fmt.Errorf("fetching the invitation: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching the invitation: HTTP %d", resp.StatusCode)
	}
	if resp.Request != nil && resp.Request.URL.String() != rawURL {
		if inv, err := ParseInvitation(resp.Request.URL.String()); err == nil {
			return inv, nil
		}
	}
	return ParseInvitationJSON(body)
}

var errNoParameter = errors.New("the URL has no oob, c_i or d_m parameter")

// ParseInvitation decodes a long invitation URL (?oob=, ?c_i= or ?d_m=,
// base64url with or without padding, or standard base64).
func ParseInvitation(rawURL string) (*Invitation, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("invitation URL: %w", err)
	}
	var enc string
	for _, p := range []string{"oob", "c_i", "d_m"} {
		if v := u.Query().Get(p); v != "" {
			enc = v
			break
		}
	}
	if enc == "" {
		return nil, errNoParameter
	}
	raw, err := decodeBase64(enc)
	if err != nil {
		return nil, fmt.Errorf("invitation URL: the parameter is not base64: %w", err)
	}
	return ParseInvitationJSON(raw)
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(s)
	}
	return b, err
}

// attachment reads an RFC 0017 attachment's data (json or base64).
func attachment(a any) ([]byte, error) {
	m, _ := a.(map[string]any)
	data, _ := m["data"].(map[string]any)
	if data == nil {
		return nil, errors.New("attachment without data")
	}
	if j, ok := data["json"]; ok && j != nil {
		return json.Marshal(j)
	}
	if b, ok := data["base64"].(string); ok {
		return decodeBase64(b)
	}
	return nil, errors.New("attachment without data.json or data.base64")
}

// ParseInvitationJSON reads an RFC 0434 invitation with one attached
// present-proof request and one inline service.
func ParseInvitationJSON(raw []byte) (*Invitation, error) {
	inv := &Invitation{}
	if err := json.Unmarshal(raw, &inv.Raw); err != nil {
		return nil, fmt.Errorf("invitation: not a JSON object: %w", err)
	}
	inv.ID, _ = inv.Raw["@id"].(string)
	svcs, _ := inv.Raw["services"].([]any)
	if len(svcs) == 0 {
		return nil, errors.New("invitation: no services")
	}
	svc, _ := svcs[0].(map[string]any)
	if svc == nil {
		return nil, errors.New("invitation: the service is a DID, not an inline service; this wallet resolves no DIDs")
	}
	keys, _ := svc["recipientKeys"].([]any)
	if len(keys) == 0 {
		return nil, errors.New("invitation: the service has no recipientKeys")
	}
	k, _ := keys[0].(string)
	vk, err := didcomm.Verkey(k)
	if err != nil {
		return nil, fmt.Errorf("invitation: recipient key %q: %w", k, err)
	}
	inv.VerifierKey = vk
	inv.Endpoint, _ = svc["serviceEndpoint"].(string)

	atts, _ := inv.Raw["requests~attach"].([]any)
	if len(atts) == 0 {
		return nil, errors.New("invitation: no requests~attach (this wallet answers connectionless proof requests only)")
	}
	reqRaw, err := attachment(atts[0])
	if err != nil {
		return nil, fmt.Errorf("invitation: requests~attach[0]: %w", err)
	}
	if err := json.Unmarshal(reqRaw, &inv.Request); err != nil {
		return nil, fmt.Errorf("invitation: the attached request is not a JSON object: %w", err)
	}
	typ, _ := inv.Request["@type"].(string)
	typ = normalizeType(typ)
	switch typ {
	case TypeRequestV1:
		inv.V1 = true
		inv.Format = FormatIndyRequest
	case TypeRequestV2:
		fs, _ := inv.Request["formats"].([]any)
		if len(fs) == 0 {
			return nil, errors.New("invitation: the 2.0 request has no formats")
		}
		f, _ := fs[0].(map[string]any)
		inv.Format, _ = f["format"].(string)
	default:
		return nil, fmt.Errorf("invitation: the attached message is %q, not a present-proof request", typ)
	}
	if th, ok := inv.Request["~thread"].(map[string]any); ok {
		inv.ThreadID, _ = th["thid"].(string)
		inv.ParentThreadID, _ = th["pthid"].(string)
	}
	if inv.ThreadID == "" {
		// RFC 0008: a message without ~thread starts a thread named by its @id.
		inv.ThreadID, _ = inv.Request["@id"].(string)
	}
	ras, _ := inv.Request["request_presentations~attach"].([]any)
	if len(ras) == 0 {
		return nil, errors.New("invitation: the request has no request_presentations~attach")
	}
	if inv.Payload, err = attachment(ras[0]); err != nil {
		return nil, fmt.Errorf("invitation: request_presentations~attach[0]: %w", err)
	}
	switch inv.Format {
	case FormatDIFRequest:
		var pe struct {
			Options struct {
				Challenge string `json:"challenge"`
				Domain    string `json:"domain"`
			} `json:"options"`
			Definition json.RawMessage `json:"presentation_definition"`
		}
		if err := json.Unmarshal(inv.Payload, &pe); err != nil {
			return nil, fmt.Errorf("invitation: DIF request: %w", err)
		}
		var def struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(pe.Definition, &def)
		inv.Challenge, inv.Domain, inv.Definition, inv.DefinitionID = pe.Options.Challenge, pe.Options.Domain, pe.Definition, def.ID
	case FormatIndyRequest, FormatAnonCredsReq:
		if err := json.Unmarshal(inv.Payload, &inv.ProofRequest); err != nil {
			return nil, fmt.Errorf("invitation: AnonCreds proof request: %w", err)
		}
	default:
		return nil, fmt.Errorf("invitation: request format %q is not one this wallet answers", inv.Format)
	}
	return inv, nil
}

// normalizeType maps the legacy did:sov prefix to https://didcomm.org/.
func normalizeType(t string) string {
	const legacy = "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/"
	if rest, ok := strings.CutPrefix(t, legacy); ok {
		return "https://didcomm.org/" + rest
	}
	return t
}
