package credo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
	"github.com/proofgate/proofgate/internal/checkslots"
	"github.com/proofgate/proofgate/internal/jsonlimit"
	"github.com/proofgate/proofgate/internal/pexcheck"
	"github.com/proofgate/proofgate/internal/upstream/agent"
)

// Credo 0.5.19's verifier does not enforce a presentation definition's
// constraints: it runs PEX's evaluation of the submission and drops its
// errors (it keeps those whose tag is "error"; PEX puts the severity in
// status), so a presentation missing a field or failing a filter is
// isVerified: true once its signatures verify (README, "Credo does not
// enforce a presentation definition's constraints";
// TestCredoVerifierIgnoresConstraints). Before it accepts a
// presentation-exchange record, the backend checks the presentation
// against its definition with the local verifier's structural check
// (pexcheck), from the format data the agent keeps for the record: GET
// /didcomm/proofs/{id}/form-data answers Credo's
// V2ProofProtocol.getFormatData, {"request":{"presentationExchange":
// {"presentation_definition":…,"options":{"challenge":…,"domain":…}}},
// "presentation":{"presentationExchange":<the VP, a JSON-LD object or a
// JWT string>}}. An indy or AnonCreds request costs no call: its type is
// remembered with its owner.

// checksPresentation tells whether record id's presentation is checked
// before it is accepted: a presentation-exchange request, or one whose
// type proofgate does not know (made elsewhere, or remembered by an
// earlier version). The legacy layout (credo-controller before 2.0.0's
// /didcomm routes) is checked too, through its own format-data routes
// (formDataPath).
func (b *Backend) checksPresentation(id string) bool {
	return b.owners.RequestTypeOf(id) != backend.RequestIndy
}

// checkPresentation reads record id's request and presentation from the
// agent and returns a *backend.UnmetRequestError naming what the
// presentation lacks, nil when it answers the request (or the request is
// not a presentation-exchange one), or the agent's error.
func (b *Backend) checkPresentation(ctx context.Context, org backend.Org, id string) error {
	call := agent.Request{Method: http.MethodGet, Path: b.formDataPath(id, org.Tenant), Idempotent: true}
	resp, err := b.do(ctx, org, call)
	if err != nil {
		return err
	}
	if resp.Status/100 != 2 {
		return b.refused(org, call, resp, true)
	}
	fd, err := readFormData(resp.Body)
	if err != nil {
		return b.client.BadAnswer(call, "form-data answer: "+err.Error())
	}
	if fd.request == nil {
		return nil // an indy or AnonCreds request: Credo checks those
	}
	if fd.presentation == nil {
		return b.notPresented(ctx, org, id)
	}
	problems, err := admittedProblems(ctx, fd)
	if err != nil {
		return err
	}
	if len(problems) == 0 {
		return nil
	}
	// A record the agent has taken past presentation-received (accepted
	// on its own under autoAcceptProof always, or abandoned) is answered
	// as the conflict it is, with the problems: "not accepted" would be
	// untrue of one Credo acknowledged.
	if state, ok := b.stateOf(ctx, org, id); ok && state != backend.StatePresentationReceived {
		b.client.Logger().Warn("presentation does not answer its presentation definition; the agent has the record in state "+state,
			zap.String("proof_record_id", id), zap.String("org", org.ID), zap.Strings("problems", problems))
		return &backend.ConflictError{State: state, Unmet: problems}
	}
	b.client.Logger().Info("presentation does not answer its presentation definition; not accepted",
		zap.String("proof_record_id", id), zap.String("org", org.ID), zap.Strings("problems", problems))
	return &backend.UnmetRequestError{Problems: problems}
}

// admittedProblems runs presentationProblems inside the process-wide cap
// on concurrent presentation checks (internal/checkslots), which the
// local verifier's DIDComm checks share: whoever holds an invitation
// writes the presentation, and one check may cost up to 2 s of CPU
// (pexcheck.PathTimeout, which its filter work shares).
// Only the check holds a slot; the agent's calls around it do not, so a
// slow agent holds no CPU slot. When no slot frees up in time the error
// is backend.ErrUnavailable (a 503 with Retry-After), and nothing has
// been accepted: the caller retries. A caller gone while it waited gets
// its context's error (499, or 504 past its deadline), as for an agent
// call.
func admittedProblems(ctx context.Context, fd formData) ([]string, error) {
	release, err := checkslots.Admit(ctx)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("%w: the presentation could not be checked: %w", backend.ErrUnavailable, err)
	}
	defer release()
	return presentationProblems(fd), nil
}

// presentationProblems checks fd's presentation against its request: its
// size and depth first, as a prover's message is measured before the
// local verifier decodes it.
func presentationProblems(fd formData) []string {
	if problem := jsonlimit.Problem(fd.presentation); problem != "" {
		return []string{"the presentation " + problem}
	}
	return pexcheck.Check(fd.request, fd.presentation, fd.challenge, fd.domain)
}

// notPresented answers the accept of a presentation-exchange record whose
// presentation the agent does not have: 409 naming its state. It is not
// accepted unchecked, since a presentation arriving between the two
// calls would be acknowledged without its check; a record already in
// presentation-received (the presentation came meanwhile) is worth a
// retry.
func (b *Backend) notPresented(ctx context.Context, org backend.Org, id string) error {
	state, ok := b.stateOf(ctx, org, id)
	if ok && state != backend.StatePresentationReceived {
		return &backend.ConflictError{State: state}
	}
	return errors.Join(backend.ErrUnavailable, errors.New("the presentation arrived while the record was read; retry"))
}

// formData is what the check reads of a form-data answer: the DIF request
// attachment and the presentation (nil when absent), and the request's
// challenge and domain.
type formData struct {
	request, presentation json.RawMessage
	challenge, domain     string
}

// readFormData reads a form-data answer. Other formats (indy, anoncreds)
// are ignored; a request without presentationExchange leaves request nil.
func readFormData(body []byte) (formData, error) {
	var ans struct {
		Request struct {
			PE json.RawMessage `json:"presentationExchange"`
		} `json:"request"`
		Presentation struct {
			PE json.RawMessage `json:"presentationExchange"`
		} `json:"presentation"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return formData{}, errors.New("not a JSON object with request and presentation objects")
	}
	fd := formData{request: present(ans.Request.PE), presentation: present(ans.Presentation.PE)}
	if fd.request == nil {
		return fd, nil
	}
	var req struct {
		Definition json.RawMessage `json:"presentation_definition"`
		Options    struct {
			Challenge string `json:"challenge"`
			Domain    string `json:"domain"`
		} `json:"options"`
	}
	if err := json.Unmarshal(fd.request, &req); err != nil || present(req.Definition) == nil {
		return formData{}, errors.New("request.presentationExchange is not an object with a presentation_definition")
	}
	fd.challenge, fd.domain = req.Options.Challenge, req.Options.Domain
	return fd, nil
}

// present returns raw, or nil when it is absent or JSON null.
func present(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}
