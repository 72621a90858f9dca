// Package outbox is proofgate's one durable outbox: messages of several
// kinds (invitation e-mails, webhook events, DIDComm acks) written to Caddy
// storage before the request that made them is answered, then delivered by
// pooled workers with exponential backoff and jitter until they succeed,
// fail permanently, or run out of attempts.
//
// A message is one JSON document at proofgate/<namespace>/<id>.json
// holding its kind, its payload and its delivery status. Delivery is
// at-least-once: a worker claims a message (state "sending" with a lease)
// under the storage lock, so workers of instances sharing the storage do
// not both deliver it in the common case; a worker that dies mid-delivery
// leaves a claim whose lease expires, and the message is tried again.
// Delivery functions must therefore be idempotent at the receiver (a
// stable message id the receiver can deduplicate on).
//
// A message made by a request that may still fail is staged
// (Outbox.Stage): it is held until that request commits and releases it
// with Deliverer.Notify(id), so one request's success never sends the
// messages of another still running (which may yet Cancel them). A
// release lives in memory; a staged message whose release was lost (the
// process died) goes out when its hold ends (DefaultHold).
//
// A notification is staged before the change it announces is stored, so
// a message that names that change (Change) is sent only once the change
// is confirmed (ConfirmFunc.Check, the one check webhooks and e-mails
// share); one whose change never happened is dropped.
//
// Each kind has its own delivery function (Deliverer.Handle); the
// deliverer's scheduler, retry policy, retention and claims are shared.
package outbox
