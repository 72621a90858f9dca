// Package wallet is the one test wallet of proofgate: a prover on
// loopback. It reads an out-of-band invitation URL, builds present-proof
// 1.0 and 2.0 presentation messages (AnonCreds/Indy and DIF presentation
// exchange), packs them with RFC 0019 authcrypt or anoncrypt, posts them to
// the invitation's service endpoint, and runs an HTTP endpoint of its own
// (optionally behind a mediator with routing keys, RFC 0094 forward) that
// unpacks what the verifier sends back: acks and problem reports.
//
// As a Holder (a did:key Ed25519 identity) it issues itself W3C
// credentials and signs presentations: Ed25519Signature2018 linked-data
// proofs over the pinned JSON-LD contexts, with the request's challenge
// and, like ACA-Py, no domain unless asked; or EdDSA JWTs (jwt_vc inside
// a jwt_vp, nonce and aud). Tamper, expired credentials, a wrong
// challenge, domain or holder and WithUnknownContext make the
// presentations a verifier must refuse.
//
// It is a test double of a wallet, written independently of
// internal/proofs: it has its own wire constants and reads invitations as
// a wallet would, so a mistake in the verifier's message building is not
// mirrored here. It shares the envelope code (internal/didcomm), did:key
// encoding (internal/didkey) and the signing halves of the proof suites
// (internal/verify/ldp, internal/verify/jwtvc; those are checked against
// W3C test vectors and ACA-Py-signed credentials, not only against
// themselves).
//
// The core API returns errors and runs anywhere (the demo holder command
// examples/holder is built on it); T wraps it for tests with testing.TB
// helpers that fail the test instead.
package wallet
