package wallet

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"

	"github.com/proofgate/proofgate/internal/didcomm"
	"github.com/proofgate/proofgate/internal/didkey"
)

// Options configure a Wallet.
type Options struct {
	// Mediator puts the wallet's endpoint behind a mediator: its ~service
	// names a routing key, and what arrives is an RFC 0094 forward
	// encrypted to that key, unwrapped before the wallet unpacks it.
	Mediator bool
	// Listen is the address the endpoint listens on; "127.0.0.1:0" when
	// empty. NoEndpoint starts none (the wallet can still present; it
	// then has no ~service to offer).
	Listen     string
	NoEndpoint bool
	// Key is the wallet's Ed25519 key; a fresh one when nil.
	Key ed25519.PrivateKey
	// OnError is told of messages the endpoint could not take (not an
	// envelope for us, a forward for someone else). T fails the test.
	OnError func(error)
	// Buffer is how many received messages are kept until read; 16 when 0.
	Buffer int
}

// Wallet is a prover with a DIDComm endpoint on loopback.
type Wallet struct {
	priv     ed25519.PrivateKey
	verkey   string
	mediator ed25519.PrivateKey // nil: no routing keys
	srv      *httptest.Server
	onError  func(error)
	status   atomic.Int64 // what the endpoint answers
	got      chan Received

	mu       sync.Mutex
	forwards []didcomm.Forward
}

// Received is one message the wallet's endpoint got.
type Received struct {
	// Message is the plaintext message, decoded; Raw as it came.
	Message map[string]any
	Raw     []byte
	// Sender is the authcrypt sender's verkey ("" for anoncrypt).
	Sender string
	// Forwarded is true when it came through the mediator.
	Forwarded bool
}

// Type is the message's @type.
func (r Received) Type() string { s, _ := r.Message["@type"].(string); return s }

// ThreadID is the message's ~thread.thid.
func (r Received) ThreadID() string {
	th, _ := r.Message["~thread"].(map[string]any)
	s, _ := th["thid"].(string)
	return s
}

// New makes a wallet and starts its endpoint (unless NoEndpoint).
func New(opts Options) (*Wallet, error) {
	w := &Wallet{priv: opts.Key, onError: opts.OnError}
	if w.priv == nil {
		var err error
		if _, w.priv, err = didkey.Generate(); err != nil {
			return nil, err
		}
	}
	w.verkey = didkey.Verkey(w.priv.Public().(ed25519.PublicKey))
	if opts.Mediator {
		var err error
		if _, w.mediator, err = didkey.Generate(); err != nil {
			return nil, err
		}
	}
	if w.onError == nil {
		w.onError = func(error) {}
	}
	n := opts.Buffer
	if n <= 0 {
		n = 16
	}
	w.got = make(chan Received, n)
	w.status.Store(http.StatusAccepted)
	if opts.NoEndpoint {
		return w, nil
	}
	addr := opts.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("wallet endpoint: %w", err)
	}
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
	_ = w.srv.Listener.Close()
	w.srv.Listener = ln
	w.srv.Start()
	return w, nil
}

// Close stops the endpoint.
func (w *Wallet) Close() {
	if w.srv != nil {
		w.srv.Close()
	}
}

// Verkey is the wallet's public key as a base58 verkey.
func (w *Wallet) Verkey() string { return w.verkey }

// DID is the wallet's did:key.
func (w *Wallet) DID() string { return didkey.Encode(w.priv.Public().(ed25519.PublicKey)) }

// PrivateKey is the wallet's key (for packing by hand in tests).
func (w *Wallet) PrivateKey() ed25519.PrivateKey { return w.priv }

// MediatorVerkey is the routing key, "" without a mediator.
func (w *Wallet) MediatorVerkey() string {
	if w.mediator == nil {
		return ""
	}
	return didkey.Verkey(w.mediator.Public().(ed25519.PublicKey))
}

// URL is the endpoint's URL ("" without an endpoint).
func (w *Wallet) URL() string {
	if w.srv == nil {
		return ""
	}
	return w.srv.URL
}

