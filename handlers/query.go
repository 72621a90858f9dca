package handlers

import (
	"net/url"
	"strings"
)

// manyQueryParams is the count of "&" from which queryParam leaves a query
// to url.ParseQuery: far below net/url's own limit (10,000 parameters by
// default), far above what a client of these routes sends.
const manyQueryParams = 100

// queryParam returns the first value of the query parameter name in
// rawQuery and how many times it is given, as url.ParseQuery(rawQuery)[name]
// would (pairs split on "&", a pair with ";" or with a bad escape skipped,
// "+" and %XX decoded), without building the map of every parameter.
// Queries of many parameters, where net/url applies its limit on their
// number (GODEBUG urlmaxqueryparams), go through url.ParseQuery itself.
func queryParam(rawQuery, name string) (first string, n int) {
	if len(rawQuery) >= manyQueryParams && strings.Count(rawQuery, "&") >= manyQueryParams {
		vals, _ := url.ParseQuery(rawQuery)
		if v := vals[name]; len(v) > 0 {
			return v[0], len(v)
		}
		return "", 0
	}
	for rawQuery != "" {
		var pair string
		pair, rawQuery, _ = strings.Cut(rawQuery, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if k != name {
			if !escaped(k) {
				continue // cannot decode to name
			}
			var err error
			if k, err = url.QueryUnescape(k); err != nil || k != name {
				continue
			}
		}
		if escaped(v) {
			var err error
			if v, err = url.QueryUnescape(v); err != nil {
				continue
			}
		}
		if n == 0 {
			first = v
		}
		n++
	}
	return first, n
}

// escaped reports whether s has a "%" or "+" for url.QueryUnescape to
// decode. A loop over a parameter's few bytes: strings.ContainsAny builds
// its byte set on every call.
func escaped(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' || s[i] == '+' {
			return true
		}
	}
	return false
}
