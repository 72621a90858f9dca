package local

// InvitationBaseURL tells the gateway where this verifier is reachable, so
// that short invitation URLs default to <public_url>/url/<id>.
func (l *Local) InvitationBaseURL() string { return l.PublicURL }