// SetStatus sets the HTTP status the endpoint answers (202 by default);
// it still takes the message.
func (w *Wallet) SetStatus(status int) { w.status.Store(int64(status)) }

// Forwards returns the forwards the mediator unwrapped.
func (w *Wallet) Forwards() []didcomm.Forward {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]didcomm.Forward(nil), w.forwards...)
}

// Service is the wallet's ~service decorator: its key as a base58 verkey,
// or as did:key when didKeys (some agents write those), the mediator's
// routing key, and the endpoint.
func (w *Wallet) Service(didKeys bool) map[string]any {
	key := w.verkey
	if didKeys {
		key = w.DID()
	}
	routing := []string{}
	if w.mediator != nil {
		r := w.MediatorVerkey()
		if didKeys {
			r = didkey.Encode(w.mediator.Public().(ed25519.PublicKey))
		}
		routing = append(routing, r)
	}
	return map[string]any{"recipientKeys": []string{key}, "routingKeys": routing, "serviceEndpoint": w.URL()}
}

// maxInbound caps what the endpoint reads.
const maxInbound = 1 << 20

func (w *Wallet) serve(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != MediaTypeEnvelope {
		w.onError(fmt.Errorf("wallet endpoint: %s with Content-Type %q", r.Method, r.Header.Get("Content-Type")))
		rw.WriteHeader(http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxInbound))
	if err != nil {
		rw.WriteHeader(http.StatusBadRequest)
		return
	}
	got, err := w.open(body)
	if err != nil {
		w.onError(err)
		rw.WriteHeader(http.StatusBadRequest)
		return
	}
	rw.WriteHeader(int(w.status.Load()))
	select {
	case w.got <- got:
	default:
		w.onError(errors.New("wallet endpoint: received messages are not being read"))
	}
}

// open unpacks an envelope that arrived at the endpoint, unwrapping the
// mediator's forward first when there is a mediator.
func (w *Wallet) open(body []byte) (Received, error) {
	forwarded := false
	if w.mediator != nil {
		un, err := didcomm.Unpack(body, keyFinder(w.mediator))
		if err != nil {
			return Received{}, fmt.Errorf("mediator unpack: %w", err)
		}
		fwd, ok, err := didcomm.ParseForward(un.Message)
		if !ok || err != nil || fwd.To != w.verkey {
			return Received{}, fmt.Errorf("mediator got %s (forward %v, %v)", un.Message, ok, err)
		}
		w.mu.Lock()
		w.forwards = append(w.forwards, fwd)
		w.mu.Unlock()
		body, forwarded = fwd.Msg, true
	}
	un, err := didcomm.Unpack(body, keyFinder(w.priv))
	if err != nil {
		return Received{}, fmt.Errorf("wallet unpack: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(un.Message, &m); err != nil {
		return Received{}, fmt.Errorf("wallet got a message that is not a JSON object: %s", un.Message)
	}
	return Received{Message: m, Raw: un.Message, Sender: un.SenderVerkey, Forwarded: forwarded}, nil
}

func keyFinder(priv ed25519.PrivateKey) func(string) (ed25519.PrivateKey, error) {
	vk := didkey.Verkey(priv.Public().(ed25519.PublicKey))
	return func(kid string) (ed25519.PrivateKey, error) {
		if kid == vk {
			return priv, nil
		}
		return nil, didcomm.ErrUnknownKey
	}
}

// Next waits for the next message the endpoint gets, until ctx ends.
func (w *Wallet) Next(ctx context.Context) (Received, error) {
	select {
	case r := <-w.got:
		return r, nil
	case <-ctx.Done():
		return Received{}, fmt.Errorf("the wallet received nothing: %w", ctx.Err())
	}
}

// Poll returns a message already received, if any.
func (w *Wallet) Poll() (Received, bool) {
	select {
	case r := <-w.got:
		return r, true
	default:
		return Received{}, false
	}
}
