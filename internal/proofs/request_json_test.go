package proofs

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestAppendRequestMessage: appendRequestMessage writes what marshal
// writes for both versions: every field set (fill), the messages
// BuildRequest makes (indy and DIF), optional members absent, a zero
// message; and fails where marshal fails.
func TestAppendRequestMessage(t *testing.T) {
	var v2 RequestPresentationV2
	fill(reflect.ValueOf(&v2).Elem())
	var v1 RequestPresentationV1
	fill(reflect.ValueOf(&v1).Elem())
	v2.Attach[1].Data.Base64 = "" // json only
	v1.Attach[0].Data.JSON = nil  // base64 only
	bare2 := RequestPresentationV2{Type: TypeRequestV2, ID: "i", Formats: []AttachFormat{}, Attach: []Attachment{}}
	service := &ServiceDecorator{RecipientKeys: []string{"k"}, RoutingKeys: []string{}, ServiceEndpoint: "https://v.example/didcomm?a=1&b=<2>"}
	built := RequestPresentationV2{Type: TypeRequestV2, ID: "3fa85f64", WillConfirm: true,
		Formats: []AttachFormat{{AttachID: AttachIDDIF, Format: FormatDIFRequest}},
		Attach:  []Attachment{{ID: AttachIDDIF, MimeType: "application/json", Data: AttachData{JSON: json.RawMessage(`{"options":{"challenge":"c"},"presentation_definition":{"id":"<x>"}}`)}}},
		Thread:  Thread{ThID: "t", PThID: "p"}, Service: service}
	for name, msg := range map[string]any{
		"v2 full": v2, "v1 full": v1, "v2 bare": bare2, "v2 zero": RequestPresentationV2{}, "v1 zero": RequestPresentationV1{}, "v2 built": built,
	} {
		want, wantErr := marshal(msg)
		got, err := appendRequestMessage([]byte("x"), msg)
		if (err != nil) != (wantErr != nil) || (err == nil && string(got) != "x"+string(want)) {
			t.Errorf("%s:\n got  %s (%v)\n want x%s (%v)", name, got, err, want, wantErr)
		}
	}
	bad := built
	bad.Attach = []Attachment{{Data: AttachData{JSON: json.RawMessage(`{`)}}}
	if _, err := appendRequestMessage(nil, bad); err == nil {
		t.Error("an invalid attachment is encoded")
	}
	if _, err := appendRequestMessage(nil, Invitation{}); err == nil {
		t.Error("another type is encoded")
	}
}
