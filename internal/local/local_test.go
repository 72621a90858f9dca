package local

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/filestorage"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/proofs"
)

func TestModuleRegistered(t *testing.T) {
	info, err := caddy.GetModule("proofgate.backends.local")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := info.New().(*Local); !ok {
		t.Fatalf("New() = %T", info.New())
	}
}

func TestUnmarshalCaddyfile(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    string // JSON of the result
		wantErr string
	}{
		{
			name: "all options",
			input: `local {
				public_url https://verifier.example.com
				didcomm_endpoint https://verifier.example.com/agent
				label "Example Verifier"
				cluster
				storage file_system {
					root /var/lib/proofgate
				}
			}`,
			want: `{"public_url":"https://verifier.example.com","didcomm_endpoint":"https://verifier.example.com/agent","label":"Example Verifier","cluster":true,"storage":{"module":"file_system","root":"/var/lib/proofgate"}}`,
		},
		{
			name:  "minimal",
			input: "local {\n\tpublic_url {env.PUBLIC_URL}\n}",
			want:  `{"public_url":"{env.PUBLIC_URL}"}`,
		},
		{
			name:  "storage inline argument",
			input: "local {\n public_url https://v.example\n storage file_system /data\n}",
			want:  `{"public_url":"https://v.example","storage":{"module":"file_system","root":"/data"}}`,
		},
		{name: "no block", input: `local`, want: `{}`},
		{name: "argument", input: `local https://v.example`, wantErr: "takes no arguments"},
		{name: "unknown option", input: "local {\n public_url https://v.example\n endpoint x\n}", wantErr: `unknown option "endpoint"`},
		{name: "duplicate", input: "local {\n public_url https://a.example\n public_url https://b.example\n}", wantErr: "public_url given twice"},
		{name: "duplicate storage", input: "local {\n storage file_system /a\n storage file_system /b\n}", wantErr: "storage given twice"},
		{name: "public_url without value", input: "local {\n public_url\n}", wantErr: "wrong argument count"},
		{name: "public_url two values", input: "local {\n public_url a b\n}", wantErr: "wrong argument count"},
		{name: "label two values", input: "local {\n label Acme Verifier\n}", wantErr: "wrong argument count"},
		{name: "cluster argument", input: "local {\n cluster yes\n}", wantErr: "wrong argument count"},
		{name: "storage without module", input: "local {\n storage\n}", wantErr: "wrong argument count"},
		{name: "unknown storage module", input: "local {\n storage nosuch\n}", wantErr: "caddy.storage.nosuch"},
		{name: "clock_skew 0", input: "local {\n clock_skew 0\n}", wantErr: "clock_skew: 0 would mean the default"},
		{name: "max_credentials 0", input: "local {\n max_credentials 0\n}", wantErr: "max_credentials: must be between 1 and 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Local
			err := l.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(&l)
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		l       Local
		wantErr string
	}{
		{"ok", Local{PublicURL: "https://v.example.com/base?x=1"}, ""},
		{"ok http with port and endpoint", Local{PublicURL: "http://127.0.0.1:8080", DIDCommEndpoint: "wss://v.example.com/ws"}, ""},
		{"missing public_url", Local{}, "public_url is required"},
		{"relative public_url", Local{PublicURL: "/invite"}, "public_url"},
		{"ftp public_url", Local{PublicURL: "ftp://v.example.com"}, "public_url"},
		{"no host", Local{PublicURL: "https://"}, "no host"},
		{"port only", Local{PublicURL: "https://:443"}, "no host"},
		{"credentials", Local{PublicURL: "https://u:p@v.example.com"}, "credentials"},
		{"fragment", Local{PublicURL: "https://v.example.com/#x"}, "fragment"},
		{"unparseable", Local{PublicURL: "https://v.example.com/%zz"}, "not a URL"},
		{"bad endpoint", Local{PublicURL: "https://v.example.com", DIDCommEndpoint: "mailto:x@y"}, "didcomm_endpoint"},
		{"long label", Local{PublicURL: "https://v.example.com", Label: strings.Repeat("x", 201)}, "label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.l.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestDefaultEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"https://v.example.com":           "https://v.example.com/didcomm",
		"https://v.example.com/":          "https://v.example.com/didcomm",
		"https://v.example.com/verifier/": "https://v.example.com/verifier/didcomm",
		"https://v.example.com/i?lang=en": "https://v.example.com/i/didcomm",
		"http://127.0.0.1:9000/a%2Fb/":    "http://127.0.0.1:9000/a%2Fb/didcomm",
	} {
		if got := defaultEndpoint(in); got != want {
			t.Errorf("defaultEndpoint(%q) = %q, want %q", in, got, want)
		}
	}
}

// provision loads the module the way Caddy does, from JSON, with its own
// file storage in a temporary directory.
func provision(t *testing.T, cfg string) (*Local, string) {
	t.Helper()
	dir := t.TempDir()
	var l Local
	storage, _ := json.Marshal(map[string]string{"module": "file_system", "root": dir})
	cfg = strings.Replace(cfg, `"STORAGE"`, string(storage), 1)
	if err := json.Unmarshal([]byte(cfg), &l); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := l.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	return &l, dir
}

func TestProvisionAndServe(t *testing.T) {
	t.Setenv("PROOFGATE_TEST_PUBLIC_URL", "https://verifier.example.com")
	l, dir := provision(t, `{"public_url":"{env.PROOFGATE_TEST_PUBLIC_URL}","label":"Acme","storage":"STORAGE"}`)
	if l.PublicURL != "https://verifier.example.com" || l.DIDCommEndpoint != "https://verifier.example.com/didcomm" {
		t.Fatalf("after provision: %+v", l)
	}
	ctx := context.Background()
	org := backend.Org{ID: "org-1"}
	res, err := l.SendOutOfBandRequest(ctx, org, backend.OOBRequest{
		RequestType:     backend.RequestIndy,
		ProtocolVersion: backend.ProtocolV2,
		ReuseConnection: true,
		Indy: &backend.IndyProofRequest{Name: "p", Version: "1.0",
			RequestedAttributes: map[string]backend.IndyAttribute{"a": {Name: "name"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.InvitationURL, "https://verifier.example.com?oob=") {
		t.Fatalf("invitation URL %s", res.InvitationURL)
	}
	var inv proofs.Invitation
	if err := json.Unmarshal(res.Invitation, &inv); err != nil {
		t.Fatal(err)
	}
	if inv.Label != "Acme" || inv.Services[0].ServiceEndpoint != "https://verifier.example.com/didcomm" {
		t.Fatalf("invitation %s", res.Invitation)
	}
	// The record is in the module's own storage, in the record journal
	// under proofgate/.
	id := res.ProofRecord.ID
	journal, err := os.ReadFile(filepath.Join(dir, "proofgate", "records-journal", "0000000001.jsonl"))
	if err != nil || !strings.Contains(string(journal), `{"id":"`+id+`","v":1,"doc":{`) {
		t.Fatalf("journal %.200s, %v", journal, err)
	}
	if got, err := l.RecordOrg(ctx, id); err != nil || got != org.ID {
		t.Fatalf("RecordOrg = %q, %v", got, err)
	}
	if rec, err := l.LoadRecord(ctx, id); err != nil || rec.State != backend.StateRequestSent {
		t.Fatalf("LoadRecord = %+v, %v", rec, err)
	}
	if _, u, err := l.Invitation(ctx, id); err != nil || u != res.InvitationURL {
		t.Fatalf("Invitation = %q, %v", u, err)
	}
	var ce *backend.ConflictError
	if _, err := l.AcceptPresentation(ctx, org, id); !errors.As(err, &ce) || ce.State != backend.StateRequestSent {
		t.Fatalf("accept in request-sent: %v", err)
	}
	if _, err := l.AcceptPresentation(ctx, org, "0b6b1c9a-2d3e-4f50-8a1b-2c3d4e5f6a7b"); !errors.Is(err, backend.ErrNotFound) {
		t.Fatalf("accept unknown: %v", err)
	}
	if _, err := l.Service().MarkPresentationReceived(ctx, id, proofs.Presentation{SignaturesVerified: true}); err != nil {
		t.Fatal(err)
	}
	rec, err := l.AcceptPresentation(ctx, org, id)
	if err != nil || rec.State != backend.StateDone {
		t.Fatalf("accept: %+v, %v", rec, err)
	}
}

func TestDefaultLabel(t *testing.T) {
	l, _ := provision(t, `{"public_url":"https://verifier.example.com:8443/x","storage":"STORAGE"}`)
	res, err := l.SendOutOfBandRequest(context.Background(), backend.Org{ID: "o"}, backend.OOBRequest{
		RequestType: backend.RequestPresentationExchange, ProtocolVersion: backend.ProtocolV2,
		PresentationDefinition: json.RawMessage(`{"id":"d","input_descriptors":[]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	var inv proofs.Invitation
	if err := json.Unmarshal(res.Invitation, &inv); err != nil {
		t.Fatal(err)
	}
	if inv.Label != "verifier.example.com" || inv.Services[0].ServiceEndpoint != "https://verifier.example.com:8443/x/didcomm" {
		t.Fatalf("invitation %s", res.Invitation)
	}
}

func TestProvisionErrors(t *testing.T) {
	for name, cfg := range map[string]string{
		"no public_url": `{}`,
		"bad endpoint":  `{"public_url":"https://v.example","didcomm_endpoint":"ftp://x"}`,
		"bad storage":   `{"public_url":"https://v.example","storage":{"module":"nosuch"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			var l Local
			if err := json.Unmarshal([]byte(cfg), &l); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			if err := l.Provision(ctx); err == nil {
				t.Fatal("Provision succeeded")
			}
		})
	}
}
