package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/proofgate/proofgate/internal/anoncreds"
	"github.com/proofgate/proofgate/internal/netguard"
)

// fetchTimeout bounds one lookup when the caller's context allows more.
const fetchTimeout = 10 * time.Second

// HTTP asks a resolver over HTTP: GET on a URL template where {id} is the
// path-escaped id and {kind} is "schema" or "credential-definition". The
// answer (200, JSON, at most 1 MiB) is the document itself or a
// resolution result holding it (see Files). 404 and 410 mean unknown.
type HTTP struct {
	template string
	header   http.Header
	client   *http.Client
}

// NewHTTP returns a resolver source; header is sent with every request
// (e.g. an API key). The template is the operator's, so its host is
// trusted; ids from presentations only ever fill a path segment.
func NewHTTP(template string, header http.Header, client *http.Client) (*HTTP, error) {
	if !strings.Contains(template, "{id}") {
		return nil, fmt.Errorf("url template %q has no {id}", template)
	}
	u, err := url.Parse(strings.NewReplacer("{id}", "x", "{kind}", "x").Replace(template))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("url template %q is not an absolute http(s) URL", template)
	}
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout, CheckRedirect: netguard.NoRedirects}
	}
	return &HTTP{template: template, header: header, client: client}, nil
}

// Name implements Source.
func (h *HTTP) Name() string { return "http " + h.template }

// Fetch implements Source.
func (h *HTTP) Fetch(ctx context.Context, kind Kind, id string) ([]byte, error) {
	u := strings.NewReplacer("{id}", url.PathEscape(id), "{kind}", string(kind)).Replace(h.template)
	body, status, err := get(ctx, h.client, u, h.header)
	if err != nil {
		return nil, err
	}
	switch {
	case status == http.StatusNotFound || status == http.StatusGone:
		return nil, fmt.Errorf("%s %s: %w", kind, id, anoncreds.ErrUnknown)
	case status != http.StatusOK:
		return nil, &statusError{kind: kind, id: id, code: status}
	}
	return unwrap(kind, body)
}

// statusError is a source's answer with a status that is neither the
// document nor "unknown".
type statusError struct {
	kind Kind
	id   string
	code int
}

func (e *statusError) Error() string { return fmt.Sprintf("%s %s: HTTP %d", e.kind, e.id, e.code) }

// get fetches a URL with a bounded body and time.
func get(ctx context.Context, client *http.Client, u string, header http.Header) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL may carry the id; say what failed
		}
		return nil, 0, fmt.Errorf("request failed: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return nil, 0, fmt.Errorf("reading the answer: %w", err)
	}
	if len(body) > maxDocument {
		return nil, 0, fmt.Errorf("answer larger than %d bytes", maxDocument)
	}
	return body, resp.StatusCode, nil
}

// Agent asks the org's own agent, which can resolve from the ledgers or
// registries it is configured for: credo-controller (GET
// /anoncreds/schemas/{id}, /anoncreds/credential-definitions/{id}; older
// releases /schemas/{id}, /credential-definitions/{id}) or ACA-Py (GET
// /schemas/{id}, /credential-definitions/{id}; for non-Indy ids
// /anoncreds/schema/{id}, /anoncreds/credential-definition/{id}). Paths
// are tried in that order; 404 on all of them means unknown.
type Agent struct {
	base   string
	flavor string
	header http.Header
	client *http.Client
}

// Agent flavors.
const (
	FlavorCredo = "credo"
	FlavorACAPy = "acapy"
)

var agentPaths = map[string]map[Kind][]string{
	FlavorCredo: {
		KindSchema:  {"/anoncreds/schemas/", "/schemas/"},
		KindCredDef: {"/anoncreds/credential-definitions/", "/credential-definitions/"},
	},
	FlavorACAPy: {
		KindSchema:  {"/schemas/", "/anoncreds/schema/"},
		KindCredDef: {"/credential-definitions/", "/anoncreds/credential-definition/"},
	},
}

// NewAgent returns an agent source. header carries its credentials
// (credo-controller: Authorization; ACA-Py: X-API-Key).
func NewAgent(flavor, base string, header http.Header, client *http.Client) (*Agent, error) {
	if _, ok := agentPaths[flavor]; !ok {
		return nil, fmt.Errorf("agent type %q: credo or acapy expected", flavor)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return nil, fmt.Errorf("agent url %q is not an absolute http(s) URL without query", base)
	}
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout, CheckRedirect: netguard.NoRedirects}
	}
	return &Agent{base: strings.TrimRight(base, "/"), flavor: flavor, header: header, client: client}, nil
}

// Name implements Source.
func (a *Agent) Name() string { return "agent " + a.flavor + " " + a.base }

// Fetch implements Source.
func (a *Agent) Fetch(ctx context.Context, kind Kind, id string) ([]byte, error) {
	for _, p := range agentPaths[a.flavor][kind] {
		body, status, err := get(ctx, a.client, a.base+p+url.PathEscape(id), a.header)
		if err != nil {
			return nil, err
		}
		switch {
		case status == http.StatusOK:
			return unwrap(kind, body)
		case status == http.StatusNotFound:
			continue
		default:
			return nil, &statusError{kind: kind, id: id, code: status}
		}
	}
	return nil, fmt.Errorf("%s %s: %w", kind, id, anoncreds.ErrUnknown)
}
