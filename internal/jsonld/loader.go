package jsonld

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/piprate/json-gold/ld"
)

// Limits on operator-supplied context directories: they are trusted
// configuration, but a wrong directory must not fill memory.
const (
	// IndexFile names, inside a jsonld_contexts directory, the JSON object
	// that maps each context URL to a file of that directory.
	IndexFile = "index.json"
	// MaxOperatorContexts caps the entries of an index.
	MaxOperatorContexts = 256
	// MaxContextFileSize caps one context file (and the index).
	MaxContextFileSize = 1 << 20
)

// UnsupportedContextError is the failure to resolve a context URL that is
// neither pinned nor supplied by the operator. Its message is what the
// verdict shows: "unsupported context <url>".
type UnsupportedContextError struct{ URL string }

func (e *UnsupportedContextError) Error() string { return "unsupported context " + e.URL }

// UnsupportedContext reports the URL of the first unsupported context in
// err's chain (json-gold wraps the loader's error).
func UnsupportedContext(err error) (string, bool) {
	var uc *UnsupportedContextError
	if errors.As(err, &uc) {
		return uc.URL, true
	}
	return "", false
}

// Loader is a json-gold DocumentLoader that never touches the network: it
// resolves the pinned contexts and the operator's, and refuses any other
// URL with an *UnsupportedContextError. It is safe for concurrent use.
type Loader struct {
	docs map[string]any
}

var _ ld.DocumentLoader = (*Loader)(nil)

// NewLoader returns a Loader over the pinned contexts plus, when dir is
// not empty, the contexts listed in dir/index.json ({"<url>": "<file>"},
// files relative to dir). An operator context may not replace a pinned one.
func NewLoader(dir string) (*Loader, error) {
	docs := make(map[string]any, len(pinnedDocs))
	for u, d := range pinnedDocs {
		docs[u] = d
	}
	if dir != "" {
		extra, err := readOperatorContexts(dir)
		if err != nil {
			return nil, err
		}
		for u, d := range extra {
			docs[u] = d
		}
	}
	return &Loader{docs: docs}, nil
}

// LoadDocument implements ld.DocumentLoader. Each load gets a copy of its
// own: json-gold edits a context it loads (an @import merges the
// importing context's terms into the imported one's map), so a shared
// document would let one document's context rewrite a pinned context
// for every later verification in the process.
func (l *Loader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	doc, ok := l.docs[u]
	if !ok {
		return nil, &UnsupportedContextError{URL: u}
	}
	return &ld.RemoteDocument{DocumentURL: u, Document: copyJSON(doc)}, nil
}

// copyJSON copies a decoded JSON value deeply (strings, numbers, booleans
// and null are immutable and shared).
func copyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyJSON(e)
		}
		return out
	}
	return v
}

// Has reports whether u resolves.
func (l *Loader) Has(u string) bool {
	_, ok := l.docs[u]
	return ok
}

// URLs lists every context URL this loader resolves, sorted.
func (l *Loader) URLs() []string {
	urls := make([]string, 0, len(l.docs))
	for u := range l.docs {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	return urls
}

// readOperatorContexts reads dir/index.json and the files it names, all
// confined to dir.
func readOperatorContexts(dir string) (map[string]any, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("jsonld_contexts: %v", err)
	}
	defer root.Close()
	raw, err := readLimited(root, IndexFile)
	if err != nil {
		return nil, fmt.Errorf("jsonld_contexts: %v", err)
	}
	var index map[string]string
	if err := json.Unmarshal(raw, &index); err != nil {
		return nil, fmt.Errorf("jsonld_contexts: %s must map context URLs to file names: %v", IndexFile, err)
	}
	if len(index) > MaxOperatorContexts {
		return nil, fmt.Errorf("jsonld_contexts: %s lists %d contexts, at most %d allowed", IndexFile, len(index), MaxOperatorContexts)
	}
	docs := make(map[string]any, len(index))
	for _, u := range sortedKeys(index) {
		file := index[u]
		if err := checkContextURL(u); err != nil {
			return nil, fmt.Errorf("jsonld_contexts: %s: %q: %v", IndexFile, u, err)
		}
		if _, ok := pinned[u]; ok {
			return nil, fmt.Errorf("jsonld_contexts: %s: %q is pinned in the binary and cannot be replaced", IndexFile, u)
		}
		raw, err := readLimited(root, file)
		if err != nil {
			return nil, fmt.Errorf("jsonld_contexts: context %q: %v", u, err)
		}
		doc, err := parseContext(raw)
		if err != nil {
			return nil, fmt.Errorf("jsonld_contexts: context %q in %s: %v", u, file, err)
		}
		docs[u] = doc
	}
	return docs, nil
}

// checkContextURL accepts absolute http(s) URLs without a fragment, the
// form contexts are referenced by.
func checkContextURL(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return err
	}
	if (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return errors.New("must be an absolute http(s) URL")
	}
	if p.Fragment != "" || strings.HasSuffix(u, "#") {
		return errors.New("must not have a fragment")
	}
	return nil
}

func readLimited(root *os.Root, name string) ([]byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxContextFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > MaxContextFileSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, MaxContextFileSize)
	}
	return raw, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
