package did

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/proofgate/proofgate/internal/didkey"
)

func TestDIDKey(t *testing.T) {
	r := NewResolver(Options{})
	ctx := context.Background()
	// The key of the W3C vc-di-eddsa test vectors (TestVectors/keyPair.json).
	const ed = "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2"
	vm, err := r.ResolveKey(ctx, ed+"#z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2", AssertionMethod)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := didkey.Decode(ed)
	if !want.Equal(vm.PublicKey) {
		t.Fatal("Ed25519 did:key decoded to another key than internal/didkey's")
	}
	if _, err := r.ResolveKey(ctx, ed+"#other", Authentication); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown fragment: %v", err)
	}
	// P-256 did:key from the did:key method specification's test vectors
	// (w3c-ccg/did-method-key, P-256 section).
	const p256 = "did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169"
	vm, err = r.ResolveKey(ctx, KeyMethodID(p256), Authentication)
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := vm.PublicKey.(*ecdsa.PublicKey); !ok || k.Curve != elliptic.P256() {
		t.Fatalf("P-256 did:key gave %T", vm.PublicKey)
	}
	if again, _ := KeyDID(vm.PublicKey); again != p256 {
		t.Fatalf("re-encoded %s", again)
	}
	for _, bad := range []string{"did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme", "did:key:z6Mk", "did:key:" + strings.Repeat("z", 300)} {
		if _, err := r.Resolve(ctx, bad); err == nil {
			t.Errorf("%s resolved", bad)
		}
	}
}

func TestDIDJWK(t *testing.T) {
	r := NewResolver(Options{})
	// From the did:jwk specification (quartzjer/did-jwk), P-256 example.
	const d = "did:jwk:eyJjcnYiOiJQLTI1NiIsImt0eSI6IkVDIiwieCI6ImFjYklRaXVNczNpOF91c3pFakoydHBUdFJNNEVVM3l6OTFQSDZDZEgyVjAiLCJ5IjoiX0tjeUxqOXZXTXB0bm1LdG00NkdxRHo4d2Y3NEk1TEtncmwyR3pIM25TRSJ9"
	vm, err := r.ResolveKey(context.Background(), d+"#0", AssertionMethod)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := vm.PublicKey.(*ecdsa.PublicKey); !ok {
		t.Fatalf("%T", vm.PublicKey)
	}
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	ed, err := JWKDID(pub)
	if err != nil {
		t.Fatal(err)
	}
	vm, err = r.ResolveKey(context.Background(), ed+"#0", Authentication)
	if err != nil || !pub.Equal(vm.PublicKey) {
		t.Fatalf("Ed25519 did:jwk: %v", err)
	}
	// A private JWK is refused.
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pd, _ := JWKDID(priv)
	if _, err := r.Resolve(context.Background(), pd); err == nil {
		t.Fatal("did:jwk with a private key resolved")
	}
}

func webDoc(did string, pub ed25519.PublicKey) string {
	mb, _ := EncodeMultikey(pub)
	return fmt.Sprintf(`{
  "@context": ["https://www.w3.org/ns/did/v1"],
  "id": %q,
  "verificationMethod": [
    {"id": "#key-1", "type": "Ed25519VerificationKey2020", "controller": %q, "publicKeyMultibase": %q},
    {"id": %q, "type": "Multikey", "controller": %q, "publicKeyMultibase": %q},
    {"id": "#x25519", "type": "X25519KeyAgreementKey2019", "publicKeyBase58": "abc"}
  ],
  "assertionMethod": ["#key-1"],
  "authentication": [%q]
}`, did, did, mb, did+"#key-2", did, mb, did+"#key-2")
}

func TestDIDWeb(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	var hits atomic.Int32
	var did string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		hits.Add(1)
		switch req.URL.Path {
		case "/.well-known/did.json":
			w.Header().Set("Content-Type", "application/did+json")
			fmt.Fprint(w, webDoc(did, pub))
		case "/big/did.json":
			fmt.Fprint(w, `{"id":"`+strings.Repeat("x", 300<<10)+`"}`)
		case "/wrong/did.json":
			fmt.Fprint(w, webDoc("did:web:elsewhere.example", pub))
		default:
			http.NotFound(w, req)
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "https://")
	did = "did:web:" + strings.ReplaceAll(host, ":", "%3A")
	r := NewResolver(Options{WebClient: srv.Client()})
	ctx := context.Background()

	vm, err := r.ResolveKey(ctx, did+"#key-1", AssertionMethod)
	if err != nil || !pub.Equal(vm.PublicKey) {
		t.Fatalf("did:web key-1: %v", err)
	}
	if _, err := r.ResolveKey(ctx, did+"#key-1", Authentication); !errors.Is(err, ErrNotAuthorized) {
		t.Fatalf("key-1 for authentication: %v", err)
	}
	if _, err := r.ResolveKey(ctx, did+"#key-2", Authentication); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 1 {
		t.Fatalf("%d fetches, want 1 (cache)", hits.Load())
	}
	for path, want := range map[string]error{":big": ErrInvalid, ":wrong": ErrInvalid, ":missing": ErrNotFound} {
		if _, err := r.Resolve(ctx, did+path); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", path, err, want)
		}
	}
	// Through the real guard, a loopback did:web is refused.
	guarded := NewResolver(Options{})
	if _, err := guarded.Resolve(ctx, did); !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "not public") {
		t.Fatalf("guard: %v", err)
	}
}

