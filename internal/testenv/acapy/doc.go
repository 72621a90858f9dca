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
// The executable is $PROOFGATE_ACAPY, else the virtualenv that
// .ci/acapy-venv.sh creates. When it is missing the test is skipped with the
// command to run, except under CI (the CI variable is set), where it fails:
// CI must install the agent, not silently test less.
package acapy
