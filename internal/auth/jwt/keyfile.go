package jwt

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-jose/go-jose/v4"
)

// maxKeyFileSize caps what is read from a key file: keys and certificate
// chains are a few kilobytes.
const maxKeyFileSize = 1 << 20

// loadKeyFile reads the public keys of a file: a JWKS document, a single
// JWK, or PEM blocks (PUBLIC KEY, RSA PUBLIC KEY, CERTIFICATE). Private
// keys are refused: a gateway only verifies, and a private key in its
// configuration is a leak waiting to happen.
func loadKeyFile(path string) (*keySet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxKeyFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxKeyFileSize)
	}
	return parseKeyFile(data)
}

func parseKeyFile(data []byte) (*keySet, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return parseJWKFile(trimmed)
	}
	return parsePEM(trimmed)
}

func parseJWKFile(data []byte) (*keySet, error) {
	var probe struct {
		Keys json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	var set *keySet
	if probe.Keys != nil {
		var err error
		if set, err = parseJWKS(data); err != nil {
			return nil, err
		}
	} else {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("not a JWK: %v", err)
		}
		set = &keySet{}
		set.add(k)
	}
	// Read from the parsed keys (keySet.add), whatever their use or
	// spelling of the private members.
	if set.private > 0 {
		return nil, errors.New("holds a private key; give only public keys")
	}
	if len(set.keys) == 0 && set.weak > 0 {
		return nil, fmt.Errorf("holds only RSA keys shorter than %d bits", MinRSABits)
	}
	if len(set.keys) == 0 {
		return nil, errors.New("holds no usable signature verification key (RSA, EC or Ed25519 public key)")
	}
	return set, nil
}

func parsePEM(data []byte) (*keySet, error) {
	set := &keySet{}
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		var pub any
		var err error
		switch block.Type {
		case "PUBLIC KEY":
			pub, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			pub, err = x509.ParsePKCS1PublicKey(block.Bytes)
		case "CERTIFICATE":
			var cert *x509.Certificate
			if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
				pub = cert.PublicKey
			}
		case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
			return nil, errors.New("holds a private key; give only the public key")
		default:
			return nil, fmt.Errorf("unexpected PEM block %q", block.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("PEM block %q: %v", block.Type, err)
		}
		n := len(set.keys)
		set.add(jose.JSONWebKey{Key: pub})
		if len(set.keys) == n && set.weak > 0 {
			return nil, fmt.Errorf("PEM block %q: an RSA key shorter than %d bits", block.Type, MinRSABits)
		}
		if len(set.keys) == n {
			return nil, fmt.Errorf("PEM block %q: not an RSA, EC or Ed25519 public key", block.Type)
		}
	}
	if len(set.keys) == 0 {
		return nil, errors.New("holds no PEM block and is not JSON")
	}
	return set, nil
}
