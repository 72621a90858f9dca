package proofs

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/testenv/storagetest"
)

// TestShortURLInRecord: a create given a short URL's expiry stores it in
// the record and answers its id; the id resolves to the record's
// invitation and long URL until the expiry, and not from then on; a
// record made without one has none; no secret is made by looking, and
// another instance on the storage shares it; ids of another length or
// alphabet are refused without reading storage.
func TestShortURLInRecord(t *testing.T) {
	ctx := context.Background()
	storage := &storagetest.CountingLoads{Storage: fileStorage(t)}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s, err := New(storage, Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Label: "Default Verifier",
		Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}

	// Before the first short URL there is no secret, and no id resolves;
	// looking does not make one.
	if _, err := s.ResolveShortURL(ctx, "hevnfwccQeqdhjv3A9PADA"); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("before any short URL: %v, want ErrNotFound", err)
	}
	if _, err := s.keys.existing(ctx, shortURLKeyOwner); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("resolving made the secret: %v", err)
	}
	// Ids of the right length outside base64url are refused without
	// reading storage, even while no secret is known to look for.
	loads := storage.Loads()
	for _, id := range []string{"!!!!!!!!!!!!!!!!!!!!!!", "hevnfwccQeqdhjv3A9PAD=", "hevnfwccQeqdhjv3A9PAD/", "hevnfwccQeqdhjv3A9PADB"} {
		if _, err := s.ResolveShortURL(ctx, id); !errors.Is(err, backend.ErrNotFound) {
			t.Errorf("ResolveShortURL(%q): %v, want ErrNotFound", id, err)
		}
	}
	if n := storage.Loads() - loads; n != 0 {
		t.Errorf("ids outside the alphabet read storage %d times", n)
	}

	req := indyRequest()
	req.IsShortenURL = true
	req.ShortURLExpiresAt = now.Add(time.Hour)
	res, err := s.Create(ctx, testOrg, req)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.shortURLCipher(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	recordID, _ := ParseID(res.ProofRecord.ID)
	if res.ShortURLID != ShortURLID(c, recordID) {
		t.Fatalf("ShortURLID %q, want %q", res.ShortURLID, ShortURLID(c, recordID))
	}
	// Another instance on the same storage shares the secret.
	other, err := New(storage, Config{PublicURL: testPublicURL, Endpoint: testEndpoint, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if sh, err := other.ResolveShortURL(ctx, res.ShortURLID); err != nil || sh.LongURL != res.InvitationURL {
		t.Fatalf("another instance: %q, %v", sh.LongURL, err)
	}
	doc, err := s.Load(ctx, res.ProofRecord.ID)
	if err != nil || doc.ShortURLExpiresAt != "2026-11-23T13:00:00.000Z" {
		t.Fatalf("stored expiry %q (%v)", doc.ShortURLExpiresAt, err)
	}
	sh, err := s.ResolveShortURL(ctx, res.ShortURLID)
	if err != nil || sh.LongURL != res.InvitationURL || !jsonEqualRaw(sh.Invitation, res.Invitation) || sh.State != backend.StateRequestSent {
		t.Fatalf("ResolveShortURL = %+v, %v", sh, err)
	}

	now = now.Add(time.Hour - time.Millisecond)
	if _, err := s.ResolveShortURL(ctx, res.ShortURLID); err != nil {
		t.Fatalf("a millisecond before the expiry: %v", err)
	}
	now = now.Add(time.Millisecond)
	if _, err := s.ResolveShortURL(ctx, res.ShortURLID); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("at the expiry: %v, want ErrNotFound", err)
	}

	// Asked without a short URL (or without an expiry to keep): none.
	for name, r := range map[string]backend.OOBRequest{"not asked": indyRequest(), "no expiry": func() backend.OOBRequest {
		r := indyRequest()
		r.IsShortenURL = true
		return r
	}()} {
		res, err := s.Create(ctx, testOrg, r)
		if err != nil {
			t.Fatal(err)
		}
		recordID, _ := ParseID(res.ProofRecord.ID)
		if res.ShortURLID != "" {
			t.Errorf("%s: ShortURLID %q", name, res.ShortURLID)
		}
		if _, err := s.ResolveShortURL(ctx, ShortURLID(c, recordID)); !errors.Is(err, backend.ErrNotFound) {
			t.Errorf("%s: the derived id resolves: %v", name, err)
		}
	}

	if _, err := s.ResolveShortURL(ctx, ShortURLID(c, uuid.New())); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("an unknown record: %v", err)
	}
	loads = storage.Loads()
	for _, id := range []string{"", "AAAAAAAAAAAAAAAA", res.ShortURLID + "A", res.ShortURLID[:21]} {
		if _, err := s.ResolveShortURL(ctx, id); !errors.Is(err, backend.ErrNotFound) {
			t.Errorf("ResolveShortURL(%q): %v, want ErrNotFound", id, err)
		}
	}
	if storage.Loads() != loads {
		t.Fatalf("ids of another length read storage %d times", storage.Loads()-loads)
	}
}

