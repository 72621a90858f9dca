package pexcheck

import "time"

// Bounds on the work one presentation's check may cost (SECURITY.md,
// "Bounded work for prover-written input"): its descriptor_map is capped,
// its descriptor paths are plain, and the definition's field paths and
// filters run on one budget per presentation (fieldWork). The caller
// measures the presentation before Check decodes it (jsonlimit).
const (
	// MaxDescriptorMap caps presentation_submission.descriptor_map.
	MaxDescriptorMap = 64
	// MaxPathVisits is the JSONPath budget (node visits) of all the
	// field paths of one presentation; MaxPathResults caps the values one
	// path selects; PathTimeout bounds their evaluation in time.
	MaxPathVisits  = 200_000
	MaxPathResults = 1_000
	PathTimeout    = 2 * time.Second
)
