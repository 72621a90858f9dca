package status

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// list is a fetched, verified status list.
type list struct {
	issuer     string
	purposes   map[string]bool
	bits       []byte
	validUntil time.Time
}

// Check returns the status of a credential issued by issuer whose
// credentialStatus is v. Every entry must be OK for OK; any set bit gives
// Revoked, whatever the other entries say (one of a type not supported
// included); anything that cannot be determined gives Unknown.
func (c *Checker) Check(ctx context.Context, v any, issuer string) Result {
	entries, err := parseEntries(v)
	if err != nil {
		return Result{Outcome: Malformed, Detail: err.Error()}
	}
	res := Result{Outcome: OK}
	for _, e := range entries {
		r := c.checkEntry(ctx, e, issuer)
		switch {
		case r.Outcome == Revoked:
			return r
		case r.Outcome == Unknown && res.Outcome == OK:
			res = r
		}
	}
	return res
}

func (c *Checker) checkEntry(ctx context.Context, e entry, issuer string) Result {
	if e.unsupported {
		return Result{Outcome: Unknown, Detail: fmt.Sprintf("unsupported credentialStatus: type %.60q is not supported", e.typ)}
	}
	if e.size != 1 {
		return Result{Outcome: Unknown, Detail: "status entries of more than one bit are not supported"}
	}
	l, err := c.cache.Get(ctx, e.listURL, func(ctx context.Context) (*list, error) { return c.fetch(ctx, e.listURL) })
	if err != nil {
		return Result{Outcome: Unknown, Detail: "status list: " + err.Error()}
	}
	if l.issuer != issuer {
		return Result{Outcome: Unknown, Detail: "status list is issued by another issuer than the credential"}
	}
	if !l.validUntil.IsZero() && c.o.Now().After(l.validUntil) {
		return Result{Outcome: Unknown, Detail: "status list has expired"}
	}
	if !l.purposes[e.purpose] {
		return Result{Outcome: Unknown, Detail: fmt.Sprintf("status list is not for %.40q", e.purpose)}
	}
	if e.index >= len(l.bits)*8 {
		return Result{Outcome: Unknown, Detail: "statusListIndex is beyond the list"}
	}
	if l.bits[e.index/8]&(0x80>>(e.index%8)) != 0 {
		return Result{Outcome: Revoked, Detail: e.purpose}
	}
	return Result{Outcome: OK}
}

// fetch GETs, verifies and decodes a status list credential.
func (c *Checker) fetch(ctx context.Context, u string) (*list, error) {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" || p.Host == "" {
		return nil, errors.New("statusListCredential must be an https URL")
	}
	p.Fragment = ""
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.String(), nil)
	if err != nil {
		return nil, errors.New("bad statusListCredential URL")
	}
	req.Header.Set("Accept", "application/vc+ld+json, application/vc+jwt, application/vc, application/ld+json, application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, errors.New("timeout")
		}
		return nil, errors.New("unreachable")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.o.MaxSize+1))
	if err != nil {
		return nil, errors.New("unreachable")
	}
	if int64(len(body)) > c.o.MaxSize {
		return nil, fmt.Errorf("larger than %d bytes", c.o.MaxSize)
	}
	issuer, subject, validUntil, err := c.lists.VerifyStatusList(ctx, bytes.TrimSpace(body))
	if err != nil {
		return nil, fmt.Errorf("list credential does not verify: %v", err)
	}
	return c.decode(issuer, subject, validUntil)
}

// decode reads the list credential's subject.
func (c *Checker) decode(issuer string, subject map[string]any, validUntil time.Time) (*list, error) {
	typ, _ := subject["type"].(string)
	enc, _ := subject["encodedList"].(string)
	if typ != "StatusList2021" && typ != "BitstringStatusList" {
		return nil, fmt.Errorf("credentialSubject type %.40q is not a status list", typ)
	}
	l := &list{issuer: issuer, purposes: map[string]bool{}, validUntil: validUntil}
	switch p := subject["statusPurpose"].(type) {
	case string:
		l.purposes[p] = true
	case []any:
		for _, e := range p {
			if s, ok := e.(string); ok {
				l.purposes[s] = true
			}
		}
	}
	// Bitstring Status List: multibase base64url ("u" prefix); Status
	// List 2021: plain base64url. Both are GZIP-compressed.
	if typ == "BitstringStatusList" {
		enc = strings.TrimPrefix(enc, "u")
	}
	compressed, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil {
		return nil, errors.New("encodedList is not base64url")
	}
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return nil, errors.New("encodedList is not GZIP")
	}
	maxBytes := int64(c.o.MaxBits / 8)
	bits, err := io.ReadAll(io.LimitReader(zr, maxBytes+1))
	if err != nil {
		return nil, errors.New("encodedList is not GZIP")
	}
	if int64(len(bits)) > maxBytes {
		return nil, fmt.Errorf("list longer than %d bits", c.o.MaxBits)
	}
	l.bits = bits
	return l, nil
}
