// Package jsonpath evaluates JSONPath expressions over decoded JSON
// (map[string]any, []any, scalars) with bounded work, for paths and
// documents that strangers write.
//
// Two kinds of path:
//
//   - Plain paths (ParsePlain) are what a prover may write in a
//     presentation_submission descriptor_map: the root $ followed by child
//     steps (.name, ['name'], ["name"]) and array indices ([0]), at most
//     MaxPlainLength characters. Evaluating one costs one step per segment
//     and yields at most one value.
//
//   - Query paths (Compile) are what the API caller writes in a
//     presentation definition's constraints.fields[].path. Besides plain
//     steps they may use wildcards (.*, [*]), unions (['a','b'], [0,1]),
//     slices ([1:3]), negative indices, one recursive descent (..) and
//     filters ([?(@.type == 'x')], comparisons and && || ! of relative
//     plain paths and literals). The cost bound, checked when the
//     definition is created: at most MaxQueryLength characters,
//     MaxSegments segments, MaxDescents recursive descent, MaxFilters
//     filters, and a product of union widths of at most MaxFanout. What
//     lies outside it (two descents, script expressions, functions,
//     regular expressions) is refused then, not evaluated later.
//
// Every evaluation also runs on a Budget: a number of node visits, a
// number of results and optionally a deadline, shared by all the
// evaluations of one presentation. Exhausting it is an error, never a
// long computation. The evaluator does not recurse, so a deep document
// cannot exhaust the stack.
package jsonpath
