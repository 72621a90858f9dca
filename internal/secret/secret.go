// Package secret tells whether a configured secret (an API key, a token, a
// password) is written literally in the config, where Caddy's admin API
// (GET /config/), its autosave.json and debug logs show it, and warns once
// per such secret when a module is provisioned. Secrets given as runtime
// placeholders ({env.NAME}, {file./run/secrets/name}) stay placeholders in
// the config and are resolved only in the module's memory.
package secret

import (
	"net"
	"net/netip"
	"net/url"
	"strings"

	"go.uber.org/zap"
)

// IsLiteral reports whether v, a configured secret, is written in plain
// text: not empty, and not a {…} placeholder resolved at load. A Caddyfile's
// {$NAME} is substituted when the Caddyfile is adapted, so it is literal by
// the time the JSON config exists; this sees only what is left.
func IsLiteral(v string) bool {
	return v != "" && !strings.Contains(v, "{")
}

// WarnLiteral logs, once, that the secret named what is in plain text in
// the config, if it is.
func WarnLiteral(logger *zap.Logger, what, configured string) {
	if logger == nil || !IsLiteral(configured) {
		return
	}
	logger.Warn("a secret is written in plain text in the config: Caddy's admin API (GET /config/), autosave.json and debug logs show it; "+
		"give it as {env.NAME} or {file./path} (or, for an API key, a sha256: digest)", zap.String("secret", what))
}

// LoopbackPeer reports whether a request's TCP peer (http.Request's
// RemoteAddr: the connection, never a forwarding header) is a loopback
// address.
func LoopbackPeer(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// CleartextRemote reports whether u is plain http to a host that is not
// loopback ("localhost" or a loopback IP): tokens sent there, and what
// comes back, cross the network readable and changeable. Such URLs are
// refused at load unless the option that owns them says insecure_http.
func CleartextRemote(u *url.URL) bool {
	if u == nil || !strings.EqualFold(u.Scheme, "http") {
		return false
	}
	return !LoopbackHost(u.Hostname())
}

// LoopbackHost reports whether host (a name or an IP, without port) is
// loopback. Only the name "localhost" counts among names: others could
// resolve anywhere.
func LoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
