package mail

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap/zaptest"
)

const testURL = "https://verifier.example.com/?oob=eyJAdHlwZSI6Imh0dHBzOi8vZGlkY29tbS5vcmcvb3V0LW9mLWJhbmQvMS4xL2ludml0YXRpb24ifQ&lang=en"

func testMessage(id, to string) Message {
	return Message{
		ID:            id,
		To:            to,
		OrgID:         "org-1",
		ProofRecordID: "rec-" + id,
		ThreadID:      "thread-" + id,
		InvitationURL: testURL,
		Label:         `Acme <Verifier> & "Co"`,
	}
}

func testConfig(addr string) Config {
	return Config{
		SMTP:    addr,
		TLS:     TLSNone,
		From:    "Proof Gate <noreply@verifier.example.com>",
		Subject: "Please share your credentials",
		Timeout: caddy.Duration(20 * time.Second),
	}
}

type result struct {
	msg Message
	st  Status
}

// harness is one deliverer over real file storage, with fast retries and
// a clock the test can move forward.
type harness struct {
	outbox  *Outbox
	d       *Deliverer
	results chan result
	skew    atomic.Int64 // added to the real clock
}

func newHarness(t *testing.T, cfg Config, dir string) *harness {
	t.Helper()
	h := &harness{results: make(chan result, 200)}
	h.outbox = NewOutbox(&certmagic.FileStorage{Path: dir}, cfg.Queue)
	d, err := NewDeliverer(cfg, h.outbox, zaptest.NewLogger(t), func(m Message, s Status) {
		h.results <- result{m, s}
	})
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Now().Add(time.Duration(h.skew.Load())) }
	d.now = now
	h.outbox.now = now
	d.backoff = func(int) time.Duration { return 20 * time.Millisecond }
	h.d = d
	t.Cleanup(d.Stop)
	return h
}

// next returns the next onResult call.
func (h *harness) next(t *testing.T) result {
	t.Helper()
	select {
	case r := <-h.results:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("no delivery result")
		return result{}
	}
}

// until returns the first result in state s, skipping others.
func (h *harness) until(t *testing.T, s State) result {
	t.Helper()
	for {
		if r := h.next(t); r.st.State == s {
			return r
		}
	}
}

func (h *harness) enqueue(t *testing.T, m Message) {
	t.Helper()
	if err := h.outbox.Enqueue(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond until it holds, within a generous bound.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mimePart is a decoded leaf part of a parsed e-mail.
type mimePart struct {
	mediaType string
	params    map[string]string
	header    map[string][]string
	body      []byte
}

func (p mimePart) get(key string) string {
	if v := p.header[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// parseMail parses an RFC 5322 message and returns its header and its leaf
// parts, transfer encodings decoded.
func parseMail(t *testing.T, data []byte) (netmail.Header, string, []mimePart) {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	top, _, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	var parts []mimePart
	walk(t, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Header, msg.Body, &parts)
	return msg.Header, top, parts
}

func walk(t *testing.T, contentType, encoding string, header map[string][]string, body io.Reader, out *[]mimePart) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatalf("content type %q: %v", contentType, err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextRawPart()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			walk(t, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p.Header, p, out)
		}
	}
	switch strings.ToLower(encoding) {
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("decoding %s part: %v", mt, err)
	}
	*out = append(*out, mimePart{mediaType: mt, params: params, header: header, body: b})
}
