// Package mail delivers proof-request invitations by e-mail. A message is
// first written to an outbox in Caddy storage (one durable write, before the
// HTTP 201), then sent over SMTP by a Deliverer with retries and backoff, so
// a mail server that is down or slow never loses a request: the message
// waits in storage, across restarts, until it is sent or has failed for
// good. Each mail carries the invitation URL as a link and as an inline QR
// code. A message is held until its request succeeds (Deliverer.Notify
// with its id): another request's success never sends it, so a request
// that fails can still withdraw its mails (Outbox.Cancel).
//
// The queue is proofgate's one outbox (internal/outbox), with messages of
// kind "email"; this package composes and sends them over SMTP.
//
// Delivery is at-least-once: a process that dies after the server accepted
// a message but before it recorded that may send it again once its claim
// expires. Claims are guarded by the storage's lock, so instances sharing
// storage do not both send a message in the common case.
package mail
