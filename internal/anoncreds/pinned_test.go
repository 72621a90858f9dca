package anoncreds

// The tests in this file pin checks that a round of mutation testing
// found held by no test: each fails when its check is dropped or weakened.

import (
	"testing"

	"github.com/proofgate/proofgate/internal/verify"
)

// A credential is shown under its definition's schema only: naming
// another schema with the same attributes (to meet a restriction on that
// schema) is refused when the definition names its schema by id.
func TestSchemaIDMustBeTheDefinitions(t *testing.T) {
	const (
		cid    = "55GkHamhTU1ZbTbV2ab9DE:3:CL:55GkHamhTU1ZbTbV2ab9DE:2:person:1.0:default"
		person = "55GkHamhTU1ZbTbV2ab9DE:2:person:1.0"
		twin   = "AAAAAAAAAAAAAAAAAAAAAA:2:person:1.0" // another issuer's schema, same attributes
	)
	reg := loadRegistry(t)
	if reg.defs[cid].SchemaID != person {
		t.Fatalf("fixture: definition's schemaId is %q", reg.defs[cid].SchemaID)
	}
	other := *reg.schemas[person]
	other.ID, other.IssuerID = twin, "AAAAAAAAAAAAAAAAAAAAAA"
	reg.schemas[twin] = &other
	if got := verifyRestricted(t, reg, person, map[string]any{"schema_id": person}); !got.Verified {
		t.Fatalf("its own schema: %+v", got)
	}
	got := verifyRestricted(t, reg, twin, map[string]any{"schema_id": twin})
	if got.Verified || got.Reason != verify.ReasonRestriction || !hasProblem(got, "is for schema "+person+", not "+twin) {
		t.Fatalf("shown under another schema: %+v", got)
	}
}
