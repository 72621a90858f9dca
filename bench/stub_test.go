package main

import (
	"encoding/base64"
	"encoding/json"
	"testing"
)

// The stub's answers are appended from templates; these tests hold them
// to the bytes json.Marshal makes of the documented shapes (maps and
// structs as the stub built them before), with the same ids and times.

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return m
}

func TestCredoCreateAnswer(t *testing.T) {
	got := credoCreateAnswer("127.0.0.1:9")
	ans := decode(t, got)
	inv := ans["invitation"].(map[string]any)
	attach := inv["requests~attach"].([]any)[0].(map[string]any)
	msgB64 := attach["data"].(map[string]any)["base64"].(string)
	msgBytes, err := base64.StdEncoding.DecodeString(msgB64)
	if err != nil {
		t.Fatal(err)
	}
	msg := decode(t, msgBytes)
	thid := ans["proofRecordThId"].(string)
	wantMsg := marshal(t, map[string]any{
		"@type": "https://didcomm.org/present-proof/2.0/request-presentation", "@id": msg["@id"],
		"~thread": map[string]string{"thid": thid}, "formats": []any{},
	})
	ib := marshal(t, map[string]any{
		"@type": "https://didcomm.org/out-of-band/1.1/invitation", "@id": inv["@id"],
		"accept": []string{"didcomm/aip1", "didcomm/aip2;env=rfc19"}, "services": []string{"did:peer:2.stub"},
		"requests~attach": []any{map[string]any{"@id": "request-0", "mime-type": "application/json",
			"data": map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(wantMsg))}}},
	})
	want := marshal(t, map[string]any{
		"invitationUrl":   "http://127.0.0.1:9?oob=" + base64.RawURLEncoding.EncodeToString([]byte(ib)),
		"invitation":      json.RawMessage(ib),
		"outOfBandRecord": map[string]any{"id": ans["outOfBandRecord"].(map[string]any)["id"], "state": "await-response", "role": "sender"},
		"invitationDid":   "did:peer:2.stub",
		"proofRecordThId": thid,
	})
	if string(got) != want {
		t.Fatalf("credo create answer\n got %s\nwant %s", got, want)
	}
}

func TestCredoRecord(t *testing.T) {
	type record struct {
		Tags            map[string]string `json:"_tags"`
		Metadata        map[string]any    `json:"metadata"`
		ID              string            `json:"id"`
		CreatedAt       string            `json:"createdAt"`
		UpdatedAt       string            `json:"updatedAt"`
		ProtocolVersion string            `json:"protocolVersion"`
		State           string            `json:"state"`
		Role            string            `json:"role"`
		ThreadID        string            `json:"threadId"`
		IsVerified      *bool             `json:"isVerified,omitempty"`
	}
	for _, state := range []string{"request-sent", "presentation-received", "done"} {
		got := credoRecord(nil, "rec-1", "thread-1", state)
		ts := decode(t, got)["createdAt"].(string)
		want := record{Tags: map[string]string{"state": state, "threadId": "thread-1", "role": "verifier"},
			Metadata: map[string]any{}, ID: "rec-1", CreatedAt: ts, UpdatedAt: ts,
			ProtocolVersion: "v2", State: state, Role: "verifier", ThreadID: "thread-1"}
		if state == "done" {
			v := true
			want.IsVerified = &v
		}
		if w := marshal(t, want); string(got) != w {
			t.Errorf("credo record %s\n got %s\nwant %s", state, got, w)
		}
	}
}

func TestACAPyAnswers(t *testing.T) {
	type presExRecord struct {
		PresExID    string `json:"pres_ex_id"`
		ThreadID    string `json:"thread_id"`
		Initiator   string `json:"initiator"`
		Role        string `json:"role"`
		State       string `json:"state"`
		Verified    string `json:"verified,omitempty"`
		CreatedAt   string `json:"created_at"`
		UpdatedAt   string `json:"updated_at"`
		Trace       bool   `json:"trace"`
		AutoPresent bool   `json:"auto_present"`
		AutoRemove  bool   `json:"auto_remove"`
	}
	for _, state := range []string{"request-sent", "done"} {
		got := presEx(nil, "px-1", state)
		ts := decode(t, got)["created_at"].(string)
		want := presExRecord{PresExID: "px-1", ThreadID: recordOfThread("px-1"), Initiator: "self",
			Role: "verifier", State: state, CreatedAt: ts, UpdatedAt: ts}
		if state == "done" {
			want.Verified = "true"
		}
		if w := marshal(t, want); string(got) != w {
			t.Errorf("pres ex %s\n got %s\nwant %s", state, got, w)
		}
	}

	got := acapyInvitationAnswer("127.0.0.1:9")
	ans := decode(t, got)
	ib := marshal(t, map[string]any{
		"@type": "https://didcomm.org/out-of-band/1.1/invitation", "@id": ans["invi_msg_id"],
		"accept": []string{"didcomm/aip1", "didcomm/aip2;env=rfc19"},
		"services": []any{map[string]any{"id": "#inline", "type": "did-communication",
			"recipientKeys":   []string{"did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"},
			"serviceEndpoint": "http://127.0.0.1:9"}},
	})
	want := marshal(t, map[string]any{
		"invi_msg_id": ans["invi_msg_id"], "oob_id": ans["oob_id"], "state": "initial", "trace": false,
		"invitation": json.RawMessage(ib), "invitation_url": "http://127.0.0.1:9?oob=" + base64.RawURLEncoding.EncodeToString([]byte(ib)),
		"created_at": ans["created_at"], "updated_at": ans["updated_at"],
	})
	if string(got) != want {
		t.Fatalf("acapy invitation answer\n got %s\nwant %s", got, want)
	}
}
