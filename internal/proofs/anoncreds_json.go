package proofs

import "github.com/proofgate/proofgate/internal/backend"

// appendAnonCredsRequest appends what marshal makes of r, byte for byte
// (TestAppendAnonCredsRequest holds it to that), through the one writer of
// AnonCreds requests (backend.AppendAnonCredsRequest), with marshal's
// strings (HTML characters not escaped).
func appendAnonCredsRequest(b []byte, r *AnonCredsProofRequest) []byte {
	req := backend.IndyProofRequest{
		Name: r.Name, Version: r.Version,
		RequestedAttributes: r.RequestedAttributes, RequestedPredicates: r.RequestedPredicates,
		NonRevoked: r.NonRevoked,
	}
	return backend.AppendAnonCredsRequest(b, &req, r.Nonce, false)
}
