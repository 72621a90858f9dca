package proofs

import (
	"fmt"
	"slices"

	"github.com/proofgate/proofgate/internal/jsonenc"
)

// appendRequestMessage appends what marshal makes of a request-presentation
// message (RequestPresentationV2 or RequestPresentationV1), byte for byte
// (TestAppendRequestMessage holds it to that), without encoding/json's
// reflection. Keep it in step with the two types and what they hold.
func appendRequestMessage(b []byte, msg any) ([]byte, error) {
	switch m := msg.(type) {
	case RequestPresentationV2:
		return appendRequestV2(b, &m)
	case RequestPresentationV1:
		return appendRequestV1(b, &m)
	}
	return nil, fmt.Errorf("proofs: no encoding for %T", msg)
}

func appendRequestV2(b []byte, m *RequestPresentationV2) ([]byte, error) {
	b = slices.Grow(b, 512+attachmentsSize(m.Attach)+len(m.Comment)+len(m.GoalCode))
	b = append(b, `{"@type":`...)
	b = jsonenc.AppendString(b, m.Type, false)
	b = append(b, `,"@id":`...)
	b = jsonenc.AppendString(b, m.ID, false)
	if m.GoalCode != "" {
		b = append(b, `,"goal_code":`...)
		b = jsonenc.AppendString(b, m.GoalCode, false)
	}
	if m.Comment != "" {
		b = append(b, `,"comment":`...)
		b = jsonenc.AppendString(b, m.Comment, false)
	}
	if m.WillConfirm {
		b = append(b, `,"will_confirm":true`...)
	} else {
		b = append(b, `,"will_confirm":false`...)
	}
	b = append(b, `,"formats":`...)
	b = jsonenc.AppendArray(b, m.Formats, appendFormat)
	return appendRequestTail(b, m.Attach, m.Thread, m.Service)
}

func appendRequestV1(b []byte, m *RequestPresentationV1) ([]byte, error) {
	b = slices.Grow(b, 512+attachmentsSize(m.Attach)+len(m.Comment))
	b = append(b, `{"@type":`...)
	b = jsonenc.AppendString(b, m.Type, false)
	b = append(b, `,"@id":`...)
	b = jsonenc.AppendString(b, m.ID, false)
	if m.Comment != "" {
		b = append(b, `,"comment":`...)
		b = jsonenc.AppendString(b, m.Comment, false)
	}
	return appendRequestTail(b, m.Attach, m.Thread, m.Service)
}

// appendRequestTail appends the members both versions end with.
func appendRequestTail(b []byte, attach []Attachment, thread Thread, service *ServiceDecorator) ([]byte, error) {
	b = append(b, `,"request_presentations~attach":`...)
	var err error
	if b, err = appendAttachments(b, attach); err != nil {
		return nil, err
	}
	b = append(b, `,"~thread":`...)
	b = appendThread(b, &thread)
	if service != nil {
		b = append(b, `,"~service":{"recipientKeys":`...)
		b = appendStrings(b, service.RecipientKeys)
		b = append(b, `,"routingKeys":`...)
		b = appendStrings(b, service.RoutingKeys)
		b = append(b, `,"serviceEndpoint":`...)
		b = jsonenc.AppendString(b, service.ServiceEndpoint, false)
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

func attachmentsSize(list []Attachment) int {
	n := 0
	for _, a := range list {
		n += 64 + len(a.Data.Base64) + len(a.Data.JSON)
	}
	return n
}

// appendFormat appends one entry of a message's formats list.
func appendFormat(b []byte, f AttachFormat) []byte {
	b = append(b, `{"attach_id":`...)
	b = jsonenc.AppendString(b, f.AttachID, false)
	b = append(b, `,"format":`...)
	b = jsonenc.AppendString(b, f.Format, false)
	return append(b, '}')
}