func TestWebURL(t *testing.T) {
	for in, want := range map[string]string{
		"did:web:w3c-ccg.github.io":             "https://w3c-ccg.github.io/.well-known/did.json",
		"did:web:w3c-ccg.github.io:user:alice":  "https://w3c-ccg.github.io/user/alice/did.json",
		"did:web:example.com%3A3000:user:alice": "https://example.com:3000/user/alice/did.json",
		"did:web:example.com:..":                "",
		"did:web:example.com%2Fevil":            "",
		"did:web:user%40example.com":            "",
		"did:web:":                              "",
	} {
		got, err := WebURL(in)
		if (err != nil) != (want == "") || got != want {
			t.Errorf("WebURL(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestUniversalResolver(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	const d = "did:example:123"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/1.0/identifiers/"+d {
			fmt.Fprintf(w, `{"didDocument": %s, "didResolutionMetadata": {}, "didDocumentMetadata": {}}`, webDoc(d, pub))
			return
		}
		if req.URL.Path == "/1.0/identifiers/did:example:moved" {
			// A redirect is not followed: the answer is the 3xx.
			http.Redirect(w, req, "/1.0/identifiers/"+d, http.StatusFound)
			return
		}
		if req.URL.Path == "/1.0/identifiers/did:example:gone" {
			fmt.Fprint(w, `{"didDocument": {"id": "did:example:gone"}, "didDocumentMetadata": {"deactivated": true}}`)
			return
		}
		http.NotFound(w, req)
	}))
	defer srv.Close()
	ctx := context.Background()
	if _, err := NewResolver(Options{}).Resolve(ctx, d); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("without a universal resolver: %v", err)
	}
	r := NewResolver(Options{UniversalResolver: srv.URL + "/"})
	if vm, err := r.ResolveKey(ctx, d+"#key-1", AssertionMethod); err != nil || !pub.Equal(vm.PublicKey) {
		t.Fatalf("universal: %v", err)
	}
	if _, err := r.Resolve(ctx, "did:example:gone"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deactivated: %v", err)
	}
	if _, err := r.Resolve(ctx, "did:example:absent"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("absent: %v", err)
	}
	if doc, err := r.Resolve(ctx, "did:example:moved"); err == nil {
		t.Fatalf("a redirect was followed: %+v", doc)
	}
}

// A document speaks only for its own DID: a method whose "controller"
// names another DID is still this DID's, so that a did:web document cannot
// lend its key to an issuer it does not control.
func TestParseDocumentForeignController(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	mb, err := EncodeMultikey(pub)
	if err != nil {
		t.Fatal(err)
	}
	const self, victim = "did:web:attacker.example", "did:key:z6MkeZyEm8mAgjAX3Eiog3GGsLz5A43Jg6rjXcBTVmnepejL"
	for _, controller := range []string{victim, "", self} {
		raw := fmt.Sprintf(`{"id":%q,"verificationMethod":[{"id":"#key-1","type":"Multikey","controller":%q,"publicKeyMultibase":%q}],"assertionMethod":["#key-1"]}`, self, controller, mb)
		doc, err := ParseDocument(self, []byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		vm, err := doc.Method(self+"#key-1", AssertionMethod)
		if err != nil || vm.Controller != self {
			t.Fatalf("controller %q: method %+v, %v; want it controlled by %s", controller, vm, err, self)
		}
	}
}

// With a list of methods, the universal resolver is asked only about
// DIDs of those methods: a prover naming a did:webvh (whose driver would
// fetch a host the prover chooses, from the resolver's network) gets
// unsupported, and the resolver hears nothing of it.
func TestUniversalResolverMethods(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		asked.Add(1)
		http.NotFound(w, req)
	}))
	defer srv.Close()
	r := NewResolver(Options{UniversalResolver: srv.URL, UniversalMethods: []string{"ion", "example"}})
	ctx := context.Background()
	if _, err := r.Resolve(ctx, "did:webvh:QmHash:attacker.example"); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "did_resolver") {
		t.Fatalf("a method off the list: %v", err)
	}
	if asked.Load() != 0 {
		t.Fatalf("the resolver was asked %d times about a method off the list", asked.Load())
	}
	if _, err := r.Resolve(ctx, "did:example:absent"); !errors.Is(err, ErrNotFound) || asked.Load() != 1 {
		t.Fatalf("a listed method: %v, resolver asked %d times", err, asked.Load())
	}
}
