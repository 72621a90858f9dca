package store

import (
	"encoding/json"

	"github.com/proofgate/proofgate/internal/jsonenc"
)

// JSONAppender is a document that writes its own encoding: byte for byte
// what json.Marshal makes of it (its tests hold it to that), without
// encoding/json's reflection and its slow re-scan of every
// json.RawMessage. Put stores what AppendJSON appends.
type JSONAppender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// Marshal is json.Marshal, through AppendJSON where v has it.
func Marshal(v any) ([]byte, error) {
	if a, ok := v.(JSONAppender); ok {
		return a.AppendJSON(nil)
	}
	return json.Marshal(v)
}

// AppendString appends s as json.Marshal writes a string (HTML
// characters escaped).
func AppendString(b []byte, s string) []byte {
	return jsonenc.AppendString(b, s, true)
}

// AppendRaw appends raw as json.Marshal writes a json.RawMessage: null
// for nil, else the value compacted, with HTML characters escaped, after
// checking that it is exactly one JSON value.
func AppendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return append(b, "null"...), nil
	}
	return jsonenc.AppendCompact(b, raw, true)
}
