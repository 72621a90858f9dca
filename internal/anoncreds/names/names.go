// Package names holds AnonCreds' rules for the names that proof requests,
// presentations and ledger objects share: the parts of legacy Indy
// identifiers, attribute names as AnonCreds compares them, and the
// attr:: restriction tags. The request validator, the local verifier's
// structural check and the AnonCreds verifier all read them here, so that
// what one accepts the others understand alike.
//
// Legacy (unqualified) identifiers, with an issuer that is an Indy DID or,
// in older Credo and ACA-Py output, a DID such as did:sov:<nym>:
//
//	schema       <issuer>:2:<name>:<version>
//	cred def     <issuer>:3:CL:<schema seq no or schema id>:<tag> (the
//	             oldest without :<tag>)
//	rev registry <issuer>:4:<cred def id>:CL_ACCUM:<tag>
//
// The functions only split; whether an issuer is a well-formed DID or a
// version is dotted is the caller's to judge. None of them allocates.
package names

import "strings"

// Schema splits a legacy schema id into its parts. It reads from the
// right, so that the issuer may itself hold colons (did:sov:<nym>) and the
// name may not. ok is false for any other shape or an empty part.
func Schema(id string) (issuer, name, version string, ok bool) {
	rest, version, found := cutLast(id, ':')
	if !found || version == "" {
		return "", "", "", false
	}
	rest, name, found = cutLast(rest, ':')
	if !found || name == "" {
		return "", "", "", false
	}
	issuer, two, found := cutLast(rest, ':')
	if !found || two != "2" || issuer == "" {
		return "", "", "", false
	}
	return issuer, name, version, true
}

// CredDef splits a legacy credential definition id at ":3:CL:" into its
// issuer and what follows: the schema reference and, in all but the
// oldest ids, ":<tag>" (the validator requires the tag of new requests;
// ids read from proofs and ledgers may lack it).
func CredDef(id string) (issuer, rest string, ok bool) {
	issuer, rest, found := strings.Cut(id, ":3:CL:")
	if !found || issuer == "" || rest == "" {
		return "", "", false
	}
	return issuer, rest, true
}

// RevReg splits a legacy revocation registry id into its issuer and the
// credential definition id it holds (itself a legacy one).
func RevReg(id string) (issuer, credDef string, ok bool) {
	issuer, rest, found := strings.Cut(id, ":4:")
	if !found || issuer == "" {
		return "", "", false
	}
	credDef, tag, found := strings.Cut(rest, ":CL_ACCUM:")
	if !found || tag == "" {
		return "", "", false
	}
	if _, _, ok := CredDef(credDef); !ok {
		return "", "", false
	}
	return issuer, credDef, true
}

// Attr is an attribute name as AnonCreds compares it (anoncreds-rs
// attr_common_view): spaces removed, lower case, so that "Favourite
// Colour" and "favouritecolour" name the same attribute.
func Attr(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, " ", ""))
}

// AttrTag parses the restriction tags "attr::<name>::value" and
// "attr::<name>::marker"; kind is "value" or "marker".
func AttrTag(tag string) (name, kind string, ok bool) {
	rest, found := strings.CutPrefix(tag, "attr::")
	if !found {
		return "", "", false
	}
	i := strings.LastIndex(rest, "::")
	if i <= 0 {
		return "", "", false
	}
	name, kind = rest[:i], rest[i+2:]
	return name, kind, kind == "value" || kind == "marker"
}

// cutLast splits s around its last sep.
func cutLast(s string, sep byte) (before, after string, found bool) {
	i := strings.LastIndexByte(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}
