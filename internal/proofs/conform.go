package proofs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/proofgate/proofgate/internal/backend"
)

// Presentation attachment formats (RFC 0454 registry) and the present-proof
// 1.0 attachment id Credo and ACA-Py use.
const (
	FormatIndyProof        = "hlindy/proof@v2.0"
	FormatAnonCredsProof   = "anoncreds/proof@v1.0"
	FormatDIFSubmission    = "dif/presentation-exchange/submission@v1.0"
	AttachIDPresentationV1 = "libindy-presentation-0"
)

// checkPresentation tells what a presentation lacks to answer the record's
// request; nil means it answers it.
//
// This is a structural check, and the only one the local verifier makes:
// that the presentation is in the requested format and covers everything
// asked for (DIF: definition id, every input descriptor or the submission
// requirements, descriptor paths that select a credential whose required
// fields exist and match their filters, a proof carrying the request's
// challenge and domain; Indy: every requested attribute and predicate
// referent, attribute groups with all their names, no self-attested value
// where restrictions apply, restrictions that can be read from the
// credential identifiers). The signatures are NOT verified: neither the
// AnonCreds CL proof nor the linked-data proof of the presentation and its
// credentials. A record that passes gets metadata.verification
// {answersRequest: true, signaturesVerified: false} and no isVerified until
// signature verification lands.
func checkPresentation(doc *Doc, msg *inboundMessage) []string {
	req, err := requestPayload(doc.Request)
	if err != nil {
		return []string{"the stored request cannot be read: " + err.Error()}
	}
	switch doc.RequestType {
	case backend.RequestPresentationExchange:
		data, problem := presentationPayload(msg, doc.Record.ProtocolVersion, FormatDIFSubmission)
		if problem != "" {
			return []string{problem}
		}
		return checkSubmission(req, data, doc.Nonce, doc.Domain)
	case backend.RequestIndy:
		data, problem := presentationPayload(msg, doc.Record.ProtocolVersion, FormatIndyProof, FormatAnonCredsProof)
		if problem != "" {
			return []string{problem}
		}
		return checkIndyProof(req, data)
	default:
		return []string{fmt.Sprintf("unknown request type %q", doc.RequestType)}
	}
}

// requestPayload returns the format attachment of our own
// request-presentation (BuildRequest writes exactly one).
func requestPayload(request json.RawMessage) ([]byte, error) {
	var m struct {
		Attach []Attachment `json:"request_presentations~attach"`
	}
	if err := json.Unmarshal(request, &m); err != nil {
		return nil, err
	}
	if len(m.Attach) != 1 {
		return nil, fmt.Errorf("%d request attachments", len(m.Attach))
	}
	return attachmentData(m.Attach[0])
}

// presentationPayload finds the presentation's attachment: for 2.0 the
// one formats[] ties to one of the wanted formats, for 1.0 the libindy
// attachment (or the only one). It returns a problem text otherwise.
func presentationPayload(msg *inboundMessage, protocolVersion string, formats ...string) ([]byte, string) {
	var att *Attachment
	if protocolVersion == backend.ProtocolV1 {
		for i := range msg.Attach {
			if msg.Attach[i].ID == AttachIDPresentationV1 {
				att = &msg.Attach[i]
			}
		}
		if att == nil && len(msg.Attach) == 1 {
			att = &msg.Attach[0]
		}
		if att == nil {
			return nil, "no " + AttachIDPresentationV1 + " attachment in presentations~attach"
		}
	} else {
		for _, f := range msg.Formats {
			for _, want := range formats {
				if f.Format != want {
					continue
				}
				for i := range msg.Attach {
					if msg.Attach[i].ID == f.AttachID {
						att = &msg.Attach[i]
					}
				}
			}
		}
		if att == nil {
			return nil, "no " + strings.Join(formats, " or ") + " attachment (formats[] must name it and presentations~attach hold it)"
		}
	}
	data, err := attachmentData(*att)
	if err != nil {
		return nil, fmt.Sprintf("attachment %q: %v", att.ID, err)
	}
	return data, ""
}

// attachmentData returns an attachment's content: data.json as is, or
// data.base64 decoded (RFC 0017 says base64url; agents also send standard
// base64, padded or not).
func attachmentData(a Attachment) ([]byte, error) {
	if j := bytes.TrimSpace(a.Data.JSON); len(j) > 0 && !bytes.Equal(j, []byte("null")) {
		return j, nil
	}
	if a.Data.Base64 == "" {
		return nil, errors.New("no data.json or data.base64")
	}
	s := strings.TrimRight(a.Data.Base64, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("data.base64 is not base64")
}
