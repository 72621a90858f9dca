package mail

// attempt composes and sends m once; nil means the server accepted it.
func (d *Deliverer) attempt(m Message) *attemptError {
	msg, err := d.composer.compose(m, d.now())
	if err != nil {
		return &attemptError{permanent: true, text: "composing the message failed", err: err}
	}
	err = d.smtp.send(msg)
	if err == nil || msg.IsDelivered() {
		// Accepted: a failure after that (RSET, QUIT) is not the message's.
		return nil
	}
	return classify(err)
}
