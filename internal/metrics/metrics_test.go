package metrics

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

func TestCallPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/didcomm/proofs/create-request-oob", "/didcomm/proofs/create-request-oob"},
		{"/didcomm/proofs/3fa85f64-5717-4562-b3fc-2c963f66afa6/accept-presentation", "/didcomm/proofs/{id}/accept-presentation"},
		{"/present-proof-2.0/records/3fa85f64-5717-4562-b3fc-2c963f66afa6/verify-presentation", "/present-proof-2.0/records/{id}/verify-presentation"},
		{"/multi-tenancy/proofs/abc1/accept-presentation/tenant-7", "/multi-tenancy/proofs/{id}/accept-presentation/{id}"},
		{"/multitenancy/wallet/" + strings.Repeat("w", 50) + "/token", "/multitenancy/wallet/{id}/token"},
		{"", ""}, {"/", "/"}, {"/didcomm/proofs/", "/didcomm/proofs/"}, {"//x1//", "//{id}//"},
		// Ids without a digit: a UUID of the letters a–f (a caller's
		// record id), an upper-case or escaped registry id.
		{"/didcomm/proofs/bbbbbbbb-cccc-dddd-eeee-ffffffffffff", "/didcomm/proofs/{id}"},
		{"/didcomm/proofs/abcdefab-cdef-abcd-efab-cdefabcdefab/accept-presentation", "/didcomm/proofs/{id}/accept-presentation"},
		{"/anoncreds/schemas/Schema", "/anoncreds/schemas/{id}"},
		{"/anoncreds/schemas/did:web:example.com", "/anoncreds/schemas/{id}"},
	} {
		if got := CallPath(tc.in); got != tc.want {
			t.Errorf("CallPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAgentCallObserverCached: calls that differ only in their ids share
// one series and one cached observer; every call is counted.
func TestAgentCallObserverCached(t *testing.T) {
	const agent = "acapy http://cached.test"
	count := func(outcome string) uint64 {
		var m dto.Metric
		if err := agentCalls.WithLabelValues(agent, "POST /present-proof-2.0/records/{id}/verify-presentation", outcome).(prometheus.Histogram).Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetHistogram().GetSampleCount()
	}
	for _, id := range []string{"3fa85f64-5717-4562-b3fc-2c963f66afa6", "0b8f6f0e-3f4e-4c8a-9a43-7f1f0d2f9e10", "3fa85f64-5717-4562-b3fc-2c963f66afa6"} {
		ObserveAgentCall(agent, "POST", "/present-proof-2.0/records/"+id+"/verify-presentation", 200, time.Millisecond)
	}
	ObserveAgentCall(agent, "POST", "/present-proof-2.0/records/x1/verify-presentation", 400, time.Millisecond)
	if got := count("2xx"); got != 3 {
		t.Errorf("2xx calls counted %d times, want 3", got)
	}
	if got := count("4xx"); got != 1 {
		t.Errorf("4xx calls counted %d times, want 1", got)
	}
	if n := cachedObservers(agent); n != 2 {
		t.Errorf("%d cached observers for the agent, want 2 (one per outcome)", n)
	}
	ForgetAgent(agent) // leave the other tests' series alone
}

func cachedObservers(agent string) int {
	agentCallObservers.RLock()
	defer agentCallObservers.RUnlock()
	n := 0
	for k := range agentCallObservers.m {
		if strings.HasPrefix(k, agent+"\x00") {
			n++
		}
	}
	return n
}

// agentSeries counts the agent_call_duration_seconds series of agent.
func agentSeries(t *testing.T, agent string) int {
	t.Helper()
	ch := make(chan prometheus.Metric, 64)
	go func() { agentCalls.Collect(ch); close(ch) }()
	n := 0
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		for _, l := range d.GetLabel() {
			if l.GetName() == "agent" && l.GetValue() == agent {
				n++
			}
		}
	}
	return n
}

// An agent a reload removed leaves no series behind, a call of it that
// ends afterwards brings none back, and an agent a config uses again is
// counted again (its cached observers went with its series).
func TestForgetAgent(t *testing.T) {
	const gone, kept = "credo http://gone.test", "credo http://kept.test"
	for _, a := range []string{gone, kept} {
		ObserveAgentCall(a, "GET", "/proofs/3fa85f64-5717-4562-b3fc-2c963f66afa6", 200, time.Millisecond)
		ObserveAgentCall(a, "POST", "/proofs/create-request-oob", 0, time.Millisecond)
	}
	ForgetAgent(gone)
	if n := agentSeries(t, gone); n != 0 {
		t.Errorf("%d series of a forgotten agent, want none", n)
	}
	if n := cachedObservers(gone); n != 0 {
		t.Errorf("%d cached observers of a forgotten agent, want none", n)
	}
	if n := agentSeries(t, kept); n != 2 {
		t.Errorf("%d series of the other agent, want 2", n)
	}
	ObserveAgentCall(gone, "GET", "/proofs/3fa85f64-5717-4562-b3fc-2c963f66afa6", 200, time.Millisecond)
	if n := agentSeries(t, gone); n != 0 {
		t.Errorf("%d series after a late call of a forgotten agent, want none", n)
	}
	set := false
	IfAgentUsed(gone, func() { set = true })
	if set {
		t.Error("IfAgentUsed ran for a forgotten agent")
	}
	UseAgent(gone)
	ObserveAgentCall(gone, "GET", "/proofs/3fa85f64-5717-4562-b3fc-2c963f66afa6", 200, time.Millisecond)
	if n := agentSeries(t, gone); n != 1 {
		t.Errorf("%d series once a config uses the agent again, want 1", n)
	}
	IfAgentUsed(gone, func() { set = true })
	if !set {
		t.Error("IfAgentUsed did not run for an agent in use")
	}
	ForgetAgent(gone)
	ForgetAgent(kept)
	ForgetAgent("never seen") // harmless
}

func TestBoundedLabels(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{ValidationField("isShortenUrl: is required"), "isShortenUrl"},
		{ValidationField("proofFormats.indy.requested_attributes.a: unknown field"), "proofFormats"},
		{ValidationField("presentationDefinition[0].id: is required"), "presentationDefinition"},
		{ValidationField("emailId[2]: not an address"), "emailId"},
		{ValidationField("surprise: unknown field"), "other"},
		{ValidationField("x-" + strings.Repeat("z", 500)), "other"},
		{AuthReason("token expired"), "token_expired"},
		{AuthReason(AuthMissing), "missing"},
		{AuthReason("something new"), "other"},
		{Class(201), "2xx"}, {Class(302), "3xx"}, {Class(409), "4xx"}, {Class(503), "5xx"}, {Class(0), "other"},
		{bounded("webhook", KindMail, KindWebhook), "webhook"}, {bounded("sms", KindMail, KindWebhook), "other"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestHelpersCount: every helper records in its collector, with input
// mapped onto the bounded label sets.
func TestHelpersCount(t *testing.T) {
	// The collectors are the package's, and some helpers keep their
	// series resolved: compare with the values before, so the test holds
	// when run again (-count) or after others.
	val := testutil.ToFloat64
	reqs := func() float64 {
		return collected(t, requestCollector{}, "caddy_proofgate_requests_total", "operation", OpSendOOB, "backend", NoBackend, "code", "401", "class", "4xx")
	}
	pres, other := didcommMessages.WithLabelValues(In, "presentation", Accepted), didcommMessages.WithLabelValues(In, "other", "other")
	mail, mailOut := mailAttempts.WithLabelValues(Sent), outboxDeliveries.WithLabelValues(KindMail, Sent)
	verif, jwks := verifications.WithLabelValues("dif", AnswersRequest), jwksFetches.WithLabelValues("other")
	r0, p0, o0, m0, mo0, v0, j0 := reqs(), val(pres), val(other), val(mail), val(mailOut), val(verif), val(jwks)

	ObserveRequest(OpSendOOB, "", 401, time.Millisecond)
	ObserveRequest(OpSendOOB, "", 401, time.Millisecond)
	if got := reqs() - r0; got != 2 {
		t.Errorf("requests %v", got)
	}
	DIDCommMessage(In, "https://didcomm.org/present-proof/2.0/presentation", Accepted)
	DIDCommMessage(In, "https://example.org/made-up/9.9/thing", "weird")
	if got := val(pres) - p0; got != 1 {
		t.Errorf("didcomm presentation %v", got)
	}
	if got := val(other) - o0; got != 1 {
		t.Errorf("didcomm other %v", got)
	}
	// The legacy mail counter only: the outbox counts the delivery itself.
	MailAttempt(Sent)
	if val(mail)-m0 != 1 || val(mailOut)-mo0 != 0 {
		t.Error("mail attempt counted in the outbox's delivery counter too")
	}
	OutboxDelivery(KindMail, Sent)
	if val(mailOut)-mo0 != 1 {
		t.Error("outbox delivery not counted")
	}
	ObserveAgentCall("credo http://a", "POST", "/didcomm/proofs/3fa85f64-5717-4562-b3fc-2c963f66afa6/accept-presentation", 0, time.Second)
	if n := testutil.CollectAndCount(agentCalls, "caddy_proofgate_agent_call_duration_seconds"); n != 1 {
		t.Errorf("%d agent call series", n)
	}
	Verification("dif", AnswersRequest)
	JWKSFetch("bogus")
	if val(verif)-v0 != 1 || val(jwks)-j0 != 1 {
		t.Error("verification or JWKS not counted")
	}
}

// TestOutboxCollector: backlogs of one kind add up, the oldest wins, every
// kind is reported, and a stopped outbox is no longer asked.
func TestOutboxCollector(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	o := &outboxCollector{depth: outboxes.depth, age: outboxes.age, now: func() time.Time { return now }}
	saved := outboxes
	outboxes = o
	defer func() { outboxes = saved }()
	stop1 := ReportOutbox(KindMail, func() (int, time.Time) { return 2, now.Add(-time.Minute) })
	stop2 := ReportOutbox(KindMail, func() (int, time.Time) { return 3, now.Add(-time.Hour) })
	defer stop2()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(o)
	want := `
# HELP caddy_proofgate_outbox_depth Messages waiting in the outbox (queued or being delivered), by kind (mail, webhook, ack).
# TYPE caddy_proofgate_outbox_depth gauge
caddy_proofgate_outbox_depth{kind="ack"} 0
caddy_proofgate_outbox_depth{kind="mail"} 5
caddy_proofgate_outbox_depth{kind="webhook"} 0
# HELP caddy_proofgate_outbox_oldest_age_seconds Age of the oldest message waiting in the outbox, by kind; 0 when none waits.
# TYPE caddy_proofgate_outbox_oldest_age_seconds gauge
caddy_proofgate_outbox_oldest_age_seconds{kind="ack"} 0
caddy_proofgate_outbox_oldest_age_seconds{kind="mail"} 3600
caddy_proofgate_outbox_oldest_age_seconds{kind="webhook"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	stop1()
	stop1() // twice is fine
	if n := o.sources.len(); n != 1 {
		t.Fatalf("%d sources after stop, want 1", n)
	}
}

// TestOwnersCollector: open logs add up; a closed one is no longer asked.
func TestOwnersCollector(t *testing.T) {
	o := &summedPair{first: owners.first, second: owners.second, firstType: owners.firstType, secondType: owners.secondType}
	saved := owners
	owners = o
	defer func() { owners = saved }()
	stop1 := ReportOwners(func() (int, uint64) { return 10, 2 })
	stop2 := ReportOwners(func() (int, uint64) { return 5, 0 })
	defer stop2()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(o)
	want := `
# HELP caddy_proofgate_record_owners Owners of records created through agents held in memory (about 55 bytes each): which org created each record, for authorizing accepts. owner_retention bounds them.
# TYPE caddy_proofgate_record_owners gauge
caddy_proofgate_record_owners 15
# HELP caddy_proofgate_record_owners_expired_total Owners of records created through agents removed for being past owner_retention.
# TYPE caddy_proofgate_record_owners_expired_total counter
caddy_proofgate_record_owners_expired_total 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	stop1()
	if err := testutil.GatherAndCompare(reg, strings.NewReader(strings.NewReplacer(" 15\n", " 5\n", " 2\n", " 0\n").Replace(want))); err != nil {
		t.Fatal(err)
	}
}

// TestRegisterTwice: a config reload registers the same collectors with a
// fresh registry, and registering twice in one is fine too.
func TestRegisterTwice(t *testing.T) {
	for range 2 {
		reg := prometheus.NewPedanticRegistry()
		if err := Register(reg); err != nil {
			t.Fatal(err)
		}
		if err := Register(reg); err != nil {
			t.Fatal(err)
		}
		if _, err := reg.Gather(); err != nil {
			t.Fatal(err)
		}
	}
	if err := Register(nil); err != nil {
		t.Fatal(err)
	}
}

func TestNames(t *testing.T) {
	names := Names()
	for _, want := range []string{"caddy_proofgate_requests_total", "caddy_proofgate_request_duration_seconds", "caddy_proofgate_outbox_oldest_age_seconds"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() lacks %s: %v", want, names)
		}
	}
}

// TestValidationFieldIndex: the switch names each field of the table by
// its place, and anything else as other.
func TestValidationFieldIndex(t *testing.T) {
	for i, field := range validationFields {
		for _, problem := range []string{field + ": x", field + ".a: x", field + "[0]: x", field} {
			if got := validationFieldIndex(problem); got != i {
				t.Errorf("%q: %d, want %d", problem, got, i)
			}
		}
	}
	for _, problem := range []string{"", "isShortenUr: x", "isShortenUrlx: x", "Label: x", ": x"} {
		if got := validationFieldIndex(problem); got != len(validationFields) {
			t.Errorf("%q: %d, want other", problem, got)
		}
	}
}

// TestValidationFailuresCounters: each problem counts once in its field's
// series, unknown fields in "other", and a series appears only once
// counted.
func TestValidationFailuresCounters(t *testing.T) {
	val := func(field string) float64 {
		return collected(t, validationFailures, "caddy_proofgate_validation_failures_total", "field", field)
	}
	label, email, other := val("label"), val("emailId"), val("other")
	for range 3 {
		// Counted in runs of one field; a field may come back later.
		ValidationFailures([]string{"label: must be a string", "emailId[0]: bad", "emailId[1]: bad", "surprise: unknown field", "label: again"})
	}
	for field, want := range map[string]float64{"label": label + 6, "emailId": email + 6, "other": other + 3} {
		if got := val(field); got != want {
			t.Errorf("%s: %v, want %v", field, got, want)
		}
	}
	for i, field := range validationFailures.values {
		if validationFailures.count(i) == 0 && present(t, validationFailures, "caddy_proofgate_validation_failures_total", "field", field) {
			t.Errorf("series %s exported with no count", field)
		}
	}
}

// TestAuthFailureCounters: reasons count in their own series (kept after
// the first), spelled with underscores; unknown reasons in "other".
func TestAuthFailureCounters(t *testing.T) {
	val := func(reason string) float64 {
		return collected(t, authFailures, "caddy_proofgate_auth_failures_total", "reason", reason)
	}
	missing, expired, other := val(AuthMissing), val("token_expired"), val(AuthOther)
	for range 2 {
		AuthFailure(AuthMissing)
		AuthFailure("token expired")
		AuthFailure("something new")
	}
	for reason, want := range map[string]float64{AuthMissing: missing + 2, "token_expired": expired + 2, AuthOther: other + 2} {
		if got := val(reason); got != want {
			t.Errorf("%s: %v, want %v", reason, got, want)
		}
	}
}

// TestRequestSeries: answers before a backend and answers of a backend
// count in the series of their labels, however they are found.
func TestRequestSeries(t *testing.T) {
	val := func(op, backend, code, class string) float64 {
		return collected(t, requestCollector{}, "caddy_proofgate_requests_total", "operation", op, "backend", backend, "code", code, "class", class)
	}
	e0, s0, o0 := val(OpAccept, NoBackend, "400", "4xx"), val(OpAccept, "credo", "200", "2xx"), val(OpShortURL, NoBackend, "404", "4xx")
	for range 3 {
		ObserveRequest(OpAccept, "", 400, time.Millisecond)
		ObserveRequest(OpAccept, "credo", 200, time.Millisecond)
		ObserveRequest(OpShortURL, NoBackend, 404, time.Millisecond)
	}
	early, served, odd := val(OpAccept, NoBackend, "400", "4xx")-e0, val(OpAccept, "credo", "200", "2xx")-s0, val(OpShortURL, NoBackend, "404", "4xx")-o0
	if early != 3 || served != 3 || odd != 3 {
		t.Errorf("counted %v, %v, %v; want 3 each", early, served, odd)
	}
}

// seriesCollector exports one request series, as requestCollector
// exports each of its own.
type seriesCollector struct {
	s           *requestSeries
	op, backend string
}

func (seriesCollector) Describe(ch chan<- *prometheus.Desc)   { requestCollector{}.Describe(ch) }
func (c seriesCollector) Collect(ch chan<- prometheus.Metric) { c.s.collect(ch, c.op, c.backend) }

// TestRequestSeriesExposition: a series reads as client_golang's counter
// vector and histogram vector did (names, help, labels, buckets, counts
// and sum), statuses outside 100–599 as "other", and nothing before its
// first request.
func TestRequestSeriesExposition(t *testing.T) {
	s := new(requestSeries)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(seriesCollector{s, OpSendOOB, NoBackend})
	if err := testutil.GatherAndCompare(reg, strings.NewReader("")); err != nil {
		t.Fatalf("a series with no request: %v", err)
	}
	s.observe(401, 300*time.Microsecond)
	s.observe(401, 500*time.Microsecond) // on a bound: counted in it
	s.observe(400, 2*time.Millisecond)
	s.observe(0, time.Minute) // longer than the last bound: +Inf only
	s.observe(999, -time.Second)
	want := `
# HELP caddy_proofgate_request_duration_seconds Time to answer proofgate's routes, by operation and backend (agent calls included).
# TYPE caddy_proofgate_request_duration_seconds histogram
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.0005"} 3
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.001"} 3
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.0025"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.005"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.01"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.025"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.05"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.1"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.25"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="0.5"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="1"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="2.5"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="5"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="10"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="30"} 4
caddy_proofgate_request_duration_seconds_bucket{backend="none",operation="send_oob",le="+Inf"} 5
caddy_proofgate_request_duration_seconds_sum{backend="none",operation="send_oob"} 60.0028
caddy_proofgate_request_duration_seconds_count{backend="none",operation="send_oob"} 5
# HELP caddy_proofgate_requests_total Requests to proofgate's routes, by operation, backend (its configured name, or none when answered before one was chosen), HTTP status code and class (2xx, 3xx, 4xx, 5xx).
# TYPE caddy_proofgate_requests_total counter
caddy_proofgate_requests_total{backend="none",class="4xx",code="400",operation="send_oob"} 1
caddy_proofgate_requests_total{backend="none",class="4xx",code="401",operation="send_oob"} 2
caddy_proofgate_requests_total{backend="none",class="other",code="other",operation="send_oob"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

// collected is the value of the series named name with the given labels
// (name, value, …) that collector c exports: a counter's value or a
// histogram's sample count, 0 when c exports no such series. It gathers
// through a pedantic registry, which also checks c against what it
// describes.
func collected(t *testing.T, c prometheus.Collector, name string, labels ...string) float64 {
	t.Helper()
	m := find(t, c, name, labels...)
	switch {
	case m == nil:
		return 0
	case m.GetHistogram() != nil:
		return float64(m.GetHistogram().GetSampleCount())
	}
	return m.GetCounter().GetValue()
}

// present reports whether c exports the series named name with labels.
func present(t *testing.T, c prometheus.Collector, name string, labels ...string) bool {
	t.Helper()
	return find(t, c, name, labels...) != nil
}

func find(t *testing.T, c prometheus.Collector, name string, labels ...string) *dto.Metric {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
					return l.GetName() == labels[i] && l.GetValue() == labels[i+1]
				}) {
					continue metrics
				}
			}
			return m
		}
	}
	return nil
}
