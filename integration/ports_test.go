package integration

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"

	"github.com/caddyserver/caddy/v2/caddytest"

	acapyenv "github.com/proofgate/proofgate/internal/testenv/acapy"
)

// The ports of this test binary's Caddy, chosen free at start so that two
// runs on one machine (two clones, two CI jobs) cannot collide.
var (
	httpPort, httpsPort, adminPort string
	adminAddr                      string
	base                           string
)

func TestMain(m *testing.M) {
	ports, err := freePorts(3)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration: no free loopback ports:", err)
		os.Exit(1)
	}
	httpPort, httpsPort, adminPort = ports[0], ports[1], ports[2]
	adminAddr = "localhost:" + adminPort
	base = "http://localhost:" + httpPort
	// acapy.Main stops the ACA-Py agents the tests share (acapy.Shared).
	os.Exit(acapyenv.Main(m))
}

// newTester is caddytest.NewTester on this binary's admin port.
func newTester(t *testing.T) *caddytest.Tester {
	t.Helper()
	p, _ := strconv.Atoi(adminPort)
	return caddytest.NewTester(t).WithDefaultOverrides(caddytest.Config{AdminPort: p})
}

// freePorts asks the kernel for n distinct free TCP ports on loopback. They
// are released before Caddy binds them; the window is small, and the kernel
// does not hand out a just-released ephemeral port again at once.
func freePorts(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	return ports, nil
}
