package didcomm

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/nacl/box"

	"github.com/proofgate/proofgate/internal/didkey"
)

// Header values (RFC 0019). EncC20P is what aries-framework-go writes for
// the same cipher; both are accepted, EncXC20PIETF is written.
const (
	EncXC20PIETF = "xchacha20poly1305_ietf"
	EncC20PIETF  = "chacha20poly1305_ietf"
	TypJWM       = "JWM/1.0"
	AlgAuthcrypt = "Authcrypt"
	AlgAnoncrypt = "Anoncrypt"
)

// Limits on what Unpack looks at. An inbound envelope comes from anyone.
const (
	// MaxEnvelopeSize caps an envelope (the HTTP layer caps bodies lower).
	MaxEnvelopeSize = 8 << 20
	// MaxRecipients caps the recipients of one envelope: each costs a key
	// lookup, and real senders address one to a few keys.
	MaxRecipients = 32
	// maxField caps one base64url field of a recipient header.
	maxField = 512
	// maxProtected caps the protected header (base64url): MaxRecipients
	// entries of a few fields each (a real one is about 350 characters).
	maxProtected = MaxRecipients * 2 * maxField
)

var (
	// ErrMalformed means the input is not a well-formed RFC 0019 envelope.
	ErrMalformed = errors.New("didcomm: malformed envelope")
	// ErrNotForUs means no recipient of the envelope is a key we hold.
	ErrNotForUs = errors.New("didcomm: envelope is not addressed to any of our keys")
	// ErrDecrypt means the envelope is addressed to one of our keys but
	// does not decrypt: tampered, truncated, or encrypted to another key.
	ErrDecrypt = errors.New("didcomm: envelope does not decrypt")
	// ErrUnknownKey is what a findKey callback returns (wrapped or not)
	// for a kid that is not one of our keys; Unpack then tries the next
	// recipient.
	ErrUnknownKey = errors.New("didcomm: unknown key")
)

// Unpacked is a decrypted envelope.
type Unpacked struct {
	// Message is the plaintext (a DIDComm message, JSON).
	Message []byte
	// RecipientVerkey is the base58 verkey of ours it was encrypted to.
	RecipientVerkey string
	// SenderVerkey is the sender's base58 verkey for authcrypt, "" for
	// anoncrypt. Authcrypt proves the sender holds that key.
	SenderVerkey string
}

// envelope is the outer JSON.
type envelope struct {
	Protected  string `json:"protected"`
	IV         string `json:"iv"`
	Ciphertext string `json:"ciphertext"`
	Tag        string `json:"tag"`
}

// protectedHeader is the decoded "protected" member.
type protectedHeader struct {
	Enc        string      `json:"enc"`
	Typ        string      `json:"typ"`
	Alg        string      `json:"alg"`
	Recipients []recipient `json:"recipients"`
}

type recipient struct {
	EncryptedKey string          `json:"encrypted_key"`
	Header       recipientHeader `json:"header"`
}

