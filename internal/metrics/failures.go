package metrics

import (
	"slices"
	"strings"
)

// validationFields are the field labels of validation_failures_total: the
// body fields of 4.1 and what else a 400 can be about (the query, the
// body as a whole, the path's ids, the Idempotency-Key header).
var validationFields = [...]string{
	"goalCode", "protocolVersion", "comment", "proofFormats", "presentationDefinition",
	"autoAcceptProof", "label", "parentThreadId", "isShortenUrl", "emailId", "reuseConnection",
	"requestType", "body", "orgId", "proofRecordId", "Idempotency-Key",
}

// validationFailures counts validation_failures_total by index in
// validationFields, "other" last.
var validationFailures = newLabeledCounts("validation_failures_total",
	"Problems answered with 400: in send_oob's body and query, in the org and record ids of every operation, in the Idempotency-Key header; by top-level field (one count per problem; unknown fields are counted as other).",
	"field", append(validationFields[:len(validationFields):len(validationFields)], "other"))

// ValidationFailures counts the problems of a rejected request, each as
// the "field.path: problem" the client was sent; the label is the
// top-level field.
func ValidationFailures(problems []string) {
	// One add per run of problems of one field (a sorted list has each
	// field's problems together): fewer atomic adds on counters every
	// core's rejected requests share.
	run, n := -1, uint64(0) // run: the field of the n problems not yet added
	for _, p := range problems {
		if i := validationFieldIndex(p); i != run {
			if n > 0 {
				validationFailures.add(run, n)
			}
			run, n = i, 0
		}
		n++
	}
	if n > 0 {
		validationFailures.add(run, n)
	}
}

// ValidationField is the label of one problem: its top-level field, or
// "other".
func ValidationField(problem string) string {
	if i := validationFieldIndex(problem); i < len(validationFields) {
		return validationFields[i]
	}
	return "other"
}

// validationFieldIndex is the index in validationFields of the problem's
// top-level field, or len(validationFields) for "other".
func validationFieldIndex(problem string) int {
	// A loop over the few bytes of a field name: strings.IndexAny builds
	// its byte set on every call, a good part of a 400's metrics.
	end := 0
	for end < len(problem) && !fieldEnds(problem[end]) {
		end++
	}
	return validationFieldOf(problem[:end])
}

// validationFieldOf is the index of field in validationFields, or
// len(validationFields). A switch rather than a search of the table: no
// table to load (0.3 µs less per rejected request with the caches emptied,
// BenchmarkBadRequestCold; TestValidationFieldIndex keeps the two in
// step).
func validationFieldOf(field string) int {
	switch field {
	case "goalCode":
		return 0
	case "protocolVersion":
		return 1
	case "comment":
		return 2
	case "proofFormats":
		return 3
	case "presentationDefinition":
		return 4
	case "autoAcceptProof":
		return 5
	case "label":
		return 6
	case "parentThreadId":
		return 7
	case "isShortenUrl":
		return 8
	case "emailId":
		return 9
	case "reuseConnection":
		return 10
	case "requestType":
		return 11
	case "body":
		return 12
	case "orgId":
		return 13
	case "proofRecordId":
		return 14
	case "Idempotency-Key":
		return 15
	}
	return len(validationFields)
}

func fieldEnds(c byte) bool {
	return c == '.' || c == '[' || c == ':' || c == ' '
}

// Auth failure reasons that are not a JWT's own.
const (
	AuthMissing       = "missing"
	AuthInvalidAPIKey = "invalid_api_key"
	AuthUnavailable   = "unavailable"
	AuthForbidden     = "forbidden"
	AuthOther         = "other"
)

// authReasons are the label values of auth_failures_total: the constants
// above and the JWT verifier's reasons, spelled with underscores.
var authReasons = [...]string{
	AuthMissing, AuthInvalidAPIKey, AuthUnavailable, AuthForbidden, AuthOther,
	"token_too_large", "signature_algorithm_not_allowed", "malformed_token", "unknown_signing_key",
	"bad_signature", "token_has_no_exp", "token_expired", "token_not_valid_yet",
	"token_issued_in_the_future", "wrong_issuer", "wrong_audience", "invalid_claims",
}

// authFailures counts auth_failures_total by index in authReasons.
var authFailures = newLabeledCounts("auth_failures_total",
	"Requests refused for their credentials, by reason: missing, invalid_api_key, the JWT's reason (token_expired, bad_signature, …), unavailable (the IdP's keys were never fetched: 503), forbidden (authenticated, but not for this org: 403), other.",
	"reason", authReasons[:])

// AuthFailure counts one refused request by reason (spaces become
// underscores; unknown reasons are "other").
func AuthFailure(reason string) {
	i := slices.Index(authReasons[:], reason) // the constants, as passed
	if i < 0 {
		i = slices.Index(authReasons[:], AuthReason(reason))
	}
	authFailures.add(i, 1)
}

// AuthReason is the label of a reason.
func AuthReason(reason string) string {
	return bounded(strings.ReplaceAll(reason, " ", "_"), authReasons[:]...)
}
