package mail

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"

	"github.com/proofgate/proofgate/internal/outbox"
)

// Senders. Caddy keeps one storage for every site unless a site names its
// own, so the email blocks of different sites, with different mail
// servers and senders, share the default queue. Each mail records which
// sender queued it (Message.Sender), and a deliverer leaves another
// sender's mails to that sender's deliverer while one runs in this
// process. Once none does (a reload changed or removed its block), any
// deliverer of the queue sends them, through a server the operator
// configured: late, not lost. Instances that share a storage but not
// their email blocks see only their own deliverers: they need distinct
// queues.

// senderID fingerprints what makes a block's mails go out differently:
// the server, the account and the From. The password (rotated), timeouts
// and retries are not part of it, so changing them keeps the queued mails
// the block's own.
func (c Config) senderID() string {
	sum := sha256.Sum256([]byte(strings.ToLower(c.SMTP) + "\x00" + c.Username + "\x00" + c.From))
	return hex.EncodeToString(sum[:8])
}

// runningSenders is every started deliverer of the process, by outbox.
var runningSenders = senderSet{byBox: map[string]map[*Deliverer]struct{}{}}

type senderSet struct {
	mu    sync.Mutex
	byBox map[string]map[*Deliverer]struct{}
}

func (s *senderSet) add(d *Deliverer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.byBox[d.outbox.key]
	if set == nil {
		set = map[*Deliverer]struct{}{}
		s.byBox[d.outbox.key] = set
	}
	set[d] = struct{}{}
}

// remove forgets d; when it was the last of its sender, the queue's other
// deliverers scan at once for the mails it leaves.
func (s *senderSet) remove(d *Deliverer) {
	s.mu.Lock()
	set := s.byBox[d.outbox.key]
	delete(set, d)
	if len(set) == 0 {
		delete(s.byBox, d.outbox.key)
	}
	orphaned := true
	var others []*Deliverer
	for o := range set {
		if o.sender == d.sender {
			orphaned = false
		}
		others = append(others, o)
	}
	s.mu.Unlock()
	if orphaned {
		for _, o := range others {
			o.ScanNow()
		}
	}
}

// running reports whether a started deliverer of outbox box sends as
// sender.
func (s *senderSet) running(box, sender string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for d := range s.byBox[box] {
		if d.sender == sender {
			return true
		}
	}
	return false
}

// mine is the outbox's Options.Mine: a mail is this deliverer's unless
// another sender queued it and a deliverer of that sender runs.
func (d *Deliverer) mine(e outbox.Entry) bool {
	var m struct {
		Sender string `json:"sender"`
	}
	if json.Unmarshal(e.Message, &m) != nil || m.Sender == "" || m.Sender == d.sender {
		return true // undecodable mails fail in deliver; older ones have no sender
	}
	return !runningSenders.running(d.outbox.key, m.Sender)
}