// TestShortURLViewAsEncodingJSON: what shortURLView picks of a stored
// document is what encoding/json decodes of it, for a real record and
// for documents the fast pass hands to encoding/json (escaped and
// case-folded keys), and it fails where encoding/json fails.
func TestShortURLViewAsEncodingJSON(t *testing.T) {
	ctx := context.Background()
	storage := fileStorage(t)
	s := newTestService(t, storage)
	req := indyRequest()
	req.IsShortenURL, req.ShortURLExpiresAt = true, time.Now().Add(time.Hour)
	res, err := s.Create(ctx, testOrg, req)
	if err != nil {
		t.Fatal(err)
	}
	real, err := s.records.Load(ctx, res.ProofRecord.ID)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	docs := map[string]string{
		"real record":          string(real),
		"plain":                `{"record":{"id":"` + id.String() + `","state":"done","createdAt":"2026-01-02T03:04:05.678Z"},"invitation":{"a":[1,"x"]},"invitationUrl":"https://v.example?oob=eyJ","shortUrlExpiresAt":"2099-01-01T00:00:00.000Z"}`,
		"createdAt not string": `{"record":{"id":"` + id.String() + `","createdAt":1}}`,
		"escaped key":          `{"record":{"id":"` + id.String() + `"},"invitation\u0055rl":"u\u00e9","shortUrlExpiresAt":"x"}`,
		"case-folded keys":     `{"RECORD":{"ID":"` + id.String() + `"},"InvitationURL":"u"}`,
		"escaped id":           `{"record":{"id":"` + strings.Replace(id.String(), "-", `\u002d`, 1) + `"}}`,
		"null values":          `{"record":{"id":"` + id.String() + `"},"invitation":null,"invitationUrl":null}`,
		"no short URL":         `{"record":{"id":"` + id.String() + `"},"invitation":{}}`,
		"record null":          `{"record":null}`,
		"record not object":    `{"record":"x"}`,
		"url not string":       `{"record":{"id":"` + id.String() + `"},"invitationUrl":7}`,
		"state not string":     `{"record":{"id":"` + id.String() + `","state":["done"]}}`,
		"not JSON":             `{"record":`,
		"null document":        `null`,
		"trailing data":        `{"record":{"id":"` + id.String() + `"}} x`,
		"other record in it":   `{"record":{"id":"` + uuid.New().String() + `"}}`,
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			rid := id
			if name == "real record" {
				rid, _ = ParseID(res.ProofRecord.ID)
			}
			// Stored as a per-record document, which the journal reads for
			// ids it does not hold (the real record's is the same there).
			if err := storage.Store(ctx, store.New(storage, "records").Key(rid.String()), []byte(doc)); err != nil {
				t.Fatal(err)
			}
			got, err := s.shortURLView(ctx, rid)
			var want shortURLFields
			wantErr := json.Unmarshal([]byte(doc), &want)
			if wantErr == nil && want.Record.ID != rid.String() {
				wantErr = errors.New("another record")
			}
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("error %v, encoding/json's %v", err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}
