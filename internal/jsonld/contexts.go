// Package jsonld processes the JSON-LD of W3C credentials without the
// network: contexts come from a pinned, embedded set plus files the operator
// supplies, and any other context URL fails with "unsupported context <url>".
// It also canonicalizes documents (RDFC-1.0 / URDNA2015) under bounded work.
package jsonld

import (
	"embed"
	"encoding/json"
	"fmt"
	"sort"
)

//go:embed contexts/*.jsonld
var embedded embed.FS

// pinned maps each context URL we resolve offline to its embedded file.
// Sources and licences: contexts/README.md.
var pinned = map[string]string{
	"https://www.w3.org/2018/credentials/v1":                          "credentials-v1.jsonld",
	"https://www.w3.org/ns/credentials/v2":                            "credentials-v2.jsonld",
	"https://www.w3.org/ns/credentials/examples/v2":                   "credentials-examples-v2.jsonld",
	"https://w3id.org/security/v1":                                    "security-v1.jsonld",
	"https://w3id.org/security/v2":                                    "security-v2.jsonld",
	"https://w3id.org/security/suites/ed25519-2018/v1":                "ed25519-2018-v1.jsonld",
	"https://w3id.org/security/suites/ed25519-2020/v1":                "ed25519-2020-v1.jsonld",
	"https://w3id.org/security/data-integrity/v1":                     "data-integrity-v1.jsonld",
	"https://w3id.org/security/data-integrity/v2":                     "data-integrity-v2.jsonld",
	"https://w3id.org/security/multikey/v1":                           "multikey-v1.jsonld",
	"https://w3id.org/security/bbs/v1":                                "bbs-v1.jsonld",
	"https://www.w3.org/ns/did/v1":                                    "did-v1.jsonld",
	"https://w3id.org/vc/status-list/2021/v1":                         "status-list-2021-v1.jsonld",
	"https://www.w3.org/ns/credentials/status/v1":                     "bitstring-status-list-v1.jsonld",
	"https://identity.foundation/presentation-exchange/submission/v1": "presentation-exchange-submission-v1.jsonld",
}

// Pinned lists the context URLs embedded in the binary, sorted.
func Pinned() []string {
	urls := make([]string, 0, len(pinned))
	for u := range pinned {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	return urls
}

// pinnedDocs parses the embedded contexts once; they are read-only from
// then on and shared by every Loader.
var pinnedDocs = func() map[string]any {
	docs := make(map[string]any, len(pinned))
	for u, file := range pinned {
		raw, err := embedded.ReadFile("contexts/" + file)
		if err != nil {
			panic(fmt.Sprintf("jsonld: embedded context %s: %v", file, err))
		}
		doc, err := parseContext(raw)
		if err != nil {
			panic(fmt.Sprintf("jsonld: embedded context %s: %v", file, err))
		}
		docs[u] = doc
	}
	return docs
}()

// parseContext checks that raw is a JSON object with an @context member,
// which is what a JSON-LD processor dereferences a context URL to.
func parseContext(raw []byte) (map[string]any, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if _, ok := doc["@context"]; !ok {
		return nil, fmt.Errorf("no @context member")
	}
	return doc, nil
}
