package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proofgate/proofgate/internal/testenv/wallet"
)

// clusterCaddyfile is one instance of a cluster: its own port and admin
// endpoint, the shared storage directory, the local backend with cluster
// locks, and mail to the test's SMTP server.
const clusterCaddyfile = `{
	admin 127.0.0.1:{$ADMIN_PORT}
	storage file_system {$DATA}
	grace_period 1s
}

http://127.0.0.1:{$PORT} {
	proofgate {
		backend local local {
			public_url http://127.0.0.1:{$PORT}
			cluster
			allow_private_endpoints
		}
		email {
			smtp {$SMTP}
			tls none
			from "Cluster Verifier <noreply@verifier.example>"
			retry_backoff 1s
		}
		auth {
			api_key {env.CLUSTER_KEY} org *
		}
	}
	respond "not found" 404
}
`

const clusterKey = "cluster-test-key-0123456789abcdef"

// clusterNode is one Caddy process of the cluster.
type clusterNode struct {
	url  string
	cmd  *exec.Cmd
	logs *lockedBuffer
}

// startCluster starts n Caddy processes (the built binary) sharing one
// file_system storage directory.
func startCluster(t *testing.T, n int, smtpAddr string) ([]*clusterNode, string) {
	t.Helper()
	bin := caddyBinary(t)
	data := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(cfg, []byte(clusterCaddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	var nodes []*clusterNode
	for range n {
		port := freePort(t)
		admin, home := freePort(t, port), t.TempDir()
		cmd := exec.Command(bin, "run", "--config", cfg, "--adapter", "caddyfile")
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home,
			fmt.Sprintf("PORT=%d", port), fmt.Sprintf("ADMIN_PORT=%d", admin), "DATA="+data, "SMTP="+smtpAddr,
			"CLUSTER_KEY="+clusterKey)
		node := &clusterNode{url: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, logs: new(lockedBuffer)}
		cmd.Stdout, cmd.Stderr = node.logs, node.logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(node.stop)
		nodes = append(nodes, node)
	}
	for _, node := range nodes {
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp, err := noKeepAlive.Get(node.url + "/")
			if err == nil {
				resp.Body.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s did not start: %v\n%s", node.url, err, node.logs)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nodes, data
}

func (n *clusterNode) stop() {
	if n.cmd.ProcessState != nil {
		return
	}
	stopProcess(n.cmd)
}

func (n *clusterNode) post(t *testing.T, path, body string, headers ...string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, n.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+clusterKey)
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	resp, err := noKeepAlive.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestCluster runs two Caddy processes on one storage directory: a record
// made on one takes the presentation on the other, concurrent accepts on
// both give exactly one 200, one Idempotency-Key sent to both makes one
// record, and each queued mail is sent once.
func TestCluster(t *testing.T) {
	sink := startSMTP(t)
	nodes, data := startCluster(t, 2, sink.addr)
	a, b := nodes[0], nodes[1]
	const org = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

	t.Run("created on one, presented and accepted on the other", func(t *testing.T) {
		status, body := a.post(t, oobPath(org, "indy"), indyBody)
		if status != http.StatusCreated {
			t.Fatalf("create on A: %d %s\n%s", status, body, a.logs)
		}
		var created struct {
			Data struct {
				ProofRecordID     string `json:"proofRecordId"`
				LongInvitationURL string `json:"longInvitationUrl"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &created); err != nil {
			t.Fatal(err)
		}
		w := wallet.NewT(t, wallet.Options{})
		inv := w.ReadInvitation(created.Data.LongInvitationURL)
		payload, err := wallet.AutoPresentation(inv, map[string]any{"name": "Alice", "age": 30})
		if err != nil {
			t.Fatal(err)
		}
		env := w.Present(inv, payload, false)
		// The invitation names A's endpoint; the wallet's message reaches B.
		st, resp, err := wallet.Post(context.Background(), noKeepAlive, b.url+"/didcomm", env)
		if err != nil || st != http.StatusAccepted {
			t.Fatalf("presentation to B: %d %s %v\n%s", st, resp, err, b.logs)
		}

		// Concurrent accepts on both instances: exactly one 200.
		var mu sync.Mutex
		codes := map[int]int{}
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, _ := nodes[i%2].post(t, acceptPath(created.Data.ProofRecordID), "")
				mu.Lock()
				codes[status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if codes[http.StatusOK] != 1 || codes[http.StatusConflict] != 5 {
			t.Fatalf("accepts across the cluster: %v, want one 200 and five 409", codes)
		}
	})

	t.Run("one Idempotency-Key sent to both makes one record", func(t *testing.T) {
		before := countDocs(t, data, "records")
		var mu sync.Mutex
		answers := map[string]int{}
		codes := map[int]int{}
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, body := nodes[i%2].post(t, oobPath(org, "indy"), indyBody, "Idempotency-Key: cluster-retry-1")
				mu.Lock()
				codes[status]++
				if status == http.StatusCreated {
					answers[string(body)]++
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		if codes[http.StatusCreated]+codes[http.StatusConflict] != 8 || len(answers) != 1 {
			t.Fatalf("statuses %v, %d distinct 201 answers", codes, len(answers))
		}
		if n := countDocs(t, data, "records") - before; n != 1 {
			t.Fatalf("%d records from one key, want 1", n)
		}
		// Once done, both instances replay it.
		for _, n := range nodes {
			if status, body := n.post(t, oobPath(org, "indy"), indyBody, "Idempotency-Key: cluster-retry-1"); status != http.StatusCreated || answers[string(body)] == 0 {
				t.Errorf("replay on %s: %d %s", n.url, status, body)
			}
		}
	})

	t.Run("each queued mail is sent once", func(t *testing.T) {
		recipients := []string{"ann@example.org", "bob@example.org", "cat@example.org", "dan@example.org"}
		list, _ := json.Marshal(recipients)
		body := strings.Replace(indyBody, `"isShortenUrl":false`, `"isShortenUrl":false,"emailId":`+string(list), 1)
		if status, resp := a.post(t, oobPath(org, "indy"), body); status != http.StatusCreated {
			t.Fatalf("create with mail: %d %s", status, resp)
		}
		// Both deliverers watch the shared outbox; count every delivery
		// until well past the retry backoff.
		sent := map[string]int{}
		deadline := time.After(60 * time.Second)
		quiet := time.NewTimer(time.Hour)
		for done := false; !done; {
			select {
			case to := <-sink.got:
				sent[to]++
				if len(sent) == len(recipients) {
					quiet.Reset(4 * time.Second)
				}
			case <-quiet.C:
				done = true
			case <-deadline:
				t.Fatalf("mails sent: %v", sent)
			}
		}
		for _, to := range recipients {
			if sent[to] != 1 {
				t.Errorf("%s got %d mails, want 1 (all: %v)", to, sent[to], sent)
			}
		}
	})
}
