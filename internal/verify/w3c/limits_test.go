package w3c

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/verify/ldp"
)

// lookAlikeTree is a blank-node tree: every node's children share its
// label, so they are twins at first degree (at most 6 of them, the twin
// limit), while nodes of different parents differ. 259 blank nodes, ~520
// quads: within the other limits, yet RDFC-1.0 needs minutes for it.
func lookAlikeTree(label string, depth, fan int) map[string]any {
	n := map[string]any{"https://example.org/l": label}
	if depth == 0 {
		return n
	}
	kids := []any{}
	for i := 0; i < fan; i++ {
		k := lookAlikeTree(fmt.Sprintf("%s.%d", label, i), depth-1, fan)
		k["https://example.org/l"] = label
		kids = append(kids, k)
	}
	n["https://example.org/c"] = kids
	return n
}

// An unsigned presentation (anyone holding an invitation can send one)
// whose body is a tree of look-alike blank nodes is refused for its
// limits before canonicalization. It used to outlive the 5 s timeout,
// and json-gold cannot be stopped, so its run kept a worker slot: a
// handful of them held every slot, and every later W3C verification in
// the process failed as busy (503, the record stuck) for minutes.
func TestLookAlikeBlankNodesDoNotHoldCanonicalizationSlots(t *testing.T) {
	issuer, holder := newParty(t), newParty(t)
	v := newTestVerifier(t, Options{}, Env{})
	good := acapyPresentation(issuer.sign(t, acapyCredential(issuer.did, holder.did), ldp.SignOptions{Purpose: "assertionMethod"}))

	honest := holder.sign(t, good, ldp.SignOptions{Purpose: "authentication", Challenge: testChallenge})
	poison := deepCopy(t, good)
	tree := lookAlikeTree("r", 3, 6)
	tree["https://example.org/l"] = "top" // not a twin of its children
	poison["https://example.org/c"] = []any{tree}
	poison["proof"] = map[string]any{
		"type": "Ed25519Signature2018", "proofPurpose": "authentication", "verificationMethod": holder.vm,
		"challenge": testChallenge, "created": "2025-01-01T00:00:00Z",
		"jws": "eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..AAAA",
	}
	var wg sync.WaitGroup
	for i := 0; i < max(2, runtime.GOMAXPROCS(0))+1; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			vd, err := v.Verify(ctx, input(t, poison))
			if err != nil || vd.Verified || vd.Reason != "limits" || strings.Contains(vd.Detail, "too long") {
				t.Errorf("poison: verdict %+v, err %v; want refused for its limits", vd, err)
			}
		}()
	}
	wg.Wait()

	// Long after the poison verifications returned, an honest one.
	time.Sleep(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	verdict, err := v.Verify(ctx, input(t, honest))
	if err != nil || !verdict.Verified {
		t.Fatalf("an honest presentation after poisoned ones: verdict %+v, err %v", verdict, err)
	}
}
