// Package proofgate is a Caddy v2 HTTP handler that serves a verification API
// (out-of-band proof requests and presentation acceptance) in front of
// credential-verification agents, or on its own embedded verifier.
package proofgate
