package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/proofs"
)

// receivePresentation moves a record to presentation-received through the
// verifier's own API, as the DIDComm inbound side does when a wallet's
// presentation arrives.
func receivePresentation(t *testing.T, dataDir, recordID string) {
	t.Helper()
	svc, err := proofs.New(&certmagic.FileStorage{Path: dataDir}, proofs.Config{
		PublicURL: base, Endpoint: base + "/didcomm", Label: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close() // a gateway started after must take the record journal
	_, err = svc.MarkPresentationReceived(context.Background(), recordID, proofs.Presentation{
		Message:            json.RawMessage(`{"@type":"https://didcomm.org/present-proof/2.0/presentation"}`),
		SignaturesVerified: true,
	})
	if err != nil {
		t.Fatal(err)
	}
}

func createRecord(t *testing.T) (id, thid string) {
	t.Helper()
	r := postJSON(t, oobPath(orgA, "indy"), keyA, indyBody)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	return data["proofRecordId"].(string), data["proofRecordThId"].(string)
}

func TestAcceptAfterReload(t *testing.T) {
	tester, dir := startCaddy(t, "")
	id, thid := createRecord(t)
	receivePresentation(t, dir, id)

	// A config reload (a changed option) must not lose records.
	tester.InitServer(globalOptions(dir)+proofgateSite("short_url_ttl 1h"), "caddyfile")
	settle(t)

	r := postJSON(t, acceptPath(id), keyA, "")
	if r.status != http.StatusOK {
		t.Fatalf("accept: %d %s", r.status, r.body)
	}
	rec := r.json(t)
	if rec["id"] != id || rec["threadId"] != thid || rec["state"] != "done" || rec["role"] != "verifier" ||
		rec["protocolVersion"] != "v2" || rec["isVerified"] != true || rec["orgId"] != orgA {
		t.Fatalf("record %s", r.body)
	}
	if _, ok := rec["metadata"].(map[string]any); !ok {
		t.Fatalf("metadata must be an object: %s", r.body)
	}
	wantBody(t, postJSON(t, acceptPath(id), keyA, ""), http.StatusConflict,
		`{"statusCode":409,"error":"Conflict","message":"proof record is in state \"done\"; a presentation can be accepted only in state \"presentation-received\""}`)
}

func TestConcurrentAcceptsOneWins(t *testing.T) {
	_, dir := startCaddy(t, "")
	id, _ := createRecord(t)
	receivePresentation(t, dir, id)

	const n = 8
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { statuses <- postJSON(t, acceptPath(id), keyAll, "").status })
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[http.StatusOK] != 1 || count[http.StatusConflict] != n-1 {
		t.Fatalf("statuses %v: want one 200 and %d 409", count, n-1)
	}
}

// TestLocalShortURLLivesInItsRecord: the local verifier keeps a short URL
// in the record it leads to, so a create asking for one makes one
// durable write and no short-URL document. With the short URLs' own
// storage broken (a file where its directory belongs) the create still
// succeeds, and the short URL answers from the record.
func TestLocalShortURLLivesInItsRecord(t *testing.T) {
	_, dir := startCaddy(t, "")
	if err := os.MkdirAll(filepath.Join(dir, "proofgate"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proofgate", "shorturls"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := postJSON(t, oobPath(orgA, "presentationExchange"), keyA, peBody)
	if r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	data := r.json(t)["data"].(map[string]any)
	records := storedRecords(t, dir)
	if len(records) != 1 || records[data["proofRecordId"].(string)] == nil {
		t.Fatalf("%d records: want the one record", len(records))
	}
	short := strings.TrimPrefix(data["invitationUrl"].(string), base)
	if !strings.HasPrefix(short, "/url/") || len(short) != len("/url/")+proofs.ShortURLIDLen {
		t.Fatalf("short URL %q", data["invitationUrl"])
	}
	j := do(t, http.MethodGet, short, "", "Accept: application/json")
	var inv map[string]any
	if j.status != http.StatusOK || json.Unmarshal(j.body, &inv) != nil || inv["@id"] != data["outOfBandId"] {
		t.Fatalf("short URL JSON: %d %s", j.status, j.body)
	}
	if p := do(t, http.MethodGet, short, ""); p.status != http.StatusFound || p.header.Get("Location") != data["longInvitationUrl"] {
		t.Fatalf("short URL redirect: %d %v", p.status, p.header)
	}
}