// recipientHeader: Sender and IV are pointers so that anoncrypt headers
// written with explicit nulls (some Python implementations do) decode.
type recipientHeader struct {
	KID    string  `json:"kid"`
	Sender *string `json:"sender,omitempty"`
	IV     *string `json:"iv,omitempty"`
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// Unpack decrypts an RFC 0019 envelope. findKey is asked, in the order of
// the envelope's recipients, for the private key of each kid (a base58
// verkey); it returns an error wrapping ErrUnknownKey (or a nil key) for a
// key that is not ours, and any other error to stop (a storage failure,
// returned as is). The first recipient whose key is found is the one
// decrypted for.
//
// Errors: ErrMalformed (not an envelope), ErrNotForUs (none of our keys),
// ErrDecrypt (ours, but it does not decrypt or authenticate), or findKey's
// own error. Unpack never panics on any input (fuzzed).
func Unpack(data []byte, findKey func(kid string) (ed25519.PrivateKey, error)) (Unpacked, error) {
	if len(data) > MaxEnvelopeSize {
		return Unpacked{}, malformed("larger than %d bytes", MaxEnvelopeSize)
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return Unpacked{}, malformed("not a JSON envelope object")
	}
	if env.Protected == "" || env.IV == "" || env.Ciphertext == "" || env.Tag == "" {
		return Unpacked{}, malformed("protected, iv, ciphertext and tag are required")
	}
	if len(env.Protected) > maxProtected {
		// Measured before it is decoded: every recipient it lists would be
		// decoded before their number could be checked.
		return Unpacked{}, malformed("protected header longer than %d characters", maxProtected)
	}
	rawHeader, err := decodeB64(env.Protected)
	if err != nil {
		return Unpacked{}, malformed("protected is not base64url")
	}
	var hdr protectedHeader
	if err := json.Unmarshal(rawHeader, &hdr); err != nil {
		return Unpacked{}, malformed("protected header is not a JSON object")
	}
	if hdr.Enc != EncXC20PIETF && hdr.Enc != EncC20PIETF {
		return Unpacked{}, malformed("unsupported enc %q", hdr.Enc)
	}
	if hdr.Alg != AlgAuthcrypt && hdr.Alg != AlgAnoncrypt {
		return Unpacked{}, malformed("unsupported alg %q", hdr.Alg)
	}
	if len(hdr.Recipients) == 0 || len(hdr.Recipients) > MaxRecipients {
		return Unpacked{}, malformed("%d recipients (1 to %d allowed)", len(hdr.Recipients), MaxRecipients)
	}
	iv, err := decodeB64(env.IV)
	if err != nil || len(iv) != chacha20poly1305.NonceSize {
		return Unpacked{}, malformed("iv is not a %d-byte base64url value", chacha20poly1305.NonceSize)
	}
	tag, err := decodeB64(env.Tag)
	if err != nil || len(tag) != chacha20poly1305.Overhead {
		return Unpacked{}, malformed("tag is not a %d-byte base64url value", chacha20poly1305.Overhead)
	}
	ciphertext, err := decodeB64(env.Ciphertext)
	if err != nil {
		return Unpacked{}, malformed("ciphertext is not base64url")
	}

	for i := range hdr.Recipients {
		r := &hdr.Recipients[i]
		pub, err := didkey.ParseVerkey(r.Header.KID)
		if err != nil {
			return Unpacked{}, malformed("recipient %d: kid is not a base58 Ed25519 verkey", i)
		}
		priv, err := findKey(r.Header.KID)
		if errors.Is(err, ErrUnknownKey) || (err == nil && priv == nil) {
			continue
		}
		if err != nil {
			return Unpacked{}, err
		}
		if len(priv) != ed25519.PrivateKeySize || !pub.Equal(priv.Public()) {
			return Unpacked{}, fmt.Errorf("didcomm: the key found for %s does not match it", r.Header.KID)
		}
		cek, sender, err := openCEK(hdr.Alg, r, pub, priv)
		if err != nil {
			return Unpacked{}, err
		}
		aead, err := chacha20poly1305.New(cek)
		if err != nil {
			return Unpacked{}, fmt.Errorf("%w: content key", ErrDecrypt)
		}
		sealed := make([]byte, 0, len(ciphertext)+len(tag))
		sealed = append(append(sealed, ciphertext...), tag...)
		// The additional data is the protected member exactly as sent.
		msg, err := aead.Open(nil, iv, sealed, []byte(env.Protected))
		if err != nil {
			return Unpacked{}, fmt.Errorf("%w: payload does not authenticate", ErrDecrypt)
		}
		return Unpacked{Message: msg, RecipientVerkey: r.Header.KID, SenderVerkey: sender}, nil
	}
	return Unpacked{}, ErrNotForUs
}

// openCEK recovers the content key of one recipient (and, for authcrypt,
// the sender's verkey).
func openCEK(alg string, r *recipient, pub ed25519.PublicKey, priv ed25519.PrivateKey) (cek []byte, sender string, err error) {
	encKey, err := decodeB64Capped(r.EncryptedKey)
	if err != nil {
		return nil, "", malformed("encrypted_key is not base64url")
	}
	myPub, myPriv, err := x25519Pair(pub, priv)
	if err != nil {
		return nil, "", err
	}
	switch alg {
	case AlgAnoncrypt:
		if (r.Header.Sender != nil && *r.Header.Sender != "") || (r.Header.IV != nil && *r.Header.IV != "") {
			return nil, "", malformed("anoncrypt recipient header has a sender or iv")
		}
		cek, ok := box.OpenAnonymous(nil, encKey, myPub, myPriv)
		if !ok || len(cek) != chacha20poly1305.KeySize {
			return nil, "", fmt.Errorf("%w: content key does not open", ErrDecrypt)
		}
		return cek, "", nil
	default: // AlgAuthcrypt, checked by the caller
		if r.Header.Sender == nil || r.Header.IV == nil {
			return nil, "", malformed("authcrypt recipient header without sender and iv")
		}
		sealedSender, err := decodeB64Capped(*r.Header.Sender)
		if err != nil {
			return nil, "", malformed("sender is not base64url")
		}
		nonce, err := decodeB64Capped(*r.Header.IV)
		if err != nil || len(nonce) != 24 {
			return nil, "", malformed("recipient iv is not a 24-byte base64url value")
		}
		senderB58, ok := box.OpenAnonymous(nil, sealedSender, myPub, myPriv)
		if !ok {
			return nil, "", fmt.Errorf("%w: sender does not open", ErrDecrypt)
		}
		senderPub, err := didkey.ParseVerkey(string(senderB58))
		if err != nil {
			return nil, "", fmt.Errorf("%w: sender is not a verkey", ErrDecrypt)
		}
		senderX, err := didkey.X25519PublicKey(senderPub)
		if err != nil {
			return nil, "", fmt.Errorf("%w: sender key", ErrDecrypt)
		}
		var n [24]byte
		copy(n[:], nonce)
		cek, ok := box.Open(nil, encKey, &n, (*[32]byte)(senderX), myPriv)
		if !ok || len(cek) != chacha20poly1305.KeySize {
			return nil, "", fmt.Errorf("%w: content key does not open", ErrDecrypt)
		}
		return cek, string(senderB58), nil
	}
}

func x25519Pair(pub ed25519.PublicKey, priv ed25519.PrivateKey) (*[32]byte, *[32]byte, error) {
	xpub, err := didkey.X25519PublicKey(pub)
	if err != nil {
		return nil, nil, err
	}
	return (*[32]byte)(xpub), (*[32]byte)(didkey.X25519PrivateKey(priv)), nil
}

// Pack encrypts msg to every recipient key (base58 verkeys or did:key).
// With a sender key it authcrypts (the recipients learn and can trust the
// sender's verkey); with a nil sender it anoncrypts.
func Pack(msg []byte, recipientKeys []string, sender ed25519.PrivateKey) ([]byte, error) {
	if len(recipientKeys) == 0 || len(recipientKeys) > MaxRecipients {
		return nil, fmt.Errorf("didcomm: %d recipients (1 to %d allowed)", len(recipientKeys), MaxRecipients)
	}
	if sender != nil && len(sender) != ed25519.PrivateKeySize {
		return nil, errors.New("didcomm: sender is not an Ed25519 private key")
	}
	cek := make([]byte, chacha20poly1305.KeySize)
	if _, err := rand.Read(cek); err != nil {
		return nil, err
	}
	hdr := protectedHeader{Enc: EncXC20PIETF, Typ: TypJWM, Alg: AlgAnoncrypt}
	var senderVerkey string
	var senderPriv *[32]byte
	if sender != nil {
		hdr.Alg = AlgAuthcrypt
		senderVerkey = didkey.Verkey(sender.Public().(ed25519.PublicKey))
		senderPriv = (*[32]byte)(didkey.X25519PrivateKey(sender))
	}
	for _, k := range recipientKeys {
		pub, err := ParseKey(k)
		if err != nil {
			return nil, fmt.Errorf("didcomm: recipient key %q: %w", k, err)
		}
		xpub, err := didkey.X25519PublicKey(pub)
		if err != nil {
			return nil, fmt.Errorf("didcomm: recipient key %q: %w", k, err)
		}
		rp := (*[32]byte)(xpub)
		r := recipient{Header: recipientHeader{KID: didkey.Verkey(pub)}}
		if sender == nil {
			ek, err := box.SealAnonymous(nil, cek, rp, rand.Reader)
			if err != nil {
				return nil, err
			}
			r.EncryptedKey = encodeB64(ek)
		} else {
			var nonce [24]byte
			if _, err := rand.Read(nonce[:]); err != nil {
				return nil, err
			}
			r.EncryptedKey = encodeB64(box.Seal(nil, cek, &nonce, rp, senderPriv))
			ss, err := box.SealAnonymous(nil, []byte(senderVerkey), rp, rand.Reader)
			if err != nil {
				return nil, err
			}
			s, iv := encodeB64(ss), encodeB64(nonce[:])
			r.Header.Sender, r.Header.IV = &s, &iv
		}
		hdr.Recipients = append(hdr.Recipients, r)
	}
	rawHeader, err := json.Marshal(hdr)
	if err != nil {
		return nil, err
	}
	protected := encodeB64(rawHeader)
	aead, err := chacha20poly1305.New(cek)
	if err != nil {
		return nil, err
	}
	iv := make([]byte, chacha20poly1305.NonceSize)
	if _, err := rand.Read(iv); err != nil {
		return nil, err
	}
	sealed := aead.Seal(nil, iv, msg, []byte(protected))
	cut := len(sealed) - chacha20poly1305.Overhead
	return json.Marshal(envelope{
		Protected:  protected,
		IV:         encodeB64(iv),
		Ciphertext: encodeB64(sealed[:cut]),
		Tag:        encodeB64(sealed[cut:]),
	})
}

// ParseKey reads a key as ~service decorators and invitations spell it: a
// base58 verkey, or a did:key (optionally with its own fingerprint as
// fragment).
func ParseKey(s string) (ed25519.PublicKey, error) {
	if strings.HasPrefix(s, didkey.Prefix) {
		return didkey.Decode(s)
	}
	return didkey.ParseVerkey(s)
}

// Verkey normalizes a key (base58 verkey or did:key) to its base58 verkey.
func Verkey(s string) (string, error) {
	pub, err := ParseKey(s)
	if err != nil {
		return "", err
	}
	return didkey.Verkey(pub), nil
}
