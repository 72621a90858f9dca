package acapy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/certmagic"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/testenv/storagetest"
	"github.com/proofgate/proofgate/internal/upstream/openapitest"
)

// The owner is made durable while the invitation is created: a create
// that succeeds has its owner on disk when it returns (a backend started
// afresh on the same storage finds it), and one whose invitation fails
// leaves no owner of the request it deleted.
func TestCreateOwnerAroundTheInvitation(t *testing.T) {
	ctx := context.Background()
	org := backend.Org{ID: "org-1"}
	dir := t.TempDir()
	onDisk := func(b *Backend) {
		b.APIKey = "admin-key"
		b.storage = &certmagic.FileStorage{Path: dir}
	}

	t.Run("success: the owner is durable", func(t *testing.T) {
		fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "admin-key"})
		b := newBackend(t, fake, onDisk)
		res, err := b.SendOutOfBandRequest(ctx, org, indyRequest())
		if err != nil {
			t.Fatal(err)
		}
		_ = b.Cleanup()
		fresh := newBackend(t, fake, onDisk)
		if got, err := fresh.RecordOrg(ctx, res.ProofRecord.ID); err != nil || got != org.ID {
			t.Fatalf("after a restart RecordOrg = %q, %v; want %q", got, err, org.ID)
		}
	})

	t.Run("invitation fails: no owner is left", func(t *testing.T) {
		fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "admin-key"})
		b := newBackend(t, fake, onDisk)
		fake.Inject(openapitest.ACAPyCreateInvitation, openapitest.Fault{Status: 500, Body: "500: x", ContentType: "text/plain"})
		if _, err := b.SendOutOfBandRequest(ctx, org, indyRequest()); err == nil {
			t.Fatal("the create must fail with its invitation")
		}
		var deleted string
		for _, c := range fake.Calls() {
			if c.Operation == openapitest.ACAPyDeleteRecord {
				deleted = path.Base(c.Path)
			}
		}
		if deleted == "" {
			t.Fatal("the request was not deleted at the agent")
		}
		if _, err := b.RecordOrg(ctx, deleted); !errors.Is(err, backend.ErrNotFound) {
			t.Fatalf("the deleted request's owner is still remembered: %v", err)
		}
		_ = b.Cleanup()
		fresh := newBackend(t, fake, onDisk)
		if _, err := fresh.RecordOrg(ctx, deleted); !errors.Is(err, backend.ErrNotFound) {
			t.Fatalf("after a restart the deleted request's owner is remembered: %v", err)
		}
	})
}

// A create whose owner cannot be made durable once the invitation exists
// fails (503) and leaves nothing at the agent: the request and the
// invitation's out-of-band record are both deleted.
func TestCreateOwnerWriteFailsAfterTheInvitation(t *testing.T) {
	fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "admin-key"})
	b := newBackend(t, fake, func(b *Backend) {
		b.APIKey = "admin-key"
		b.storage = &storagetest.FailingStores{Storage: &certmagic.FileStorage{Path: t.TempDir()}, Prefix: "proofgate/upstream-records/"}
	})
	_, err := b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "org-1"}, indyRequest())
	if !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("create: %v, want ErrUnavailable", err)
	}
	if n := len(fake.Records("")); n != 0 {
		t.Errorf("the agent holds %d requests, want none", n)
	}
	if n := fake.Invitations(""); n != 0 {
		t.Errorf("the agent holds %d invitations, want none", n)
	}
}

// TestUnusableCreateAnswerDeleted: when ACA-Py makes the request but its
// create-request answer is unusable (here without thread_id), the request
// the answer names is deleted again: no client gets its invitation, and
// the create fails with the bad answer.
func TestUnusableCreateAnswerDeleted(t *testing.T) {
	fake := openapitest.NewACAPy(t, openapitest.ACAPyOptions{APIKey: "admin-key"})
	target, _ := url.Parse(fake.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasSuffix(resp.Request.URL.Path, "/create-request") {
			return nil
		}
		var m map[string]any
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		delete(m, "thread_id")
		raw, _ = json.Marshal(m)
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		resp.ContentLength = int64(len(raw))
		resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	b := newBackend(t, fake, func(b *Backend) { b.APIKey = "admin-key"; b.URL = srv.URL })

	_, err := b.SendOutOfBandRequest(context.Background(), backend.Org{ID: "org-1"}, indyRequest())
	var ue *backend.UpstreamError
	if !errors.As(err, &ue) || ue.Status != http.StatusOK {
		t.Fatalf("create: %v; want the unusable answer's error", err)
	}
	if recs := fake.Records(""); len(recs) != 0 {
		t.Fatalf("the agent holds %d request(s) nobody has an invitation for: %v", len(recs), recs)
	}
	for _, c := range fake.Calls() {
		if c.Operation == openapitest.ACAPyCreateInvitation {
			t.Error("an invitation was made for a request whose answer was unusable")
		}
	}
}
