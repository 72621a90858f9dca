package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/validate"
)

// oobData is data of 4.1's success envelope (one recipient, or none).
type oobData struct {
	ProofRecordID     string          `json:"proofRecordId"`
	ProofRecordThID   string          `json:"proofRecordThId"`
	OutOfBandID       string          `json:"outOfBandId"`
	InvitationURL     string          `json:"invitationUrl"`
	LongInvitationURL string          `json:"longInvitationUrl"`
	Invitation        json.RawMessage `json:"invitation"`
}

// SendOutOfBandRequest serves POST /orgs/{orgId}/proofs/oob.
func (g *Gateway) SendOutOfBandRequest(w http.ResponseWriter, r *http.Request, orgID string) {
	principal, ok := g.authenticate(w, r)
	if !ok {
		return
	}
	if !principal.Authorize(orgID, g.AllowedRoles) {
		writeForbidden(w)
		return
	}
	body, ok := g.readJSONBody(w, r)
	if !ok {
		return
	}
	req, err := g.Validator.OOB(r.URL.Query().Get("requestType"), body)
	if err != nil {
		var problems validate.Errors
		if errors.As(err, &problems) {
			writeError(w, http.StatusBadRequest, []string(problems))
			return
		}
		WriteInternalError(w, g.Logger, err.Error())
		return
	}
	if len(req.Emails) > 0 {
		writeError(w, http.StatusBadRequest, []string{"emailId: e-mail delivery is not configured on this gateway"})
		return
	}
	if req.IsShortenURL && g.ShortURLs == nil {
		writeError(w, http.StatusBadRequest, []string{"isShortenUrl: short URLs are not configured on this gateway (set public_url)"})
		return
	}

	b, org, ok := g.Backends.Route(orgID)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("org %s is not served by this gateway", orgID))
		return
	}
	res, err := b.SendOutOfBandRequest(r.Context(), org, req)
	if err != nil {
		writeBackendError(w, g.Logger, "", err)
		return
	}
	data := oobData{
		ProofRecordID:     res.ProofRecord.ID,
		ProofRecordThID:   res.ProofRecord.ThreadID,
		OutOfBandID:       res.OutOfBandID,
		InvitationURL:     res.InvitationURL,
		LongInvitationURL: res.InvitationURL,
		Invitation:        res.Invitation,
	}
	if req.IsShortenURL {
		id, _, err := g.ShortURLs.Create(r.Context(), orgID, res.InvitationURL, res.Invitation)
		if err != nil {
			g.discard(r, b, org, res.ProofRecord.ID)
			g.Logger.Error("storing short URL", zap.Error(err))
			writeError(w, http.StatusServiceUnavailable, "the verifier is unavailable; try again later")
			return
		}
		data.InvitationURL = g.ShortURLBase + id
	}
	writeJSON(w, http.StatusCreated, successBody{
		StatusCode: http.StatusCreated,
		Success:    true,
		Message:    "Proof request sent successfully.",
		Data:       data,
	})
}

// discard removes a record whose request failed after the backend created
// it, where the backend can, so no partial request survives.
func (g *Gateway) discard(r *http.Request, b backend.Backend, org backend.Org, recordID string) {
	d, ok := b.(backend.Discarder)
	if !ok {
		return
	}
	if err := d.DiscardRecord(r.Context(), org, recordID); err != nil {
		g.Logger.Error("discarding the record of a failed request", zap.String("proof_record_id", recordID), zap.Error(err))
	}
}

// readJSONBody checks the content type (415) and reads the body up to the
// size cap (413).
func (g *Gateway) readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return nil, false
	}
	if r.ContentLength > g.MaxBodySize {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body must not exceed %d bytes", g.MaxBodySize))
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.MaxBodySize))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body must not exceed %d bytes", g.MaxBodySize))
			return nil, false
		}
		writeError(w, http.StatusBadRequest, []string{"body: could not be read"})
		return nil, false
	}
	return body, true
}

// isJSON accepts application/json and any application/*+json type.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	if mt == "application/json" {
		return true
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	return ok && len(sub) > len("+json") && strings.HasSuffix(sub, "+json")
}
