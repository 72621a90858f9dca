package ownerlog

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/store"
)

// pool keeps one Log per storage directory across config reloads, so a
// reload neither rereads the owners nor splits them between two indexes.
var pool = caddy.NewUsagePool()

// Acquire returns the Log of dir in storage, opening it on first use. Each
// Acquire must be paired with one Release.
func Acquire(storage certmagic.Storage, dir string, logger *zap.Logger) *Log {
	val, _, _ := pool.LoadOrNew(poolKey(storage, dir), func() (caddy.Destructor, error) {
		return open(storage, dir, logger), nil
	})
	return val.(*Log)
}

// Release drops one hold on the Log of dir in storage.
func Release(storage certmagic.Storage, dir string) {
	_, _ = pool.Delete(poolKey(storage, dir))
}

func poolKey(storage certmagic.Storage, dir string) string {
	return "ownerlog:" + dir + ":" + store.Identity(storage)
}

// Destruct implements caddy.Destructor: it stops a compaction under way
// (what it wrote stays valid: entries held twice at worst) and closes the
// append file. Commits and readings run only while callers wait for them.
func (l *Log) Destruct() error {
	l.stop()
	l.compactions.Wait()
	if l.appender != nil {
		l.appender.close()
	}
	return nil
}
