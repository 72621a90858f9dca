// Package acapy starts a real ACA-Py agent (aries-cloudagent, installed from
// PyPI by .ci/acapy-venv.sh) for tests: no ledger, a throw-away wallet,
// inbound DIDComm and the admin API on loopback ports, killed when the test
// ends.
//
//	agent := acapy.Start(t)                       // single wallet, X-API-Key
//	agent := acapy.Start(t, acapy.Multitenant())  // plus per-wallet Bearer tokens
//	w := agent.CreateWallet(t, "org1")            // multitenant only
//	status, body := agent.Call(t, "POST", "/present-proof-2.0/create-request", w.Token, req)
//
// A holder with a W3C JSON-LD credential (did:key, Ed25519Signature2018,
// issued over DIDComm with issue-credential 2.0 ld_proof; no ledger, no
// context fetched):
//
//	issuer := acapy.Shared(t, acapy.ExtraArgs(acapy.IssuerArgs...))
//	holder := acapy.Shared(t, acapy.ExtraArgs(acapy.HolderArgs...))
//	h := acapy.IssueTestCredential(t, issuer, holder, map[string]any{"givenName": "Alice"})
//	holder.ReceiveInvitation(t, invitation)             // a verifier's connectionless request
//	rec := holder.WaitPresEx(t, thid, time.Minute, "request-received")
//	holder.SendPresentation(t, rec.PresExID, map[string]any{"dif": map[string]any{
//		"record_ids": map[string]any{"<input descriptor id>": []string{h.Credential.RecordID}}}})
//
// Input descriptors answered by an ACA-Py holder need a schema
// (acapy.CredentialsV1Schema matches every W3C credential).
//
// The executable is $PROOFGATE_ACAPY, else the virtualenv that
// .ci/acapy-venv.sh creates (acapy-agent Version, Python >= 3.12). When
// scripts/test.sh could not install it (no Python >= 3.12) it sets
// $PROOFGATE_ACAPY_SKIP, and every ACA-Py test skips with that one line,
// under CI too. Otherwise a missing agent skips the test with the command
// to run, except under CI (the CI variable is set), where it fails: CI must
// install the agent, not silently test less. Agents run on loopback with
// --no-ledger and throw-away Askar wallets, in their own process group,
// killed when the test (Start) or the test binary (Shared, via Main) ends.
package acapy
