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
	agentCallObservers.Lock()
	n := 0
	for k := range agentCallObservers.m {
		if strings.HasPrefix(k, agent+"\x00") {
			n++
			delete(agentCallObservers.m, k) // leave the other tests' series alone
		}
	}
	agentCallObservers.Unlock()
	agentCalls.DeletePartialMatch(prometheus.Labels{"agent": agent})
	if n != 2 {
		t.Errorf("%d cached observers for the agent, want 2 (one per outcome)", n)
	}
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
	reqs := requests.WithLabelValues(OpSendOOB, NoBackend, "401", "4xx")
	pres, other := didcommMessages.WithLabelValues(In, "presentation", Accepted), didcommMessages.WithLabelValues(In, "other", "other")
	mail, mailOut := mailAttempts.WithLabelValues(Sent), outboxDeliveries.WithLabelValues(KindMail, Sent)
	verif, jwks := verifications.WithLabelValues("dif", AnswersRequest), jwksFetches.WithLabelValues("other")
	r0, p0, o0, m0, mo0, v0, j0 := val(reqs), val(pres), val(other), val(mail), val(mailOut), val(verif), val(jwks)

	ObserveRequest(OpSendOOB, "", 401, time.Millisecond)
	ObserveRequest(OpSendOOB, "", 401, time.Millisecond)
	if got := val(reqs) - r0; got != 2 {
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

// TestValidationFailuresCounters: each problem counts once in its field's
// series (resolved once and kept), unknown fields in "other", and a series
// appears only once counted.
func TestValidationFailuresCounters(t *testing.T) {
	before := func(field string) float64 { return testutil.ToFloat64(validationFailures.WithLabelValues(field)) }
	label, email, other := before("label"), before("emailId"), before("other")
	for range 3 {
		// Counted in runs of one field; a field may come back later.
		ValidationFailures([]string{"label: must be a string", "emailId[0]: bad", "emailId[1]: bad", "surprise: unknown field", "label: again"})
	}
	for field, want := range map[string]float64{"label": label + 6, "emailId": email + 6, "other": other + 3} {
		if got := before(field); got != want {
			t.Errorf("%s: %v, want %v", field, got, want)
		}
	}
	if validationCounter("comment") == nil || validationCounters[slices.Index(validationFields[:], "comment")].Load() == nil {
		t.Error("the comment series was not kept")
	}
	for i, field := range validationFields {
		if field == "comment" {
			continue
		}
		if c := validationCounters[i].Load(); c != nil && testutil.ToFloat64(*c) == 0 {
			t.Errorf("series %s kept with no count", field)
		}
	}
}

// TestAuthFailureCounters: reasons count in their own series (kept after
// the first), spelled with underscores; unknown reasons in "other".
func TestAuthFailureCounters(t *testing.T) {
	val := func(reason string) float64 { return testutil.ToFloat64(authFailures.WithLabelValues(reason)) }
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
	val := testutil.ToFloat64
	early, served, odd := requests.WithLabelValues(OpAccept, NoBackend, "400", "4xx"),
		requests.WithLabelValues(OpAccept, "credo", "200", "2xx"), requests.WithLabelValues(OpShortURL, NoBackend, "404", "4xx")
	e0, s0, o0 := val(early), val(served), val(odd)
	for range 3 {
		ObserveRequest(OpAccept, "", 400, time.Millisecond)
		ObserveRequest(OpAccept, "credo", 200, time.Millisecond)
		ObserveRequest(OpShortURL, NoBackend, 404, time.Millisecond)
	}
	if val(early)-e0 != 3 || val(served)-s0 != 3 || val(odd)-o0 != 3 {
		t.Errorf("counted %v, %v, %v; want 3 each", val(early)-e0, val(served)-s0, val(odd)-o0)
	}
}
