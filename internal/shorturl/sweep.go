package shorturl

import (
	"context"
	"errors"
	"time"

	"github.com/proofgate/proofgate/internal/store"
	"github.com/proofgate/proofgate/internal/sweeper"
)

// SweepTask deletes expired short URLs (they already answer 404), a
// bounded number of documents per pass.
func (s *Service) SweepTask() sweeper.Task {
	var cursor sweeper.Cursor
	return sweeper.Task{Name: "short_urls", Run: func(ctx context.Context, now time.Time, budget int) (map[string]int, error) {
		names, err := cursor.Next(ctx, s.store, budget)
		if err != nil {
			return nil, err
		}
		removed := 0
		for _, id := range names {
			var e Entry
			switch err := s.store.Get(ctx, id, &e); {
			case errors.Is(err, store.ErrNotFound):
				continue
			case err != nil:
				// An undecodable document is left for an operator; an I/O
				// failure ends the pass.
				if ctx.Err() != nil {
					return map[string]int{"short_urls": removed}, err
				}
				continue
			}
			if now.Before(e.ExpiresAt) {
				continue
			}
			if err := s.store.Delete(ctx, id); err != nil {
				return map[string]int{"short_urls": removed}, err
			}
			removed++
		}
		return map[string]int{"short_urls": removed}, nil
	}}
}
