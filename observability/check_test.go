// Package observability holds the example Grafana dashboard and the
// Prometheus rules for proofgate's SLOs; its tests check their syntax
// (with promtool where Debian's prometheus package provides it, else a
// structural check) and that every metric they use is one proofgate
// exports.
package observability

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/proofgate/proofgate"
)

const (
	rulesFile     = "prometheus/proofgate-rules.yml"
	rulesTestFile = "prometheus/proofgate-rules.test.yml"
	dashboardFile = "grafana/proofgate-dashboard.json"
)

var metricRE = regexp.MustCompile(`\bcaddy_proofgate_[a-z_]+`)

// checkMetrics fails for every caddy_proofgate_* name in expr that is not
// exported (histograms' _bucket, _count and _sum series included).
func checkMetrics(t *testing.T, where, expr string) {
	t.Helper()
	names := proofgate.MetricNames()
	for _, m := range metricRE.FindAllString(expr, -1) {
		base := m
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			if b, ok := strings.CutSuffix(m, suffix); ok && slices.Contains(names, b) {
				base = b
			}
		}
		if !slices.Contains(names, base) {
			t.Errorf("%s: %s is not a metric proofgate exports (%v)", where, m, names)
		}
	}
}

type ruleFile struct {
	Groups []struct {
		Name     string `yaml:"name"`
		Interval string `yaml:"interval"`
		Rules    []struct {
			Record      string            `yaml:"record"`
			Alert       string            `yaml:"alert"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func TestAlertRules(t *testing.T) {
	if promtool, err := exec.LookPath("promtool"); err == nil {
		for _, args := range [][]string{{"check", "rules", filepath.Base(rulesFile)}, {"test", "rules", filepath.Base(rulesTestFile)}} {
			cmd := exec.Command(promtool, args...)
			cmd.Dir = filepath.Dir(rulesFile)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	} else {
		t.Log("promtool not installed (apt-get install prometheus): checking the rules' structure only")
	}

	b, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%s: %v", rulesFile, err)
	}
	if len(f.Groups) == 0 {
		t.Fatal("no rule groups")
	}
	records := map[string]bool{}
	var alerts []string
	for _, g := range f.Groups {
		if g.Name == "" || len(g.Rules) == 0 {
			t.Errorf("group %q: a name and rules are required", g.Name)
		}
		for _, r := range g.Rules {
			if (r.Record == "") == (r.Alert == "") || strings.TrimSpace(r.Expr) == "" {
				t.Errorf("group %s: a rule needs exactly one of record and alert, and an expr: %+v", g.Name, r)
			}
			if r.Record != "" {
				records[r.Record] = true
			}
			if r.Alert != "" {
				alerts = append(alerts, r.Alert)
				if r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
					t.Errorf("alert %s: severity label and summary annotation required", r.Alert)
				}
			}
			checkMetrics(t, rulesFile, r.Expr)
		}
	}
	// Every recording rule an alert uses is defined.
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			for _, used := range regexp.MustCompile(`\bproofgate:[a-z0-9_:]+`).FindAllString(r.Expr, -1) {
				if !records[used] {
					t.Errorf("%s uses the undefined recording rule %s", r.Alert+r.Record, used)
				}
			}
		}
	}
	// The SLOs of the README each have an alert.
	for _, want := range []string{"ProofgateHighErrorRatio", "ProofgateErrorBudgetBurn", "ProofgateLocalLatencyHigh", "ProofgateAgentLatencyHigh", "ProofgateOutboxStuck"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s", want)
		}
	}
}

type dashboard struct {
	Title         string `json:"title"`
	UID           string `json:"uid"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		ID      int    `json:"id"`
		Type    string `json:"type"`
		Title   string `json:"title"`
		GridPos struct {
			H, W, X, Y int
		} `json:"gridPos"`
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

func TestDashboard(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if d.Title == "" || d.UID == "" || d.SchemaVersion < 30 || len(d.Panels) == 0 {
		t.Fatalf("title, uid, schemaVersion ≥ 30 and panels are required: %q %q %d %d", d.Title, d.UID, d.SchemaVersion, len(d.Panels))
	}
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	ids := map[int]bool{}
	used := map[string]bool{}
	for _, p := range d.Panels {
		if p.ID == 0 || ids[p.ID] || p.Type == "" || p.Title == "" || p.GridPos.W == 0 || p.GridPos.H == 0 || len(p.Targets) == 0 {
			t.Errorf("panel %d %q: unique id, type, title, gridPos and targets required", p.ID, p.Title)
		}
		ids[p.ID] = true
		for _, tg := range p.Targets {
			if tg.RefID == "" || strings.TrimSpace(tg.Expr) == "" {
				t.Errorf("panel %q: a target without refId or expr", p.Title)
			}
			if strings.Count(tg.Expr, "(") != strings.Count(tg.Expr, ")") {
				t.Errorf("panel %q: unbalanced parentheses in %s", p.Title, tg.Expr)
			}
			for _, v := range regexp.MustCompile(`\$([a-z_]+)`).FindAllStringSubmatch(tg.Expr, -1) {
				if !vars[v[1]] && !strings.HasPrefix(v[1], "__") {
					t.Errorf("panel %q: undefined variable $%s", p.Title, v[1])
				}
			}
			checkMetrics(t, p.Title, tg.Expr)
			for _, m := range metricRE.FindAllString(tg.Expr, -1) {
				used[strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_count")] = true
			}
		}
	}
	// Every metric is on the dashboard.
	for _, name := range proofgate.MetricNames() {
		if !used[name] && name != "caddy_proofgate_mail_attempts_total" { // kept for older dashboards
			t.Errorf("the dashboard does not show %s", name)
		}
	}
}
