package validate

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The DIF Presentation Exchange v2.0.0 schemas, byte for byte as published
// (decentralized-identity/presentation-exchange schemas/v2.0.0; a test
// compares them with the shared fixtures). patchPD adapts them in memory.
//
//go:embed schemas/presentation-definition.json schemas/presentation-definition-claim-format-designations.json
var schemaFiles embed.FS

const (
	pdURL = "https://identity.foundation/presentation-exchange/schemas/presentation-definition.json"
	// The v2 schemas $ref this URL; its document is embedded so that
	// nothing is fetched from the network.
	claimFormatURL = "https://identity.foundation/claim-format-registry/schemas/presentation-definition-claim-format-designations.json"
)

// peSchemas are the compiled DIF checks, shared by all requests.
type peSchemas struct {
	top *jsonschema.Schema // the definition without its input descriptors
	v2  *jsonschema.Schema // one v2 input descriptor (constraints, no schema)
	v1  *jsonschema.Schema // one v1 input descriptor (schema required)

	filters filterCache
}

// noLoader refuses every URL: schemas never come from the network or the
// file system (a caller's filter could otherwise $ref file:///etc/passwd).
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading %s: external schemas are not allowed", url)
}

func compilePESchemas() (*peSchemas, error) {
	pd, err := loadSchemaFile("schemas/presentation-definition.json")
	if err != nil {
		return nil, err
	}
	claimFormats, err := loadSchemaFile("schemas/presentation-definition-claim-format-designations.json")
	if err != nil {
		return nil, err
	}
	if err := patchPD(pd); err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft7)
	comp.UseLoader(noLoader{})
	if err := comp.AddResource(claimFormatURL, claimFormats); err != nil {
		return nil, err
	}
	if err := comp.AddResource(pdURL, pd); err != nil {
		return nil, err
	}
	var s peSchemas
	for _, c := range []struct {
		dst **jsonschema.Schema
		loc string
	}{
		{&s.top, pdURL},
		{&s.v2, pdURL + "#/definitions/input_descriptor"},
		{&s.v1, pdURL + "#/definitions/input_descriptor_v1"},
	} {
		if *c.dst, err = comp.Compile(c.loc); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

func loadSchemaFile(name string) (any, error) {
	b, err := schemaFiles.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// patchPD adapts the published v2 schema in memory. The meaning is kept;
// what changes is how problems surface and what v1 needs:
//
//  1. definitions.field is a oneOf of "no predicate" and "predicate with
//     filter"; a oneOf failure explains nothing, so it becomes one object
//     with all the properties and dependencies {predicate: [filter]},
//     which accepts exactly the same documents. Its filter, a $ref to the
//     draft-07 metaschema, becomes true: each filter is compiled on its
//     own instead (compileFilter), which checks the same and more.
//  2. definitions.submission_requirement, a oneOf of "from" and
//     "from_nested", becomes one object too; that exactly one of the two
//     is present is checked in code (checkRequirements).
//  3. properties.input_descriptors.items becomes true: each descriptor is
//     validated alone, against v2 (definitions.input_descriptor) or v1,
//     so a v1 descriptor is not drowned in v2 errors.
//  4. definitions.input_descriptor_v1 is added: the v2 descriptor plus the
//     v1 "schema" list [{uri, required?}], required instead of
//     constraints. (The DIF repository ships no v1 schema file; its v1
//     test schema restricts filters to a few keys, which the v1 spec does
//     not, so v1 filters are compiled like v2 ones.)
func patchPD(doc any) error {
	root, ok := doc.(map[string]any)
	if !ok {
		return errors.New("presentation-definition.json: not an object")
	}
	defs, ok1 := root["definitions"].(map[string]any)
	props, ok2 := root["properties"].(map[string]any)
	if !ok1 || !ok2 {
		return errors.New("presentation-definition.json: no definitions or properties")
	}

	field, err := mergeOneOf(defs["field"])
	if err != nil {
		return fmt.Errorf("definitions.field: %w", err)
	}
	field["required"] = []any{"path"}
	field["dependencies"] = map[string]any{"predicate": []any{"filter"}}
	field["properties"].(map[string]any)["filter"] = true
	defs["field"] = field

	req, err := mergeOneOf(defs["submission_requirement"])
	if err != nil {
		return fmt.Errorf("definitions.submission_requirement: %w", err)
	}
	req["required"] = []any{"rule"}
	defs["submission_requirement"] = req

	ids, ok := props["input_descriptors"].(map[string]any)
	if !ok {
		return errors.New("presentation-definition.json: no properties.input_descriptors")
	}
	ids["items"] = true

	v1, err := deepCopy(defs["input_descriptor"])
	if err != nil {
		return err
	}
	v1m, ok := v1.(map[string]any)
	if !ok {
		return errors.New("definitions.input_descriptor: not an object")
	}
	v1props, ok := v1m["properties"].(map[string]any)
	if !ok {
		return errors.New("definitions.input_descriptor: no properties")
	}
	v1props["schema"] = map[string]any{
		"type":     "array",
		"minItems": json.Number("1"),
		"items": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"uri":      map[string]any{"type": "string"},
				"required": map[string]any{"type": "boolean"},
			},
			"required":             []any{"uri"},
			"additionalProperties": false,
		},
	}
	v1m["required"] = []any{"id", "schema"}
	defs["input_descriptor_v1"] = v1m
	return nil
}

// mergeOneOf turns {"type":"object","oneOf":[{properties...},...]} into one
// object schema holding the union of the branches' properties, with
// additionalProperties false.
func mergeOneOf(def any) (map[string]any, error) {
	m, ok := def.(map[string]any)
	if !ok {
		return nil, errors.New("not an object")
	}
	branches, ok := m["oneOf"].([]any)
	if !ok || len(branches) == 0 {
		return nil, errors.New("no oneOf")
	}
	union := map[string]any{}
	for _, b := range branches {
		bm, ok := b.(map[string]any)
		if !ok {
			return nil, errors.New("oneOf branch is not an object")
		}
		bp, ok := bm["properties"].(map[string]any)
		if !ok {
			return nil, errors.New("oneOf branch without properties")
		}
		for k, v := range bp {
			union[k] = v
		}
	}
	return map[string]any{
		"type":                 "object",
		"properties":           union,
		"additionalProperties": false,
	}, nil
}

func deepCopy(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}
