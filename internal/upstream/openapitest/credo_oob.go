package openapitest

import (
	"fmt"
	"net/http"
	"sort"

	"github.com/google/uuid"
)

// The fake credo-controller's out-of-band records: the one each create
// makes for its invitation, listed by GET /didcomm/oob?invitationId= and
// deleted by DELETE /didcomm/oob/{outOfBandId} (the credo backend's
// DiscardRecord).

// newOOBRecord is the out-of-band record of invitation inv as Credo
// 0.5.19's toJSON writes it (its shape pinned by
// credo.TestRealCredoDiscardedInvitation): _tags holds only the custom
// tags, the default ones (invitationId, role, state) are computed, not
// stored, whatever the document's example shows.
func newOOBRecord(inv map[string]any) map[string]any {
	ts := now()
	return map[string]any{
		"_tags":                map[string]any{"recipientKeyFingerprints": []string{"z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"}},
		"metadata":             map[string]any{},
		"id":                   uuid.NewString(),
		"createdAt":            ts,
		"updatedAt":            ts,
		"outOfBandInvitation":  inv,
		"role":                 "sender",
		"state":                "await-response",
		"reusable":             false,
		"autoAcceptConnection": true,
	}
}

// serveOOB answers GetAllOutOfBandRecords and DeleteOutOfBandRecord for
// tenant's wallet ("" for the agent's own); c.mu is held.
func (c *Credo) serveOOB(w http.ResponseWriter, r *http.Request, op, tenant string, params map[string]string) {
	switch op {
	case "GetAllOutOfBandRecords":
		// Credo's findAllByQuery({invitationId}); all without one.
		inv := r.URL.Query().Get("invitationId")
		out := []map[string]any{}
		for _, rec := range c.oobs[tenant] {
			if inv == "" || rec["outOfBandInvitation"].(map[string]any)["@id"] == inv {
				out = append(out, rec)
			}
		}
		writeJSON(w, http.StatusOK, out)

	case "DeleteOutOfBandRecord":
		id := params["outOfBandId"]
		if c.oobs[tenant][id] == nil {
			// Credo's RecordNotFoundError, which credo-controller answers 404.
			if c.opts.Legacy {
				writeJSON(w, http.StatusNotFound, map[string]string{"reason": fmt.Sprintf("Out of band record with id %q not found.", id)})
				return
			}
			writeJSON(w, http.StatusNotFound, map[string]string{"message": fmt.Sprintf("OutOfBandRecord: record with id %s not found.", id)})
			return
		}
		delete(c.oobs[tenant], id)
		w.WriteHeader(http.StatusNoContent)
	}
}

// Invitations returns the @id of every invitation whose out-of-band record
// tenant's wallet still holds, sorted.
func (c *Credo) Invitations(tenant string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.oobs[tenant] {
		out = append(out, r["outOfBandInvitation"].(map[string]any)["@id"].(string))
	}
	sort.Strings(out)
	return out
}
