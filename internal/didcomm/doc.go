// Package didcomm packs and unpacks DIDComm v1 encryption envelopes (Aries
// RFC 0019), authcrypt and anoncrypt, and wraps envelopes in RFC 0094
// forward messages for a recipient's mediators.
//
// The envelope is a JWE-like JSON object {protected, iv, ciphertext, tag}.
// The protected header lists the recipients; each one's content key (CEK)
// is encrypted to the X25519 form of its Ed25519 verkey:
//
//   - authcrypt: crypto_box(cek, 24-byte nonce, recipient, sender) and the
//     sender's base58 verkey in crypto_box_seal to the recipient;
//   - anoncrypt: crypto_box_seal(cek, recipient).
//
// The payload is IETF ChaCha20-Poly1305 (12-byte nonce) with the protected
// header's base64url string as additional data. The header says
// "xchacha20poly1305_ietf" for historical reasons, but libindy, ACA-Py
// (askar KeyAlg.C20P), Credo and aries-framework-go all use the 12-byte
// IETF construction, and so does this package.
//
// Base64url fields are decoded padded or unpadded (ACA-Py and Credo write
// them unpadded, libindy-era and aries-framework-go code padded) and
// written unpadded.
package didcomm
