package proofs

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestAppendInvitation: appendInvitation writes what marshal writes, for
// every field set (awkward strings, a raw request with spaces and HTML
// characters), the invitations BuildInvitation makes, and a zero
// Invitation; and fails where marshal fails.
func TestAppendInvitation(t *testing.T) {
	var full Invitation
	fill(reflect.ValueOf(&full).Elem())
	both := full
	both.Requests = []Attachment{{ID: "a", MimeType: "m", Data: AttachData{Base64: "eyJ9", JSON: json.RawMessage(`{"x":1}`)}}, {ID: "b"}}
	thid := full
	thid.Thread = &Thread{ThID: "t"}
	request := json.RawMessage(`{"@type":"https://didcomm.org/present-proof/2.0/request-presentation","request_presentations~attach":[{"data":{"base64":"eyJuYW1lIjoiYWdlIn0="}}],"comment":"<&>"}`)
	built := func(label, goal, pthid string) Invitation {
		inv := Invitation{Type: TypeInvitation, ID: "3fa85f64", Label: label, GoalCode: goal, Goal: goal, Accept: Accept,
			Requests: []Attachment{{ID: AttachIDRequest, MimeType: "application/json", Data: AttachData{JSON: request}}},
			Services: []InlineService{{ID: "#inline-0", Type: ServiceTypeDIDComm, RecipientKeys: []string{"did:key:z6Mk"}, RoutingKeys: []string{}, ServiceEndpoint: "https://v.example/didcomm?a=1&b=2"}}}
		if pthid != "" {
			inv.Thread = &Thread{PThID: pthid}
		}
		return inv
	}
	for name, inv := range map[string]Invitation{
		"full": full, "both data": both, "thid": thid, "zero": {},
		"built": built("verifier.example.com", "", ""), "built with all": built("A & B <ok> \u2028", "aries.vc.verify", "p-1"),
	} {
		want, wantErr := marshal(inv)
		got, err := appendInvitation([]byte("x"), &inv)
		if (err != nil) != (wantErr != nil) || (err == nil && string(got) != "x"+string(want)) {
			t.Errorf("%s:\n got  %s (%v)\n want x%s (%v)", name, got, err, want, wantErr)
		}
	}
	bad := built("", "", "")
	bad.Requests[0].Data.JSON = json.RawMessage(`{"a":`)
	if _, err := appendInvitation(nil, &bad); err == nil {
		t.Error("an invalid request is attached")
	}
}
