package mail

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/proofgate/proofgate/internal/liveset"
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
var runningSenders = liveset.New[*Deliverer]()

// stopped forgets d; when it was the last of its sender, the queue's other
// deliverers scan at once for the mails it leaves.
func stopped(d *Deliverer) {
	others := runningSenders.Remove(d.outbox.key, d)
	if slices.ContainsFunc(others, func(o *Deliverer) bool { return o.sender == d.sender }) {
		return
	}
	for _, o := range others {
		o.ScanNow()
	}
}

// running reports whether a started deliverer of outbox box sends as
// sender.
func running(box, sender string) bool {
	return slices.ContainsFunc(runningSenders.Members(box), func(d *Deliverer) bool { return d.sender == sender })
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
	return !running(d.outbox.key, m.Sender)
}
