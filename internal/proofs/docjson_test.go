package proofs

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/proofgate/proofgate/internal/backend"
)

// TestDocAppendJSON: Doc.AppendJSON writes what json.Marshal writes, for a
// fresh record, a record with every field set (awkward strings, raw
// messages with spaces and HTML characters), and a zero Doc; and fails
// where json.Marshal fails.
func TestDocAppendJSON(t *testing.T) {
	full := Doc{}
	fill(reflect.ValueOf(&full).Elem())
	verified := false
	fresh := Doc{
		Format: DocFormat,
		Record: backend.ProofRecord{Metadata: map[string]any{}, ID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", CreatedAt: "2026-01-02T03:04:05.000Z",
			ThreadID: "t", ProtocolVersion: "v2", State: backend.StateRequestSent, Role: backend.RoleVerifier, OrgID: "org"},
		RequestType: backend.RequestIndy, Request: json.RawMessage(`{"@type":"x","a":"<&>"}`), Nonce: "123",
		InvitationID: "i", Invitation: json.RawMessage(`{"label":"A & B"}`), InvitationURL: "https://v.example?oob=ey&x=<>",
		Key: KeyRef{Kind: KeyRecord, Verkey: "v", Seed: []byte{1, 2, 3, 250}},
	}
	halfway := fresh
	halfway.Record.IsVerified = &verified
	halfway.Record.Metadata = map[string]any{"b": 1, "a": []any{"<x>", nil}}
	halfway.States = []string{"request-sent", "presentation-received"}
	halfway.TheirService = &ServiceDecorator{RecipientKeys: []string{"k"}}
	for name, d := range map[string]*Doc{"full": &full, "fresh": &fresh, "halfway": &halfway, "zero": {}} {
		want, wantErr := json.Marshal(d)
		got, err := d.AppendJSON(nil)
		if (err != nil) != (wantErr != nil) || string(got) != string(want) {
			t.Errorf("%s:\n got  %s (%v)\n want %s (%v)", name, got, err, want, wantErr)
		}
	}
	bad := fresh
	bad.Invitation = json.RawMessage(`{"label":`)
	if _, err := bad.AppendJSON(nil); err == nil {
		t.Error("an invalid invitation is encoded")
	}
	if _, err := json.Marshal(&bad); err == nil {
		t.Error("json.Marshal encodes an invalid invitation")
	}
}

// fill sets every field reachable from v to a non-zero value, so a field
// added to Doc (or to what it holds) and left out of AppendJSON shows.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("s \"<&>\" \u2028 ü \x01")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for _, k := range []string{"k<", "a&", "Z"} {
			elem := reflect.New(v.Type().Elem()).Elem()
			if elem.Kind() == reflect.Interface {
				elem.Set(reflect.ValueOf("v&"))
			} else {
				fill(elem)
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), elem)
		}
	case reflect.Slice:
		switch v.Type() {
		case reflect.TypeFor[json.RawMessage]():
			v.SetBytes([]byte(` { "a" : [ 1, "<b> & \u2028" ] } `))
		case reflect.TypeFor[[]byte]():
			v.SetBytes([]byte{0, 1, 254, 255})
		default:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			fill(v.Index(0))
			fill(v.Index(1))
		}
	}
}
