package proofs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/jsonlimit"
	"github.com/proofgate/proofgate/internal/pexcheck"
)

// Presentation attachment formats (RFC 0454 registry) and the present-proof
// 1.0 attachment id Credo and ACA-Py use.
const (
	FormatIndyProof        = "hlindy/proof@v2.0"
	FormatAnonCredsProof   = "anoncreds/proof@v1.0"
	FormatDIFSubmission    = "dif/presentation-exchange/submission@v1.0"
	AttachIDPresentationV1 = "libindy-presentation-0"
)

// checked is a presentation's attachment as the structural check found it,
// for the verifier that judges it next.
type checked struct {
	// Format is the attachment format (for 1.0, FormatIndyProof).
	Format string
	// Request and Payload are the format attachments of our request and
	// of the presentation.
	Request, Payload []byte
}

// checkPresentation tells what a presentation lacks to answer the record's
// request; no problems means it answers it.
//
// This is the structural check: that the presentation is in the requested
// format and covers everything asked for (DIF: definition id, every input
// descriptor or the submission requirements, descriptor paths that select
// a credential whose required fields exist and match their filters, a
// proof carrying the request's challenge and domain; Indy: every requested
// attribute and predicate referent, attribute groups with all their names,
// no self-attested value where restrictions apply, restrictions that can
// be read from the credential identifiers). The signatures are checked
// after it, by the format's verifier (Config.Verifiers), when there is one.
//
// Its work is bounded (limits.go): the payload is measured before it is
// decoded, descriptor paths are plain, and definition paths run on one
// shared budget.
func checkPresentation(doc *Doc, msg *inboundMessage) (checked, []string) {
	req, err := requestPayload(doc.Request)
	if err != nil {
		return checked{}, []string{"the stored request cannot be read: " + err.Error()}
	}
	c := checked{Request: req}
	switch doc.RequestType {
	case backend.RequestPresentationExchange:
		data, format, problem := presentationPayload(msg, doc.Record.ProtocolVersion, FormatDIFSubmission)
		if problem != "" {
			return c, []string{problem}
		}
		c.Format, c.Payload = format, data
		return c, pexcheck.Check(req, data, doc.Nonce, doc.Domain)
	case backend.RequestIndy:
		data, format, problem := presentationPayload(msg, doc.Record.ProtocolVersion, FormatIndyProof, FormatAnonCredsProof)
		if problem != "" {
			return c, []string{problem}
		}
		c.Format, c.Payload = format, data
		return c, checkIndyProof(req, data)
	default:
		return c, []string{fmt.Sprintf("unknown request type %q", doc.RequestType)}
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

// presentationPayload finds the presentation's attachment and its format:
// for 2.0 the one formats[] ties to one of the wanted formats, for 1.0 the
// libindy attachment (or the only one). It returns a problem text
// otherwise, or when the attachment's JSON exceeds the document limits.
func presentationPayload(msg *inboundMessage, protocolVersion string, formats ...string) ([]byte, string, string) {
	var att *Attachment
	format := formats[0]
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
			return nil, "", "no " + AttachIDPresentationV1 + " attachment in presentations~attach"
		}
	} else {
		for _, f := range msg.Formats {
			for _, want := range formats {
				if f.Format != want {
					continue
				}
				for i := range msg.Attach {
					if msg.Attach[i].ID == f.AttachID {
						att, format = &msg.Attach[i], f.Format
					}
				}
			}
		}
		if att == nil {
			return nil, "", "no " + strings.Join(formats, " or ") + " attachment (formats[] must name it and presentations~attach hold it)"
		}
	}
	data, err := attachmentData(*att)
	if err != nil {
		return nil, "", fmt.Sprintf("attachment %q: %v", att.ID, err)
	}
	if problem := jsonlimit.Problem(data); problem != "" {
		return nil, "", fmt.Sprintf("attachment %q: the presentation %s", att.ID, problem)
	}
	return data, format, ""
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
