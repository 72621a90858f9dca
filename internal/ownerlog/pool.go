package ownerlog

import (
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/store"
)

// pool keeps one Log per storage directory across config reloads, so a
// reload neither rereads the owners nor splits them between two indexes.
var pool = caddy.NewUsagePool()

// Acquire returns the Log of dir in storage, opening it on first use, and
// holds it with a retention (0: keep every record; otherwise at least
// MinRetention): records are kept as long as the longest retention of
// its holders asks, and forever while any holder asks for 0. Each Acquire
// must be paired with one Release of the same retention.
func Acquire(storage certmagic.Storage, dir string, logger *zap.Logger, retention time.Duration) *Log {
	val, loaded, _ := pool.LoadOrNew(poolKey(storage, dir), func() (caddy.Destructor, error) {
		return open(storage, dir, logger, retention), nil
	})
	l := val.(*Log)
	if loaded {
		l.hold(retention)
	}
	return l
}

// Release drops one hold on l, with the retention it was acquired with.
func Release(l *Log, retention time.Duration) {
	l.unhold(retention)
	_, _ = pool.Delete(poolKey(l.storage, l.dir))
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
	l.expiring.Wait()
	l.stopReport()
	if l.appender != nil {
		l.appender.close()
	}
	return nil
}
