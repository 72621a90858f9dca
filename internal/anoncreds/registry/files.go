package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/proofgate/proofgate/internal/anoncreds"
)

// Limits on an operator's registry directory.
const (
	maxFiles    = 4096
	maxFileSize = 8 << 20
	maxDocument = 1 << 20
)

// Files serves documents the operator put in a directory, read once (a
// Caddy reload reads them again). Every *.json file under the directory
// is one of:
//
//   - a bundle: {"schemas": {<id>: <schema>}, "credentialDefinitions":
//     {<id>: <credential definition>}} (also "credential_definitions");
//   - a resolution result as credo-controller and ACA-Py return it:
//     {"schemaId": <id>, "schema": <schema>}, {"schema_id": ...},
//     {"credentialDefinitionId": <id>, "credentialDefinition": <cred def>},
//     {"credential_definition_id": ..., "credential_definition": ...};
//   - a legacy Indy document that carries its own "id" (a schema has
//     attrNames, a credential definition has value.primary);
//   - an object of documents by id: {<id>: <schema or credential
//     definition>, ...}.
type Files struct {
	dir  string
	docs map[docKey][]byte
}

type docKey struct {
	kind Kind
	id   string
}

// LoadFiles reads a registry directory.
func LoadFiles(dir string) (*Files, error) {
	f := &Files{dir: dir, docs: map[docKey][]byte{}}
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".json") {
			return nil
		}
		if n++; n > maxFiles {
			return fmt.Errorf("more than %d files", maxFiles)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > maxFileSize {
			return fmt.Errorf("%s: larger than %d bytes", path, maxFileSize)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := f.add(data); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("anoncreds registry files %s: %v", dir, err)
	}
	return f, nil
}

func (f *Files) add(data []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	bundle := false
	for _, k := range []struct {
		key  string
		kind Kind
	}{{"schemas", KindSchema}, {"credentialDefinitions", KindCredDef}, {"credential_definitions", KindCredDef}} {
		raw, ok := top[k.key]
		if !ok {
			continue
		}
		bundle = true
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%s: not an object of documents by id", k.key)
		}
		for id, doc := range m {
			if err := f.put(k.kind, id, doc); err != nil {
				return err
			}
		}
	}
	if bundle {
		return nil
	}
	for _, w := range wrappers {
		if doc, ok := top[w.doc]; ok {
			var id string
			for _, idKey := range w.ids {
				if json.Unmarshal(top[idKey], &id) == nil && id != "" {
					break
				}
			}
			if id == "" {
				id = docID(doc)
			}
			return f.put(w.kind, id, doc)
		}
	}
	if id := docID(data); id != "" {
		switch {
		case top["attrNames"] != nil:
			return f.put(KindSchema, id, data)
		case top["value"] != nil:
			return f.put(KindCredDef, id, data)
		}
	}
	// An object of documents by id.
	for id, doc := range top {
		var d map[string]json.RawMessage
		if err := json.Unmarshal(doc, &d); err != nil {
			return fmt.Errorf("neither a bundle, a resolution result, a document with an id, nor an object of documents by id")
		}
		var err error
		switch {
		case d["attrNames"] != nil:
			err = f.put(KindSchema, id, doc)
		case d["value"] != nil:
			err = f.put(KindCredDef, id, doc)
		default:
			err = fmt.Errorf("%q is neither a schema (attrNames) nor a credential definition (value)", id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (f *Files) put(kind Kind, id string, doc []byte) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("%s id %q: %v", kind, id, err)
	}
	if len(doc) > maxDocument {
		return fmt.Errorf("%s %s: larger than %d bytes", kind, id, maxDocument)
	}
	// Parse now, so a broken file fails the config load, not a
	// presentation.
	var err error
	if kind == KindSchema {
		_, err = anoncreds.ParseSchema(id, doc)
	} else {
		_, err = anoncreds.ParseCredentialDefinition(id, doc)
	}
	if err != nil {
		return err
	}
	key := docKey{kind, id}
	if old, dup := f.docs[key]; dup && !bytes.Equal(old, doc) {
		return fmt.Errorf("%s %s given twice, differently", kind, id)
	}
	f.docs[key] = doc
	return nil
}

// Fetch implements Source.
func (f *Files) Fetch(_ context.Context, kind Kind, id string) ([]byte, error) {
	if doc, ok := f.docs[docKey{kind, id}]; ok {
		return doc, nil
	}
	return nil, fmt.Errorf("%s %s: %w", kind, id, anoncreds.ErrUnknown)
}

// Name implements Source.
func (f *Files) Name() string { return "files " + f.dir }

// wrappers are the resolution-result shapes agents answer with: the
// document under one key, its id under another.
var wrappers = []struct {
	doc  string
	ids  []string
	kind Kind
}{
	{"schema", []string{"schemaId", "schema_id"}, KindSchema},
	{"credentialDefinition", []string{"credentialDefinitionId"}, KindCredDef},
	{"credential_definition", []string{"credential_definition_id"}, KindCredDef},
}

// docID is the "id" member of a legacy document.
func docID(doc []byte) string {
	var d struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(doc, &d)
	return d.ID
}

// unwrap returns the document of an agent's or resolver's answer: the
// document itself, or the member of a resolution result that holds it.
// A null document (some agents answer so for an unknown id) is unknown.
func unwrap(kind Kind, body []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON object")
	}
	for _, w := range wrappers {
		if w.kind != kind {
			continue
		}
		if doc, ok := top[w.doc]; ok {
			if t := bytes.TrimSpace(doc); len(t) == 0 || bytes.Equal(t, []byte("null")) {
				return nil, anoncreds.ErrUnknown
			}
			return doc, nil
		}
	}
	return body, nil
}
