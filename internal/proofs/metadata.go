package proofs

import (
	"context"
)

// SetMetadata sets one key of a record's metadata (an e-mail delivery
// outcome, say), in any state. It is one durable write under the record's
// lock, so it never races a state transition.
func (s *Service) SetMetadata(ctx context.Context, recordID, key string, value any) error {
	_, err := s.update(ctx, recordID, func(d *Doc) error {
		if d.Record.Metadata == nil {
			d.Record.Metadata = map[string]any{}
		}
		d.Record.Metadata[key] = value
		return nil
	})
	return err
}
