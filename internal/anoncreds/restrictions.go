package anoncreds

import "github.com/proofgate/proofgate/internal/anoncreds/names"

// credFacts is what restrictions are evaluated against for one credential
// of a presentation.
type credFacts struct {
	id     Identifier
	schema *Schema
	def    *CredentialDefinition
	// revealed holds the raw values the presentation reveals from this
	// credential, by canonical attribute name.
	revealed map[string]string
	// attrs holds the schema's attribute names, canonical.
	attrs map[string]bool
	// schemaUnconfirmed is set when nothing ties the credential to the
	// schema the presentation names: a legacy definition names its schema
	// by ledger sequence number, and the schema's document gives none (a
	// files source's may not). The definition's key still holds the
	// schema to its attributes, but another schema with the same
	// attributes would pass as well, so no restriction on the schema
	// (its id, issuer, name or version) is met by such a credential.
	schemaUnconfirmed bool
}

// meets evaluates restrictions (an OR of AND objects) on a credential;
// no restrictions are met by any credential.
//
// The tags and what decides them, from the AnonCreds specification:
//   - schema_id, cred_def_id: the presentation's identifiers (tied to the
//     credential by the definition's key and schemaId);
//   - rev_reg_id: never met until non-revocation proofs are verified
//     (meetsTag says why);
//   - schema_issuer_did / schema_issuer_id, schema_name, schema_version:
//     the schema; issuer_did / issuer_id: the credential definition's
//     issuer. Issuer ids of any DID method compare as strings (exactly:
//     the reference does not equate did:sov:X with the legacy X either);
//   - attr::<name>::value: the credential's attribute <name> has this raw
//     value, which the presentation must reveal from that credential
//     (an unrevealed value cannot be confirmed, so it does not meet it);
//   - attr::<name>::marker: the credential has attribute <name> (value
//     "1", as wallets tag it).
//
// A schema tag is never met by a credential whose schema is unconfirmed
// (credFacts.schemaUnconfirmed).
func meets(restrictions Restrictions, c *credFacts) bool {
	if len(restrictions) == 0 {
		return true
	}
	for _, and := range restrictions {
		if meetsAll(and, c) {
			return true
		}
	}
	return false
}

func meetsAll(and map[string]string, c *credFacts) bool {
	for tag, want := range and {
		if !meetsTag(tag, want, c) {
			return false
		}
	}
	return true
}

func meetsTag(tag, want string, c *credFacts) bool {
	if c.schemaUnconfirmed && isSchemaTag(tag) {
		return false
	}
	switch tag {
	case "schema_id":
		return c.id.SchemaID == want
	case "cred_def_id":
		return c.id.CredDefID == want
	case "rev_reg_id":
		// Never met. The credential's revocation registry is proven only by
		// its non-revocation proof, which this verifier does not verify
		// (see Verifier); identifiers[].rev_reg_id is what the prover
		// writes, and a credential of another definition, revocable or
		// not, could name any registry. The reference refuses the tag
		// too ("Unknown Filter Type").
		return false
	case "schema_issuer_did", "schema_issuer_id":
		return c.schema.IssuerID == want
	case "schema_name":
		return c.schema.Name == want
	case "schema_version":
		return c.schema.Version == want
	case "issuer_did", "issuer_id":
		return c.def.IssuerID == want
	}
	name, kind, ok := names.AttrTag(tag)
	if !ok {
		return false // not a restriction tag: never met
	}
	switch kind {
	case "value":
		v, revealed := c.revealed[names.Attr(name)]
		return revealed && v == want
	default: // marker
		return c.attrs[names.Attr(name)] && want == "1"
	}
}

// isSchemaTag reports whether tag restricts the credential's schema.
func isSchemaTag(tag string) bool {
	switch tag {
	case "schema_id", "schema_issuer_did", "schema_issuer_id", "schema_name", "schema_version":
		return true
	}
	return false
}

// usesTag reports whether any of restrictions uses tag.
func usesTag(restrictions Restrictions, tag string) bool {
	for _, and := range restrictions {
		if _, ok := and[tag]; ok {
			return true
		}
	}
	return false
}

// usesSchemaTag reports whether any of restrictions restricts the schema.
func usesSchemaTag(restrictions Restrictions) bool {
	for _, and := range restrictions {
		for tag := range and {
			if isSchemaTag(tag) {
				return true
			}
		}
	}
	return false
}

// mixesIssuerTags tells whether a request uses both the legacy and the
// new name of an issuer tag; the reference refuses such requests and so
// do we (the two names would otherwise mean the same).
func mixesIssuerTags(req *Request) (string, bool) {
	seen := map[string]bool{}
	add := func(rs Restrictions) {
		for _, and := range rs {
			for tag := range and {
				seen[tag] = true
			}
		}
	}
	for _, a := range req.RequestedAttributes {
		add(a.Restrictions)
	}
	for _, p := range req.RequestedPredicates {
		add(p.Restrictions)
	}
	switch {
	case seen["issuer_id"] && seen["issuer_did"]:
		return "the request mixes issuer_id and issuer_did restrictions", true
	case seen["schema_issuer_id"] && seen["schema_issuer_did"]:
		return "the request mixes schema_issuer_id and schema_issuer_did restrictions", true
	}
	return "", false
}
