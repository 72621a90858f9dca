// Package netguard is the outbound address guard: the one HTTP client for
// every URL that input from the internet can choose (a prover's DIDComm
// endpoint, a webhook receiver, a did:web document, a status list). It
// refuses, after DNS resolution and at dial time, every address that is
// not public unicast, so a name that resolves (or later re-resolves) to
// 10.0.0.1 or 169.254.169.254 is refused as well as the literal.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress means a destination resolved to an address the guard
// refuses.
var ErrForbiddenAddress = errors.New("endpoint address is not public")

// Options shape a guarded client.
type Options struct {
	// AllowPrivate turns the guard off (loopback tests, private
	// deployments where every peer is on the internal network).
	AllowPrivate bool
	// Timeout bounds dialing, the TLS handshake, waiting for the response
	// headers and the whole exchange.
	Timeout time.Duration
	// FollowRedirects lets the client follow up to 3 redirects; each hop
	// is dialed through the guard again. Off by default: a 3xx is the
	// answer.
	FollowRedirects bool
}

// Client returns an HTTP client whose dialer applies the guard. It uses no
// proxy from the environment (the guard must see the real destination).
func Client(o Options) *http.Client {
	dialer := &net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second}
	if !o.AllowPrivate {
		dialer.Control = dialControl
	}
	c := &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          16,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       60 * time.Second,
			TLSHandshakeTimeout:   o.Timeout,
			ResponseHeaderTimeout: o.Timeout,
		},
		Timeout: o.Timeout,
	}
	if o.FollowRedirects {
		c.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("too many redirects")
			}
			return nil
		}
	} else {
		c.CheckRedirect = NoRedirects
	}
	return c
}

// NoRedirects is an http.Client's CheckRedirect that follows none: a 3xx
// is the answer. Clients of endpoints the operator configured use it too
// (the JWKS URL, AnonCreds registry sources, the universal resolver): a
// redirect would take the request, and headers such as an agent's
// X-API-Key that Go forwards across hosts, somewhere the operator did not
// name.
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// dialControl refuses connections to non-public addresses. It runs after
// name resolution, on the address actually dialed.
func dialControl(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, host)
	}
	if !PublicAddr(ip) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, ip)
	}
	return nil
}

// nonPublic lists special-purpose ranges (RFC 6890 and successors) that
// netip's predicates do not already cover.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // CGNAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2001::/23"), // IETF protocol assignments (Teredo and co.)
	netip.MustParsePrefix("2002::/16"), // 6to4 embeds any IPv4 address
	netip.MustParsePrefix("fec0::/10"), // deprecated site-local (RFC 3879), still routed internally
}

// embedsIPv4 are IPv6 prefixes whose low 32 bits carry an IPv4 address
// that a translator or a dual stack may reach: the guard judges the IPv4
// address instead.
var embedsIPv4 = []netip.Prefix{
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64 well-known prefix (RFC 6052)
	netip.MustParsePrefix("64:ff9b:1::/96"), // local-use NAT64 (RFC 8215) with a /96 translator
	netip.MustParsePrefix("::/96"),          // IPv4-compatible (deprecated, RFC 4291)
}

// localNAT64 is RFC 8215's local-use prefix. Its translators may use
// RFC 6052 prefixes of /48 to /96, which place the IPv4 address in other
// bytes (around the u octet) than the low 32 bits; only the /96 layout is
// read (embedsIPv4), and the rest of the prefix is refused: which IPv4
// address it reaches depends on the translator.
var localNAT64 = netip.MustParsePrefix("64:ff9b:1::/48")

// PublicAddr reports whether ip is a public unicast address: not
// loopback, private, link-local, multicast, unspecified, CGNAT,
// documentation or reserved, also when IPv4 hides inside IPv6. A scoped
// address (an IPv6 zone, "%eth0") is never public: a zone names an
// interface of this host, and netip's prefix checks take no zoned
// address as inside any range, so every range below would pass.
func PublicAddr(ip netip.Addr) bool {
	if ip.Zone() != "" {
		return false
	}
	ip = ip.Unmap()
	for _, p := range embedsIPv4 {
		if ip.Is6() && p.Contains(ip) {
			b := ip.As16()
			return PublicAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		}
	}
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || localNAT64.Contains(ip) {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}
