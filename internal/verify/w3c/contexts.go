package w3c

import (
	"fmt"
	"sort"
	"strings"

	"github.com/proofgate/proofgate/internal/verify"
)

// maxContextDepth bounds the walk of checkContexts; the JSON-LD limits
// already refuse deeper documents before any proof is checked.
const maxContextDepth = 64

// checkContexts refuses a credential with an RDF proof whose JSON-LD
// contexts define terms inline, anywhere in it (its own @context, a
// nested one, its proof's).
//
// An RDF proof signs what the credential means, not how its JSON spells
// it: a holder can add a context after issuance that maps a new name to
// the IRI of a signed one and respell the member or value, and the proof
// still verifies. The checks that read the JSON (a presentation
// definition's field paths and filters, the status entry's type) would
// then read the respelled name: a LibraryCard shown as a
// UniversityDegreeCredential, dateOfBirth and expiryDate swapped, a
// status entry's type hidden. So, as Data Integrity's context validation
// asks of a verifier, only contexts it knows are accepted: published ones
// by URL (the document loader resolves only the contexts it holds) and an
// inline object that sets nothing but @vocab (and @version), which is how
// ACA-Py and Credo issue credentials with their own claims. An @vocab
// names undefined terms after themselves (vocab + name), so it cannot
// give one name another's meaning.
func checkContexts(v any) error {
	return walkContexts(v, 0)
}

func walkContexts(v any, depth int) error {
	if depth > maxContextDepth {
		return detailError{verify.ReasonLimits, "the credential is nested too deeply"}
	}
	switch x := v.(type) {
	case map[string]any:
		if c, ok := x["@context"]; ok {
			if err := allowedContext(c); err != nil {
				return err
			}
		}
		for k, e := range x {
			if k == "@context" {
				continue
			}
			if err := walkContexts(e, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := walkContexts(e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// allowedContext checks one @context value: a URL, an object setting only
// @vocab and @version, or an array of those.
func allowedContext(c any) error {
	switch x := c.(type) {
	case string:
		return nil // resolved by the document loader, which holds the contexts it accepts
	case []any:
		for _, e := range x {
			if _, nested := e.([]any); nested {
				return contextProblem("an array inside an array")
			}
			if err := allowedContext(e); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		var defined []string
		for k, val := range x {
			switch k {
			case "@vocab":
				vocab, ok := val.(string)
				if !ok {
					return contextProblem("an @vocab that is not a string")
				}
				if !endsWhereNamesStart(vocab) {
					return detailError{verify.ReasonContext, fmt.Sprintf("its @context holds an @vocab (%q) that is not an absolute IRI ending in '/', '#' or ':': the proof signs the names an @vocab makes, not the @vocab, so one that ends inside a word would let a holder move part of a signed name into it (an ExpiredLibraryCard shown as a LibraryCard)", verify.Truncate(vocab, 100))}
				}
			case "@version":
			default:
				defined = append(defined, k)
			}
		}
		if len(defined) > 0 {
			sort.Strings(defined)
			return contextProblem(fmt.Sprintf("an inline definition of %s", verify.Truncate(quoteList(defined), 200)))
		}
		return nil
	case nil:
		return contextProblem("null (it clears the contexts before it)")
	}
	return contextProblem("a value that is neither a URL nor an object")
}

// endsWhereNamesStart reports whether vocab is an absolute IRI (it has a
// scheme: a relative one is appended to the @vocab before it) that ends
// at a delimiter, as published vocabularies do, so that the names it
// makes cannot be split differently between it and a member's name.
func endsWhereNamesStart(vocab string) bool {
	colon := strings.IndexByte(vocab, ':')
	if colon < 1 || strings.ContainsAny(vocab[:colon], "/#?") {
		return false
	}
	switch vocab[len(vocab)-1] {
	case '/', '#', ':':
		return true
	}
	return false
}

func contextProblem(what string) error {
	return detailError{verify.ReasonContext, "its @context holds " + what + ": only published contexts (by URL) and an inline @vocab are accepted, since an inline definition could respell a signed term without touching the proof"}
}

func quoteList(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", n)
	}
	return out
}
