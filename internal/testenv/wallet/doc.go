// Package wallet is the one test wallet of proofgate: a prover on
// loopback. It reads an out-of-band invitation URL, builds present-proof
// 1.0 and 2.0 presentation messages (AnonCreds/Indy and DIF presentation
// exchange), packs them with RFC 0019 authcrypt or anoncrypt, posts them to
// the invitation's service endpoint, and runs an HTTP endpoint of its own
// (optionally behind a mediator with routing keys, RFC 0094 forward) that
// unpacks what the verifier sends back: acks and problem reports.
//
// It is a test double of a wallet, written independently of
// internal/proofs: it has its own wire constants and reads invitations as
// a wallet would, so a mistake in the verifier's message building is not
// mirrored here. It shares only the envelope code (internal/didcomm) and
// did:key encoding (internal/didkey) with the verifier.
//
// The core API returns errors and runs anywhere (the demo holder command
// examples/holder is built on it); T wraps it for tests with testing.TB
// helpers that fail the test instead.
package wallet
