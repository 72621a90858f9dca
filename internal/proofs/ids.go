package proofs

import (
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"

	"github.com/google/uuid"
)

// Every identifier a wallet can send back to us is derived from the record
// id and back, so a message on a thread finds its record with one read and
// a create needs no index documents (DESIGN §4: one durable write).
//
// The masks have zero bits where a v4 UUID keeps its version nibble (byte
// 6, high half) and variant bits (byte 8, top two), so XOR-ing a v4 UUID
// with them gives another v4 UUID, and XOR-ing again gives the original.
// They are not secrets: knowing a record id grants nothing (accepting
// needs an authorized caller of the owning org).
var (
	threadMask     = uuid.UUID{0x5a, 0x3c, 0x96, 0xe1, 0x0f, 0x7d, 0x0b, 0x42, 0x29, 0xc4, 0x6e, 0x18, 0xa7, 0x53, 0xf0, 0x8d}
	invitationMask = uuid.UUID{0xc3, 0x71, 0x1e, 0x8a, 0x64, 0xd2, 0x05, 0xb9, 0x17, 0x8e, 0x3a, 0xf6, 0x40, 0x9c, 0x2d, 0x71}
)

func xor(a, b uuid.UUID) uuid.UUID {
	var r uuid.UUID
	for i := range r {
		r[i] = a[i] ^ b[i]
	}
	return r
}

// ParseID parses a record, thread or invitation id: a v4 UUID in any case;
// ok is false for anything else. The canonical (lower-case) form is what
// storage keys use.
func ParseID(s string) (uuid.UUID, bool) {
	if len(s) != 36 {
		return uuid.UUID{}, false
	}
	u, err := uuid.Parse(s)
	if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
		return uuid.UUID{}, false
	}
	return u, true
}

// ThreadID returns the ~thread.thid of the record's request-presentation
// (Credo's record "threadId").
func ThreadID(recordID uuid.UUID) uuid.UUID { return xor(recordID, threadMask) }

// RecordIDForThread is the inverse of ThreadID.
func RecordIDForThread(threadID uuid.UUID) uuid.UUID { return xor(threadID, threadMask) }

// InvitationID returns the @id of the record's out-of-band invitation, which
// wallets echo as ~thread.pthid (RFC 0434) and in problem reports.
func InvitationID(recordID uuid.UUID) uuid.UUID { return xor(recordID, invitationMask) }

// RecordIDForInvitation is the inverse of InvitationID.
func RecordIDForInvitation(invitationID uuid.UUID) uuid.UUID {
	return xor(invitationID, invitationMask)
}

// ShortURLIDLen is the length of a short-URL id the local verifier makes.
// It differs from the 16 characters of the gateway's stored short URLs
// (internal/shorturl), so the id alone tells where to look.
const ShortURLIDLen = 22

// ShortURLID returns the id of the record's short URL
// (<public_url>/url/<id>): the record id encrypted with the verifier's
// short-URL cipher (one AES block), in unpadded base64url. A short URL is
// then part of its record's one durable write, and resolving it is one
// read of the record; without the cipher's key, nobody can tell a record's
// short URL from its id (which logs and webhooks carry) or the reverse.
func ShortURLID(c cipher.Block, recordID uuid.UUID) string {
	var b [16]byte
	c.Encrypt(b[:], recordID[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// RecordIDForShortURL is the inverse of ShortURLID; ok is false for
// anything ShortURLID cannot have made.
func RecordIDForShortURL(c cipher.Block, id string) (uuid.UUID, bool) {
	b, ok := decodeShortURLID(id)
	if !ok {
		return uuid.UUID{}, false
	}
	var u uuid.UUID
	c.Decrypt(u[:], b[:])
	if u.Version() != 4 || u.Variant() != uuid.RFC4122 {
		return uuid.UUID{}, false
	}
	return u, true
}

// decodeShortURLID reads a short-URL id as the 16 bytes it encodes: its
// length and alphabet are checked (canonical base64url, no padding) before
// any key is looked for, so an id no short URL can have costs nothing.
func decodeShortURLID(id string) (b [16]byte, ok bool) {
	if len(id) != ShortURLIDLen {
		return b, false
	}
	n, err := base64.RawURLEncoding.Strict().Decode(b[:], []byte(id))
	return b, err == nil && n == len(b)
}

// RecordIDForKey returns the record id of a record that has its own fresh
// key (reuseConnection false): a v4 UUID hashed from the public key. An
// inbound envelope names only its recipient key until it is decrypted, so
// the key alone must lead to the record that holds the private key.
func RecordIDForKey(pub ed25519.PublicKey) uuid.UUID {
	h := sha256.Sum256(append([]byte("proofgate record id for key\x00"), pub...))
	var u uuid.UUID
	copy(u[:], h[:16])
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u
}

// RecordIDForInvitationID maps an invitation's @id (a message's
// ~thread.pthid) to the record id; ok is false when it cannot be one of
// ours.
func RecordIDForInvitationID(pthid string) (string, bool) {
	u, ok := ParseID(pthid)
	if !ok {
		return "", false
	}
	return RecordIDForInvitation(u).String(), true
}

// RecordIDForThreadID maps a message's ~thread.thid to the record id; ok
// is false when thid cannot be one of ours.
func RecordIDForThreadID(thid string) (string, bool) {
	u, ok := ParseID(thid)
	if !ok {
		return "", false
	}
	return RecordIDForThread(u).String(), true
}
